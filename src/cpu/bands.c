/*
 * One frame of one stream on the CPU, its sides shared with idle pool
 * threads (sq_pool_help): fronts in row bands, covariances in row bands,
 * backs in column bands, each group's eigenvalue problems interleaved.
 */
#include <string.h>

#include "cpu/backend_priv.h"

/*
 * One frame's sides, shared with the pool threads that are idle
 * (sq_pool_help): the fronts are claimed one task at a time, the largest
 * planes first, a task being a side's whole front or, when the frame is
 * shared, one row band of its operating image (sq_cpu_front_band: a side
 * gets bands in proportion to its plane's area, so that every thread has
 * some); the thread that finishes a side's last band joins them, and the
 * thread that finishes the last front of a group (the reference sides, or
 * the distorted ones) runs the rest of that group: its eigenvalue problems
 * interleaved, then its solves, in column bands shared again (group_rest).
 * So nobody waits on another thread mid-frame but the opener of a round
 * for its helpers. No sum crosses a band, so the numbers are the same
 * whoever computes what.
 */
typedef struct FrameSides FrameSides;
struct FrameSides {
    SqCpuSide *side[2 * SQ_MAX_STREAM_JOBS];
    const SqPlan *plan[2 * SQ_MAX_STREAM_JOBS];
    SqSrc src[2 * SQ_MAX_STREAM_JOBS];
    int order[2 * SQ_MAX_STREAM_JOBS];
    int n;
    int nb[2 * SQ_MAX_STREAM_JOBS];                      /* bands of side q (1: whole) */
    uint8_t task[2 * SQ_MAX_STREAM_JOBS * SQ_CPU_BANDS][2]; /* (side, band), claimed in order */
    int ntask;
    Worker *w; /* pool thread t's scratch: w[t].vrow (bands run on pool threads only) */
    atomic_int next;
    atomic_int bands_left[2 * SQ_MAX_STREAM_JOBS];
    atomic_int pending[2]; /* fronts of group k (sides q = 2 j + k) not yet done */
    uint32_t range[2 * SQ_MAX_STREAM_JOBS][SQ_CPU_BANDS][4];
    SqPool *pool;  /* shared: the pool the backs' column bands go to, else NULL */
    int threads;
    struct BackBands {
        SqCpuSide *side[SQ_MAX_STREAM_JOBS];
        const SqPlan *plan[SQ_MAX_STREAM_JOBS];
        int32_t task[SQ_MAX_STREAM_JOBS * SQ_CPU_BANDS][3]; /* (side, first column, end) */
        int ntask;
        atomic_int next;
    } back[2]; /* per group */
    struct CovBands {
        struct FrameSides *f;
        int q, n;
        atomic_int next;
    } cov[2 * SQ_MAX_STREAM_JOBS]; /* side q's, once its operating image is joined */
};

/*
 * Bands of one part of a shared step (a side's rows, or its blocks): by its
 * share of the step's total, twice as many tasks as threads in all (bands
 * end unevenly), at most `most` and SQ_CPU_BANDS, at least 1.
 */
static int share_bands(int threads, int64_t part, int64_t total, int most)
{
    int n = threads > 1 && total ? (int)((2 * (int64_t)threads * part + total - 1) / total) : 1;
    n = n < most ? n : most;
    n = n < SQ_CPU_BANDS ? n : SQ_CPU_BANDS;
    return n > 1 ? n : 1;
}

static void back_part(void *ctx, int64_t arg, int thread)
{
    (void)arg;
    (void)thread;
    struct BackBands *g = ctx;
    for (int i; (i = atomic_fetch_add_explicit(&g->next, 1, memory_order_relaxed)) < g->ntask;) {
        const int32_t *t = g->task[i];
        sq_cpu_back_cols(g->plan[t[0]], g->side[t[0]], t[1], t[2]);
    }
}

