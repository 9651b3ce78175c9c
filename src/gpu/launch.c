/*
 * Batches: frames join the open batch as they are sent; a full batch (or
 * one whose result is needed now) gets its problem tables, its features'
 * chains of kernels after its frames' uploads (chains.c), and one download
 * of its results. Events say when a batch is done.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu/pipeline_priv.h"
#include "math/filter.h"

_Static_assert(sizeof(((SqRawResult *)0)->range[0]) == sizeof(((SqGpuResult *)0)->range),
               "SqGpuResult.range is SqRawResult.range of one job");
_Static_assert(sizeof(((SqRawResult *)0)->adm[0]) == sizeof(((SqGpuResult *)0)->adm),
               "SqGpuResult.adm is SqRawResult.adm of one job");
_Static_assert(sizeof(((SqRawResult *)0)->vif[0]) == sizeof(((SqGpuResult *)0)->vif),
               "SqGpuResult.vif is SqRawResult.vif of one job");
_Static_assert(sizeof(((SqRawResult *)0)->cambi[0]) == sizeof(((SqGpuResult *)0)->cambi),
               "SqGpuResult.cambi holds SqRawResult.cambi's bits");

static void fill_side(const GpuCtx *x, SqGpuSide *sd, int f, int64_t scratch, const FrameRec *cur,
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
    sd->scale = sq_bpc_scale(x->p.format.bpc);
    sd->range_check = x->p.format.bpc > 8 && x->p.format.bpc < 16;
}

/* An SQ_JOB_SAD job's entry: its plane of frame fr against the one of pv. */
static void fill_sad(const GpuBatches *bt, SqGpuSad *s, const SqJob *jb, int64_t fs, int j,
                     int bi, const FrameRec *fr, const FrameRec *pv)
{
    const SqJobSide *js = &jb->side[0];
    const SqDims *d = &bt->x->p.plans[jb->plan]->d;
    const int c = js->plane;
    memset(s, 0, sizeof(*s));
    s->cur = fr->base[js->pic][c];
    s->cur_stride = fr->stride[js->pic][c];
    s->cur_acc = fr->acc[js->pic][c];
    s->prev = pv->base[js->prev_pic][c];
    s->prev_stride = pv->stride[js->prev_pic][c];
    s->prev_acc = pv->acc[js->prev_pic][c];
    s->vert = fs + bt->l->side_off[j][0];
    s->rows = fs + bt->l->side_off[j][1];
    s->w = d->w;
    s->h = d->h;
    s->bpc = bt->x->p.format.bpc;
    s->frame = bi;
    s->job = j;
}

/* The frame `back` sends before frame n, when it is of n's sequence. */
static const FrameRec *frame_back(const GpuBatches *bt, const FrameRec *fr,
                                  unsigned long long n, int back)
{
    return fr->past >= back ? &bt->frames[(n - (unsigned)back) % (unsigned)bt->l->nslots] : NULL;
}

/* Problem tables of batch slot bslot: one pair per (frame, SpEED job), one
 * SqGpuSad per (frame, SAD job), one SqGpuAdm per (frame, ADM job), one
 * SqGpuVif per (frame, VIF job), one SqGpuCambi per (frame, CAMBI job) and
 * one SqGpuRange per (frame, plane the integer features check), whose
 * results follow the pairs' in that order. */
