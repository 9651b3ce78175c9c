/*
 * The SpEED pipeline on any GPU runtime (gpu.h vtable): device layout,
 * frame upload, batching, kernel order, result collection.
 *
 * Frames are uploaded as they are sent (copy stream) into a ring of frame
 * slots; every `batch` frames (or when a result is needed and the caller
 * may block) one chain of kernels scores all planes, sides and frames of
 * the batch at once (compute stream), and one download brings back the
 * per-plane scores. Events tell receive() whether a batch is done, so the
 * steady state never waits on the device except when the queue is full.
 *
 * Device memory is one arena: plans, prescale tables, problem tables,
 * results, per-batch scratch and the frame slots, all addressed by byte
 * offsets. Host memory: one pinned block with the staging copy of every
 * frame slot and the per-batch tables and results.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "gpu/gpu.h"
#include "math/filter.h"
#include "math/prescale.h"

#define MAX_BATCH 32
/* Budgets that bound the batch size for large frames. */
#define PINNED_BUDGET ((int64_t)512 << 20)
#define SCRATCH_BUDGET ((int64_t)3 << 30)
#define MAX_STAGERS 8

_Static_assert(sizeof(((SqRawResult *)0)->range[0]) == sizeof(((SqGpuResult *)0)->range),
               "SqGpuResult.range is SqRawResult.range of one job");

typedef struct PlaneGeo {
    int need;            /* some feature reads this plane */
    int w, h, op_h;
    int runs;            /* rows per run (2r + 1), 0: whole plane */
    int64_t row_bytes;
    int64_t stage_bytes; /* bytes as staged (runs or whole) */
    int64_t stage_off[2]; /* per picture (ref, dis) in the pinned staging of a slot */
    int64_t dev_off[2], full_off[2]; /* in the device slot: staged, device-copied */
} PlaneGeo;

typedef struct FrameRec {
    int bslot, index;    /* batch slot, position in the batch */
    int has_prev;
    int64_t base[2][3], stride[2][3];
    int runs[2][3];
} FrameRec;

typedef struct BatchRec {
    int nframes, npairs;
    int launched, done;
    SqGpuSide *sides;    /* pinned */
    SqGpuPair *pairs;    /* pinned, right after sides */
    SqGpuResult *res;    /* pinned */
} BatchRec;

struct GpuPriv;

/* Host threads that help copy a frame into pinned staging (n_threads > 1). */
typedef struct StagePool {
    pthread_t th[MAX_STAGERS];
    int nth, started, quit;
    unsigned gen, busy;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    /* the job of generation gen */
    const SpeedqaPicture *pic[2];
    uint8_t *stage;
    struct GpuPriv *g;
} StagePool;

typedef struct GpuPriv {
    SqBackendParams p;
    const SqGpuFns *fns;
    SqGpuDev *dev;
    int sticky;
    char msg[320];

    PlaneGeo geo[3];
    int64_t side_off[SQ_MAX_JOBS][2], pair_off[SQ_MAX_JOBS]; /* in a frame's scratch */
    int64_t frame_scratch;
    int pairs_per_frame;
    int batch, cap, nslots, nbslots;

    SqGpuAddr arena;
    int64_t arena_bytes;
    int64_t off_plans, off_tables, off_sides, off_pairs, off_results, off_scratch, off_slots;
    int64_t slot_bytes, stage_bytes, desc_bytes;
    /* Per picture: its staged bytes (pinned offset, length) and its part of
     * the device slot. The two pictures' parts are disjoint, so a host
     * picture's upload never overwrites a device picture's copy. */
    int64_t stage_start[2], stage_len[2], side_base[2];
    int has_prescale;

    uint8_t *pinned;
    int64_t pinned_bytes;
    FrameRec *frames;    /* nslots */
    BatchRec *batches;   /* nbslots */
    unsigned long long sent, received, nbatches;
    int open_batch;      /* batch slot being filled, -1 none */

    int profile;
    double prof_ms[SQ_K_COUNT];
    int prof_batches;

    StagePool pool;
    int pool_init;
} GpuPriv;

static void plane_size(const SpeedqaFormat *f, int p, int *w, int *h)
{
    *w = f->width;
    *h = f->height;
    if (p) {
        if (f->fmt != SPEEDQA_PIX_444)
            *w = f->width >> 1;
        if (f->fmt == SPEEDQA_PIX_420)
            *h = f->height >> 1;
    }
}

/* Record the first device error; every later call fails with it. */
static int fail(GpuPriv *g, int ret, const char *what)
{
    if (!g->sticky) {
        const char *dm = g->dev ? g->fns->error(g->dev) : "";
        g->sticky = ret == -ENOMEM ? -ENOMEM : -EIO;
        snprintf(g->msg, sizeof(g->msg), "%s: %s", what, dm && dm[0] ? dm : "device failure");
    }
    return g->sticky;
}

static int report(const GpuPriv *g, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", g->msg);
    return g->sticky;
}

