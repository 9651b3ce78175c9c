#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/adm.h"
#include "feature/cambi.h"
#include "feature/feature.h"
#include "feature/motion.h"
#include "feature/vif.h"
#include "core/format.h"
#include "math/score.h"

int sq_feature_open(SqFeature *f, const char *str, const SpeedqaFormat *fmt,
                    const SqAlloc *a, char *err, size_t errlen)
{
    memset(f, 0, sizeof(*f));
    int ret = sq_feature_parse(&f->spec, str, err, errlen);
    if (ret < 0)
        return ret;
    if (f->spec.kind == SQ_FEATURE_MOTION)
        return sq_motion_open(f, fmt, err, errlen);
    if (f->spec.kind == SQ_FEATURE_ADM)
        return sq_adm_open(f, fmt, err, errlen);
    if (f->spec.kind == SQ_FEATURE_CAMBI)
        return sq_cambi_open(f, fmt, a, err, errlen);
    if (f->spec.kind == SQ_FEATURE_VIF)
        return sq_vif_open(f, fmt, a, err, errlen);
    int w = fmt->width, h = fmt->height;
    const char *what = "speed_temporal (luma)";
    if (f->spec.kind == SQ_FEATURE_CHROMA) {
        if (fmt->fmt == SPEEDQA_PIX_400) {
            snprintf(err, errlen, "speed_chroma needs chroma planes; the input is 4:0:0");
            return -EINVAL;
        }
        sq_plane_size(fmt, 1, &w, &h);
        what = "speed_chroma (chroma)";
    }
    f->nscores = f->spec.kind == SQ_FEATURE_CHROMA ? 3 : 1;
    return sq_plan_init(&f->plan, w, h, &f->spec.opt, a, what, err, errlen);
}

void sq_feature_close(SqFeature *f)
{
    sq_plan_free(&f->plan);
}

void sq_feature_score_name(const SqFeature *f, int i, char *buf, size_t len)
{
    if (f->spec.kind == SQ_FEATURE_MOTION) {
        sq_motion_score_name(f, i, buf, len);
        return;
    }
    if (f->spec.kind == SQ_FEATURE_ADM) {
        sq_adm_score_name(f, i, buf, len);
        return;
    }
    if (f->spec.kind == SQ_FEATURE_CAMBI) {
        sq_cambi_score_name(f, i, buf, len);
        return;
    }
    if (f->spec.kind == SQ_FEATURE_VIF) {
        sq_vif_score_name(f, i, buf, len);
        return;
    }
    static const char *const chroma[3] = { "speed_chroma_u", "speed_chroma_v", "speed_chroma_uv" };
    const char *base = f->spec.kind == SQ_FEATURE_CHROMA ? chroma[i] : "speed_temporal";
    snprintf(buf, len, "%s%s", base, f->spec.suffix);
}

