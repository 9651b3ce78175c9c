#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/plan.h"
#include "feature/taps.h"
#include "math/filter.h"
#include "math/prescale.h"

int sq_plan_init(SqPlan *p, int w, int h, const SqOptions *o, const SqAlloc *a,
                 const char *what, char *err, size_t errlen)
{
    memset(p, 0, sizeof(*p));
    p->alloc = *a;
    SqDims *d = &p->d;
    d->w = w;
    d->h = h;
    p->prescale = -1;
    if (sq_prescale_skipped(o->prescale)) {
        /* Netflix would filter uninitialised samples when the size changes
         * here (spec 7.4); we use the plane as it is. */
        d->scaled_w = w;
        d->scaled_h = h;
    } else {
        d->scaled_w = (int)(w * o->prescale + 0.5);
        d->scaled_h = (int)(h * o->prescale + 0.5);
        p->prescale = sq_prescale_method_index(o->prescale_method);
    }
    sq_dims_est(d, d->scaled_w >> SQ_DECIM_SHIFT, d->scaled_h >> SQ_DECIM_SHIFT, SQ_BLOCK);
    if (d->trunc_w == 0 || d->trunc_h == 0) {
        snprintf(err, errlen,
                 "%s: plane %dx%d is too small (%dx%d after prescale %g; SpEED needs at least 80x80)",
                 what, w, h, d->scaled_w, d->scaled_h, o->prescale);
        return -EINVAL;
    }
    p->taps_a = sq_window_size(1, o->kernelscale);
    p->taps_m = sq_window_size(4, o->kernelscale);
    if (p->taps_a > SQ_MAX_TAPS || p->taps_m > SQ_MAX_TAPS ||
        p->taps_a / 2 >= d->scaled_w || p->taps_a / 2 >= d->scaled_h ||
        p->taps_m / 2 >= d->op_w || p->taps_m / 2 >= d->op_h) {
        snprintf(err, errlen, "%s: kernelscale %g gives windows (%d, %d) too wide for a %dx%d plane",
                 what, o->kernelscale, p->taps_a, p->taps_m, d->scaled_w, d->scaled_h);
        return -EINVAL;
    }
    sq_gaussian_taps(p->ga, p->taps_a, sq_sigma_antialias(p->taps_a));
    sq_gaussian_taps(p->gm, p->taps_m, sq_sigma_local_mean(p->taps_m));
    p->sigma_nn = (float)o->sigma_nn;
    p->nn_floor = (float)o->nn_floor;
    p->wvm = o->weight_var_mode;

    if (p->prescale >= 0) {
        p->ps_iy = sq_calloc(a, SQ_PS_TAPS * (size_t)d->scaled_h, sizeof(int32_t));
        p->ps_ix = sq_calloc(a, SQ_PS_TAPS * (size_t)d->scaled_w, sizeof(int32_t));
        p->ps_wy = sq_calloc(a, SQ_PS_TAPS * (size_t)d->scaled_h, sizeof(float));
        p->ps_wx = sq_calloc(a, SQ_PS_TAPS * (size_t)d->scaled_w, sizeof(float));
        if (!p->ps_iy || !p->ps_ix || !p->ps_wy || !p->ps_wx) {
            sq_plan_free(p);
            snprintf(err, errlen, "%s: out of memory for prescale tables", what);
            return -ENOMEM;
        }
        sq_prescale_axis(p->prescale, h, d->scaled_h, p->ps_iy, p->ps_wy);
        sq_prescale_axis(p->prescale, w, d->scaled_w, p->ps_ix, p->ps_wx);
    }
    return 0;
}

void sq_plan_whole(SqPlan *p, int w, int h)
{
    memset(p, 0, sizeof(*p));
    p->d.w = w;
    p->d.h = h;
    p->prescale = -1;
    p->rows_all = 1;
}
