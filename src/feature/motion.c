#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "feature/motion.h"
#include "math/vmaf_motion.h"

static SqVmOpts vm_opts(const SqOptions *o)
{
    SqVmOpts v = sq_vm_opts_default();
    v.blend_factor = o->motion_blend_factor;
    v.blend_offset = o->motion_blend_offset;
    v.fps_weight = o->motion_fps_weight;
    v.max_val = o->motion_max_val;
    v.five_frame_window = o->motion_five_frame_window;
    v.moving_average = o->motion_moving_average;
    v.force_zero = o->motion_force_zero;
    return v;
}

int sq_motion_open(SqFeature *f, const SpeedqaFormat *fmt, char *err, size_t errlen)
{
    /* the 5-tap blur mirrors two samples past each edge: a side under 3
     * would read outside the plane (libvmaf has no defined result there) */
    if (fmt->width < 3 || fmt->height < 3) {
        snprintf(err, errlen, "motion: luma %dx%d is too small (motion needs at least 3x3)",
                 fmt->width, fmt->height);
        return -EINVAL;
    }
    /* libvmaf's row SAD is a u32 sum of |v| <= 2^bpc per sample: exact
     * below 65000 columns, which the format limits keep us under */
    sq_plan_whole(&f->plan, fmt->width, fmt->height);
    f->nscores = f->spec.opt.debug ? 4 : 3;
    return 0;
}

void sq_motion_score_name(const SqFeature *f, int i, char *buf, size_t len)
{
    /* libvmaf prints the sad score under its full name (it has no alias) and
     * the debug copy as integer_motion (spec 5); in vmaf's order, the order
     * its extractor first writes them (a frame's SAD at once, motion2 and 3
     * a frame later) */
    static const char *const base[2][4] = {
        { "VMAF_integer_feature_motion_sad_score", "integer_motion2", "integer_motion3", "" },
        { "VMAF_integer_feature_motion_sad_score", "integer_motion", "integer_motion2",
          "integer_motion3" }
    };
    snprintf(buf, len, "%s%s", base[f->nscores == 4][i], f->spec.suffix);
}

void sq_motion_job(const SqFeature *f, int plan, SqJob *j)
{
    /* the five-frame window compares with the frame two back */
    *j = (SqJob){ .kind = SQ_JOB_SAD, .plan = plan, .wvm = 0,
                  .needs_prev = f->spec.opt.motion_five_frame_window ? 2 : 1 };
    /* only the reference is read, so a ladder's copies of the job read the
     * same picture (sq_jobs_ladder moves only picture 1); side 0 range-checks it (the
     * previous picture was checked as the current one) */
    j->side[0] = (SqJobSide){ 0, 0, 0, 1, SQ_CHECK_NEVER };
    j->side[1] = (SqJobSide){ 0, 0, 0, 0, SQ_CHECK_NEVER };
}

static double sad_score(const SqFeature *f, const SqVmOpts *o, const SqRawResult *r, int job_base)
{
    /* a frame without a predecessor has no SAD (index 0 of its sequence): 0 */
    return o->force_zero ? 0.0
                         : sq_vm_sad_score(r->sum[job_base + f->job[0]], f->plan.d.w, f->plan.d.h, o);
}

int sq_motion_look_ahead(const SqFeature *f)
{
    /* frames before min_idx take motion3's stamp, min(blend(S[min_idx]), max) */
    return sq_vm_min_idx(&(SqVmOpts){ .five_frame_window = f->spec.opt.motion_five_frame_window });
}

int sq_motion_assemble(const SqFeature *f, const SqRawResult *r, const SqRawResult *const *next,
                       int job_base, unsigned seq_frame, double *state, double *out)
{
    const SqVmOpts o = vm_opts(&f->spec.opt);
    const unsigned min_idx = (unsigned)sq_vm_min_idx(&o);
    const double s = sad_score(f, &o, r, job_base);
    const SqRawResult *nx = next[0];
    double m2, m3;
    /* sq_vm_flush's rules for one index, with S[i + k + 1] from next[k] and
     * state[0] motion3's previous term, state[1] S[i - 1] */
    if (seq_frame < min_idx) {
        m2 = 0.0;
        if (seq_frame == 0) {
            const SqRawResult *at = next[min_idx - 1]; /* frame min_idx: the stamp's */
            state[0] = at ? sq_vm_clip3(sad_score(f, &o, at, job_base), &o) : 0.0;
        }
        m3 = state[0];
    } else {
        /* min(S[lo], S[i + 1]) with lo = i, or i - 1 in the five-frame
         * window once S[i - 1] has a SAD (i > min_idx) */
        const double s1 = nx ? sad_score(f, &o, nx, job_base) : 0.0;
        if (!nx)
            m2 = s;
        else if (!o.five_frame_window)
            m2 = sq_vm_min(s, s1);
        else
            m2 = seq_frame > min_idx ? sq_vm_min(state[1], s1) : s1;
        const double p = sq_vm_clip3(m2, &o);
        m3 = sq_vm_motion3(p, state[0], &o);
        state[0] = p;
    }
    state[1] = s;
    const double v[2][4] = { { s, m2, m3, 0.0 }, { s, s, m2, m3 } };
    for (int k = 0; k < f->nscores; k++)
        out[k] = v[f->nscores == 4][k];
    return 0;
}