/* The jobs; idx[i]: where feature i's raw scores will be. */
static void jobs_of(const SqFeature *f, int nfeat, SqBackendParams *bp, int (*idx)[2])
{
    int nadm = 0, nvif = 0;
    bp->nplans = bp->njobs = 0;
    for (int i = 0; i < nfeat; i++) {
        const int pl = bp->nplans++;
        bp->plans[pl] = &f[i].plan;
        const SqOptions *o = &f[i].spec.opt;
        if (f[i].spec.kind == SQ_FEATURE_MOTION) {
            sq_motion_job(&f[i], pl, &bp->jobs[idx[i][0] = bp->njobs++]);
            idx[i][1] = -1;
            continue;
        }
        if (f[i].spec.kind == SQ_FEATURE_ADM) {
            sq_adm_job(&f[i], pl, &bp->jobs[idx[i][0] = bp->njobs++]);
            idx[i][1] = -1;
            bp->jobs[idx[i][0]].slot = nadm++;
            continue;
        }
        if (f[i].spec.kind == SQ_FEATURE_CAMBI) {
            sq_cambi_job(&f[i], pl, &bp->jobs[idx[i][0] = bp->njobs++]);
            idx[i][1] = -1;
            continue;
        }
        if (f[i].spec.kind == SQ_FEATURE_VIF) {
            sq_vif_job(&f[i], pl, &bp->jobs[idx[i][0] = bp->njobs++]);
            idx[i][1] = -1;
            bp->jobs[idx[i][0]].slot = nvif++;
            continue;
        }
        if (f[i].spec.kind == SQ_FEATURE_CHROMA) {
            for (int ch = 0; ch < 2; ch++) {
                SqJob *j = &bp->jobs[idx[i][ch] = bp->njobs++];
                *j = (SqJob){ .plan = pl, .wvm = o->weight_var_mode, .needs_prev = 0 };
                j->side[0] = (SqJobSide){ 0, ch + 1, -1, 1, SQ_CHECK_NEVER };
                j->side[1] = (SqJobSide){ 1, ch + 1, -1, 1, SQ_CHECK_NEVER };
            }
            continue;
        }
        SqJob *j = &bp->jobs[idx[i][0] = bp->njobs++];
        idx[i][1] = -1;
        *j = (SqJob){ .plan = pl, .wvm = 0, .needs_prev = 1 };
        j->side[0] = (SqJobSide){ 0, 0, 0, 1, SQ_CHECK_IF_FIRST };
        /* use_ref_diff: the current reference is checked by side 0 already, and
         * the previous distorted picture was never a current one of this job */
        j->side[1] = o->use_ref_diff ? (SqJobSide){ 0, 0, 1, 0, SQ_CHECK_ALWAYS }
                                     : (SqJobSide){ 1, 0, 1, 1, SQ_CHECK_IF_FIRST };
    }
}

void sq_features_jobs(SqFeature *f, int nfeat, SqBackendParams *bp)
{
    int idx[SPEEDQA_MAX_FEATURES][2];
    jobs_of(f, nfeat, bp, idx);
    for (int i = 0; i < nfeat; i++) {
        memcpy(f[i].job, idx[i], sizeof(idx[i]));
        f[i].slot = bp->jobs[idx[i][0]].slot;
    }
}

int sq_features_rows_read(const SqFeature *f, int nfeat, int plane, uint8_t *mark,
                          const SqAlloc *a)
{
    SqBackendParams bp;
    int idx[SPEEDQA_MAX_FEATURES][2];
    memset(&bp, 0, sizeof(bp));
    jobs_of(f, nfeat, &bp, idx);
    for (int j = 0; j < bp.njobs; j++)
        for (int k = 0; k < 2; k++)
            if (bp.jobs[j].side[k].plane == plane) {
                const int ret = sq_plan_rows_read(bp.plans[bp.jobs[j].plan], mark, a);
                if (ret < 0)
                    return ret;
            }
    return 0;
}

void sq_jobs_ladder(SqBackendParams *bp, int ndis)
{
    const int per = bp->njobs;
    for (int d = 1; d < ndis; d++)
        for (int j = 0; j < per; j++) {
            SqJob *jb = &bp->jobs[d * per + j];
            *jb = bp->jobs[j];
            for (int k = 0; k < 2; k++) {
                SqJobSide *sd = &jb->side[k];
                sd->pic += sd->pic == 1 ? d : 0;
                sd->prev_pic += sd->prev_pic == 1 ? d : 0;
            }
        }
    bp->njobs = per * ndis;
    bp->ndis = ndis;
}

/* libvmaf's MIN(score, max_val): a NaN score compares false and gives max_val. */
static double clip(float score, double max_val)
{
    return (double)score < max_val ? (double)score : max_val;
}

int sq_feature_assemble(const SqFeature *f, const SqRawResult *r, double *out, uint32_t *undefined)
{
    double state[SQ_FEATURE_STATE] = { 0.0 };
    const SqRawResult *const next[SQ_LOOK_AHEAD_MAX] = { NULL };
    return sq_feature_assemble_at(f, r, next, 0, 0, 0, state, out, undefined);
}

