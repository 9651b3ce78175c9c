/*
 * libvmaf's integer ADM and VIF, and CAMBI, on the GPU, host side: each
 * job's entry of the problem tables (SqGpuAdm, SqGpuVif, SqGpuCambi) and
 * its chain of kernels (gpu/kernels_adm.h, kernels_vif.h, kernels_cambi.h)
 * on the stream launch.c gives it.
 */
#include <string.h>

#include "gpu/pipeline_priv.h"

static unsigned ceil_div(int64_t a, int64_t b)
{
    return (unsigned)((a + b - 1) / b);
}

/* Job jb's planes in frame fr, side 0 (the reference) and side 1. */
static void job_sides(const SqJob *jb, const FrameRec *fr, int64_t pic[2], int64_t stride[2],
                      int32_t acc[2])
{
    for (int k = 0; k < 2; k++) {
        const SqJobSide *js = &jb->side[k];
        pic[k] = fr->base[js->pic][js->plane];
        stride[k] = fr->stride[js->pic][js->plane];
        acc[k] = fr->acc[js->pic][js->plane];
    }
}

/* The largest plane of the jobs of a kind: the grid every job of it fits. */
static void largest_plane(const GpuBatches *bt, int kind, int *w, int *h)
{
    *w = *h = 0;
    for (int j = 0; j < bt->x->p.njobs; j++) {
        const SqDims *d = &bt->x->p.plans[bt->x->p.jobs[j].plan]->d;
        if ((int)bt->x->p.jobs[j].kind == kind) {
            *w = *w > d->w ? *w : d->w;
            *h = *h > d->h ? *h : d->h;
        }
    }
}

/* An SQ_JOB_ADM job's entry: side 0's plane of frame fr (the reference) against side 1's. */
void sq_gpu_fill_adm(const GpuBatches *bt, SqGpuAdm *a, const SqJob *jb, int64_t fs, int j,
                     int bi, const FrameRec *fr)
{
    const SqPlan *pl = bt->x->p.plans[jb->plan];
    memset(a, 0, sizeof(*a));
    a->va = pl->va;
    job_sides(jb, fr, a->pic, a->stride, a->acc);
    a->scratch = fs + bt->l->side_off[j][0];
    a->w = pl->d.w;
    a->h = pl->d.h;
    a->bpc = bt->x->p.format.bpc;
    a->frame = bi;
    a->job = j;
}

/*
 * The ADM chain: its kernels once per scale (each reads the scale before
 * it), then the fold. Grids fit the largest ADM plane; the kernels bound
 * each job by its own.
 */
int sq_gpu_launch_adm(GpuBatches *bt, const BatchRec *b, SqKArgs *ka, int S)
{
    const SqGpuFns *fn = bt->x->fns;
    int w, h, ret;
    largest_plane(bt, SQ_JOB_ADM, &w, &h);
    const unsigned na = (unsigned)b->nadms;
    for (int s = 0; s < 4; s++) {
        const int w2 = (w + 1) / 2, h2 = (h + 1) / 2;
        const struct {
            int k;
            unsigned grid[2];
        } steps[] = {
            { SQ_K_adm_dwt_v, { ceil_div(h2, SQ_GPU_ROWS), 2 * na } },
            { SQ_K_adm_dwt_h, { ceil_div(h2, SQ_GPU_ROWS), 2 * na } },
            { SQ_K_adm_dec, { ceil_div(h2, SQ_GPU_ROWS), na } },
            { SQ_K_adm_dlm, { (unsigned)h2, na } },
            { SQ_K_adm_csf, { ceil_div(h2, SQ_GPU_ROWS), na } },
            { SQ_K_adm_aim, { (unsigned)h2, na } },
        };
        ka->scale = s;
        for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
            const unsigned grid[3] = { steps[i].grid[0], steps[i].grid[1], 1 };
            if ((ret = fn->launch(bt->x->dev, S, steps[i].k, grid, 256, bt->x->arena, ka)) < 0)
                return ret;
            if ((ret = sq_gpu_prof_mark(bt, steps[i].k, S)) < 0)
                return ret;
        }
        w = w2;
        h = h2;
    }
    const unsigned grid[3] = { 1, na, 1 };
    if ((ret = fn->launch(bt->x->dev, S, SQ_K_adm_fold, grid, 256, bt->x->arena, ka)) < 0)
        return ret;
    if ((ret = sq_gpu_prof_mark(bt, SQ_K_adm_fold, S)) < 0)
        return ret;
    return 0;
}


