/*
 * One frame's plane jobs on the CPU: their sources (the planes each side
 * reads, the range checks it fills, the rows it keeps for the next frame)
 * and, for a ladder, the pairing of the distorted sides of every stream
 * around the reference side they share. One stream goes to bands.c.
 */
#include <string.h>

#include "cpu/backend_priv.h"
#include "math/vmaf_motion.h"

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
void sq_cpu_job_srcs(const CpuPriv *c, const SqJob *jb, SqRawResult *out, int j, const Planes *cur,
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

/* Mark src[k] (job idx's sources) to keep its current rows for the next
 * frame in place (SqSrc.save) where cpu_send allows it. */
void sq_cpu_job_save(const CpuPriv *c, const SqJob *jb, int idx, const uint32_t *save,
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

/* One SAD job's plane pair and its rows in bands (SadBands.nb of them). */
typedef struct SadBands {
    const CpuPriv *c;
    const Planes *pp, *pc;
    int pl, w, h, nb;
    atomic_int next;
    uint64_t sum[SQ_CPU_BANDS];
} SadBands;

static uint64_t sad_rows(const SadBands *s, int y0, int y1, int32_t *ws)
{
    const Planes *pp = s->pp, *pc = s->pc;
    const int pl = s->pl, acc = pc->acc[pl], bpc = s->c->p.format.bpc;
    /* the table's kernel reads planar rows of one layout; a picture read in
     * place in another layout (semi-planar, MSB-aligned) against a copy
     * takes the scalar code, which reads any access */
    if (pp->acc[pl] == acc && (acc == 0 || acc == SQ_ACC_16))
        return s->c->dsp.motion_sad(pp->data[pl], pp->stride[pl], pc->data[pl], pc->stride[pl],
                                    acc, s->w, s->h, bpc, y0, y1, ws);
    return sq_vm_rows_sad2(pp->data[pl], pp->stride[pl], pp->acc[pl], pc->data[pl], pc->stride[pl],
                           acc, s->w, s->h, bpc, y0, y1, ws);
}

static void sad_part(void *ctx, int64_t arg, int thread)
{
    (void)arg;
    SadBands *s = ctx;
    for (int i; (i = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed)) < s->nb;)
        s->sum[i] = sad_rows(s, (int)((int64_t)s->h * i / s->nb),
                             (int)((int64_t)s->h * (i + 1) / s->nb), s->c->w[thread].vmrow);
}

/*
 * A frame's SAD jobs. Frames run in parallel already; only a frame that is
 * the one in flight, with pool threads idle (a caller waiting on each
 * frame: sq_cpu_score_frame1's test), shares its rows with them in bands
 * of at least 64 rows. The plane's SAD is a sum of row sums, so the bands'
 * u64s add up to the same number whoever computed which.
 */
void sq_cpu_sad_jobs(const CpuPriv *c, Worker *w, SqPool *pool, int self, const Planes *cur,
                     const Planes *prev, const Planes *prev2, uint32_t present,
                     SqRawResult *out)
{
    for (int j = 0; j < c->per; j++) {
        const SqJob *jb = &c->p.jobs[j];
        const Planes *pv = jb->needs_prev > 1 ? prev2 : prev;
        if (jb->kind != SQ_JOB_SAD || (jb->needs_prev && !pv))
            continue;
        const SqJobSide *sd = &jb->side[0];
        const SqPlan *plan = c->p.plans[jb->plan];
        SadBands s = { .c = c, .pp = &pv[sd->prev_pic], .pc = &cur[sd->pic], .pl = sd->plane,
                       .w = plan->d.w, .h = plan->d.h, .nb = 1 };
        const int share = pool && sq_pool_idle(pool) && sq_pool_uncollected(pool) == 1;
        uint64_t sad;
        if (share) {
            const int most = s.h / 64, want = 2 * sq_pool_threads(pool);
            s.nb = want < most ? want : most;
            s.nb = s.nb < SQ_CPU_BANDS ? s.nb : SQ_CPU_BANDS;
            s.nb = s.nb > 1 ? s.nb : 1;
        }
        if (s.nb > 1) {
            atomic_init(&s.next, 0);
            sq_pool_help(pool, sad_part, &s, self, s.nb - 1);
            sad = 0;
            for (int b = 0; b < s.nb; b++)
                sad += s.sum[b];
        } else {
            sad = sad_rows(&s, 0, s.h, w->vmrow);
        }
        for (int d = 0; d < c->p.ndis; d++)
            if (present >> (1 + d) & 1)
                out->sum[d * c->per + j] = sad;
    }
}

/* The largest sample of a w x h plane and the OR of all. */
static void plane_range(const uint8_t *src, int64_t stride, int acc, int w, int h, uint32_t *mx,
                        uint32_t *bits)
{
    uint32_t m = 0, o = 0;
    for (int i = 0; i < h; i++) {
        const uint8_t *row = src + (int64_t)i * stride;
        if (acc == SQ_ACC_16 && !((uintptr_t)row & 1)) {
            /* planar 16-bit rows, the common layout: a loop the compiler vectorizes */
            const uint16_t *r16 = (const uint16_t *)row;
            uint16_t m16 = 0, o16 = 0;
            for (int j = 0; j < w; j++) {
                m16 = r16[j] > m16 ? r16[j] : m16;
                o16 |= r16[j];
            }
            m = m16 > m ? m16 : m;
            o |= o16;
            continue;
        }
        for (int j = 0; j < w; j++) {
            const uint32_t v = sq_sample(row, j, acc);
            m = v > m ? v : m;
            o |= v;
        }
    }
    *mx = m;
    *bits = o;
}

/*
 * The range checks of the current pictures that the integer features read
 * (SpEED's sides check inside their filters): each plane of c->rk whose
 * picture was sent (the reference: some stream's was), its result in every
 * side that checks it. MSB-aligned containers cannot exceed the depth.
 */
static void int_ranges(const CpuPriv *c, const Planes *cur, uint32_t present, SqRawResult *out)
{
    for (int i = 0; i < c->rk.n; i++) {
        const int pic = c->rk.key[i] / 3, pl = c->rk.key[i] % 3;
        const Planes *p = &cur[pic];
        if (!(pic ? present >> pic & 1 : present >> 1) || p->acc[pl] >> 2)
            continue;
        const SqDims *d = &c->p.plans[c->rk.plan[i]]->d;
        uint32_t mx, bits;
        plane_range(p->data[pl], p->stride[pl], p->acc[pl], d->w, d->h, &mx, &bits);
        sq_range_put(c->p.jobs, c->p.njobs, c->rk.key[i], mx, bits, out);
    }
}

/*
 * A frame's integer features as parts, one a job kind. Each part writes
 * only its own results, and a thread runs it with its own Worker's
 * scratch, so any thread may take any part: the results are the same bits.
 */
typedef struct FrameParts {
    const CpuPriv *c;
    SqPool *pool;
    const Planes *cur, *prev, *prev2;
    uint32_t present;
    SqRawResult *out;
    int kind[4], n;
    atomic_int next;
} FrameParts;

static void run_part(const FrameParts *f, int kind, int thread)
{
    Worker *w = &f->c->w[thread];
    sq_zero_now(&w->zl);
    if (kind == SQ_JOB_SAD)
        sq_cpu_sad_jobs(f->c, w, f->pool, thread, f->cur, f->prev, f->prev2, f->present, f->out);
    else if (kind == SQ_JOB_ADM)
        sq_cpu_adm_jobs(f->c, w, f->cur, f->present, f->out);
    else if (kind == SQ_JOB_CAMBI)
        sq_cpu_cambi_jobs(f->c, w, f->cur, f->present, f->out);
    else
        sq_cpu_vif_jobs(f->c, w, f->cur, f->present, f->out);
}

static void parts_take(void *ctx, int64_t arg, int thread)
{
    (void)arg;
    FrameParts *f = ctx;
    for (int i; (i = atomic_fetch_add_explicit(&f->next, 1, memory_order_relaxed)) < f->n;)
        run_part(f, f->kind[i], thread);
}

/*
 * The frame's integer jobs, motion first (it reads the frame in from
 * memory, prefetching). Threads that run out of frames while this one is
 * scored take its parts not started yet (sq_pool_offer): a job's last
 * frames, or a caller waiting on each frame, are not left to one thread.
 */
static void int_jobs(const CpuPriv *c, SqPool *pool, int self, const Planes *cur,
                     const Planes *prev, const Planes *prev2, uint32_t present, SqRawResult *out)
{
    static const int order[4] = { SQ_JOB_SAD, SQ_JOB_ADM, SQ_JOB_CAMBI, SQ_JOB_VIF };
    FrameParts f = { .c = c, .pool = pool, .cur = cur, .prev = prev, .prev2 = prev2,
                     .present = present, .out = out };
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < c->per; j++)
            if (c->p.jobs[j].kind == order[k]) {
                f.kind[f.n++] = order[k];
                break;
            }
    atomic_init(&f.next, 0);
    if (pool && f.n > 1)
        sq_pool_offer(pool, parts_take, &f, self, f.n - 1);
    else
        parts_take(&f, 0, self);
}

