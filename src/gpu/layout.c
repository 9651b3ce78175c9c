/*
 * Device layout of the GPU pipeline: what one frame occupies (staged
 * planes, per-job scratch), how many frames a batch holds, where each part
 * of the one arena allocation lies, and the plans uploaded at open.
 */
#include <errno.h>
#include <string.h>

#include "core/format.h"
#include "gpu/pipeline_priv.h"
#include "math/filter.h"
#include "math/prescale.h"

/* Hands out aligned byte ranges one after another. */
static int64_t take(int64_t *o, int64_t bytes)
{
    const int64_t at = *o;
    *o = sq_gpu_align(at + bytes);
    return at;
}

static void layout_side(const SqPlan *pl, SqGpuLayout *l)
{
    const SqDims *d = &pl->d;
    int64_t o = 0;
    memset(l, 0, sizeof(*l));
    if (pl->prescale >= 0) {
        l->conv = take(&o, (int64_t)d->w * d->h * 4);
        l->scaled = take(&o, (int64_t)d->scaled_w * d->scaled_h * 4);
    }
    l->vrow = take(&o, (int64_t)d->op_h * d->scaled_w * 4);
    l->op = take(&o, (int64_t)d->op_h * d->op_w * 4);
    l->mrow = take(&o, (int64_t)d->op_h * d->op_w * 4);
    l->dimg = take(&o, (int64_t)d->op_h * d->op_w * 4);
    l->rows = take(&o, (int64_t)d->trunc_h * sq_cov_row_doubles(d->b) * 8);
    l->k = take(&o, (int64_t)d->n * d->n * 4);
    l->lambda = take(&o, (int64_t)d->n * 4);
    l->y = take(&o, (int64_t)d->n * d->nb * 4);
    l->x = take(&o, (int64_t)d->n * d->nb * 4);
    l->flags = take(&o, 2 * 4);
    l->work = take(&o, (int64_t)(SQ_GPU_WORK_EIGEN(d->n) + SQ_GPU_WORK_SOLVE(d->n)) * 4);
    l->bytes = o;
}

/* Which planes are read, and whether only the runs around every 16th row are. */
static void plan_planes(GpuLayout *l, const SqBackendParams *p)
{
    int radius[3] = { 0, 0, 0 }, whole[3] = { 0, 0, 0 };
    for (int j = 0; j < p->njobs; j++) {
        const SqPlan *pl = p->plans[p->jobs[j].plan];
        for (int k = 0; k < 2; k++) {
            const int c = p->jobs[j].side[k].plane;
            l->geo[c].need = 1;
            if (pl->prescale >= 0 || pl->rows_all)
                whole[c] = 1;
            radius[c] = sq_imax(radius[c], pl->taps_a >> 1);
        }
    }
    const int64_t bps = p->format.bpc > 8 ? 2 : 1;
    /* The device slot mirrors the pinned staging (side 0's staged rows,
     * then side 1's), so two host pictures go up in one copy. A device
     * picture is copied whole instead, into a region that only the staged
     * rows of its own side may share: side 1's from where its staged rows
     * start, side 0's after everything of side 1. */
    int64_t stage = 0, full[2] = { 0, 0 };
    for (int s = 0; s < 2; s++) {
        l->stage_start[s] = stage;
        for (int c = 0; c < 3; c++) {
            PlaneGeo *pg = &l->geo[c];
            if (!pg->need)
                continue;
            sq_plane_size(&p->format, c, &pg->w, &pg->h);
            pg->op_h = pg->h >> SQ_DECIM_SHIFT;
            pg->row_bytes = pg->w * bps;
            /* Runs must stay disjoint (2r + 1 < 16) to save anything. */
            pg->runs = whole[c] || 2 * radius[c] + 1 >= (1 << SQ_DECIM_SHIFT) ? 0 : 2 * radius[c] + 1;
            pg->stage_bytes = (pg->runs ? (int64_t)pg->op_h * pg->runs : pg->h) * pg->row_bytes;
            pg->stage_off[s] = pg->dev_off[s] = stage;
            stage = sq_gpu_align(stage + pg->stage_bytes);
            pg->full_off[s] = full[s];
            full[s] = sq_gpu_align(full[s] + (int64_t)pg->h * pg->row_bytes);
        }
        l->stage_len[s] = stage - l->stage_start[s];
    }
    const int64_t side1_end = l->stage_start[1] + (l->stage_len[1] > full[1] ? l->stage_len[1] : full[1]);
    for (int c = 0; c < 3; c++) {
        l->geo[c].full_off[1] += l->stage_start[1];
        l->geo[c].full_off[0] += side1_end;
    }
    l->stage_bytes = stage;
    l->slot_bytes = side1_end + full[0];
}