static void build_tables(GpuBatches *bt, int bslot, unsigned long long first)
{
    BatchRec *b = &bt->batches[bslot];
    int np = 0, ns = 0, na = 0, nv = 0, nc = 0;
    for (int bi = 0; bi < b->nframes; bi++) {
        const unsigned long long n = first + (unsigned long long)bi;
        const FrameRec *fr = &bt->frames[n % (unsigned)bt->l->nslots];
        const int64_t fs = bt->l->at.scratch + bi * bt->l->frame_scratch;
        for (int j = 0; j < bt->x->p.njobs; j++) {
            const SqJob *jb = &bt->x->p.jobs[j];
            const FrameRec *pv = frame_back(bt, fr, n, jb->needs_prev > 1 ? 2 : 1);
            if (jb->needs_prev && !pv)
                continue; /* too early in its sequence: its raw score is 0 */
            if (jb->kind == SQ_JOB_SAD) {
                fill_sad(bt, &b->sads[ns++], jb, fs, j, bi, fr, pv);
                continue;
            }
            if (jb->kind == SQ_JOB_ADM) {
                sq_gpu_fill_adm(bt, &b->adms[na++], jb, fs, j, bi, fr);
                continue;
            }
            if (jb->kind == SQ_JOB_VIF) {
                sq_gpu_fill_vif(bt, &b->vifs[nv++], jb, fs, j, bi, fr);
                continue;
            }
            if (jb->kind == SQ_JOB_CAMBI) {
                sq_gpu_fill_cambi(bt, &b->cambis[nc++], jb, fs, j, bi, fr);
                continue;
            }
            SqGpuPair *pr = &b->pairs[np];
            memset(pr, 0, sizeof(*pr));
            pr->terms = fs + bt->l->pair_off[j];
            pr->plan = jb->plan;
            pr->wvm = jb->wvm;
            pr->frame = bi;
            pr->job = j;
            for (int k = 0; k < 2; k++) {
                const SqJobSide *js = &jb->side[k];
                fill_side(bt->x, &b->sides[2 * np + k], jb->plan, fs + bt->l->side_off[j][k], fr, js->pic,
                          js->plane, js->prev_pic >= 0 ? pv : NULL, js->prev_pic);
            }
            np++;
        }
    }
    b->npairs = np;
    b->nsads = ns;
    b->nadms = na;
    b->nvifs = nv;
    b->ncambis = nc;
    b->nranges = 0;
    for (int bi = 0; bi < b->nframes; bi++) {
        const FrameRec *fr = &bt->frames[(first + (unsigned)bi) % (unsigned)bt->l->nslots];
        for (int k = 0; k < bt->l->rk.n; k++) {
            const int key = bt->l->rk.key[k], pic = key / 3, c = key % 3;
            if (fr->acc[pic][c] >> 2)
                continue; /* MSB-aligned samples cannot exceed the depth */
            const SqDims *d = &bt->x->p.plans[bt->l->rk.plan[k]]->d;
            const int e = b->nranges++;
            b->ranges[e] = (SqGpuRange){ .pic = fr->base[pic][c], .stride = fr->stride[pic][c],
                                         .acc = fr->acc[pic][c], .w = d->w, .h = d->h,
                                         .result = np + ns + na + nv + nc + e, .frame = bi,
                                         .key = key };
        }
    }
    for (int i = 0; i < ns; i++)
        b->sads[i].result = np + i;
    for (int i = 0; i < na; i++)
        b->adms[i].result = np + ns + i;
    for (int i = 0; i < nv; i++)
        b->vifs[i].result = np + ns + na + i;
    for (int i = 0; i < nc; i++)
        b->cambis[i].result = np + ns + na + nv + i;
}

/* The batch's jobs of every kind: its results. */
static int batch_jobs(const BatchRec *b)
{
    return b->npairs + b->nsads + b->nadms + b->nvifs + b->ncambis + b->nranges;
}