/* Part k of nparts of a host picture into the slot's pinned staging (only the rows read). */
static void stage_part(const GpuPriv *g, const SpeedqaPicture *pic, int s, uint8_t *stage, int k,
                       int nparts)
{
    for (int c = 0; c < 3; c++) {
        const PlaneGeo *pg = &g->geo[c];
        if (!pg->need)
            continue;
        const uint8_t *src = pic->data[c];
        const ptrdiff_t stride = pic->stride[c];
        const size_t rb = (size_t)pg->row_bytes;
        uint8_t *dst = stage + pg->stage_off[s];
        if (pg->runs) {
            const int r = pg->runs >> 1;
            const int i0 = (int)((int64_t)pg->op_h * k / nparts), i1 = (int)((int64_t)pg->op_h * (k + 1) / nparts);
            for (int i = i0; i < i1; i++) {
                const int lo = sq_imax(0, (i << SQ_DECIM_SHIFT) - r);
                const int hi = sq_imin(pg->h - 1, (i << SQ_DECIM_SHIFT) + r);
                uint8_t *d = dst + ((int64_t)i * pg->runs + lo - (i << SQ_DECIM_SHIFT) + r) * (int64_t)rb;
                if (stride == (ptrdiff_t)rb)
                    memcpy(d, src + (ptrdiff_t)lo * stride, rb * (size_t)(hi - lo + 1));
                else
                    for (int y = lo; y <= hi; y++)
                        memcpy(d + (size_t)(y - lo) * rb, src + (ptrdiff_t)y * stride, rb);
            }
        } else {
            const int y0 = (int)((int64_t)pg->h * k / nparts), y1 = (int)((int64_t)pg->h * (k + 1) / nparts);
            if (stride == (ptrdiff_t)rb)
                memcpy(dst + (size_t)y0 * rb, src + (ptrdiff_t)y0 * stride, rb * (size_t)(y1 - y0));
            else
                for (int y = y0; y < y1; y++)
                    memcpy(dst + (size_t)y * rb, src + (ptrdiff_t)y * stride, rb);
        }
    }
}

static void stage_job(StagePool *pl, int k)
{
    for (int s = 0; s < 2; s++)
        if (pl->pic[s])
            stage_part(pl->g, pl->pic[s], s, pl->stage, k, pl->nth + 1);
}

static void *stager_main(void *arg)
{
    StagePool *pl = arg;
    pthread_mutex_lock(&pl->mu);
    int k = pl->started + 1; /* part 0 is the caller's */
    unsigned seen = pl->gen;
    pl->started++;
    pthread_cond_broadcast(&pl->done);
    for (;;) {
        while (!pl->quit && pl->gen == seen)
            pthread_cond_wait(&pl->go, &pl->mu);
        if (pl->quit)
            break;
        seen = pl->gen;
        pthread_mutex_unlock(&pl->mu);
        stage_job(pl, k);
        pthread_mutex_lock(&pl->mu);
        if (--pl->busy == 0)
            pthread_cond_broadcast(&pl->done);
    }
    pthread_mutex_unlock(&pl->mu);
    return NULL;
}

static void pool_stop(GpuPriv *g)
{
    StagePool *pl = &g->pool;
    if (!g->pool_init)
        return;
    pthread_mutex_lock(&pl->mu);
    pl->quit = 1;
    pthread_cond_broadcast(&pl->go);
    pthread_mutex_unlock(&pl->mu);
    for (int i = 0; i < pl->nth; i++)
        pthread_join(pl->th[i], NULL);
    pthread_cond_destroy(&pl->go);
    pthread_cond_destroy(&pl->done);
    pthread_mutex_destroy(&pl->mu);
    g->pool_init = 0;
}

/* Start n - 1 helper threads (the caller copies too); 0 or -EAGAIN. */
static int pool_start(GpuPriv *g, int n)
{
    StagePool *pl = &g->pool;
    memset(pl, 0, sizeof(*pl));
    pl->g = g;
    if (n <= 1)
        return 0;
    if (pthread_mutex_init(&pl->mu, NULL))
        return -EAGAIN;
    if (pthread_cond_init(&pl->go, NULL)) {
        pthread_mutex_destroy(&pl->mu);
        return -EAGAIN;
    }
    if (pthread_cond_init(&pl->done, NULL)) {
        pthread_cond_destroy(&pl->go);
        pthread_mutex_destroy(&pl->mu);
        return -EAGAIN;
    }
    g->pool_init = 1;
    pthread_mutex_lock(&pl->mu);
    for (int i = 0; i < n - 1 && i < MAX_STAGERS; i++) {
        if (pthread_create(&pl->th[i], NULL, stager_main, pl))
            break;
        pl->nth++;
    }
    while (pl->started < pl->nth)
        pthread_cond_wait(&pl->done, &pl->mu);
    pthread_mutex_unlock(&pl->mu);
    return pl->nth == n - 1 || pl->nth == MAX_STAGERS ? 0 : -EAGAIN;
}

/* Host pictures (NULL: device picture) into staging, split over the pool. */
static void stage_frame(GpuPriv *g, const SpeedqaPicture *ref, const SpeedqaPicture *dis,
                        uint8_t *stage)
{
    StagePool *pl = &g->pool;
    pl->pic[0] = ref;
    pl->pic[1] = dis;
    pl->stage = stage;
    if (!pl->nth) {
        stage_job(pl, 0);
        return;
    }
    pthread_mutex_lock(&pl->mu);
    pl->busy = (unsigned)pl->nth;
    pl->gen++;
    pthread_cond_broadcast(&pl->go);
    pthread_mutex_unlock(&pl->mu);
    stage_job(pl, 0);
    pthread_mutex_lock(&pl->mu);
    while (pl->busy)
        pthread_cond_wait(&pl->done, &pl->mu);
    pthread_mutex_unlock(&pl->mu);
}