static void plan_scratch(GpuLayout *l, const SqBackendParams *p)
{
    int64_t o = 0;
    l->pairs_per_frame = p->njobs;
    l->back = 1;
    for (int j = 0; j < p->njobs; j++) {
        SqGpuLayout sl;
        const SqPlan *pl = p->plans[p->jobs[j].plan];
        l->back = p->jobs[j].needs_prev > l->back ? p->jobs[j].needs_prev : l->back;
        if (p->jobs[j].kind == SQ_JOB_SAD) {
            /* the vertical pass, then the rows' sums */
            l->side_off[j][0] = o;
            o = sq_gpu_align(o + (int64_t)pl->d.w * pl->d.h * 4);
            l->side_off[j][1] = o;
            o = sq_gpu_align(o + (int64_t)pl->d.h * 8);
            continue;
        }
        if (p->jobs[j].kind == SQ_JOB_ADM) {
            l->side_off[j][0] = o;
            o += sq_gpu_adm_bytes(pl->d.w, pl->d.h);
            continue;
        }
        if (p->jobs[j].kind == SQ_JOB_VIF) {
            l->side_off[j][0] = o;
            o += sq_gpu_vif_bytes(pl->d.w, pl->d.h);
            l->has_vif = 1;
            continue;
        }
        if (p->jobs[j].kind == SQ_JOB_CAMBI) {
            l->side_off[j][0] = o;
            o += sq_gpu_vc_bytes(pl->vc.w, pl->vc.h, pl->vc.nd, pl->vc.hrs);
            l->has_cambi = 1;
            continue;
        }
        layout_side(pl, &sl);
        for (int s = 0; s < 2; s++) {
            l->side_off[j][s] = o;
            o += sl.bytes;
        }
        l->pair_off[j] = o;
        o = sq_gpu_align(o + (int64_t)pl->d.nb * 4);
        if (pl->prescale >= 0)
            l->has_prescale = 1;
    }
    l->frame_scratch = o;
}

static int64_t table_bytes(const SqPlan *pl)
{
    return pl->prescale < 0 ? 0 : 2 * sq_gpu_align((int64_t)SQ_PS_TAPS * pl->d.scaled_h * 4) +
                                      2 * sq_gpu_align((int64_t)SQ_PS_TAPS * pl->d.scaled_w * 4) +
                                      sq_gpu_align(pl->d.h);
}

/*
 * The arena for batches of b frames: plans, prescale tables, problem
 * tables, results, VIF's log2 table, CAMBI's reciprocals, per-batch scratch, then the 2b + 1
 * frame slots. Sets the
 * offsets, returns the size.
 */
static int64_t layout_arena(GpuLayout *l, const SqBackendParams *p, int b)
{
    const int64_t max_pairs = (int64_t)b * l->pairs_per_frame;
    ArenaMap *at = &l->at;
    int64_t o = 0;
    at->plans = take(&o, p->nplans * (int64_t)sizeof(SqGpuPlan));
    at->tables = o;
    for (int f = 0; f < p->nplans; f++)
        o += table_bytes(p->plans[f]);
    at->sides = take(&o, 2 * max_pairs * (int64_t)sizeof(SqGpuSide));
    at->pairs = take(&o, max_pairs * (int64_t)sizeof(SqGpuPair));
    const int64_t max_ranges = (int64_t)b * l->rk.n;
    at->results = take(&o, (max_pairs + max_ranges) * (int64_t)sizeof(SqGpuResult));
    at->sads = take(&o, max_pairs * (int64_t)sizeof(SqGpuSad));
    at->adms = take(&o, max_pairs * (int64_t)sizeof(SqGpuAdm));
    at->vifs = take(&o, max_pairs * (int64_t)sizeof(SqGpuVif));
    at->cambis = take(&o, max_pairs * (int64_t)sizeof(SqGpuCambi));
    at->ranges = take(&o, max_ranges * (int64_t)sizeof(SqGpuRange));
    at->vi_lt = l->has_vif ? take(&o, SQ_VI_LT_N * (int64_t)sizeof(uint16_t)) : -1;
    at->vc_recip = l->has_cambi ? take(&o, SQ_VC_RECIP_N * (int64_t)sizeof(float)) : -1;
    at->scratch = o;
    o += b * l->frame_scratch;
    at->slots = o;
    o += (2 * b + l->back) * l->slot_bytes;
    return o;
}

/*
 * Frames per batch: the most that keep staging and scratch within their
 * budgets and, when the runtime has a largest allocation (max_alloc > 0,
 * OpenCL), the arena within it. Only ever lowers an earlier choice.
 */
void sq_gpu_choose_batch(GpuLayout *l, const SqBackendParams *p, int64_t max_alloc)
{
    int b = l->batch ? l->batch : DEFAULT_BATCH;
    while (b > 1 && ((2 * b + l->back) * l->stage_bytes > PINNED_BUDGET ||
                     b * l->frame_scratch > SCRATCH_BUDGET ||
                     (max_alloc > 0 && layout_arena(l, p, b) > max_alloc)))
        b--;
    l->batch = b;
    l->cap = 2 * b;
    l->nslots = l->cap + l->back; /* frame n may still read slot n - back */
    l->nbslots = l->cap;     /* a batch holds at least one frame */
    l->arena_bytes = layout_arena(l, p, b);
}