/* An SQ_JOB_VIF job's entry: side 0's plane of frame fr (the reference) against side 1's. */
void sq_gpu_fill_vif(const GpuBatches *bt, SqGpuVif *v, const SqJob *jb, int64_t fs, int j,
                     int bi, const FrameRec *fr)
{
    const SqPlan *pl = bt->x->p.plans[jb->plan];
    memset(v, 0, sizeof(*v));
    v->egl = pl->vi_egl;
    v->skip0 = pl->vi_skip0;
    v->lt = bt->l->at.vi_lt;
    job_sides(jb, fr, v->pic, v->stride, v->acc);
    v->scratch = fs + bt->l->side_off[j][0];
    v->w = pl->d.w;
    v->h = pl->d.h;
    v->bpc = bt->x->p.format.bpc;
    v->frame = bi;
    v->job = j;
}

/*
 * The VIF chain: scale 0's planes, then per scale the decimation into it
 * (scales 1..3, from the scale before) and its statistics, then the fold.
 * Grids fit the largest VIF plane; the kernels bound each job by its own.
 */
int sq_gpu_launch_vif(GpuBatches *bt, const BatchRec *b, SqKArgs *ka, int S)
{
    const SqGpuFns *fn = bt->x->fns;
    int w, h, ret;
    largest_plane(bt, SQ_JOB_VIF, &w, &h);
    const unsigned nv = (unsigned)b->nvifs, lanes = (unsigned)sq_gpu_vif_lanes(ka);
    for (int s = 0; s < 4; s++) {
        const struct {
            int k;
            unsigned grid[2];
        } steps[] = {
            { s ? SQ_K_vif_sub : SQ_K_vif_widen,
              { s ? lanes : ceil_div(h, SQ_GPU_ROWS), 2 * nv } },
            { SQ_K_vif_stats, { lanes, nv } },
        };
        ka->scale = s;
        for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
            const unsigned grid[3] = { steps[i].grid[0], steps[i].grid[1], 1 };
            if ((ret = fn->launch(bt->x->dev, S, steps[i].k, grid, 256, bt->x->arena, ka)) < 0)
                return ret;
            if ((ret = sq_gpu_prof_mark(bt, steps[i].k, S)) < 0)
                return ret;
        }
    }
    const unsigned grid[3] = { 1, nv, 1 };
    if ((ret = fn->launch(bt->x->dev, S, SQ_K_vif_fold, grid, 256, bt->x->arena, ka)) < 0)
        return ret;
    if ((ret = sq_gpu_prof_mark(bt, SQ_K_vif_fold, S)) < 0)
        return ret;
    return 0;
}

/* An SQ_JOB_CAMBI job's entry: side 1's plane of frame fr (the distorted luma). */
void sq_gpu_fill_cambi(const GpuBatches *bt, SqGpuCambi *c, const SqJob *jb, int64_t fs, int j,
                       int bi, const FrameRec *fr)
{
    const SqPlan *pl = bt->x->p.plans[jb->plan];
    const SqJobSide *js = &jb->side[1];
    memset(c, 0, sizeof(*c));
    c->vc = pl->vc;
    c->pic = fr->base[js->pic][js->plane];
    c->stride = fr->stride[js->pic][js->plane];
    c->acc = fr->acc[js->pic][js->plane];
    c->scratch = fs + bt->l->side_off[j][0];
    c->recip = bt->l->at.vc_recip;
    c->frame = bi;
    c->job = j;
}

/* One launch of the CAMBI chain on stream S, its profile mark after it. */
static int launch_vc(GpuBatches *bt, int S, SqKArgs *ka, int k, unsigned gx, unsigned gy)
{
    const unsigned grid[3] = { gx ? gx : 1, gy, 1 };
    const int ret = bt->x->fns->launch(bt->x->dev, S, k, grid, 256, bt->x->arena, ka);
    return ret < 0 ? ret : sq_gpu_prof_mark(bt, k, S);
}