void sq_cpu_score_frame(const CpuPriv *c, Worker *w, SqPool *pool, int self, const Planes *cur,
                        const Planes *prev, const Planes *prev2, int prev_checked,
                        uint32_t present, const uint32_t *save, uint32_t *saved,
                        SqRawResult *out)
{
    memset(out, 0, sizeof(*out));
    sq_zero_now(&w->zl);
    int_ranges(c, cur, present, out);
    int_jobs(c, pool, self, cur, prev, prev2, present, out);
    if (c->p.ndis == 1) {
        sq_cpu_score_frame1(c, w, pool, self, cur, prev, prev_checked, present, save, saved, out);
        return;
    }
    for (int j = 0; j < c->per; j++) {
        int first = -1, pend = -1; /* pend: a distorted side waiting for a partner */
        SqSrc pend_src;
        for (int d = 0; d < c->p.ndis; d++) {
            const int idx = d * c->per + j;
            const SqJob *jb = &c->p.jobs[idx];
            if (jb->kind != SQ_JOB_SPEED || (jb->needs_prev && !prev) || !(present >> (1 + d) & 1))
                continue;
            const SqPlan *plan = c->p.plans[jb->plan];
            SqCpuSide *sides = w->side[jb->plan];
            SqSrc src[2];
            sq_cpu_job_srcs(c, jb, out, idx, cur, prev, prev_checked, src);
            sq_cpu_job_save(c, jb, idx, save, saved, src);
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
