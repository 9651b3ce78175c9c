/*
 * Batches: frames join the open batch as they are sent; a full batch (or
 * one whose result is needed now) gets its problem tables, one chain of
 * kernels on the compute stream after its frames' uploads, and one
 * download of its results. Events say when a batch is done.
 */
#include <string.h>

#include "gpu/pipeline_priv.h"
#include "math/filter.h"

_Static_assert(sizeof(((SqRawResult *)0)->range[0]) == sizeof(((SqGpuResult *)0)->range),
               "SqGpuResult.range is SqRawResult.range of one job");

static void fill_side(const GpuPriv *g, SqGpuSide *sd, int f, int64_t scratch, const FrameRec *cur,
                      int cs, int c, const FrameRec *prev, int ps)
{
    memset(sd, 0, sizeof(*sd));
    sd->cur = cur->base[cs][c];
    sd->cur_stride = cur->stride[cs][c];
    sd->cur_runs = cur->runs[cs][c];
    sd->prev = -1;
    int prev_acc = cur->acc[cs][c];
    if (prev) {
        sd->prev = prev->base[ps][c];
        sd->prev_stride = prev->stride[ps][c];
        sd->prev_runs = prev->runs[ps][c];
        prev_acc = prev->acc[ps][c];
    }
    sd->scratch = scratch;
    sd->plan = f;
    sd->acc = sq_acc_pair(cur->acc[cs][c], prev_acc);
    sd->scale = sq_bpc_scale(g->p.format.bpc);
    sd->range_check = g->p.format.bpc > 8 && g->p.format.bpc < 16;
}

