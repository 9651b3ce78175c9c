#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "feature/vif.h"

void sq_vif_log_table(uint16_t *lt)
{
    /* 2048 log2f(i) is exact in float (a power-of-two scale), so lroundf
     * rounds the correctly rounded log2f half away from zero, as the spec's table */
    for (int i = 32768; i < 65536; i++)
        lt[i - 32768] = (uint16_t)lroundf(2048.0f * log2f((float)i));
}

int sq_vif_size_ok(int w, int h)
{
    for (int s = 0; s < 4; s++) {
        if (w <= sq_vi_half(s) || h <= sq_vi_half(s))
            return -1;
        w /= 2;
        h /= 2;
    }
    return 0;
}

int sq_vif_open(SqFeature *f, const SpeedqaFormat *fmt, const SqAlloc *a, char *err,
                size_t errlen)
{
    if (sq_vif_size_ok(fmt->width, fmt->height) < 0) {
        snprintf(err, errlen, "vif: luma %dx%d is too small (every scale must exceed its "
                 "filter's half-width: vif needs at least 16x16)", fmt->width, fmt->height);
        return -EINVAL;
    }
    sq_plan_whole(&f->plan, fmt->width, fmt->height);
    f->plan.alloc = *a;
    f->plan.vi_egl = f->spec.opt.vif_enhn_gain_limit;
    f->plan.vi_skip0 = f->spec.opt.vif_skip_scale0;
    if (!(f->plan.vi_lt = sq_calloc(a, SQ_VI_LT_ALLOC, sizeof(uint16_t)))) {
        snprintf(err, errlen, "vif: out of memory");
        return -ENOMEM;
    }
    sq_vif_log_table(f->plan.vi_lt);
    f->nscores = f->spec.opt.debug ? 15 : 4;
    return 0;
}

void sq_vif_score_name(const SqFeature *f, int i, char *buf, size_t len)
{
    /* libvmaf's aliases of VMAF_integer_feature_vif_scaleK_score; the debug
     * outputs carry the same suffix (spec 5) */
    if (i < 4) {
        snprintf(buf, len, "integer_vif_scale%d%s", i, f->spec.suffix);
        return;
    }
    static const char *const dbg[3] = { "integer_vif", "integer_vif_num", "integer_vif_den" };
    if (i < 7)
        snprintf(buf, len, "%s%s", dbg[i - 4], f->spec.suffix);
    else
        snprintf(buf, len, "integer_vif_%s_scale%d%s", (i - 7) & 1 ? "den" : "num", (i - 7) / 2,
                 f->spec.suffix);
}

void sq_vif_job(const SqFeature *f, int plan, SqJob *j)
{
    (void)f;
    *j = (SqJob){ .kind = SQ_JOB_VIF, .plan = plan, .wvm = 0, .needs_prev = 0 };
    /* sq_jobs_ladder moves side 1 to each stream's distorted picture; both lumas are
     * range-checked (libvmaf computes with samples above the depth in other widths) */
    j->side[0] = (SqJobSide){ 0, 0, -1, 1, SQ_CHECK_NEVER };
    j->side[1] = (SqJobSide){ 1, 0, -1, 1, SQ_CHECK_NEVER };
}

int sq_vif_scores(const SqViRaw *raw, int skip0, int debug, double *out)
{
    int ret = 0;
    double num = 0.0, den = 0.0;
    for (int s = 0; s < 4; s++) {
        /* libvmaf divides in float and widens the quotient */
        out[s] = s == 0 && skip0 ? 0.0 : (double)(raw->num[s] / raw->den[s]);
        if (!isfinite(out[s]))
            ret = -EDOM;
        if (s > 0 || !skip0) {
            num += raw->num[s];
            den += raw->den[s];
        }
    }
    if (!debug)
        return ret;
    out[4] = den == 0.0 ? 1.0 : num / den;
    out[5] = num;
    out[6] = den;
    for (int s = 0; s < 4; s++) {
        out[7 + 2 * s] = raw->num[s];
        out[8 + 2 * s] = raw->den[s];
    }
    return ret;
}

int sq_vif_assemble(const SqFeature *f, const SqRawResult *r, int d, double *out)
{
    return sq_vif_scores(&r->vif[d * SQ_MAX_VIF_JOBS + f->slot], f->spec.opt.vif_skip_scale0,
                         f->spec.opt.debug, out);
}