static unsigned ceil_div(int64_t a, int64_t b)
{
    return (unsigned)((a + b - 1) / b);
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Kernels a batch does not run: prescale's without a prescaled plan, SpEED's
 * without a pair, motion's without a SAD job, ADM's without an ADM job, VIF's
 * without a VIF job. */
static int skipped(const GpuBatches *bt, const BatchRec *b, int kernel)
{
    if (kernel >= SQ_K_cambi_conv)
        return b->ncambis == 0;
    if (kernel >= SQ_K_vif_widen)
        return b->nvifs == 0;
    if (kernel >= SQ_K_adm_dwt_v)
        return b->nadms == 0;
    if (kernel >= SQ_K_sad_vert)
        return b->nsads == 0;
    return b->npairs == 0 ||
           (!bt->l->has_prescale && (kernel == SQ_K_convert || kernel == SQ_K_prescale));
}

/* SpEED's and motion's kernels on stream S. */
int sq_gpu_launch_speed(GpuBatches *bt, const BatchRec *b, SqKArgs *ka, int S)
{
    const SqGpuFns *fn = bt->x->fns;
    int64_t op_h = 0, cov = 0, nb = 0, ph = 0, sph = 0, sad_h = 0;
    for (int f = 0; f < bt->x->p.nplans; f++) {
        const SqDims *d = &bt->x->p.plans[f]->d;
        if (bt->x->p.plans[f]->rows_all) {
            sad_h = max64(sad_h, d->h);
            continue; /* not a SpEED plan */
        }
        op_h = max64(op_h, d->op_h);
        cov = max64(cov, (int64_t)d->trunc_h * (sq_cov_nlags(d->b) + 1));
        nb = max64(nb, d->nb);
        if (bt->x->p.plans[f]->prescale >= 0) {
            ph = max64(ph, d->h);
            sph = max64(sph, d->scaled_h);
        }
    }
    const unsigned ns = (unsigned)ka->nsides, np = (unsigned)b->npairs, nsad = (unsigned)b->nsads;
    const struct {
        int k;
        unsigned grid[3];
        unsigned block;
    } steps[] = {
        { SQ_K_convert, { ceil_div(ph, SQ_GPU_ROWS), ns, 1 }, 256 },
        { SQ_K_prescale, { ceil_div(sph, SQ_GPU_ROWS), ns, 1 }, 256 },
        { SQ_K_opimg, { (unsigned)op_h, ns, 1 }, 256 },
        { SQ_K_localmean, { (unsigned)op_h, ns, 1 }, 128 },
        { SQ_K_covrows, { ceil_div(cov, 256), ns, 1 }, 256 },
        { SQ_K_covk, { ns, 1, 1 }, 256 },
        { SQ_K_eigsolve, { ns, 2, 1 }, 256 },
        { SQ_K_entropy, { ceil_div(nb, 256), np, 1 }, 256 },
        { SQ_K_pool, { ceil_div(np, 256), 1, 1 }, 256 },
        { SQ_K_sad_vert, { ceil_div(sad_h, SQ_GPU_ROWS), nsad, 1 }, 256 },
        { SQ_K_sad_rows, { (unsigned)sad_h, nsad, 1 }, 256 },
        { SQ_K_sad_sum, { nsad, 1, 1 }, 256 },
    };
    int ret;
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        if (skipped(bt, b, steps[i].k))
            continue;
        if ((ret = fn->launch(bt->x->dev, S, steps[i].k, steps[i].grid, steps[i].block, bt->x->arena, ka)) < 0)
            return ret;
        if ((ret = sq_gpu_prof_mark(bt, steps[i].k, S)) < 0)
            return ret;
    }
    return 0;
}

int sq_gpu_prof_mark(GpuBatches *bt, int k, int S)
{
    if (!bt->profile)
        return 0;
    if (bt->prof_n >= SQ_GPU_PROF_MARKS)
        return -E2BIG;
    const int ret = bt->x->fns->event_record(bt->x->dev, ev_profile_mark(bt->l, bt->prof_n), S);
    if (ret >= 0)
        bt->prof_k[bt->prof_n++] = k;
    return ret;
}

/* Profile mode only: wait, and add each launch's time (since the mark before) to its kernel's. */
static int collect_profile(GpuBatches *bt)
{
    int ret, prev = ev_profile_start(bt->l);
    if (!bt->prof_n)
        return 0;
    if ((ret = bt->x->fns->event_sync(bt->x->dev, ev_profile_mark(bt->l, bt->prof_n - 1))) < 0)
        return ret;
    for (int i = 0; i < bt->prof_n; i++) {
        float ms = 0.0f;
        if ((ret = bt->x->fns->event_elapsed(bt->x->dev, prev, ev_profile_mark(bt->l, i), &ms)) < 0)
            return ret;
        bt->prof_ms[bt->prof_k[i]] += ms;
        prev = ev_profile_mark(bt->l, i);
    }
    bt->prof_batches++;
    return 0;
}