/*
 * The rest of group k once its fronts are done: its eigenvalue problems,
 * then each side's back. Shared, the backs go in column bands (blocks, in
 * proportion to each side's count, SQ_CPU_BACK_COLS at least) to the
 * threads that are idle: a help round opened from this one.
 */
static void group_rest(FrameSides *f, int k, int thread)
{
    struct BackBands *g = &f->back[k];
    int m = 0, blocks = 0;
    for (int q = k; q < f->n; q += 2) {
        g->side[m] = f->side[q];
        g->plan[m] = f->plan[q];
        blocks += f->plan[q]->d.nb;
        m++;
    }
    sq_cpu_sides_eigen(g->side, g->plan, m);
    g->ntask = 0;
    for (int i = 0; i < m; i++) {
        sq_cpu_back_prep(g->plan[i], g->side[i]);
        const int nb = g->plan[i]->d.nb;
        const int want = share_bands(f->pool ? f->threads : 1, nb, blocks, nb / SQ_CPU_BACK_COLS);
        for (int b = 0; b < want; b++) {
            int32_t *t = g->task[g->ntask++];
            t[0] = i;
            t[1] = (int)((int64_t)nb * b / want);
            t[2] = (int)((int64_t)nb * (b + 1) / want);
        }
    }
    atomic_init(&g->next, 0);
    sq_pool_help(f->pool, back_part, g, thread, g->ntask - 1);
}

static void cov_part(void *ctx, int64_t arg, int thread)
{
    (void)arg;
    struct CovBands *c = ctx;
    const FrameSides *f = c->f;
    for (int i; (i = atomic_fetch_add_explicit(&c->next, 1, memory_order_relaxed)) < c->n;)
        sq_cpu_cov_band(f->plan[c->q], f->side[c->q], i, c->n, f->w[thread].covws);
}

/*
 * The covariance of joined side q. Its row terms are the longest step left
 * on one thread once the operating image is banded (about a tenth of a
 * side), so, shared, they go in row bands (share_bands, the whole step
 * being this side's) to the threads that are idle: a help round opened
 * from this one.
 */
static void side_cov(FrameSides *f, int q, int thread)
{
    struct CovBands *c = &f->cov[q];
    c->n = share_bands(f->pool ? f->threads : 1, 1, 1, sq_cpu_cov_bands(f->plan[q]));
    if (c->n < 2) {
        sq_cpu_covariance(f->plan[q], f->side[q]);
        return;
    }
    c->f = f;
    c->q = q;
    atomic_init(&c->next, 0);
    sq_pool_help(f->pool, cov_part, c, thread, c->n - 1);
    sq_cpu_cov_join(f->plan[q], f->side[q]);
}

static void side_part(void *ctx, int64_t arg, int thread)
{
    (void)arg;
    FrameSides *f = ctx;
    for (int i; (i = atomic_fetch_add_explicit(&f->next, 1, memory_order_relaxed)) < f->ntask;) {
        const int q = f->task[i][0], b = f->task[i][1];
        if (f->nb[q] == 1) {
            sq_cpu_side_front(f->plan[q], f->side[q], &f->src[q]);
        } else {
            sq_cpu_front_band(f->plan[q], f->side[q], &f->src[q], b, f->nb[q], f->w[thread].vrow,
                              f->range[q][b]);
            /* acq_rel: the last band's thread sees every band's rows */
            if (atomic_fetch_sub_explicit(&f->bands_left[q], 1, memory_order_acq_rel) != 1)
                continue;
            sq_cpu_front_join(f->plan[q], f->side[q], &f->src[q],
                              (const uint32_t(*)[4])f->range[q], f->nb[q]);
            side_cov(f, q, thread);
        }
        /* acq_rel: the last one sees every front of the group */
        if (atomic_fetch_sub_explicit(&f->pending[q & 1], 1, memory_order_acq_rel) == 1)
            group_rest(f, q & 1, thread);
    }
}

