#include <errno.h>
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

static double clip(float score, double max_val)
{
    return (double)score > max_val ? max_val : (double)score;
}

void sq_feature_assemble(const SqFeature *f, const SqRawResult *r, int i, double *out)
{
    if (f->spec.kind == SQ_FEATURE_TEMPORAL) {
        out[0] = r->score[i][0];
        return;
    }
    const float uv = sq_chroma_uv(r->score[i][0], r->err[i][0], r->score[i][1], r->err[i][1]);
    const double mx = f->spec.opt.max_val;
    out[0] = clip(r->score[i][0], mx);
    out[1] = clip(r->score[i][1], mx);
    out[2] = clip(uv, mx);
}