/* The open batch's problem tables up, its kernels, its results down. */
static int run_batch(GpuBatches *bt, const BatchRec *b)
{
    const SqGpuFns *fn = bt->x->fns;
    const int C = SQ_GPU_STREAM_COMPUTE;
    int ret;
    /* The kernels fold the sample ranges into zeroed results. The pinned
     * copy is free: this batch slot's last results were received. */
    const size_t nres = (size_t)batch_jobs(b);
    memset(b->res, 0, nres * sizeof(SqGpuResult));
    if ((ret = fn->upload(bt->x->dev, C, bt->x->arena + bt->l->at.results, b->res,
                          nres * sizeof(SqGpuResult))) < 0 ||
        (b->npairs && (ret = fn->upload(bt->x->dev, C, bt->x->arena + bt->l->at.sides, b->sides,
                                        2 * (size_t)b->npairs * sizeof(SqGpuSide))) < 0) ||
        (b->npairs && (ret = fn->upload(bt->x->dev, C, bt->x->arena + bt->l->at.pairs, b->pairs,
                                        (size_t)b->npairs * sizeof(SqGpuPair))) < 0) ||
        (b->nsads && (ret = fn->upload(bt->x->dev, C, bt->x->arena + bt->l->at.sads, b->sads,
                                       (size_t)b->nsads * sizeof(SqGpuSad))) < 0) ||
        (b->nadms && (ret = fn->upload(bt->x->dev, C, bt->x->arena + bt->l->at.adms, b->adms,
                                       (size_t)b->nadms * sizeof(SqGpuAdm))) < 0) ||
        (b->nvifs && (ret = fn->upload(bt->x->dev, C, bt->x->arena + bt->l->at.vifs, b->vifs,
                                       (size_t)b->nvifs * sizeof(SqGpuVif))) < 0) ||
        (b->ncambis && (ret = fn->upload(bt->x->dev, C, bt->x->arena + bt->l->at.cambis, b->cambis,
                                         (size_t)b->ncambis * sizeof(SqGpuCambi))) < 0) ||
        (b->nranges && (ret = fn->upload(bt->x->dev, C, bt->x->arena + bt->l->at.ranges, b->ranges,
                                         (size_t)b->nranges * sizeof(SqGpuRange))) < 0) ||
        (ret = sq_gpu_launch_chains(bt, b)) < 0)
        return ret;
    return fn->download(bt->x->dev, C, b->res, bt->x->arena + bt->l->at.results,
                        nres * sizeof(SqGpuResult));
}

int sq_gpu_launch_batch(GpuBatches *bt)
{
    const int j = bt->open_batch;
    BatchRec *b = &bt->batches[j];
    const SqGpuFns *fn = bt->x->fns;
    const unsigned long long first = bt->fr->sent - (unsigned long long)b->nframes;
    const int C = SQ_GPU_STREAM_COMPUTE;
    int ret;
    /* every frame of the batch is on the copy stream before its event */
    if (bt->st->pool && (ret = sq_gpu_finish_staging(bt->st, 1)) < 0)
        return ret;
    bt->open_batch = -1;
    b->first = first;
    build_tables(bt, j, first);
    b->launched = 1;
    b->done = 0;
    if ((ret = fn->event_record(bt->x->dev, ev_upload_done(j), SQ_GPU_STREAM_COPY)) < 0 ||
        (ret = fn->stream_wait(bt->x->dev, C, ev_upload_done(j))) < 0 ||
        (batch_jobs(b) && (ret = run_batch(bt, b)) < 0) ||
        (ret = fn->event_record(bt->x->dev, ev_batch_done(j), C)) < 0)
        return sq_gpu_fail(bt->x, ret, "batch launch");
    if (bt->profile && batch_jobs(b) && (ret = collect_profile(bt)) < 0)
        return sq_gpu_fail(bt->x, ret, "profile");
    bt->nbatches++;
    return 0;
}