static void stage_record(const GpuPriv *g, int s, FrameRec *fr, int64_t slot)
{
    for (int c = 0; c < 3; c++) {
        const PlaneGeo *pg = &g->geo[c];
        if (!pg->need)
            continue;
        fr->base[s][c] = slot + pg->dev_off[s];
        fr->stride[s][c] = pg->row_bytes;
        fr->runs[s][c] = pg->runs;
    }
}

static void layout_side(const SqPlan *pl, SqGpuLayout *l)
{
    const SqDims *d = &pl->d;
    int64_t o = 0;
#define TAKE(field, bytes) (l->field = o, o = sq_gpu_align(o + (int64_t)(bytes)))
    memset(l, 0, sizeof(*l));
    if (pl->prescale >= 0) {
        TAKE(conv, (int64_t)d->w * d->h * 4);
        TAKE(scaled, (int64_t)d->scaled_w * d->scaled_h * 4);
    }
    TAKE(vrow, (int64_t)d->op_h * d->scaled_w * 4);
    TAKE(op, (int64_t)d->op_h * d->op_w * 4);
    TAKE(mrow, (int64_t)d->op_h * d->op_w * 4);
    TAKE(dimg, (int64_t)d->op_h * d->op_w * 4);
    TAKE(rows, (int64_t)d->trunc_h * sq_cov_row_doubles(d->b) * 8);
    TAKE(k, (int64_t)d->n * d->n * 4);
    TAKE(lambda, (int64_t)d->n * 4);
    TAKE(y, (int64_t)d->n * d->nb * 4);
    TAKE(x, (int64_t)d->n * d->nb * 4);
    TAKE(flags, 2 * 4);
    TAKE(work, (int64_t)(SQ_GPU_WORK_EIGEN(d->n) + SQ_GPU_WORK_SOLVE(d->n)) * 4);
#undef TAKE
    l->bytes = o;
}

/* Which planes are read, and whether only the runs around every 16th row are. */
static void plan_planes(GpuPriv *g)
{
    const SqBackendParams *p = &g->p;
    int radius[3] = { 0, 0, 0 }, whole[3] = { 0, 0, 0 };
    for (int j = 0; j < p->njobs; j++) {
        const SqPlan *pl = p->plans[p->jobs[j].plan];
        for (int k = 0; k < 2; k++) {
            const int c = p->jobs[j].side[k].plane;
            g->geo[c].need = 1;
            if (pl->prescale >= 0)
                whole[c] = 1;
            radius[c] = sq_imax(radius[c], pl->taps_a >> 1);
        }
    }
    const int64_t bps = p->format.bpc > 8 ? 2 : 1;
    int64_t stage = 0, base = 0;
    for (int s = 0; s < 2; s++) {
        int64_t st = 0, full = 0;
        g->stage_start[s] = stage;
        g->side_base[s] = base;
        for (int c = 0; c < 3; c++) {
            PlaneGeo *pg = &g->geo[c];
            if (!pg->need)
                continue;
            plane_size(&p->format, c, &pg->w, &pg->h);
            pg->op_h = pg->h >> SQ_DECIM_SHIFT;
            pg->row_bytes = pg->w * bps;
            /* Runs must stay disjoint (2r + 1 < 16) to save anything. */
            pg->runs = whole[c] || 2 * radius[c] + 1 >= (1 << SQ_DECIM_SHIFT) ? 0 : 2 * radius[c] + 1;
            pg->stage_bytes = (pg->runs ? (int64_t)pg->op_h * pg->runs : pg->h) * pg->row_bytes;
            pg->stage_off[s] = stage + st;
            pg->dev_off[s] = base + st;
            st = sq_gpu_align(st + pg->stage_bytes);
            pg->full_off[s] = base + full;
            full = sq_gpu_align(full + (int64_t)pg->h * pg->row_bytes);
        }
        g->stage_len[s] = st;
        stage += st;
        base += full > st ? full : st;
    }
    g->stage_bytes = stage;
    g->slot_bytes = base;
}

static void plan_scratch(GpuPriv *g)
{
    int64_t o = 0;
    g->pairs_per_frame = g->p.njobs;
    for (int j = 0; j < g->p.njobs; j++) {
        SqGpuLayout l;
        const SqPlan *pl = g->p.plans[g->p.jobs[j].plan];
        layout_side(pl, &l);
        for (int s = 0; s < 2; s++) {
            g->side_off[j][s] = o;
            o += l.bytes;
        }
        g->pair_off[j] = o;
        o = sq_gpu_align(o + (int64_t)pl->d.nb * 4);
        if (pl->prescale >= 0)
            g->has_prescale = 1;
    }
    g->frame_scratch = o;
}

static int64_t table_bytes(const SqPlan *pl)
{
    return pl->prescale < 0 ? 0 : 2 * sq_gpu_align((int64_t)SQ_PS_TAPS * pl->d.scaled_h * 4) +
                                      2 * sq_gpu_align((int64_t)SQ_PS_TAPS * pl->d.scaled_w * 4) +
                                      sq_gpu_align(pl->d.h);
}

/*
 * The arena for batches of b frames: plans, prescale tables, problem
 * tables, results, per-batch scratch, then the 2b + 1 frame slots. Sets the
 * offsets, returns the size.
 */
