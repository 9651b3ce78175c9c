/*
 * The CPU backend: runs the plane jobs of each frame (core/backend.h). With
 * one thread, frames are scored inside send() straight from the caller's
 * planes; the previous frame that jobs read is the lent picture itself
 * (held until the next frame is scored), or, for a picture without a
 * release callback, a copy of the rows they read. With N threads, each
 * frame takes a slot of a ring: a lent picture is read in place, of
 * others the rows the jobs read are copied into the slot (by the caller
 * and idle workers); workers score whole frames in parallel, frame
 * n reading slot n and, for jobs with a previous picture, slot n-1. A
 * slot's lent pictures go back when both frames that read them are done
 * (a count per slot). Results leave in send order.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/format.h"
#include "core/pool.h"
#include "cpu/cpu.h"
#include "math/filter.h"

/* Most bytes of frame copies the threaded mode keeps in flight. */
#define RING_BUDGET ((size_t)1 << 30)

typedef struct Planes {
    const uint8_t *data[3];
    int64_t stride[3];
    int acc[3];              /* sample access (core/format.h): < 2 for copies */
} Planes;

typedef struct Worker {
    /* per plan: a frame's jobs run one after another; [2] is a ladder's
     * second distorted side, scored together with [1] */
    SqCpuSide side[SQ_MAX_PLANS][3];
    /* one stream: a job whose plan an earlier job of the frame uses too
     * (speed_chroma's V) has sides of its own, so that every job's sides
     * live until the frame's eigenvalue problems run together */
    SqCpuSide jside[SQ_MAX_STREAM_JOBS][2];
    float *vrow; /* a row band's vertical pass (threaded mode), the widest plan's */
    double *covws; /* a band of covariance row terms (threaded mode), the largest plan's */
} Worker;

/* A lent picture: what gives it back (fn NULL: nothing lent). */
typedef struct Lent {
    SpeedqaRelease fn;
    void *opaque;
    const void *data0;
} Lent;

typedef struct Slot {
    uint8_t *buf[SQ_MAX_PICS]; /* copies of the frame's pictures (threaded mode) */
    Planes pl[SQ_MAX_PICS];
    Lent lent[SQ_MAX_PICS];
    uint32_t present;        /* bit k: picture k exists (a ladder stream may have ended) */
    atomic_int refs;         /* frames still to read the slot: its own, the next one's */
    int next_ref;            /* caller thread: refs counts the next frame's read */
    int new_seq;
    SqRawResult res;
} Slot;

typedef struct CpuPriv {
    SqBackendParams p;
    int need[3];             /* planes any job reads */
    int need_prev[3];        /* planes some job reads from the previous frame */
    int keep;                /* some job reads the previous frame */
    int npics;               /* 1 + ndis */
    int per;                 /* jobs of one stream */
    int own[SQ_MAX_STREAM_JOBS]; /* one stream: job j scores with Worker.jside[j] */
    int share[SQ_MAX_STREAM_JOBS]; /* ladder: job j's side 0 is the same in every stream */
    int nworkers;
    int nw;                  /* Workers: one per pool thread, and the caller's (sq_pool_collect_run) */
    Worker *w;
    int unpack_ready;        /* every worker side has its unpack buffers */
    /* single-thread mode: the previous frame's planes that jobs read */
    uint8_t *prev[SQ_MAX_PICS][3];
    /* per plane, the rows copies take (sq_plan_rows_read): one thread, those
     * read of the previous picture; threaded, those read at all (a slot's copy
     * is the current picture, then the next frame's previous one) */
    uint8_t *rows[3];
    /* job * 2 + side + 1 of the one side reading previous picture k's plane p,
     * when that side reads the current picture k's plane p too: it keeps
     * those rows itself while it reads them (SqSrc.save); 0: none */
    int saver[SQ_MAX_PICS][3];
    Planes prev_pl[SQ_MAX_PICS];
    Lent held[SQ_MAX_PICS];  /* the previous frame's lent pictures, read in place */
    int have_prev;
    int prev_had_prev;       /* the frame before this one was scored with a predecessor */
    SqRawResult sync_res;
    int sync_ready;
    /* threaded mode: pool item n scores frame n on pool thread t with w[t] */
    int nslots, cap;
    Slot *slot;
    unsigned long long sent, received;
    SqPool *pool;
} CpuPriv;