void sq_gpu_layout_init(GpuLayout *l, const SqBackendParams *p, int batch)
{
    memset(l, 0, sizeof(*l));
    plan_planes(l, p);
    plan_scratch(l, p);
    sq_range_keys(p->jobs, p->njobs, p->format.bpc, &l->rk);
    l->batch = batch;
    sq_gpu_choose_batch(l, p, 0);
}

/* Plans and prescale tables: uploaded once, from a temporary host copy. */
int sq_gpu_upload_plans(const GpuLayout *l, GpuCtx *x)
{
    const int nf = x->p.nplans;
    SqGpuPlan *hp = sq_calloc(&x->p.alloc, (size_t)nf, sizeof(*hp));
    size_t mark_bytes = 0;
    for (int f = 0; f < nf; f++)
        if (x->p.plans[f]->prescale >= 0)
            mark_bytes += (size_t)x->p.plans[f]->d.h;
    /* row masks of the prescaled features, alive until the uploads are done */
    uint8_t *marks = sq_calloc(&x->p.alloc, mark_bytes ? mark_bytes : 1, 1), *mark = marks;
    if (!hp || !marks) {
        sq_free(&x->p.alloc, hp);
        sq_free(&x->p.alloc, marks);
        return -ENOMEM;
    }
    const SqGpuFns *fn = x->fns;
    const int s = SQ_GPU_STREAM_COMPUTE;
    int ret = 0;
    int64_t t = l->at.tables;
    for (int f = 0; f < nf && !ret; f++) {
        const SqPlan *pl = x->p.plans[f];
        SqGpuPlan *q = &hp[f];
        q->core = pl->core;
        layout_side(pl, &q->lay);
        q->ps_iy = q->ps_ix = q->ps_wy = q->ps_wx = q->ps_rows = -1;
        if (pl->prescale < 0)
            continue;
        if ((ret = sq_plan_rows_read(pl, mark, &x->p.alloc)) < 0)
            break;
        const int64_t ny = (int64_t)SQ_PS_TAPS * pl->d.scaled_h * 4;
        const int64_t nx = (int64_t)SQ_PS_TAPS * pl->d.scaled_w * 4;
        q->ps_iy = take(&t, ny);
        q->ps_wy = take(&t, ny);
        q->ps_ix = take(&t, nx);
        q->ps_wx = take(&t, nx);
        q->ps_rows = take(&t, pl->d.h);
        if ((ret = fn->upload(x->dev, s, x->arena + q->ps_rows, mark, (size_t)pl->d.h)) < 0 ||
            (ret = fn->upload(x->dev, s, x->arena + q->ps_iy, pl->ps_iy, (size_t)ny)) < 0 ||
            (ret = fn->upload(x->dev, s, x->arena + q->ps_wy, pl->ps_wy, (size_t)ny)) < 0 ||
            (ret = fn->upload(x->dev, s, x->arena + q->ps_ix, pl->ps_ix, (size_t)nx)) < 0 ||
            (ret = fn->upload(x->dev, s, x->arena + q->ps_wx, pl->ps_wx, (size_t)nx)) < 0)
            break;
        mark += pl->d.h;
    }
    /* the VIF jobs' log2 table: every VIF plan holds the same one (feature/vif.c) */
    for (int f = 0; f < nf && !ret && l->at.vi_lt >= 0; f++)
        if (x->p.plans[f]->vi_lt) {
            ret = fn->upload(x->dev, s, x->arena + l->at.vi_lt, x->p.plans[f]->vi_lt,
                             SQ_VI_LT_N * sizeof(uint16_t));
            break;
        }
    /* the CAMBI jobs' reciprocals: every CAMBI plan holds the same (sq_cambi_recip) */
    for (int f = 0; f < nf && !ret && l->at.vc_recip >= 0; f++)
        if (x->p.plans[f]->vc_recip) {
            ret = fn->upload(x->dev, s, x->arena + l->at.vc_recip, x->p.plans[f]->vc_recip,
                             SQ_VC_RECIP_N * sizeof(float));
            break;
        }
    if (!ret)
        ret = fn->upload(x->dev, s, x->arena + l->at.plans, hp, (size_t)nf * sizeof(*hp));
    /* pageable sources: wait before freeing them (open only) */
    if (!ret && (ret = fn->event_record(x->dev, ev_plans_uploaded(l), s)) == 0)
        ret = fn->event_sync(x->dev, ev_plans_uploaded(l));
    sq_free(&x->p.alloc, hp);
    sq_free(&x->p.alloc, marks);
    return ret;
}