static int64_t layout_arena(GpuPriv *g, int b)
{
    const int64_t max_pairs = (int64_t)b * g->pairs_per_frame;
    int64_t o = 0;
    g->off_plans = o;
    o = sq_gpu_align(o + g->p.nplans * (int64_t)sizeof(SqGpuPlan));
    g->off_tables = o;
    for (int f = 0; f < g->p.nplans; f++)
        o += table_bytes(g->p.plans[f]);
    g->off_sides = o;
    o = sq_gpu_align(o + 2 * max_pairs * (int64_t)sizeof(SqGpuSide));
    g->off_pairs = o;
    o = sq_gpu_align(o + max_pairs * (int64_t)sizeof(SqGpuPair));
    g->off_results = o;
    o = sq_gpu_align(o + max_pairs * (int64_t)sizeof(SqGpuResult));
    g->off_scratch = o;
    o += b * g->frame_scratch;
    g->off_slots = o;
    o += (2 * b + 1) * g->slot_bytes;
    return o;
}

/*
 * Frames per batch: the most that keep staging and scratch within their
 * budgets and, when the runtime has a largest allocation (max_alloc > 0,
 * OpenCL), the arena within it. Only ever lowers an earlier choice.
 */
static void choose_batch(GpuPriv *g, int64_t max_alloc)
{
    int b = g->batch ? g->batch : MAX_BATCH;
    while (b > 1 && ((2 * b + 1) * g->stage_bytes > PINNED_BUDGET ||
                     b * g->frame_scratch > SCRATCH_BUDGET ||
                     (max_alloc > 0 && layout_arena(g, b) > max_alloc)))
        b--;
    g->batch = b;
    g->cap = 2 * b;
    g->nslots = g->cap + 1;  /* frame n may still read slot n - 1 */
    g->nbslots = g->cap;     /* a batch holds at least one frame */
    g->arena_bytes = layout_arena(g, b);
}

/* Plans and prescale tables: uploaded once, from a temporary host copy. */
static int upload_plans(GpuPriv *g)
{
    const int nf = g->p.nplans;
    SqGpuPlan *hp = sq_calloc(&g->p.alloc, (size_t)nf, sizeof(*hp));
    size_t mark_bytes = 0;
    for (int f = 0; f < nf; f++)
        if (g->p.plans[f]->prescale >= 0)
            mark_bytes += (size_t)g->p.plans[f]->d.h;
    /* row masks of the prescaled features, alive until the uploads are done */
    uint8_t *marks = sq_calloc(&g->p.alloc, mark_bytes ? mark_bytes : 1, 1), *mark = marks;
    if (!hp || !marks) {
        sq_free(&g->p.alloc, hp);
        sq_free(&g->p.alloc, marks);
        return -ENOMEM;
    }
    int ret = 0;
    int64_t t = g->off_tables;
    for (int f = 0; f < nf && !ret; f++) {
        const SqPlan *pl = g->p.plans[f];
        SqGpuPlan *q = &hp[f];
        q->d = pl->d;
        layout_side(pl, &q->lay);
        q->prescale = pl->prescale;
        q->taps_a = pl->taps_a;
        q->taps_m = pl->taps_m;
        q->sigma_nn = pl->sigma_nn;
        q->nn_floor = pl->nn_floor;
        memcpy(q->ga, pl->ga, sizeof(pl->ga));
        memcpy(q->gm, pl->gm, sizeof(pl->gm));
        q->ps_iy = q->ps_ix = q->ps_wy = q->ps_wx = q->ps_rows = -1;
        if (pl->prescale < 0)
            continue;
        if ((ret = sq_plan_rows_read(pl, mark, &g->p.alloc)) < 0)
            break;
        const size_t ny = (size_t)SQ_PS_TAPS * pl->d.scaled_h * 4;
        const size_t nx = (size_t)SQ_PS_TAPS * pl->d.scaled_w * 4;
        q->ps_iy = t;
        q->ps_wy = t + sq_gpu_align((int64_t)ny);
        q->ps_ix = q->ps_wy + sq_gpu_align((int64_t)ny);
        q->ps_wx = q->ps_ix + sq_gpu_align((int64_t)nx);
        q->ps_rows = q->ps_wx + sq_gpu_align((int64_t)nx);
        t = q->ps_rows + sq_gpu_align(pl->d.h);
        const int s = SQ_GPU_STREAM_COMPUTE;
        if ((ret = g->fns->upload(g->dev, s, g->arena + q->ps_rows, mark, (size_t)pl->d.h)) < 0 ||
            (ret = g->fns->upload(g->dev, s, g->arena + q->ps_iy, pl->ps_iy, ny)) < 0 ||
            (ret = g->fns->upload(g->dev, s, g->arena + q->ps_wy, pl->ps_wy, ny)) < 0 ||
            (ret = g->fns->upload(g->dev, s, g->arena + q->ps_ix, pl->ps_ix, nx)) < 0 ||
            (ret = g->fns->upload(g->dev, s, g->arena + q->ps_wx, pl->ps_wx, nx)) < 0)
            break;
        mark += pl->d.h;
    }
    if (!ret)
        ret = g->fns->upload(g->dev, SQ_GPU_STREAM_COMPUTE, g->arena + g->off_plans, hp,
                             (size_t)nf * sizeof(*hp));
    /* pageable sources: wait before freeing them (open only) */
    if (!ret && (ret = g->fns->event_record(g->dev, 0, SQ_GPU_STREAM_COMPUTE)) == 0)
        ret = g->fns->event_sync(g->dev, 0);
    sq_free(&g->p.alloc, hp);
    sq_free(&g->p.alloc, marks);
    return ret;
}

