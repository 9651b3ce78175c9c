#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "math/filter.h"
#include "math/score.h"

static void chroma_size(const SpeedqaFormat *fmt, int *w, int *h)
{
    *w = fmt->fmt == SPEEDQA_PIX_444 ? fmt->width : fmt->width >> 1;
    *h = fmt->fmt == SPEEDQA_PIX_420 ? fmt->height >> 1 : fmt->height;
}

int sq_feature_open(SqFeature *f, const char *str, const SpeedqaFormat *fmt,
                    char *err, size_t errlen)
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
    ret = sq_plan_init(&f->plan, w, h, &f->spec.opt, what, err, errlen);
    if (ret < 0)
        return ret;
    if ((ret = sq_cpu_side_alloc(&f->ref, &f->plan)) < 0 ||
        (ret = sq_cpu_side_alloc(&f->dis, &f->plan)) < 0)
        goto oom;
    if (f->spec.kind == SQ_FEATURE_TEMPORAL) {
        f->prev_stride = (int64_t)w * (fmt->bpc > 8 ? 2 : 1);
        f->prev[0] = malloc((size_t)f->prev_stride * h);
        f->prev[1] = malloc((size_t)f->prev_stride * h);
        if (!f->prev[0] || !f->prev[1])
            goto oom;
    }
    return 0;
oom:
    sq_feature_close(f);
    snprintf(err, errlen, "out of memory for %s buffers", what);
    return -ENOMEM;
}

void sq_feature_close(SqFeature *f)
{
    sq_cpu_side_free(&f->ref);
    sq_cpu_side_free(&f->dis);
    free(f->prev[0]);
    free(f->prev[1]);
    f->prev[0] = f->prev[1] = NULL;
    sq_plan_free(&f->plan);
}

void sq_feature_score_name(const SqFeature *f, int i, char *buf, size_t len)
{
    static const char *const chroma[3] = { "speed_chroma_u", "speed_chroma_v", "speed_chroma_uv" };
    const char *base = f->spec.kind == SQ_FEATURE_CHROMA ? chroma[i] : "speed_temporal";
    snprintf(buf, len, "%s%s", base, f->spec.suffix);
}

void sq_feature_reset(SqFeature *f)
{
    f->have_prev = 0;
}

static SqSrc plane_src(const SpeedqaPicture *pic, int plane, int bpc)
{
    SqSrc s = { 0 };
    s.cur = pic->data[plane];
    s.cur_stride = pic->stride[plane];
    s.hbd = pic->format.bpc > 8;
    s.scale = sq_bpc_scale(bpc);
    return s;
}

static double clip(float score, double max_val)
{
    return (double)score > max_val ? max_val : (double)score;
}

static void chroma_frame(SqFeature *f, const SpeedqaPicture *ref, const SpeedqaPicture *dis,
                         double *out)
{
    float sc[2];
    int err[2];
    for (int c = 0; c < 2; c++) {
        const SqSrc rs = plane_src(ref, c + 1, ref->format.bpc);
        const SqSrc ds = plane_src(dis, c + 1, dis->format.bpc);
        sc[c] = sq_cpu_plane_score(&f->plan, &f->ref, &f->dis, &rs, &ds, f->plan.wvm, &err[c]);
    }
    const float uv = sq_chroma_uv(sc[0], err[0], sc[1], err[1]);
    const double mx = f->spec.opt.max_val;
    out[0] = clip(sc[0], mx);
    out[1] = clip(sc[1], mx);
    out[2] = clip(uv, mx);
}

static void store_prev(SqFeature *f, int side, const SpeedqaPicture *pic)
{
    const uint8_t *src = pic->data[0];
    for (int y = 0; y < f->plan.d.h; y++)
        memcpy(f->prev[side] + (size_t)y * f->prev_stride, src + (ptrdiff_t)y * pic->stride[0],
               (size_t)f->prev_stride);
}

static void temporal_frame(SqFeature *f, const SpeedqaPicture *ref, const SpeedqaPicture *dis,
                           double *out)
{
    /* speed_max_val names the output but is never applied (as in libvmaf). */
    out[0] = 0.0;
    if (f->have_prev) {
        const int bpc = ref->format.bpc; /* both sides convert with the ref depth */
        SqSrc rs = plane_src(ref, 0, bpc);
        SqSrc ds = plane_src(f->spec.opt.use_ref_diff ? ref : dis, 0, bpc);
        rs.prev = f->prev[0];
        rs.prev_stride = f->prev_stride;
        ds.prev = f->prev[1];
        ds.prev_stride = f->prev_stride;
        int err;
        out[0] = sq_cpu_plane_score(&f->plan, &f->ref, &f->dis, &rs, &ds, 0, &err);
    }
    store_prev(f, 0, ref);
    store_prev(f, 1, dis);
    f->have_prev = 1;
}

void sq_feature_frame(SqFeature *f, const SpeedqaPicture *ref, const SpeedqaPicture *dis,
                      double *out)
{
    if (f->spec.kind == SQ_FEATURE_CHROMA)
        chroma_frame(f, ref, dis, out);
    else
        temporal_frame(f, ref, dis, out);
}