/* range_cur / range_prev: the [max, OR] pairs the check fills, NULL where none is needed. */
static SqSrc make_src(const Planes *cur, int plane, const Planes *prev, int bpc,
                      uint32_t *range_cur, uint32_t *range_prev)
{
    SqSrc s = { 0 };
    /* MSB-aligned values cannot exceed the depth: nothing to check */
    const int check = bpc > 8 && bpc < 16;
    s.range_cur = check && cur->acc[plane] >> 2 == 0 ? range_cur : NULL;
    s.range_prev = check && prev && prev->acc[plane] >> 2 == 0 ? range_prev : NULL;
    s.bpc = bpc;
    s.cur = cur->data[plane];
    s.cur_stride = cur->stride[plane];
    s.cur_acc = cur->acc[plane];
    if (prev) {
        s.prev = prev->data[plane];
        s.prev_stride = prev->stride[plane];
        s.prev_acc = prev->acc[plane];
    }
    s.hbd = bpc > 8;
    s.scale = sq_bpc_scale(bpc);
    return s;
}

/* Sources of one job: range_cur / range_prev point into out where the job checks. */
static void job_srcs(const CpuPriv *c, const SqJob *jb, SqRawResult *out, int j, const Planes *cur,
                     const Planes *prev, int prev_checked, SqSrc src[2])
{
    for (int k = 0; k < 2; k++) {
        const SqJobSide *sd = &jb->side[k];
        const int pv = sd->prev_pic >= 0 && prev;
        const int chk_prev = sd->check_prev == SQ_CHECK_ALWAYS ||
                             (sd->check_prev == SQ_CHECK_IF_FIRST && !prev_checked);
        src[k] = make_src(&cur[sd->pic], sd->plane, pv ? &prev[sd->prev_pic] : NULL,
                          c->p.format.bpc,
                          sd->check_cur ? &out->range[j][k][SQ_RANGE_CUR_MAX] : NULL,
                          chk_prev ? &out->range[j][k][SQ_RANGE_PREV_MAX] : NULL);
    }
}

/*
 * Run every job of one frame. cur, prev: the pictures' planes (prev NULL:
 * jobs that need it are skipped, their raw score 0); present: bit k,
 * picture k exists (a stream that has ended has none: its jobs are
 * skipped); prev_checked: the previous frame had a predecessor itself, so
 * its pictures were range-checked as current ones (SQ_CHECK_IF_FIRST). In a
 * ladder, job j of every stream runs in a row, so that a shared side 0
 * (the reference's) is computed by the first of them and stays in the
 * worker's side buffers for the others.
 */
/* Mark src[k] (job idx's sources) to keep its current rows for the next
 * frame in place (SqSrc.save) where cpu_send allows it. */