/* The tasks of f: each side whole, or (threads > 1) in bands by its share of the area. */
static void plan_tasks(FrameSides *f, int threads)
{
    int64_t total = 0;
    for (int q = 0; q < f->n; q++)
        total += (int64_t)f->plan[q]->d.w * f->plan[q]->d.h;
    f->ntask = 0;
    for (int i = 0; i < f->n; i++) {
        const int q = f->order[i];
        const int64_t area = (int64_t)f->plan[q]->d.w * f->plan[q]->d.h;
        f->nb[q] = share_bands(threads, area, total, sq_cpu_front_bands(f->plan[q], &f->src[q]));
        atomic_init(&f->bands_left[q], f->nb[q]);
        for (int b = 0; b < f->nb[q]; b++) {
            f->task[f->ntask][0] = (uint8_t)q;
            f->task[f->ntask++][1] = (uint8_t)b;
        }
    }
}

/*
 * sq_cpu_score_frame with one distorted stream: every job's sides through their
 * operating image and covariance, then the eigenvalue problems of each
 * group (FrameSides) at once (interleaved: they are latency-bound), then
 * solves and scores. Each
 * side computes exactly what sq_cpu_plane_score would. pool: idle workers
 * take sides of the frame when it is the only one sent and not yet
 * received (its caller waits for it: a live encoder's loop), self: this
 * thread's pool index. With more frames in flight the caller feeds
 * throughput, which frame parallelism serves already: sharing then only
 * moves work between cores (and, on mapped tmpfs inputs, has several
 * threads fault the same pages: 16 threads on the H200 host, 0.85x).
 */
void sq_cpu_score_frame1(const CpuPriv *c, Worker *w, SqPool *pool, int self, const Planes *cur,
                         const Planes *prev, int prev_checked, uint32_t present,
                         const uint32_t *save, uint32_t *saved, SqRawResult *out)
{
    FrameSides f;
    int ran[SQ_MAX_STREAM_JOBS];
    /* the idle test first: with every worker busy (throughput) no lock per frame */
    const int share = pool && sq_pool_idle(pool) && sq_pool_uncollected(pool) == 1;
    f.n = 0;
    for (int j = 0; j < c->per; j++) {
        const SqJob *jb = &c->p.jobs[j];
        ran[j] = jb->kind == SQ_JOB_SPEED && !(jb->needs_prev && !prev) && (present >> 1 & 1);
        if (!ran[j])
            continue;
        const SqPlan *plan = c->p.plans[jb->plan];
        SqCpuSide *sd = c->own[j] ? w->jside[j] : w->side[jb->plan];
        sq_cpu_job_srcs(c, jb, out, j, cur, prev, prev_checked, &f.src[f.n]);
        sq_cpu_job_save(c, jb, j, save, saved, &f.src[f.n]);
        for (int k = 0; k < 2; k++) {
            f.side[f.n] = &sd[k];
            f.plan[f.n] = plan;
            /* insertion by plane area, largest first, ties in job order */
            const int64_t area = (int64_t)plan->d.w * plan->d.h;
            int i = f.n;
            for (; i > 0 && (int64_t)f.plan[f.order[i - 1]]->d.w * f.plan[f.order[i - 1]]->d.h < area;
                 i--)
                f.order[i] = f.order[i - 1];
            f.order[i] = f.n++;
        }
    }
    atomic_init(&f.next, 0);
    atomic_init(&f.pending[0], f.n / 2);
    atomic_init(&f.pending[1], f.n / 2);
    f.w = c->w;
    f.pool = share ? pool : NULL;
    f.threads = share ? sq_pool_threads(pool) : 1;
    plan_tasks(&f, f.threads);
    if (f.n)
        sq_pool_help(pool, side_part, &f, self, share ? f.ntask - 1 : 0);
    for (int j = 0, q = 0; j < c->per; j++) {
        if (!ran[j])
            continue;
        const SqJob *jb = &c->p.jobs[j];
        out->score[j] = sq_cpu_pair_score(c->p.plans[jb->plan], f.side[q], f.side[q + 1], jb->wvm,
                                          &out->err[j]);
        q += 2;
    }
}
