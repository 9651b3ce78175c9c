/*
 * A batch's kernel chains and the streams they run on: the kernel arguments
 * every chain reads, the fork onto the side streams and the join.
 */
#include <string.h>

#include "gpu/pipeline_priv.h"

/*
 * A batch's kernels in independent chains (each reads the frames and the
 * tables, writes its own jobs' scratch and results). The chains fork onto
 * the side streams once the tables are up, the longest first, the last one
 * stays on the compute stream, and all join there before the results go
 * down: CAMBI's small scales and pooling steps, SpEED's eigen solves and
 * the folds leave most of a GPU idle on their own. Profiling keeps one
 * stream, in the kernels' order, so each kernel's time is its own.
 */
int sq_gpu_launch_chains(GpuBatches *bt, const BatchRec *b)
{
    const SqGpuFns *fn = bt->x->fns;
    const int S = SQ_GPU_STREAM_COMPUTE, j = (int)(b - bt->batches);
    SqKArgs ka;
    memset(&ka, 0, sizeof(ka));
    ka.plans = bt->l->at.plans;
    ka.sides = bt->l->at.sides;
    ka.pairs = bt->l->at.pairs;
    ka.results = bt->l->at.results;
    ka.sads = bt->l->at.sads;
    ka.adms = bt->l->at.adms;
    ka.vifs = bt->l->at.vifs;
    ka.cambis = bt->l->at.cambis;
    ka.nsides = 2 * b->npairs;
    ka.npairs = b->npairs;
    ka.nsads = b->nsads;
    ka.nadms = b->nadms;
    ka.nvifs = b->nvifs;
    ka.ncambis = b->ncambis;
    ka.ranges = bt->l->at.ranges;
    ka.nranges = b->nranges;
    typedef int (*ChainFn)(GpuBatches *, const BatchRec *, SqKArgs *, int);
    const struct {
        ChainFn launch;
        int on;
    } ch[] = {
        /* forking order; profiling runs them backwards on one stream */
        { sq_gpu_launch_cambi, b->ncambis > 0 },
        { sq_gpu_launch_vif, b->nvifs > 0 },
        { sq_gpu_launch_adm, b->nadms > 0 },
        { sq_gpu_launch_range, b->nranges > 0 }, /* one read of each plane checked */
        { sq_gpu_launch_speed, b->npairs > 0 || b->nsads > 0 },
    };
    const int nch = (int)(sizeof(ch) / sizeof(ch[0]));
    int ret = 0, last = -1, nside = 0;
    if (bt->profile) {
        if ((ret = fn->event_record(bt->x->dev, ev_profile_start(bt->l), S)) < 0)
            return ret;
        bt->prof_n = 0;
        for (int c = nch - 1; c >= 0 && ret >= 0; c--)
            ret = ch[c].on ? ch[c].launch(bt, b, &ka, S) : 0;
        return ret;
    }
    for (int c = 0; c < nch; c++)
        last = ch[c].on ? c : last;
    for (int c = 0; c < last && ret >= 0; c++) {
        if (!ch[c].on)
            continue;
        const int side = SQ_GPU_STREAM_SIDE + nside;
        if ((!nside && (ret = fn->event_record(bt->x->dev, ev_tables_up(j), S)) < 0) ||
            (ret = fn->stream_wait(bt->x->dev, side, ev_tables_up(j))) < 0)
            break;
        nside++;
        ret = ch[c].launch(bt, b, &ka, side);
    }
    if (ret >= 0 && last >= 0)
        ret = ch[last].launch(bt, b, &ka, S);
    /* joined even after a failure: what waits for the batch waits for it all */
    for (int k = 0; k < nside; k++) {
        int r = fn->event_record(bt->x->dev, ev_side_done(j, k), SQ_GPU_STREAM_SIDE + k);
        if (r >= 0)
            r = fn->stream_wait(bt->x->dev, S, ev_side_done(j, k));
        ret = ret < 0 ? ret : r;
    }
    return ret;
}