static void job_save(const CpuPriv *c, const SqJob *jb, int idx, const uint32_t *save,
                     uint32_t *saved, SqSrc src[2])
{
    for (int k = 0; save && k < 2; k++) {
        const SqJobSide *sd = &jb->side[k];
        if (src[k].prev && !src[k].range_prev && (save[sd->pic] >> sd->plane & 1) &&
            c->saver[sd->pic][sd->plane] == idx * 2 + k + 1) {
            src[k].save = (uint8_t *)src[k].prev;
            src[k].save_stride = src[k].prev_stride;
            saved[sd->pic] |= 1u << sd->plane;
        }
    }
}

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
 * score_frame with one distorted stream: every job's sides through their
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
static void score_frame1(const CpuPriv *c, Worker *w, SqPool *pool, int self, const Planes *cur,
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
        ran[j] = !(jb->needs_prev && !prev) && (present >> 1 & 1);
        if (!ran[j])
            continue;
        const SqPlan *plan = c->p.plans[jb->plan];
        SqCpuSide *sd = c->own[j] ? w->jside[j] : w->side[jb->plan];
        job_srcs(c, jb, out, j, cur, prev, prev_checked, &f.src[f.n]);
        job_save(c, jb, j, save, saved, &f.src[f.n]);
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

static void score_frame(const CpuPriv *c, Worker *w, SqPool *pool, int self, const Planes *cur,
                        const Planes *prev, int prev_checked, uint32_t present,
                        const uint32_t *save, uint32_t *saved, SqRawResult *out)
{
    memset(out, 0, sizeof(*out));
    if (c->p.ndis == 1) {
        score_frame1(c, w, pool, self, cur, prev, prev_checked, present, save, saved, out);
        return;
    }
    for (int j = 0; j < c->per; j++) {
        int first = -1, pend = -1; /* pend: a distorted side waiting for a partner */
        SqSrc pend_src;
        for (int d = 0; d < c->p.ndis; d++) {
            const int idx = d * c->per + j;
            const SqJob *jb = &c->p.jobs[idx];
            if ((jb->needs_prev && !prev) || !(present >> (1 + d) & 1))
                continue;
            const SqPlan *plan = c->p.plans[jb->plan];
            SqCpuSide *sides = w->side[jb->plan];
            SqSrc src[2];
            job_srcs(c, jb, out, idx, cur, prev, prev_checked, src);
            job_save(c, jb, idx, save, saved, src);
            if (first < 0 || !c->share[j]) {
                out->score[idx] = sq_cpu_plane_score(plan, &sides[0], &sides[1], &src[0], &src[1],
                                                     jb->wvm, &out->err[idx]);
                first = idx;
                continue;
            }
            /* the shared reference side stays in sides[0]; distorted sides
             * go two at a time (their eigenvalue problems interleaved) */
            memcpy(out->range[idx][0], out->range[first][0], sizeof(out->range[idx][0]));
            if (pend < 0) {
                pend = idx;
                pend_src = src[1];
                continue;
            }
            sq_cpu_sides2(plan, &sides[1], &sides[2], &pend_src, &src[1]);
            out->score[pend] = sq_cpu_pair_score(plan, &sides[0], &sides[1], c->p.jobs[pend].wvm,
                                                 &out->err[pend]);
            out->score[idx] = sq_cpu_pair_score(plan, &sides[0], &sides[2], jb->wvm, &out->err[idx]);
            pend = -1;
        }
        if (pend >= 0) {
            const SqJob *jb = &c->p.jobs[pend];
            SqCpuSide *sides = w->side[jb->plan];
            sq_cpu_side(c->p.plans[jb->plan], &sides[1], &pend_src);
            out->score[pend] = sq_cpu_pair_score(c->p.plans[jb->plan], &sides[0], &sides[1], jb->wvm,
                                                 &out->err[pend]);
        }
    }
}

static Planes picture_planes(const SpeedqaPicture *pic)
{
    Planes p;
    for (int i = 0; i < 3; i++) {
        ptrdiff_t st;
        p.acc[i] = sq_plane_access(pic, i, &p.data[i], &st);
        p.stride[i] = st;
    }
    return p;
}

/* Some plane a job reads is not planar LSB-aligned as it lies. */
static int needs_unpack(const CpuPriv *c, const SpeedqaPicture *pic)
{
    const Planes pl = picture_planes(pic);
    for (int p = 0; p < 3; p++)
        if (c->need[p] && pl.acc[p] >= 2)
            return 1;
    return 0;
}

/* Before the first picture read in place with another access: every
 * worker's unpack buffers (no worker touches them before that frame). */
static int ensure_unpack(CpuPriv *c, char *err, size_t errlen)
{
    if (c->unpack_ready)
        return 0;
    for (int i = 0; i < c->nw; i++)
        for (int f = 0; f < c->p.nplans; f++)
            for (int k = 0; k < (c->p.ndis > 2 ? 3 : 2); k++)
                if (sq_cpu_side_alloc_unpack(&c->w[i].side[f][k], c->p.plans[f],
                                             c->p.format.bpc > 8, &c->p.alloc) < 0) {
                    snprintf(err, errlen, "out of memory for unpacking a semi-planar picture");
                    return -ENOMEM;
                }
    for (int i = 0; i < c->nw; i++)
        for (int j = 0; j < c->per; j++)
            for (int k = 0; c->own[j] && k < 2; k++)
                if (sq_cpu_side_alloc_unpack(&c->w[i].jside[j][k], c->p.plans[c->p.jobs[j].plan],
                                             c->p.format.bpc > 8, &c->p.alloc) < 0) {
                    snprintf(err, errlen, "out of memory for unpacking a semi-planar picture");
                    return -ENOMEM;
                }
    c->unpack_ready = 1;
    return 0;
}

/* Row y of plane p of pic as a planar LSB-aligned row (w samples). */
static void copy_row(const SpeedqaPicture *pic, int p, int y, int w, uint8_t *dst)
{
    const uint8_t *base;
    ptrdiff_t stride;
    const int acc = sq_plane_access(pic, p, &base, &stride);
    sq_unpack_row(dst, base + (ptrdiff_t)y * stride, w, acc);
}

static Lent lend(const SpeedqaPicture *pic)
{
    return (Lent){ pic->release, pic->release_opaque, pic->data[0] };
}

static void give_back(Lent *l)
{
    const SpeedqaRelease fn = l->fn;
    l->fn = NULL;
    if (fn)
        fn(l->opaque, l->data0);
}

/* One frame is done reading slot s: the last one gives its pictures back. */
static void slot_unref(Slot *s, int npics)
{
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
        for (int k = 0; k < npics; k++)
            give_back(&s->lent[k]);
}

/* The slot buffer buf as the needed planes of a copy (tight rows). */
static void copy_layout(const CpuPriv *c, uint8_t *buf, Planes *pl)
{
    const size_t bps = c->p.format.bpc > 8 ? 2 : 1;
    memset(pl, 0, sizeof(*pl));
    for (int p = 0; p < 3; p++) {
        if (!c->need[p])
            continue;
        int w, h;
        sq_plane_size(&c->p.format, p, &w, &h);
        pl->data[p] = buf;
        pl->stride[p] = (int64_t)((size_t)w * bps);
        pl->acc[p] = bps > 1;
        buf += (size_t)w * bps * (size_t)h;
    }
}

/*
 * The copies of one send, in parts of COPY_ROWS rows of one plane of one
 * picture, claimed by the caller and by idle workers (sq_pool_help): when
 * the caller's copying is what holds the workers back, they share it.
 */
#define COPY_ROWS 64

typedef struct CopyJob {
    const CpuPriv *c;
    const SpeedqaPicture *pic[SQ_MAX_PICS]; /* NULL: not copied */
    const Planes *pl[SQ_MAX_PICS];
    int first[SQ_MAX_PICS * 3 + 1];         /* first part of picture k's plane p: [3 k + p] */
    atomic_int next;
} CopyJob;

static void copy_part(void *ctx, int64_t arg, int thread)
{
    (void)arg;
    (void)thread;
    CopyJob *j = ctx;
    const CpuPriv *c = j->c;
    const int nparts = j->first[c->npics * 3];
    for (int i; (i = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < nparts;) {
        int kp = 0;
        while (j->first[kp + 1] <= i)
            kp++;
        const int k = kp / 3, p = kp % 3;
        int w, h;
        sq_plane_size(&c->p.format, p, &w, &h);
        const int y0 = (i - j->first[kp]) * COPY_ROWS, y1 = y0 + COPY_ROWS < h ? y0 + COPY_ROWS : h;
        uint8_t *dst = (uint8_t *)j->pl[k]->data[p];
        /* the rows no job reads stay as they are: never read */
        for (int y = y0; y < y1; y++)
            if (!c->rows[p] || c->rows[p][y])
                copy_row(j->pic[k], p, y, w, dst + (size_t)y * (size_t)j->pl[k]->stride[p]);
    }
}

static void run_copies(const CpuPriv *c, CopyJob *j)
{
    int n = 0;
    for (int k = 0; k < c->npics; k++)
        for (int p = 0; p < 3; p++) {
            j->first[3 * k + p] = n;
            if (j->pic[k] && c->need[p]) {
                int w, h;
                sq_plane_size(&c->p.format, p, &w, &h);
                n += (h + COPY_ROWS - 1) / COPY_ROWS;
            }
        }
    j->first[3 * c->npics] = n;
    atomic_init(&j->next, 0);
    if (n)
        sq_pool_help(c->pool, copy_part, j, sq_pool_threads(c->pool), n - 1);
}

/* *out: per row of plane pl, whether a job reads it (of the previous picture
 * only, with prev_only). */
static int mark_rows(const SqBackendParams *p, int pl, int prev_only, uint8_t **out)
{
    int w, h;
    sq_plane_size(&p->format, pl, &w, &h);
    if (!(*out = sq_calloc(&p->alloc, (size_t)h, 1)))
        return -1;
    for (int j = 0; j < p->njobs; j++)
        for (int k = 0; k < 2; k++) {
            const SqJobSide *sd = &p->jobs[j].side[k];
            if (sd->plane == pl && (!prev_only || sd->prev_pic >= 0) &&
                sq_plan_rows_read(p->plans[p->jobs[j].plan], *out, &p->alloc) < 0)
                return -1;
        }
    return 0;
}

static size_t copy_size(const CpuPriv *c)
{
    const size_t bps = c->p.format.bpc > 8 ? 2 : 1;
    size_t total = 0;
    for (int p = 0; p < 3; p++) {
        int w, h;
        sq_plane_size(&c->p.format, p, &w, &h);
        if (c->need[p])
            total += (size_t)w * h * bps;
    }
    return total;
}

static void score_slot(void *ctx, int64_t frame, int thread)
{
    CpuPriv *c = ctx;
    const unsigned long long n = (unsigned long long)frame;
    Slot *s = &c->slot[n % c->nslots];
    const Slot *prev = s->new_seq ? NULL : &c->slot[(n - 1) % c->nslots];
    score_frame(c, &c->w[thread], c->pool, thread, s->pl, prev ? prev->pl : NULL,
                prev && !prev->new_seq, s->present, NULL, NULL, &s->res);
    if (prev && c->keep)
        slot_unref((Slot *)prev, c->npics);
    slot_unref(s, c->npics);
}

static void cpu_end_seq(void *priv)
{
    CpuPriv *c = priv;
    if (c->nworkers == 1) {
        for (int k = 0; k < c->npics; k++)
            give_back(&c->held[k]);
        c->have_prev = 0;
        return;
    }
    Slot *last = c->sent ? &c->slot[(c->sent - 1) % c->nslots] : NULL;
    if (last && last->next_ref) {
        last->next_ref = 0;
        slot_unref(last, c->npics);
    }
}

static void cpu_close(void **pp)
{
    CpuPriv *c = *pp;
    if (!c)
        return;
    /* queued frames never run once the pool stops: give back all that is lent */
    sq_pool_stop(&c->pool);
    for (int i = 0; c->slot && i < c->nslots; i++)
        for (int k = 0; k < SQ_MAX_PICS; k++)
            give_back(&c->slot[i].lent[k]);
    for (int k = 0; k < SQ_MAX_PICS; k++)
        give_back(&c->held[k]);
    for (int i = 0; c->w && i < c->nw; i++) {
        for (int f = 0; f < c->p.nplans; f++)
            for (int k = 0; k < 3; k++)
                sq_cpu_side_free(&c->w[i].side[f][k], &c->p.alloc);
        for (int j = 0; j < SQ_MAX_STREAM_JOBS; j++)
            for (int k = 0; k < 2; k++)
                sq_cpu_side_free(&c->w[i].jside[j][k], &c->p.alloc);
        sq_free(&c->p.alloc, c->w[i].vrow);
        sq_free(&c->p.alloc, c->w[i].covws);
    }
    const SqAlloc a = c->p.alloc;
    sq_free(&a, c->w);
    for (int i = 0; c->slot && i < c->nslots; i++)
        for (int k = 0; k < SQ_MAX_PICS; k++)
            sq_free(&a, c->slot[i].buf[k]);
    sq_free(&a, c->slot);
    for (int p = 0; p < 3; p++) {
        sq_free(&a, c->rows[p]);
        for (int k = 0; k < SQ_MAX_PICS; k++)
            sq_free(&a, c->prev[k][p]);
    }
    sq_free(&a, c);
    *pp = NULL;
}

static int cpu_open(void **pp, const SqBackendParams *p, char *err, size_t errlen)
{
    CpuPriv *c = sq_calloc(&p->alloc, 1, sizeof(*c));
    *pp = NULL;
    if (!c)
        goto oom;
    *pp = c;
    c->p = *p;
    if (c->p.ndis < 1)
        c->p.ndis = 1;
    c->npics = 1 + c->p.ndis;
    c->per = p->njobs / c->p.ndis;
    for (int j = 0; j < c->per; j++) {
        c->share[j] = 1;
        for (int d = 1; d < c->p.ndis; d++) {
            const SqJobSide *a0 = &p->jobs[j].side[0], *b0 = &p->jobs[d * c->per + j].side[0];
            c->share[j] &= a0->pic == b0->pic && a0->plane == b0->plane &&
                           a0->prev_pic == b0->prev_pic && a0->pic == 0 &&
                           (a0->prev_pic < 0 || a0->prev_pic == 0);
        }
    }
    for (int j = 0; j < p->njobs; j++)
        for (int k = 0; k < 2; k++) {
            c->need[p->jobs[j].side[k].plane] = 1;
            if (p->jobs[j].side[k].prev_pic >= 0)
                c->need_prev[p->jobs[j].side[k].plane] = c->keep = 1;
        }
    for (int j = 0; c->p.ndis == 1 && j < c->per; j++)
        for (int i = 0; i < j; i++)
            c->own[j] |= p->jobs[i].plan == p->jobs[j].plan;
    c->nworkers = p->n_threads < 1 ? 1 : p->n_threads;
    /* Frames in flight are copies: bound their memory, and score huge
     * frames synchronously rather than commit gigabytes of copies. */
    const size_t bytes = copy_size(c);
    if (c->nworkers > 1) {
        const size_t fit = RING_BUDGET / ((size_t)c->npics * (bytes ? bytes : 1));
        const size_t want = 2 * (size_t)c->nworkers + 2;
        c->cap = (int)(fit > want + 2 ? want : fit > 4 ? fit - 2 : 0);
        if (c->cap < 2)
            c->nworkers = 1;
    }
    /* with threads, one more for the caller, who scores a lone frame it
     * waits for itself (sq_pool_collect_run) */
    c->nw = c->nworkers > 1 ? c->nworkers + 1 : 1;
    c->w = sq_calloc(&p->alloc, (size_t)c->nw, sizeof(*c->w));
    if (!c->w)
        goto oom;
    for (int i = 0; i < c->nw; i++) {
        for (int f = 0; f < p->nplans; f++) {
            /* the third side only for a ladder of more than two streams */
            for (int k = 0; k < (c->p.ndis > 2 ? 3 : 2); k++) {
                if (sq_cpu_side_alloc(&c->w[i].side[f][k], p->plans[f], &p->alloc) < 0)
                    goto oom;
                sq_cpu_side_set_cpu_mask(&c->w[i].side[f][k], p->cpu_mask);
            }
        }
        for (int j = 0; j < c->per; j++)
            for (int k = 0; c->own[j] && k < 2; k++) {
                if (sq_cpu_side_alloc(&c->w[i].jside[j][k], p->plans[p->jobs[j].plan], &p->alloc) < 0)
                    goto oom;
                sq_cpu_side_set_cpu_mask(&c->w[i].jside[j][k], p->cpu_mask);
            }
        int sw = 0;
        size_t cws = 0;
        for (int f = 0; f < p->nplans; f++) {
            const SqDims *d = &p->plans[f]->d;
            const size_t n = sq_cov_ws_doubles(d->trunc_w, d->trunc_h);
            sw = d->scaled_w > sw ? d->scaled_w : sw;
            cws = n > cws ? n : cws;
        }
        if (c->nworkers > 1 && (!(c->w[i].vrow = sq_calloc(&p->alloc, (size_t)sw, sizeof(float))) ||
                                !(c->w[i].covws = sq_calloc(&p->alloc, cws, sizeof(double)))))
            goto oom;
    }
    if (c->nworkers == 1) {
        for (int pl = 0; pl < 3; pl++) {
            if (!c->need_prev[pl])
                continue;
            int w, h;
            sq_plane_size(&p->format, pl, &w, &h);
            const size_t row = (size_t)w * (p->format.bpc > 8 ? 2 : 1);
            if (mark_rows(p, pl, 1, &c->rows[pl]) < 0)
                goto oom;
            for (int s = 0; s < c->npics; s++) {
                /* zeroed: its pages are faulted in here, not by the first frames */
                if (!(c->prev[s][pl] = sq_calloc(&p->alloc, row, (size_t)h)))
                    goto oom;
            }
        }
        for (int j = 0; j < p->njobs; j++)
            for (int k = 0; k < 2; k++) {
                const SqJobSide *sd = &p->jobs[j].side[k];
                if (sd->prev_pic < 0)
                    continue;
                int *sv = &c->saver[sd->prev_pic][sd->plane];
                /* a second reader: nobody saves (the copy after the frame) */
                *sv = *sv == 0 && sd->pic == sd->prev_pic ? j * 2 + k + 1 : -1;
            }
        return 0;
    }
    for (int pl = 0; pl < 3; pl++)
        if (c->need[pl] && mark_rows(p, pl, 0, &c->rows[pl]) < 0)
            goto oom;
    c->nslots = c->cap + 2; /* frame n's slot is free once frame n - cap was received */
    c->slot = sq_calloc(&p->alloc, (size_t)c->nslots, sizeof(*c->slot));
    if (!c->slot)
        goto oom;
    for (int i = 0; i < c->nslots; i++)
        for (int k = 0; k < c->npics; k++)
            if (!(c->slot[i].buf[k] = sq_malloc(&p->alloc, bytes, 1)))
                goto oom;
    /* Workers share one job queue, so fewer than asked (a thread limit, an
     * address-space limit) only costs speed; none at all cannot score. */
    const int ret = sq_pool_start(&c->pool, c->nworkers, c->cap, &p->alloc);
    if (ret == -ENOMEM)
        goto oom;
    if (ret < 0) {
        snprintf(err, errlen, "cannot start a CPU worker thread: %s", strerror(-ret));
        cpu_close(pp);
        return -ENOMEM;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory for the CPU backend");
    cpu_close(pp);
    return -ENOMEM;
}

static int cpu_capacity(void *priv)
{
    const CpuPriv *c = priv;
    return c->nworkers == 1 ? 1 : c->cap;
}

/*
 * Keep what the next frame's jobs read of pic as its previous picture: a
 * lent picture itself (the one held so far goes back), else a copy of the
 * rows they read.
 */
static void store_prev(CpuPriv *c, const SpeedqaPicture *pic, int side, uint32_t saved)
{
    give_back(&c->held[side]);
    if (pic->release) {
        c->held[side] = lend(pic);
        c->prev_pl[side] = picture_planes(pic);
        return;
    }
    const size_t bps = c->p.format.bpc > 8 ? 2 : 1;
    for (int p = 0; p < 3; p++) {
        if (!c->need_prev[p])
            continue;
        int w, h;
        sq_plane_size(&c->p.format, p, &w, &h);
        const size_t row = (size_t)w * bps;
        c->prev_pl[side].data[p] = c->prev[side][p];
        c->prev_pl[side].stride[p] = (int64_t)row;
        c->prev_pl[side].acc[p] = bps > 1;
        for (int y = 0; y < h && !(saved >> p & 1); y++)
            if (c->rows[p][y])
                copy_row(pic, p, y, w, c->prev[side][p] + (size_t)y * row);
    }
}

static int cpu_send(void *priv, const SpeedqaPicture *const *pics, int new_seq, char *err,
                    size_t errlen)
{
    CpuPriv *c = priv;
    uint32_t present = 0;
    for (int k = 0; k < c->npics; k++)
        present |= (uint32_t)(pics[k] != NULL) << k;
    /* pictures read in place: the current ones on one thread, lent ones otherwise */
    for (int k = 0; k < c->npics; k++) {
        const SpeedqaPicture *pic = pics[k];
        int ret;
        if (pic && (c->nworkers == 1 || pic->release) && needs_unpack(c, pic) &&
            (ret = ensure_unpack(c, err, errlen)) < 0)
            return ret;
    }
    if (c->nworkers == 1) {
        Planes cur[SQ_MAX_PICS] = { 0 };
        for (int k = 0; k < c->npics; k++)
            if (pics[k])
                cur[k] = picture_planes(pics[k]);
        const int use_prev = c->keep && c->have_prev && !new_seq;
        /* planes whose next copy the scoring side may write into the copy
         * it reads: the previous picture is that copy, the current one is
         * not lent (it would be held, not copied) */
        uint32_t save[SQ_MAX_PICS] = { 0 }, saved[SQ_MAX_PICS] = { 0 };
        for (int k = 0; use_prev && k < c->npics; k++)
            for (int p = 0; p < 3; p++)
                if (c->saver[k][p] > 0 && pics[k] && !pics[k]->release &&
                    c->prev_pl[k].data[p] == c->prev[k][p])
                    save[k] |= 1u << p;
        score_frame(c, &c->w[0], NULL, 0, cur, use_prev ? c->prev_pl : NULL, c->prev_had_prev,
                    present, save, saved, &c->sync_res);
        c->prev_had_prev = use_prev;
        for (int k = 0; k < c->npics; k++) {
            if (c->keep && pics[k]) {
                store_prev(c, pics[k], k, saved[k]);
            } else if (pics[k]) {
                Lent l = lend(pics[k]);
                give_back(&l);
            } else {
                give_back(&c->held[k]); /* an ended stream's last picture */
            }
        }
        c->have_prev = c->keep;
        c->sync_ready = 1;
        return 0;
    }
    Slot *s = &c->slot[c->sent % c->nslots];
    /* The slot is not read by any worker, and what it lent went back: see nslots. */
    CopyJob cj = { .c = c };
    for (int k = 0; k < c->npics; k++) {
        memset(&s->pl[k], 0, sizeof(s->pl[k]));
        if (pics[k] && pics[k]->release) {
            s->pl[k] = picture_planes(pics[k]);
        } else if (pics[k]) {
            copy_layout(c, s->buf[k], &s->pl[k]);
            cj.pic[k] = pics[k];
            cj.pl[k] = &s->pl[k];
        }
    }
    run_copies(c, &cj);
    s->new_seq = new_seq;
    s->present = present;
    atomic_store_explicit(&s->refs, 1 + c->keep, memory_order_relaxed);
    for (int k = 0; k < c->npics; k++)
        s->lent[k] = pics[k] ? lend(pics[k]) : (Lent){ 0 };
    Slot *last = c->sent ? &c->slot[(c->sent - 1) % c->nslots] : NULL;
    if (sq_pool_submit(c->pool, score_slot, c, (int64_t)c->sent) < 0) {
        for (int k = 0; k < c->npics; k++)
            s->lent[k].fn = NULL; /* nothing taken */
        snprintf(err, errlen, "cpu: queue full");
        return -EAGAIN;
    }
    s->next_ref = c->keep;
    if (last && last->next_ref) {
        /* this frame's worker reads the last one unless a sequence starts */
        last->next_ref = 0;
        if (new_seq)
            slot_unref(last, c->npics);
    }
    c->sent++;
    return 0;
}

static int cpu_receive(void *priv, SqRawResult *out, int block, char *err, size_t errlen)
{
    CpuPriv *c = priv;
    (void)err;
    (void)errlen;
    if (c->nworkers == 1) {
        if (!c->sync_ready)
            return -EAGAIN;
        *out = c->sync_res;
        c->sync_ready = 0;
        return 0;
    }
    if ((block ? sq_pool_collect_run(c->pool) : sq_pool_collect(c->pool, 0)) < 0)
        return -EAGAIN;
    *out = c->slot[c->received++ % c->nslots].res;
    return 0;
}

static const SqRawResult *cpu_scored(void *priv)
{
    const CpuPriv *c = priv;
    return c->nworkers == 1 && c->sync_ready ? &c->sync_res : NULL;
}

const SqBackend sq_backend_cpu = {
    .name = "cpu",
    .ladder = 1,
    .open = cpu_open,
    .capacity = cpu_capacity,
    .send = cpu_send,
    .receive = cpu_receive,
    .scored = cpu_scored,
    .end_seq = cpu_end_seq,
    .close = cpu_close,
};