/* The frame just put into its slot joins the open batch; a full batch is launched. */
int sq_gpu_add_frame(GpuBatches *bt, FrameRec *fr)
{
    if (bt->open_batch < 0) {
        bt->open_batch = (int)(bt->nbatches % (unsigned)bt->l->nbslots);
        bt->batches[bt->open_batch].nframes = 0;
        bt->batches[bt->open_batch].launched = 0;
    }
    BatchRec *b = &bt->batches[bt->open_batch];
    fr->bslot = bt->open_batch;
    fr->index = b->nframes++;
    sq_frames_commit(bt->fr);
    return b->nframes == bt->l->batch ? sq_gpu_launch_batch(bt) : 0;
}

/* 1 when batch slot bslot is done, 0 when pending (block == 0), or a sticky error. */
int sq_gpu_wait_batch(GpuBatches *bt, int bslot, int block)
{
    BatchRec *b = &bt->batches[bslot];
    if (!b->done) {
        const int ev = ev_batch_done(bslot);
        const int ret = block ? bt->x->fns->event_sync(bt->x->dev, ev) : bt->x->fns->event_query(bt->x->dev, ev);
        if (ret < 0)
            return sq_gpu_fail(bt->x, ret, "batch wait");
        if (!block && ret == 0)
            return 0;
        b->done = 1;
        /* its uploads are done too: the library pictures it read go back */
        for (int i = 0; i < b->nframes; i++)
            sq_frames_done(bt->fr, b->first + (unsigned)i);
    }
    return 1;
}

/* The raw result of frame `index` of a done batch. */
void sq_gpu_take_result(const GpuBatches *bt, int bslot, int index, SqRawResult *out)
{
    const BatchRec *b = &bt->batches[bslot];
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < b->npairs; i++) {
        const SqGpuPair *pr = &b->pairs[i];
        if (pr->frame != index)
            continue;
        out->score[pr->job] = b->res[i].score;
        out->err[pr->job] = b->res[i].err;
        memcpy(out->range[pr->job], b->res[i].range, sizeof(b->res[i].range));
    }
    for (int i = 0; i < b->nsads; i++) {
        const SqGpuSad *s = &b->sads[i];
        const SqGpuResult *r = &b->res[s->result];
        if (s->frame == index)
            out->sum[s->job] = (uint64_t)r->sum[1] << 32 | r->sum[0];
    }
    /* one distorted stream (no ladders here): stream 0's slots */
    for (int i = 0; i < b->nadms; i++) {
        const SqGpuAdm *a = &b->adms[i];
        if (a->frame == index)
            memcpy(out->adm[bt->x->p.jobs[a->job].slot], b->res[a->result].adm,
                   sizeof(out->adm[0]));
    }
    for (int i = 0; i < b->nvifs; i++) {
        const SqGpuVif *v = &b->vifs[i];
        if (v->frame == index)
            out->vif[bt->x->p.jobs[v->job].slot] = b->res[v->result].vif;
    }
    for (int i = 0; i < b->ncambis; i++) {
        const SqGpuCambi *cb = &b->cambis[i];
        if (cb->frame == index)
            memcpy(&out->cambi[cb->job], &b->res[cb->result].cambi, sizeof(out->cambi[0]));
    }
    /* each checked plane's range into every integer feature's side that reads it */
    for (int i = 0; i < b->nranges; i++) {
        const SqGpuRange *rg = &b->ranges[i];
        if (rg->frame == index)
            sq_range_put(bt->x->p.jobs, bt->x->p.njobs, rg->key,
                         b->res[rg->result].range[0][SQ_RANGE_CUR_MAX],
                         b->res[rg->result].range[0][SQ_RANGE_CUR_OR], out);
    }
}