int sq_features_look_ahead(const SqFeature *f, int nfeat)
{
    int n = 0;
    for (int i = 0; i < nfeat; i++)
        if (f[i].spec.kind == SQ_FEATURE_MOTION) {
            const int k = sq_motion_look_ahead(&f[i]);
            n = k > n ? k : n;
        }
    return n;
}

int sq_feature_assemble_at(const SqFeature *f, const SqRawResult *r,
                           const SqRawResult *const *next, int d, int job_base,
                           unsigned seq_frame, double *state, double *out, uint32_t *undefined)
{
    *undefined = 0;
    if (f->spec.kind == SQ_FEATURE_MOTION)
        return sq_motion_assemble(f, r, next, job_base, seq_frame, state, out);
    if (f->spec.kind == SQ_FEATURE_ADM)
        return sq_adm_assemble(f, r, d, out, undefined);
    if (f->spec.kind == SQ_FEATURE_CAMBI)
        return sq_cambi_assemble(f, r, job_base + f->job[0], out);
    if (f->spec.kind == SQ_FEATURE_VIF)
        return sq_vif_assemble(f, r, d, out);
    if (f->spec.kind == SQ_FEATURE_TEMPORAL) {
        out[0] = r->score[job_base + f->job[0]];
        return isfinite(out[0]) ? 0 : -EDOM;
    }
    const int u = job_base + f->job[0], v = job_base + f->job[1];
    const float uv = sq_chroma_uv(r->score[u], r->err[u], r->score[v], r->err[v]);
    const float raw[3] = { r->score[u], r->score[v], uv };
    const double mx = f->spec.opt.max_val;
    int ret = 0;
    for (int k = 0; k < 3; k++) {
        out[k] = clip(raw[k], mx);
        if (isnan(raw[k]))
            *undefined |= 1u << k;
        if (!isfinite(out[k]))
            ret = -EDOM;
    }
    return ret;
}

int sq_jobs_check_range(const SqJob *jobs, int njobs, int ndis, const SqRawResult *r, int bpc,
                        unsigned frame, char *msg, size_t len)
{
    if (bpc <= 8 || bpc >= 16)
        return 0; /* every value of the container is in range */
    const uint32_t limit = (1u << bpc) - 1, low = (1u << (16 - bpc)) - 1;
    /* previous pictures first: those are one frame older */
    for (int prev = 1; prev >= 0; prev--)
        for (int j = 0; j < njobs; j++)
            for (int s = 0; s < 2; s++) {
                const SqJobSide *sd = &jobs[j].side[s];
                if (prev ? sd->check_prev == SQ_CHECK_NEVER : !sd->check_cur)
                    continue; /* checks nothing */
                const uint32_t *rg = r->range[j][s];
                const uint32_t mx = rg[prev ? SQ_RANGE_PREV_MAX : SQ_RANGE_CUR_MAX];
                const uint32_t bits = rg[prev ? SQ_RANGE_PREV_OR : SQ_RANGE_CUR_OR];
                if (mx <= limit || (prev && sd->prev_pic < 0))
                    continue;
                const int pic = prev ? sd->prev_pic : sd->pic;
                char hint[160] = "", who[32] = "reference";
                if (pic && ndis > 1)
                    snprintf(who, sizeof(who), "distorted %d", pic);
                else if (pic)
                    snprintf(who, sizeof(who), "distorted");
                if (!(bits & low))
                    snprintf(hint, sizeof(hint), " (the samples look MSB-aligned, as P010 stores them: "
                             "set SpeedqaPicture.msb_aligned, shift them right by %d or declare "
                             "16-bit)", 16 - bpc);
                snprintf(msg, len, "%s frame %u, plane %c: sample value %u is above %u, the largest "
                         "%d-bit value%s", who, prev ? frame - 1 : frame,
                         "YUV"[sd->plane], mx, limit, bpc, hint);
                return -ERANGE;
            }
    return 0;
}

const char *const *sq_features_default(void)
{
    static const char *const defaults[] = { "speed_chroma", "speed_temporal", NULL };
    return defaults;
}