void sq_gpu_close(void **priv)
{
    GpuPriv *g = *priv;
    if (!g)
        return;
    pool_stop(g);
    if (g->dev) {
        const SqGpuFns *fn = g->fns;
        if (fn->enter)
            fn->enter(g->dev);
        /* Nothing may still write into what we free. */
        for (int j = 0; g->batches && j < g->nbslots; j++)
            if (g->batches[j].launched && !g->batches[j].done)
                fn->event_sync(g->dev, 2 * j + 1);
        if (g->pinned)
            fn->host_free(g->dev, g->pinned);
        if (g->arena)
            fn->free(g->dev, g->arena);
        if (fn->leave)
            fn->leave(g->dev);
        fn->close(&g->dev);
    }
    const SqAlloc a = g->p.alloc;
    sq_free(&a, g->frames);
    sq_free(&a, g->batches);
    sq_free(&a, g);
    *priv = NULL;
}

int sq_gpu_open(void **priv, const SqBackendParams *p, const SqGpuFns *fns, char *err,
                size_t errlen)
{
    *priv = NULL;
    GpuPriv *g = sq_calloc(&p->alloc, 1, sizeof(*g));
    if (!g) {
        snprintf(err, errlen, "out of memory for the %s backend", fns->name);
        return -ENOMEM;
    }
    g->p = *p;
    g->fns = fns;
    g->open_batch = -1;
    for (int f = 0; f < p->nplans; f++)
        if (p->plans[f]->d.n > SQ_GPU_NMAX || p->plans[f]->taps_a > SQ_MAX_TAPS) {
            snprintf(err, errlen, "%s: block size %d unsupported", fns->name, p->plans[f]->d.b);
            sq_free(&p->alloc, g);
            return -EINVAL;
        }
    plan_planes(g);
    plan_scratch(g);
    choose_batch(g, 0);

    int ret;
    const int nev = 2 * g->nbslots + SQ_K_COUNT + 1;
    const char *name = p->device_name && p->device_name[0] ? p->device_name : NULL;
    if (name && !fns->open_named) {
        snprintf(err, errlen, "the %s backend cannot select a device by name", fns->name);
        sq_gpu_close((void **)&g);
        return -EINVAL;
    }
    ret = name ? fns->open_named(&g->dev, name, nev, &p->alloc, err, errlen)
               : fns->open(&g->dev, p->device, nev, &p->alloc, err, errlen);
    if (ret < 0) {
        g->dev = NULL;
        sq_gpu_close((void **)&g);
        return ret;
    }
    if (fns->enter && (ret = fns->enter(g->dev)) < 0)
        goto fail_dev;
    /* fewer frames per batch: the events opened above still suffice */
    if (fns->max_alloc)
        choose_batch(g, (int64_t)fns->max_alloc(g->dev));
    const int max_pairs = g->batch * g->pairs_per_frame;

    /* desc: sides then pairs; pinned block: staging slots, then per batch desc + results */
    g->desc_bytes = sq_gpu_align(2 * max_pairs * (int64_t)sizeof(SqGpuSide)) +
                    sq_gpu_align(max_pairs * (int64_t)sizeof(SqGpuPair));
    const int64_t res_bytes = sq_gpu_align(max_pairs * (int64_t)sizeof(SqGpuResult));
    g->pinned_bytes = g->nslots * g->stage_bytes + g->nbslots * (g->desc_bytes + res_bytes);

    g->frames = sq_calloc(&p->alloc, (size_t)g->nslots, sizeof(*g->frames));
    g->batches = sq_calloc(&p->alloc, (size_t)g->nbslots, sizeof(*g->batches));
    if (!g->frames || !g->batches) {
        snprintf(err, errlen, "out of memory for the %s backend", fns->name);
        ret = -ENOMEM;
        goto fail_leave;
    }
    if ((ret = fns->alloc(g->dev, (size_t)g->arena_bytes, &g->arena)) < 0) {
        g->arena = 0;
        goto fail_dev;
    }
    if ((ret = fns->host_alloc(g->dev, (size_t)g->pinned_bytes, (void **)&g->pinned)) < 0) {
        g->pinned = NULL;
        goto fail_dev;
    }
    uint8_t *hb = g->pinned + g->nslots * g->stage_bytes;
    for (int j = 0; j < g->nbslots; j++) {
        BatchRec *b = &g->batches[j];
        b->sides = (SqGpuSide *)hb;
        b->pairs = (SqGpuPair *)(hb + sq_gpu_align(2 * max_pairs * (int64_t)sizeof(SqGpuSide)));
        b->res = (SqGpuResult *)(hb + g->desc_bytes);
        hb += g->desc_bytes + res_bytes;
    }
    if ((ret = upload_plans(g)) < 0)
        goto fail_dev;
    if (pool_start(g, p->n_threads) < 0) {
        snprintf(err, errlen, "cannot start %s staging threads", fns->name);
        ret = -EAGAIN;
        goto fail_leave;
    }
    if (fns->leave)
        fns->leave(g->dev);
    *priv = g;
    return 0;

fail_dev:
    snprintf(err, errlen, "%s", fns->error(g->dev));
fail_leave:
    if (fns->leave)
        fns->leave(g->dev);
    sq_gpu_close((void **)&g);
    return ret == -ENOMEM || ret == -ENODEV || ret == -EAGAIN ? ret : -EIO;
}

