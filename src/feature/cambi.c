#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "feature/cambi.h"
#include "feature/cambi_params.h"

int sq_cambi_open(SqFeature *f, const SpeedqaFormat *fmt, const SqAlloc *a, char *err,
                  size_t errlen)
{
    const SqCambiOpts o = sq_cambi_opts(&f->spec.opt);
    memset(&f->plan, 0, sizeof(f->plan));
    const int ret = sq_cambi_params(&o, fmt->width, fmt->height, fmt->bpc, &f->plan.vc);
    if (ret == -1) {
        snprintf(err, errlen, "cambi: luma %dx%d is too small (libvmaf refuses both sides "
                 "below 216)", fmt->width, fmt->height);
        return -EINVAL;
    }
    if (ret == -3) {
        snprintf(err, errlen, "cambi: window_size %d is too large for %dx%d (its rescaled "
                 "window squared reaches 4226: libvmaf refuses it)", o.window_size, fmt->width,
                 fmt->height);
        return -EINVAL;
    }
    if (ret < 0) {
        snprintf(err, errlen, "cambi: %dx%d is too small for window_size %d (a scale is smaller "
                 "than half the window: libvmaf's result is unspecified)", fmt->width,
                 fmt->height, o.window_size);
        return -EINVAL;
    }
    f->plan.d.w = fmt->width;
    f->plan.d.h = fmt->height;
    f->plan.prescale = -1;
    f->plan.rows_all = 1;
    f->plan.alloc = *a;
    if (!(f->plan.vc_recip = sq_calloc(a, SQ_VC_RECIP_N, sizeof(float)))) {
        snprintf(err, errlen, "cambi: out of memory");
        return -ENOMEM;
    }
    sq_cambi_recip(f->plan.vc_recip);
    f->nscores = 1;
    return 0;
}

void sq_cambi_score_name(const SqFeature *f, int i, char *buf, size_t len)
{
    (void)i;
    /* Cambi_feature_cambi_score, written "cambi" through libvmaf's alias table */
    snprintf(buf, len, "cambi%s", f->spec.suffix);
}

void sq_cambi_job(const SqFeature *f, int plan, SqJob *j)
{
    (void)f;
    *j = (SqJob){ .kind = SQ_JOB_CAMBI, .plan = plan, .wvm = 0, .needs_prev = 0 };
    /* sq_jobs_ladder moves both sides to each stream's distorted picture;
     * side 1 range-checks it (libvmaf fails a frame with a sample above the depth) */
    j->side[0] = (SqJobSide){ 1, 0, -1, 0, SQ_CHECK_NEVER };
    j->side[1] = (SqJobSide){ 1, 0, -1, 1, SQ_CHECK_NEVER };
}

int sq_cambi_assemble(const SqFeature *f, const SqRawResult *r, int job, double *out)
{
    (void)f;
    out[0] = r->cambi[job];
    return isfinite(out[0]) ? 0 : -EDOM;
}
