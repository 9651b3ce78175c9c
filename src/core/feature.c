#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "math/score.h"

static void chroma_size(const SpeedqaFormat *fmt, int *w, int *h)
{
    *w = fmt->fmt == SPEEDQA_PIX_444 ? fmt->width : fmt->width >> 1;
    *h = fmt->fmt == SPEEDQA_PIX_420 ? fmt->height >> 1 : fmt->height;
}

int sq_feature_open(SqFeature *f, const char *str, const SpeedqaFormat *fmt,
                    const SqAlloc *a, char *err, size_t errlen)
{
    memset(f, 0, sizeof(*f));
    int ret = sq_feature_parse(&f->spec, str, err, errlen);
    if (ret < 0)
        return ret;
    int w = fmt->width, h = fmt->height;
    const char *what = "speed_temporal (luma)";
    if (f->spec.kind == SQ_FEATURE_CHROMA) {
        if (fmt->fmt == SPEEDQA_PIX_400) {
            snprintf(err, errlen, "speed_chroma needs chroma planes; the input is 4:0:0");
            return -EINVAL;
        }
        chroma_size(fmt, &w, &h);
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
    static const char *const chroma[3] = { "speed_chroma_u", "speed_chroma_v", "speed_chroma_uv" };
    const char *base = f->spec.kind == SQ_FEATURE_CHROMA ? chroma[i] : "speed_temporal";
    snprintf(buf, len, "%s%s", base, f->spec.suffix);
}

/* libvmaf's MIN(score, max_val): a NaN score compares false and gives max_val. */
static double clip(float score, double max_val)
{
    return (double)score < max_val ? (double)score : max_val;
}

int sq_feature_assemble(const SqFeature *f, const SqRawResult *r, int i, double *out,
                        uint32_t *undefined)
{
    *undefined = 0;
    if (f->spec.kind == SQ_FEATURE_TEMPORAL) {
        out[0] = r->score[i][0];
        return isfinite(out[0]) ? 0 : -EDOM;
    }
    const float uv = sq_chroma_uv(r->score[i][0], r->err[i][0], r->score[i][1], r->err[i][1]);
    const float raw[3] = { r->score[i][0], r->score[i][1], uv };
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

static int range_bad(const SqRawResult *r, int i, int plane, int side, int prev, uint32_t limit)
{
    return r->range[i][plane][side][prev ? SQ_RANGE_PREV_MAX : SQ_RANGE_CUR_MAX] > limit;
}

int sq_features_check_range(const SqFeature *f, int nfeat, const SqRawResult *r, int bpc,
                            unsigned frame, char *msg, size_t len)
{
    if (bpc <= 8 || bpc >= 16)
        return 0; /* every value of the container is in range */
    const uint32_t limit = (1u << bpc) - 1, low = (1u << (16 - bpc)) - 1;
    /* prev pass first: those pictures are one frame older */
    for (int prev = 1; prev >= 0; prev--)
        for (int i = 0; i < nfeat; i++) {
            const int chroma = f[i].spec.kind == SQ_FEATURE_CHROMA;
            if (prev && chroma)
                continue;
            for (int plane = 0; plane < (chroma ? 2 : 1); plane++)
                for (int side = 0; side < 2; side++) {
                    if (!range_bad(r, i, plane, side, prev, limit))
                        continue;
                    const uint32_t *rg = r->range[i][plane][side];
                    const uint32_t mx = rg[prev ? SQ_RANGE_PREV_MAX : SQ_RANGE_CUR_MAX];
                    const uint32_t bits = rg[prev ? SQ_RANGE_PREV_OR : SQ_RANGE_CUR_OR];
                    /* speed_use_ref_diff: side 1 subtracts the current reference */
                    const int is_ref = side == 0 || (!prev && !chroma && f[i].spec.opt.use_ref_diff);
                    char hint[160] = "";
                    if (!(bits & low))
                        snprintf(hint, sizeof(hint),
                                 " (the samples look MSB-aligned, as P010 stores them: shift them "
                                 "right by %d or declare 16-bit)", 16 - bpc);
                    snprintf(msg, len, "%s frame %u, plane %s: sample value %u is above %u, the largest "
                             "%d-bit value%s", is_ref ? "reference" : "distorted",
                             prev ? frame - 1 : frame, chroma ? (plane ? "V" : "U") : "Y", mx, limit,
                             bpc, hint);
                    return -ERANGE;
                }
        }
    return 0;
}