int sq_gpu_capacity(void *priv)
{
    return ((GpuPriv *)priv)->cap;
}

void sq_gpu_stats(void *priv, SqGpuStats *st)
{
    const GpuPriv *g = priv;
    st->batch_frames = g->batch;
    st->capacity = g->cap;
    st->arena_bytes = (size_t)g->arena_bytes;
    st->pinned_bytes = (size_t)g->pinned_bytes;
}

void sq_gpu_set_profile(void *priv, int on)
{
    GpuPriv *g = priv;
    g->profile = on;
    memset(g->prof_ms, 0, sizeof(g->prof_ms));
    g->prof_batches = 0;
}

int sq_gpu_profile(void *priv, double *ms)
{
    const GpuPriv *g = priv;
    for (int k = 0; k < SQ_K_COUNT; k++)
        ms[k] = g->prof_batches ? g->prof_ms[k] / g->prof_batches : 0.0;
    return g->prof_batches;
}

/* Device planes: whole planes, device to device (negative strides kept). */
static int copy_device_picture(GpuPriv *g, const SpeedqaPicture *pic, int s, FrameRec *fr,
                               int64_t slot)
{
    for (int c = 0; c < 3; c++) {
        const PlaneGeo *pg = &g->geo[c];
        if (!pg->need)
            continue;
        const int64_t rb = pg->row_bytes, h = pg->h;
        const ptrdiff_t stride = pic->stride[c];
        const SqGpuAddr src = (SqGpuAddr)(uintptr_t)pic->data[c];
        const int64_t dst = slot + pg->full_off[s];
        const ptrdiff_t pitch = stride < 0 ? -stride : stride;
        if (pitch < rb)
            return -EINVAL; /* rows overlap: not a picture */
        const SqGpuAddr low = stride < 0 ? src - (SqGpuAddr)((h - 1) * pitch) : src;
        int ret = g->fns->copy2d(g->dev, SQ_GPU_STREAM_COPY, g->arena + dst, (size_t)rb, low,
                                 (size_t)pitch, (size_t)rb, (size_t)h);
        if (ret < 0)
            return fail(g, ret, "device picture copy");
        fr->base[s][c] = stride < 0 ? dst + (h - 1) * rb : dst;
        fr->stride[s][c] = stride < 0 ? -rb : rb;
        fr->runs[s][c] = 0;
    }
    return 0;
}

static void fill_side(const GpuPriv *g, SqGpuSide *sd, int f, int64_t scratch, const FrameRec *cur,
                      int cs, int c, const FrameRec *prev, int ps)
{
    memset(sd, 0, sizeof(*sd));
    sd->cur = cur->base[cs][c];
    sd->cur_stride = cur->stride[cs][c];
    sd->cur_runs = cur->runs[cs][c];
    sd->prev = -1;
    if (prev) {
        sd->prev = prev->base[ps][c];
        sd->prev_stride = prev->stride[ps][c];
        sd->prev_runs = prev->runs[ps][c];
    }
    sd->scratch = scratch;
    sd->plan = f;
    sd->hbd = g->p.format.bpc > 8;
    sd->scale = sq_bpc_scale(g->p.format.bpc);
    sd->range_check = g->p.format.bpc > 8 && g->p.format.bpc < 16;
}

/* Problem tables of batch slot j: one pair per (frame, feature, plane). */
static void build_tables(GpuPriv *g, int j, unsigned long long first)
{
    BatchRec *b = &g->batches[j];
    int np = 0;
    for (int bi = 0; bi < b->nframes; bi++) {
        const unsigned long long n = first + (unsigned long long)bi;
        const FrameRec *fr = &g->frames[n % (unsigned)g->nslots];
        const FrameRec *pv = fr->has_prev ? &g->frames[(n - 1) % (unsigned)g->nslots] : NULL;
        const int64_t fs = g->off_scratch + bi * g->frame_scratch;
        for (int j = 0; j < g->p.njobs; j++) {
            const SqJob *jb = &g->p.jobs[j];
            if (jb->needs_prev && !pv)
                continue; /* first frame of a sequence: its raw score is 0 */
            SqGpuPair *pr = &b->pairs[np];
            memset(pr, 0, sizeof(*pr));
            pr->terms = fs + g->pair_off[j];
            pr->plan = jb->plan;
            pr->wvm = jb->wvm;
            pr->frame = bi;
            pr->job = j;
            for (int k = 0; k < 2; k++) {
                const SqJobSide *js = &jb->side[k];
                fill_side(g, &b->sides[2 * np + k], jb->plan, fs + g->side_off[j][k], fr, js->pic,
                          js->plane, js->prev_pic >= 0 ? pv : NULL, js->prev_pic);
            }
            np++;
        }
    }
    b->npairs = np;
}

static unsigned ceil_div(int64_t a, int64_t b)
{
    return (unsigned)((a + b - 1) / b);
}

