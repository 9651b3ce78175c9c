#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "feature/adm.h"
#include "feature/adm_params.h"

/* The DWT's index tables need three positions at scale 3 (spec 3.1: n2 >= 3
 * there, a side of 33 or more); libvmaf computes a 32-pixel side outside
 * that domain, with other numbers than the spec's. */
#define ADM_MIN_SIDE 33

int sq_adm_open(SqFeature *f, const SpeedqaFormat *fmt, char *err, size_t errlen)
{
    if (fmt->width < ADM_MIN_SIDE || fmt->height < ADM_MIN_SIDE) {
        snprintf(err, errlen, "adm: luma %dx%d is too small (adm needs at least %dx%d)",
                 fmt->width, fmt->height, ADM_MIN_SIDE, ADM_MIN_SIDE);
        return -EINVAL;
    }
    sq_plan_whole(&f->plan, fmt->width, fmt->height);
    sq_adm_params(&f->spec.opt, &f->plan.va);
    f->nscores = 7;
    return 0;
}

void sq_adm_score_name(const SqFeature *f, int i, char *buf, size_t len)
{
    /* libvmaf's aliases of its three VMAF_integer_feature_*_score outputs;
     * the scales have none (spec 5) */
    static const char *const base[7] = { "integer_adm2", "integer_aim", "integer_adm3",
                                         "integer_adm_scale0", "integer_adm_scale1",
                                         "integer_adm_scale2", "integer_adm_scale3" };
    snprintf(buf, len, "%s%s", base[i], f->spec.suffix);
}

void sq_adm_job(const SqFeature *f, int plan, SqJob *j)
{
    (void)f;
    *j = (SqJob){ .kind = SQ_JOB_ADM, .plan = plan, .wvm = 0, .needs_prev = 0 };
    /* sq_jobs_ladder moves side 1 to each stream's distorted picture; both lumas are
     * range-checked (libvmaf computes with samples above the depth in other widths) */
    j->side[0] = (SqJobSide){ 0, 0, -1, 1, SQ_CHECK_NEVER };
    j->side[1] = (SqJobSide){ 1, 0, -1, 1, SQ_CHECK_NEVER };
}

int sq_adm_assemble(const SqFeature *f, const SqRawResult *r, int d, double *out,
                    uint32_t *undefined)
{
    float sums[12];
    const SqVaScores o = sq_adm_scores(&f->spec.opt, r->adm[d * SQ_MAX_ADM_JOBS + f->slot],
                                       f->plan.d.w, f->plan.d.h, sums);
    const double v[7] = { o.adm2, o.aim, o.adm3, o.scale[0], o.scale[1], o.scale[2], o.scale[3] };
    int ret = 0;
    for (int k = 0; k < 7; k++) {
        out[k] = v[k];
        /* a scale whose denominator is 0 (a flat reference with adm_noise_weight 0) */
        if (!isfinite(v[k]))
            ret = -EDOM;
    }
    *undefined = o.den_zero ? 6u : 0u;
    return ret;
}