/* Problem tables of batch slot bslot: one pair per (frame, job). */
static void build_tables(GpuPriv *g, int bslot, unsigned long long first)
{
    BatchRec *b = &g->batches[bslot];
    int np = 0;
    for (int bi = 0; bi < b->nframes; bi++) {
        const unsigned long long n = first + (unsigned long long)bi;
        const FrameRec *fr = &g->frames[n % (unsigned)g->nslots];
        const FrameRec *pv = fr->has_prev ? &g->frames[(n - 1) % (unsigned)g->nslots] : NULL;
        const int64_t fs = g->at.scratch + bi * g->frame_scratch;
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

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int skipped(const GpuPriv *g, int kernel)
{
    return !g->has_prescale && (kernel == SQ_K_convert || kernel == SQ_K_prescale);
}

static int launch_kernels(GpuPriv *g, int npairs)
{
    const SqGpuFns *fn = g->fns;
    const int S = SQ_GPU_STREAM_COMPUTE;
    SqKArgs ka;
    memset(&ka, 0, sizeof(ka));
    ka.plans = g->at.plans;
    ka.sides = g->at.sides;
    ka.pairs = g->at.pairs;
    ka.results = g->at.results;
    ka.nsides = 2 * npairs;
    ka.npairs = npairs;
    int64_t op_h = 0, cov = 0, nb = 0, pix = 0, spix = 0;
    for (int f = 0; f < g->p.nplans; f++) {
        const SqDims *d = &g->p.plans[f]->d;
        op_h = max64(op_h, d->op_h);
        cov = max64(cov, (int64_t)d->trunc_h * (sq_cov_nlags(d->b) + 1));
        nb = max64(nb, d->nb);
        if (g->p.plans[f]->prescale >= 0) {
            pix = max64(pix, (int64_t)d->w * d->h);
            spix = max64(spix, (int64_t)d->scaled_w * d->scaled_h);
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
    int ret;
    if (g->profile && (ret = fn->event_record(g->dev, ev_profile_start(g), S)) < 0)
        return ret;
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        if (skipped(g, steps[i].k))
            continue;
        if ((ret = fn->launch(g->dev, S, steps[i].k, steps[i].grid, steps[i].block, g->arena, &ka)) < 0)
            return ret;
        if (g->profile && (ret = fn->event_record(g->dev, ev_profile_after(g, steps[i].k), S)) < 0)
            return ret;
    }
    return 0;
}

/* Profile mode only: wait and add each kernel's time. */
static int collect_profile(GpuPriv *g)
{
    int ret, prev = ev_profile_start(g);
    if ((ret = g->fns->event_sync(g->dev, ev_profile_after(g, SQ_K_COUNT - 1))) < 0)
        return ret;
    for (int k = 0; k < SQ_K_COUNT; k++) {
        if (skipped(g, k))
            continue;
        float ms = 0.0f;
        if ((ret = g->fns->event_elapsed(g->dev, prev, ev_profile_after(g, k), &ms)) < 0)
            return ret;
        g->prof_ms[k] += ms;
        prev = ev_profile_after(g, k);
    }
    g->prof_batches++;
    return 0;
}

/* The open batch's problem tables up, its kernels, its results down. */
static int run_batch(GpuPriv *g, const BatchRec *b)
{
    const SqGpuFns *fn = g->fns;
    const int C = SQ_GPU_STREAM_COMPUTE;
    int ret;
    /* The kernels fold the sample ranges into zeroed results. The pinned
     * copy is free: this batch slot's last results were received. */
    memset(b->res, 0, (size_t)b->npairs * sizeof(SqGpuResult));
    if ((ret = fn->upload(g->dev, C, g->arena + g->at.results, b->res,
                          (size_t)b->npairs * sizeof(SqGpuResult))) < 0 ||
        (ret = fn->upload(g->dev, C, g->arena + g->at.sides, b->sides,
                          2 * (size_t)b->npairs * sizeof(SqGpuSide))) < 0 ||
        (ret = fn->upload(g->dev, C, g->arena + g->at.pairs, b->pairs,
                          (size_t)b->npairs * sizeof(SqGpuPair))) < 0 ||
        (ret = launch_kernels(g, b->npairs)) < 0)
        return ret;
    return fn->download(g->dev, C, b->res, g->arena + g->at.results,
                        (size_t)b->npairs * sizeof(SqGpuResult));
}

int sq_gpu_launch_batch(GpuPriv *g)
{
    const int j = g->open_batch;
    BatchRec *b = &g->batches[j];
    const SqGpuFns *fn = g->fns;
    const unsigned long long first = g->fr.sent - (unsigned long long)b->nframes;
    const int C = SQ_GPU_STREAM_COMPUTE;
    int ret;
    /* every frame of the batch is on the copy stream before its event */
    if (g->stage.pool && (ret = sq_gpu_finish_staging(g, 1)) < 0)
        return ret;
    g->open_batch = -1;
    b->first = first;
    build_tables(g, j, first);
    b->launched = 1;
    b->done = 0;
    if ((ret = fn->event_record(g->dev, ev_upload_done(g, j), SQ_GPU_STREAM_COPY)) < 0 ||
        (ret = fn->stream_wait(g->dev, C, ev_upload_done(g, j))) < 0 ||
        (b->npairs && (ret = run_batch(g, b)) < 0) ||
        (ret = fn->event_record(g->dev, ev_batch_done(g, j), C)) < 0)
        return sq_gpu_fail(g, ret, "batch launch");
    if (g->profile && b->npairs && (ret = collect_profile(g)) < 0)
        return sq_gpu_fail(g, ret, "profile");
    g->nbatches++;
    return 0;
}

/* The frame just put into its slot joins the open batch; a full batch is launched. */
int sq_gpu_add_frame(GpuPriv *g, FrameRec *fr)
{
    if (g->open_batch < 0) {
        g->open_batch = (int)(g->nbatches % (unsigned)g->nbslots);
        g->batches[g->open_batch].nframes = 0;
        g->batches[g->open_batch].launched = 0;
    }
    BatchRec *b = &g->batches[g->open_batch];
    fr->bslot = g->open_batch;
    fr->index = b->nframes++;
    sq_frames_commit(&g->fr);
    return b->nframes == g->batch ? sq_gpu_launch_batch(g) : 0;
}

/* 1 when batch slot bslot is done, 0 when pending (block == 0), or a sticky error. */
int sq_gpu_wait_batch(GpuPriv *g, int bslot, int block)
{
    BatchRec *b = &g->batches[bslot];
    if (!b->done) {
        const int ev = ev_batch_done(g, bslot);
        const int ret = block ? g->fns->event_sync(g->dev, ev) : g->fns->event_query(g->dev, ev);
        if (ret < 0)
            return sq_gpu_fail(g, ret, "batch wait");
        if (!block && ret == 0)
            return 0;
        b->done = 1;
        /* its uploads are done too: the library pictures it read go back */
        for (int i = 0; i < b->nframes; i++)
            sq_frames_done(&g->fr, b->first + (unsigned)i);
    }
    return 1;
}

/* The raw result of frame `index` of a done batch. */
void sq_gpu_take_result(const GpuPriv *g, int bslot, int index, SqRawResult *out)
{
    const BatchRec *b = &g->batches[bslot];
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < b->npairs; i++) {
        const SqGpuPair *pr = &b->pairs[i];
        if (pr->frame != index)
            continue;
        out->score[pr->job] = b->res[i].score;
        out->err[pr->job] = b->res[i].err;
        memcpy(out->range[pr->job], b->res[i].range, sizeof(b->res[i].range));
    }
}