static int launch_kernels(GpuPriv *g, int npairs)
{
    const SqGpuFns *fn = g->fns;
    const int S = SQ_GPU_STREAM_COMPUTE, ev0 = 2 * g->nbslots;
    SqKArgs ka;
    memset(&ka, 0, sizeof(ka));
    ka.plans = g->off_plans;
    ka.sides = g->off_sides;
    ka.pairs = g->off_pairs;
    ka.results = g->off_results;
    ka.nsides = 2 * npairs;
    ka.npairs = npairs;
    int64_t op_h = 0, cov = 0, nb = 0, pix = 0, spix = 0;
    for (int f = 0; f < g->p.nplans; f++) {
        const SqDims *d = &g->p.plans[f]->d;
        op_h = op_h > d->op_h ? op_h : d->op_h;
        cov = cov > (int64_t)d->trunc_h * (sq_cov_nlags(d->b) + 1) ? cov : (int64_t)d->trunc_h * (sq_cov_nlags(d->b) + 1);
        nb = nb > d->nb ? nb : d->nb;
        if (g->p.plans[f]->prescale >= 0) {
            pix = pix > (int64_t)d->w * d->h ? pix : (int64_t)d->w * d->h;
            spix = spix > (int64_t)d->scaled_w * d->scaled_h ? spix : (int64_t)d->scaled_w * d->scaled_h;
        }
    }
    const unsigned ns = (unsigned)ka.nsides, np = (unsigned)npairs;
    const struct {
        int k;
        unsigned grid[3];
        unsigned block;
    } steps[] = {
        { SQ_K_convert, { ceil_div(pix, 256), ns, 1 }, 256 },
        { SQ_K_prescale, { ceil_div(spix, 256), ns, 1 }, 256 },
        { SQ_K_opimg, { (unsigned)op_h, ns, 1 }, 256 },
        { SQ_K_localmean, { (unsigned)op_h, ns, 1 }, 128 },
        { SQ_K_covrows, { ceil_div(cov, 256), ns, 1 }, 256 },
        { SQ_K_covk, { ns, 1, 1 }, 256 },
        { SQ_K_eigsolve, { ns, 2, 1 }, 256 },
        { SQ_K_entropy, { ceil_div(nb, 256), np, 1 }, 256 },
        { SQ_K_pool, { ceil_div(np, 256), 1, 1 }, 256 },
    };
    int ret = 0;
    if (g->profile && (ret = fn->event_record(g->dev, ev0, S)) < 0)
        return ret;
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        if (!g->has_prescale && (steps[i].k == SQ_K_convert || steps[i].k == SQ_K_prescale))
            continue;
        if ((ret = fn->launch(g->dev, S, steps[i].k, steps[i].grid, steps[i].block, g->arena, &ka)) < 0)
            return ret;
        if (g->profile && (ret = fn->event_record(g->dev, ev0 + 1 + steps[i].k, S)) < 0)
            return ret;
    }
    return 0;
}

/* Profile mode only: wait and add each kernel's time. */
static int collect_profile(GpuPriv *g)
{
    const int ev0 = 2 * g->nbslots;
    int ret, prev = ev0;
    if ((ret = g->fns->event_sync(g->dev, ev0 + SQ_K_COUNT)) < 0)
        return ret;
    for (int k = 0; k < SQ_K_COUNT; k++) {
        if (!g->has_prescale && (k == SQ_K_convert || k == SQ_K_prescale))
            continue;
        float ms = 0.0f;
        if ((ret = g->fns->event_elapsed(g->dev, prev, ev0 + 1 + k, &ms)) < 0)
            return ret;
        g->prof_ms[k] += ms;
        prev = ev0 + 1 + k;
    }
    g->prof_batches++;
    return 0;
}

static int launch_batch(GpuPriv *g)
{
    const int j = g->open_batch;
    BatchRec *b = &g->batches[j];
    const SqGpuFns *fn = g->fns;
    const unsigned long long first = g->sent - (unsigned long long)b->nframes;
    const int C = SQ_GPU_STREAM_COMPUTE;
    int ret;
    g->open_batch = -1;
    build_tables(g, j, first);
    b->launched = 1;
    b->done = 0;
    if ((ret = fn->event_record(g->dev, 2 * j, SQ_GPU_STREAM_COPY)) < 0 ||
        (ret = fn->stream_wait(g->dev, C, 2 * j)) < 0)
        return fail(g, ret, "batch launch");
    if (b->npairs) {
        /* The kernels fold the sample ranges into zeroed results. The pinned
         * copy is free: this batch slot's last results were received. */
        memset(b->res, 0, (size_t)b->npairs * sizeof(SqGpuResult));
        if ((ret = fn->upload(g->dev, C, g->arena + g->off_results, b->res,
                              (size_t)b->npairs * sizeof(SqGpuResult))) < 0 ||
            (ret = fn->upload(g->dev, C, g->arena + g->off_sides, b->sides,
                              2 * (size_t)b->npairs * sizeof(SqGpuSide))) < 0 ||
            (ret = fn->upload(g->dev, C, g->arena + g->off_pairs, b->pairs,
                              (size_t)b->npairs * sizeof(SqGpuPair))) < 0 ||
            (ret = launch_kernels(g, b->npairs)) < 0 ||
            (ret = fn->download(g->dev, C, b->res, g->arena + g->off_results,
                                (size_t)b->npairs * sizeof(SqGpuResult))) < 0)
            return fail(g, ret, "batch launch");
    }
    if ((ret = fn->event_record(g->dev, 2 * j + 1, C)) < 0)
        return fail(g, ret, "batch launch");
    if (g->profile && b->npairs && (ret = collect_profile(g)) < 0)
        return fail(g, ret, "profile");
    g->nbatches++;
    return 0;
}