/*
 * The CAMBI chain: the input's image, Z and mask, then per scale the
 * decimation, the mode filter, the c-values and the pooling's steps (the
 * score after the last), on stream S. Grids fit the largest CAMBI job at
 * each scale; the kernels bound each job by its own.
 */
int sq_gpu_launch_cambi(GpuBatches *bt, const BatchRec *b, SqKArgs *ka, int S)
{
    int64_t cols[SQ_VC_SCALES] = { 0 };
    int rows[SQ_VC_SCALES + 1] = { 0 }, bands[SQ_VC_SCALES] = { 0 };
    for (int j = 0; j < bt->x->p.njobs; j++) {
        const SqVcParams *p = &bt->x->p.plans[bt->x->p.jobs[j].plan]->vc;
        if (bt->x->p.jobs[j].kind != SQ_JOB_CAMBI)
            continue;
        rows[SQ_VC_SCALES] = rows[SQ_VC_SCALES] > p->h ? rows[SQ_VC_SCALES] : p->h;
        for (int s = 0; s < SQ_VC_SCALES; s++) {
            int cw, ch;
            sq_vc_scale_dims(p, s, &cw, &ch);
            rows[s] = rows[s] > ch ? rows[s] : ch;
            cols[s] = cols[s] > cw ? cols[s] : cw;
            const int nb = sq_gpu_vc_bands(cw, ch, p->ws, b->ncambis);
            bands[s] = bands[s] > nb ? bands[s] : nb;
        }
    }
    const unsigned nc = (unsigned)b->ncambis, full = ceil_div(rows[SQ_VC_SCALES], SQ_GPU_ROWS);
    const unsigned cnt = ceil_div(SQ_GPU_VC_CNT1 + SQ_GPU_VC_CNT2, 256);
    int ret;
    if ((ret = launch_vc(bt, S, ka, SQ_K_cambi_conv, full, nc)) < 0 ||
        (ret = launch_vc(bt, S, ka, SQ_K_cambi_pre, full, nc)) < 0 ||
        (ret = launch_vc(bt, S, ka, SQ_K_cambi_zero, full, nc)) < 0 ||
        (ret = launch_vc(bt, S, ka, SQ_K_cambi_mask, full, nc)) < 0)
        return ret;
    for (int s = 0; s < SQ_VC_SCALES; s++) {
        ka->scale = s;
        ka->vc_bands = bands[s];
        const unsigned rb = ceil_div(rows[s], SQ_GPU_ROWS);
        if ((ret = launch_vc(bt, S, ka, SQ_K_cambi_dec, rb, nc)) < 0 ||
            (ret = launch_vc(bt, S, ka, SQ_K_cambi_mode, rb, nc)) < 0 ||
            (ret = launch_vc(bt, S, ka, SQ_K_cambi_cval, (unsigned)bands[s] * ceil_div(cols[s], 256), nc)) < 0 ||
            (ret = launch_vc(bt, S, ka, SQ_K_cambi_zcnt, cnt, nc)) < 0 ||
            (ret = launch_vc(bt, S, ka, SQ_K_cambi_cnt1, SQ_GPU_VC_LANES, nc)) < 0 ||
            (ret = launch_vc(bt, S, ka, SQ_K_cambi_digit, 1, nc)) < 0 ||
            (ret = launch_vc(bt, S, ka, SQ_K_cambi_cnt2, SQ_GPU_VC_LANES, nc)) < 0 ||
            (ret = launch_vc(bt, S, ka, SQ_K_cambi_fin, 1, nc)) < 0)
            return ret;
    }
    return 0;
}

/* The range check of the planes the integer features read (SqGpuRange), on stream S. */
int sq_gpu_launch_range(GpuBatches *bt, const BatchRec *b, SqKArgs *ka, int S)
{
    int h = 0;
    for (int k = 0; k < bt->l->rk.n; k++) {
        const int ph = bt->x->p.plans[bt->l->rk.plan[k]]->d.h;
        h = h > ph ? h : ph;
    }
    const unsigned grid[3] = { ceil_div(h, SQ_GPU_ROWS), (unsigned)b->nranges, 1 };
    const int ret = bt->x->fns->launch(bt->x->dev, S, SQ_K_int_range, grid, 256, bt->x->arena, ka);
    return ret < 0 ? ret : sq_gpu_prof_mark(bt, SQ_K_int_range, S);
}