int sq_gpu_batches_init(GpuBatches *bt, GpuCtx *x, const GpuLayout *l, SqFrames *fr,
                        const FrameRec *frames, GpuStage *st, char *err, size_t errlen)
{
    bt->x = x;
    bt->l = l;
    bt->fr = fr;
    bt->frames = frames;
    bt->st = st;
    bt->open_batch = -1;
    /* per batch slot, its tables and results, in one pinned block */
    const int max_pairs = l->batch * l->pairs_per_frame;
    const int64_t sides_bytes = sq_gpu_align(2 * max_pairs * (int64_t)sizeof(SqGpuSide));
    const int max_ranges = l->batch * l->rk.n;
    const int64_t res_bytes = sq_gpu_align((max_pairs + max_ranges) * (int64_t)sizeof(SqGpuResult));
    const int64_t pairs_bytes = sq_gpu_align(max_pairs * (int64_t)sizeof(SqGpuPair));
    const int64_t sads_bytes = sq_gpu_align(max_pairs * (int64_t)sizeof(SqGpuSad));
    const int64_t adms_bytes = sq_gpu_align(max_pairs * (int64_t)sizeof(SqGpuAdm));
    const int64_t vifs_bytes = sq_gpu_align(max_pairs * (int64_t)sizeof(SqGpuVif));
    const int64_t cambis_bytes = sq_gpu_align(max_pairs * (int64_t)sizeof(SqGpuCambi));
    bt->desc_bytes = sides_bytes + pairs_bytes + sads_bytes + adms_bytes + vifs_bytes + cambis_bytes +
                     sq_gpu_align(max_ranges * (int64_t)sizeof(SqGpuRange));
    bt->tables_bytes = l->nbslots * (bt->desc_bytes + res_bytes);
    bt->batches = sq_calloc(&x->p.alloc, (size_t)l->nbslots, sizeof(*bt->batches));
    if (!bt->batches) {
        snprintf(err, errlen, "out of memory for the %s backend", x->fns->name);
        return -ENOMEM;
    }
    const int ret = x->fns->host_alloc(x->dev, (size_t)bt->tables_bytes, (void **)&bt->tables);
    if (ret < 0) {
        bt->tables = NULL;
        snprintf(err, errlen, "%s", x->fns->error(x->dev));
        return ret;
    }
    uint8_t *hb = bt->tables;
    for (int j = 0; j < l->nbslots; j++) {
        BatchRec *b = &bt->batches[j];
        b->sides = (SqGpuSide *)hb;
        b->pairs = (SqGpuPair *)(hb + sides_bytes);
        b->sads = (SqGpuSad *)(hb + sides_bytes + pairs_bytes);
        b->adms = (SqGpuAdm *)(hb + sides_bytes + pairs_bytes + sads_bytes);
        b->vifs = (SqGpuVif *)(hb + sides_bytes + pairs_bytes + sads_bytes + adms_bytes);
        b->cambis = (SqGpuCambi *)((uint8_t *)b->vifs + vifs_bytes);
        b->ranges = (SqGpuRange *)((uint8_t *)b->cambis + cambis_bytes);
        b->res = (SqGpuResult *)(hb + bt->desc_bytes);
        hb += bt->desc_bytes + res_bytes;
    }
    return 0;
}

void sq_gpu_batches_sync(GpuBatches *bt)
{
    for (int j = 0; bt->batches && j < bt->l->nbslots; j++)
        if (bt->batches[j].launched && !bt->batches[j].done)
            bt->x->fns->event_sync(bt->x->dev, ev_batch_done(j));
}

void sq_gpu_batches_free(GpuBatches *bt)
{
    if (bt->tables)
        bt->x->fns->host_free(bt->x->dev, bt->tables);
    bt->tables = NULL;
    if (bt->x)
        sq_free(&bt->x->p.alloc, bt->batches);
    bt->batches = NULL;
}