int sq_gpu_send(void *priv, const SpeedqaPicture *ref, const SpeedqaPicture *dis, int new_seq,
                char *err, size_t errlen)
{
    GpuPriv *g = priv;
    const SpeedqaPicture *pic[2] = { ref, dis };
    if (g->sticky)
        return report(g, err, errlen);
    for (int s = 0; s < 2; s++)
        if (pic[s]->memory != SPEEDQA_MEM_HOST &&
            ((int)pic[s]->memory != g->fns->device_memory || !g->fns->copy2d)) {
            snprintf(err, errlen, "the %s backend cannot read this picture memory", g->fns->name);
            return -EINVAL;
        }
    if (g->sent - g->received >= (unsigned)g->cap) {
        snprintf(err, errlen, "%s: queue full", g->fns->name);
        return -EAGAIN;
    }
    if (g->fns->enter && g->fns->enter(g->dev) < 0)
        return fail(g, -EIO, "context"), report(g, err, errlen);
    const unsigned long long n = g->sent;
    const int slot = (int)(n % (unsigned)g->nslots);
    const int64_t slot_off = g->off_slots + slot * g->slot_bytes;
    uint8_t *stage = g->pinned + slot * g->stage_bytes;
    FrameRec *fr = &g->frames[slot];
    int ret = 0, staged = 0;
    memset(fr, 0, sizeof(*fr));
    fr->has_prev = !new_seq && n > 0;
    for (int s = 0; s < 2 && !ret; s++) {
        if (pic[s]->memory == SPEEDQA_MEM_HOST) {
            stage_record(g, s, fr, slot_off);
            staged = 1;
        } else if ((ret = copy_device_picture(g, pic[s], s, fr, slot_off)) == -EINVAL) {
            snprintf(err, errlen, "%s: device picture stride is smaller than a row", g->fns->name);
            if (g->fns->leave)
                g->fns->leave(g->dev);
            return -EINVAL;
        }
    }
    if (!ret && staged)
        stage_frame(g, ref->memory == SPEEDQA_MEM_HOST ? ref : NULL,
                    dis->memory == SPEEDQA_MEM_HOST ? dis : NULL, stage);
    for (int s = 0; s < 2 && !ret; s++)
        if (pic[s]->memory == SPEEDQA_MEM_HOST && g->stage_len[s] &&
            (ret = g->fns->upload(g->dev, SQ_GPU_STREAM_COPY, g->arena + slot_off + g->side_base[s],
                                  stage + g->stage_start[s], (size_t)g->stage_len[s])) < 0)
            fail(g, ret, "frame upload");
    if (!ret) {
        if (g->open_batch < 0) {
            g->open_batch = (int)(g->nbatches % (unsigned)g->nbslots);
            g->batches[g->open_batch].nframes = 0;
            g->batches[g->open_batch].launched = 0;
        }
        BatchRec *b = &g->batches[g->open_batch];
        fr->bslot = g->open_batch;
        fr->index = b->nframes++;
        g->sent++;
        if (b->nframes == g->batch)
            ret = launch_batch(g);
    }
    if (g->fns->leave)
        g->fns->leave(g->dev);
    return ret < 0 ? report(g, err, errlen) : 0;
}

int sq_gpu_receive(void *priv, SqRawResult *out, int block, char *err, size_t errlen)
{
    GpuPriv *g = priv;
    if (g->sticky)
        return report(g, err, errlen);
    const unsigned long long n = g->received;
    const FrameRec *fr = &g->frames[n % (unsigned)g->nslots];
    BatchRec *b = &g->batches[fr->bslot];
    int ret = 0;
    if (g->fns->enter && g->fns->enter(g->dev) < 0)
        return fail(g, -EIO, "context"), report(g, err, errlen);
    if (!b->launched) {
        if (!block) {
            ret = -EAGAIN;
            goto out;
        }
        if ((ret = launch_batch(g)) < 0)
            goto out;
    }
    if (!b->done) {
        const int ev = 2 * fr->bslot + 1;
        ret = block ? g->fns->event_sync(g->dev, ev) : g->fns->event_query(g->dev, ev);
        if (ret < 0) {
            fail(g, ret, "batch wait");
            goto out;
        }
        if (!block && ret == 0) {
            ret = -EAGAIN;
            goto out;
        }
        b->done = 1;
    }
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < b->npairs; i++) {
        const SqGpuPair *pr = &b->pairs[i];
        if (pr->frame != fr->index)
            continue;
        out->score[pr->job] = b->res[i].score;
        out->err[pr->job] = b->res[i].err;
        memcpy(out->range[pr->job], b->res[i].range, sizeof(b->res[i].range));
    }
    g->received++;
    ret = 0;
out:
    if (g->fns->leave)
        g->fns->leave(g->dev);
    if (ret == -EAGAIN)
        return ret;
    return ret < 0 ? report(g, err, errlen) : 0;
}
