/*
 * libswscale bicubic scaling, set up as ffmpeg 5.1's scale filter sets it
 * up for scale=W:H:flags=bicubic, so the output equals ffmpeg's byte for
 * byte (tests/input/test_scale.c compares them). What the filter does,
 * for a progressive frame, same pixel format in and out:
 *
 *  - a libswscale context from sws_alloc_context, with options
 *    srcw/srch/src_format, dstw/dsth/dst_format, sws_flags=bicubic, the
 *    filter's thread count, and nothing for the ranges (left "auto", they
 *    are set only when a frame is tagged; see scale.h), the bicubic
 *    parameters or the horizontal chroma positions (defaults);
 *  - for yuv420p (that exact format: 8-bit) and only for it, the vertical
 *    chroma position 128 (MPEG-2 siting) on both sides;
 *  - sws_init_context, then the whole frame as one slice;
 *  - frames of the output size pass through untouched.
 *
 * Threads: ffmpeg passes its filter thread count (one per core); libswscale's
 * slice threads split the output rows, and each row's arithmetic does not
 * depend on the split (the test checks ffmpeg at 1 and 2 threads). We use
 * one: the caller already scores frames in parallel.
 *
 * libswscale's headers are not needed to build this (Debian ships them in
 * a separate package): the six entry points used are plain C with the same
 * prototypes in ffmpeg 4 through 7, the context is opaque, and pixel
 * formats and flags are passed by name (av_get_pix_fmt, "sws_flags"), so
 * no enum value is compiled in. The av_* functions are looked up through
 * the libswscale handle: dlsym searches the library's own dependencies, so
 * they come from the libavutil that this libswscale was built against.
 *
 * The planes go through aligned, padded buffers of ours. libswscale's
 * numbers here do not depend on the caller's alignment (the test writes
 * through odd strides), but it takes int strides, its SIMD loads and
 * stores may run past a row's end, and with a negative (bottom-up)
 * destination stride it corrupted the heap for 10-bit output. Two plane
 * copies per frame are cheap next to the scaling.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "scale.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tried in this order: ffmpeg 5.1's (the contract is defined there), then
 * 7, 6 and 4 (best effort: their scale filters may set other options). */
static const char *const sonames[] = {
#ifdef __APPLE__
    "libswscale.6.dylib", "libswscale.8.dylib", "libswscale.7.dylib", "libswscale.5.dylib",
#else
    "libswscale.so.6", "libswscale.so.8", "libswscale.so.7", "libswscale.so.5",
#endif
};

/* Rows and planes start on 64 bytes (AVX-512 loads); rows get 64 bytes of
 * slack and each plane 256 more, as ffmpeg's frame pools leave some. */
#define SQ_ALIGN 64
#define SQ_SLACK 256

typedef struct SwsFns {
    void *(*sws_alloc_context)(void);
    int (*sws_init_context)(void *ctx, void *src_filter, void *dst_filter);
    int (*sws_scale)(void *ctx, const uint8_t *const src[], const int src_stride[], int y,
                     int h, uint8_t *const dst[], const int dst_stride[]);
    void (*sws_freeContext)(void *ctx);
    int (*av_opt_set)(void *obj, const char *name, const char *val, int search_flags);
    int (*av_opt_set_int)(void *obj, const char *name, int64_t val, int search_flags);
    int (*av_get_pix_fmt)(const char *name); /* enum AVPixelFormat: int-sized */
} SwsFns;

typedef struct Planes {
    uint8_t *p[3];
    int stride[3];
} Planes;

struct SqScaler {
    void *dl;        /* libswscale; NULL for a plain copy */
    void *sws;       /* SwsContext */
    SwsFns f;
    SpeedqaFormat src;
    int dst_w, dst_h;
    int nplanes, bps;
    unsigned char *buf; /* both staging images, one allocation */
    Planes in, out;
};

static void msg(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* libav returns AVERROR(e) == -e for errno codes, and tags (large
 * negative FourCCs) for its own conditions. */
static int av_to_errno(int ret)
{
    return ret < 0 && ret > -4096 ? ret : -EINVAL;
}

static void plane_size(const SpeedqaFormat *f, int i, int w, int h, int *pw, int *ph)
{
    *pw = w;
    *ph = h;
    if (i == 0)
        return;
    if (f->fmt == SPEEDQA_PIX_420 || f->fmt == SPEEDQA_PIX_422)
        *pw = (w + 1) >> 1;
    if (f->fmt == SPEEDQA_PIX_420)
        *ph = (h + 1) >> 1;
}

/* libav's name of the planar host-endian format, or -ENOTSUP. */
static int pix_fmt_name(const SpeedqaFormat *f, char *name, size_t len)
{
    static const char *const base[] = {
        [SPEEDQA_PIX_400] = "gray", [SPEEDQA_PIX_420] = "yuv420p",
        [SPEEDQA_PIX_422] = "yuv422p", [SPEEDQA_PIX_444] = "yuv444p",
    };
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    const char *endian = "be";
#else
    const char *endian = "le";
#endif
    if ((unsigned)f->fmt > SPEEDQA_PIX_444 || f->bpc < 8 || f->bpc > 16)
        return -ENOTSUP;
    if (f->bpc == 8)
        snprintf(name, len, "%s", base[f->fmt]);
    else
        snprintf(name, len, "%s%d%s", base[f->fmt], f->bpc, endian);
    return 0;
}

/* Lay out staging planes for a w x h image of fmt at buf + *off. */
static void layout(const SqScaler *s, int w, int h, Planes *pl, unsigned char *buf,
                   size_t *off)
{
    for (int i = 0; i < s->nplanes; i++) {
        int pw, ph;
        plane_size(&s->src, i, w, h, &pw, &ph);
        size_t stride = ((size_t)pw * s->bps + SQ_SLACK / 4 + SQ_ALIGN - 1) &
                        ~(size_t)(SQ_ALIGN - 1);
        pl->p[i] = buf ? buf + *off : NULL;
        pl->stride[i] = (int)stride;
        *off += (stride * (size_t)ph + SQ_SLACK + SQ_ALIGN - 1) & ~(size_t)(SQ_ALIGN - 1);
    }
}

static int load_sws(SqScaler *s, char *err, size_t errlen)
{
    const char *name = sonames[0];
    for (size_t i = 0; i < sizeof sonames / sizeof sonames[0] && !s->dl; i++)
        if ((s->dl = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL)))
            name = sonames[i];
    if (!s->dl) {
        msg(err, errlen, "scaling needs libswscale (%s not found; install libswscale6)",
            sonames[0]);
        return -ENOSYS;
    }
    void *sym;
    /* POSIX: a dlsym result converts to a function pointer; memcpy keeps
     * -Wpedantic quiet about the cast. */
#define SQ_SWS_SYM(fn)                                                          \
    if (!(sym = dlsym(s->dl, #fn))) {                                           \
        msg(err, errlen, "scaling needs libswscale (%s lacks " #fn ")", name);      \
        return -ENOSYS;                                                         \
    }                                                                           \
    memcpy(&s->f.fn, &sym, sizeof s->f.fn);
    SQ_SWS_SYM(sws_alloc_context)
    SQ_SWS_SYM(sws_init_context)
    SQ_SWS_SYM(sws_scale)
    SQ_SWS_SYM(sws_freeContext)
    SQ_SWS_SYM(av_opt_set)
    SQ_SWS_SYM(av_opt_set_int)
    SQ_SWS_SYM(av_get_pix_fmt)
#undef SQ_SWS_SYM
    return 0;
}

static int init_sws(SqScaler *s, char *err, size_t errlen)
{
    char name[32];
    int pix = -1;
    if (pix_fmt_name(&s->src, name, sizeof name) == 0)
        pix = s->f.av_get_pix_fmt(name);
    if (pix < 0) {
        msg(err, errlen, "scaling: libswscale has no %d-bit %s format",
            s->src.bpc, s->src.fmt == SPEEDQA_PIX_400 ? "gray" : "planar YUV");
        return -ENOTSUP;
    }
    if (!(s->sws = s->f.sws_alloc_context())) {
        msg(err, errlen, "scaling: out of memory");
        return -ENOMEM;
    }
    const struct {
        const char *key;
        int64_t val;
    } opt[] = {
        { "srcw", s->src.width }, { "srch", s->src.height }, { "src_format", pix },
        { "dstw", s->dst_w },     { "dsth", s->dst_h },      { "dst_format", pix },
        /* one slice thread; see the top of the file */
        { "threads", 1 },
    };
    int ret = s->f.av_opt_set(s->sws, "sws_flags", "bicubic", 0);
    for (size_t i = 0; ret >= 0 && i < sizeof opt / sizeof opt[0]; i++) {
        ret = s->f.av_opt_set_int(s->sws, opt[i].key, opt[i].val, 0);
        if (ret < 0 && !strcmp(opt[i].key, "threads"))
            ret = 0; /* ffmpeg 4's libswscale has no threads: it is single-threaded */
    }
    /* The scale filter's MPEG-2 vertical chroma siting, for yuv420p only
     * (ffmpeg 5.1 leaves the 10-bit and other formats at libswscale's
     * default, -513). libswscale 6 resolves that default to the same
     * siting, so the test cannot tell them apart; set as the filter sets
     * it, in case another libswscale resolves it differently. The input's
     * Y4M chroma tag (C420jpeg, C420mpeg2) is ignored, as by ffmpeg 5.1. */
    if (ret >= 0 && s->src.fmt == SPEEDQA_PIX_420 && s->src.bpc == 8) {
        ret = s->f.av_opt_set_int(s->sws, "src_v_chr_pos", 128, 0);
        if (ret >= 0)
            ret = s->f.av_opt_set_int(s->sws, "dst_v_chr_pos", 128, 0);
    }
    if (ret >= 0)
        ret = s->f.sws_init_context(s->sws, NULL, NULL);
    if (ret < 0) {
        msg(err, errlen, "scaling: libswscale refused %s %dx%d -> %dx%d (error %d)", name,
            s->src.width, s->src.height, s->dst_w, s->dst_h, ret);
        return av_to_errno(ret);
    }
    return 0;
}

int sq_scaler_open(SqScaler **out, const SpeedqaFormat *src, int dst_w, int dst_h, char *err,
                   size_t errlen)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    if (!src || src->width < 1 || src->height < 1 || dst_w < 1 || dst_h < 1 ||
        src->width > 65536 || src->height > 65536 || dst_w > 65536 || dst_h > 65536 ||
        (unsigned)src->fmt > SPEEDQA_PIX_444 || src->bpc < 8 || src->bpc > 16) {
        msg(err, errlen, "scaling: bad geometry or format");
        return -EINVAL;
    }
    SqScaler *s = calloc(1, sizeof *s);
    if (!s) {
        msg(err, errlen, "scaling: out of memory");
        return -ENOMEM;
    }
    s->src = *src;
    s->dst_w = dst_w;
    s->dst_h = dst_h;
    s->nplanes = src->fmt == SPEEDQA_PIX_400 ? 1 : 3;
    s->bps = src->bpc > 8 ? 2 : 1;
    int ret = 0;
    if (dst_w != src->width || dst_h != src->height) {
        /* libswscale takes int strides; staging sizes must fit them */
        size_t total = 0;
        layout(s, src->width, src->height, &s->in, NULL, &total);
        layout(s, dst_w, dst_h, &s->out, NULL, &total);
        if (s->in.stride[0] <= 0 || s->out.stride[0] <= 0 || total > (size_t)1 << 36) {
            msg(err, errlen, "scaling: picture too large");
            ret = -EINVAL;
        } else if (!(s->buf = aligned_alloc(SQ_ALIGN, total))) {
            msg(err, errlen, "scaling: out of memory");
            ret = -ENOMEM;
        } else {
            /* the slack is read by SIMD loads: give it a fixed value */
            memset(s->buf, 0, total);
            total = 0;
            layout(s, src->width, src->height, &s->in, s->buf, &total);
            layout(s, dst_w, dst_h, &s->out, s->buf, &total);
            ret = load_sws(s, err, errlen);
            if (ret == 0)
                ret = init_sws(s, err, errlen);
        }
    }
    if (ret < 0) {
        sq_scaler_close(&s);
        return ret;
    }
    *out = s;
    return 0;
}

static void copy_plane(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                       ptrdiff_t src_stride, size_t row, int rows)
{
    for (int y = 0; y < rows; y++)
        memcpy(dst + y * dst_stride, src + y * src_stride, row);
}

static size_t row_bytes(ptrdiff_t stride)
{
    return stride < 0 ? (size_t)0 - (size_t)stride : (size_t)stride;
}

int sq_scaler_run(SqScaler *s, const SpeedqaPicture *src, uint8_t *const dst[3],
                  const ptrdiff_t dst_stride[3], char *err, size_t errlen)
{
    if (!s || !src || !dst) {
        msg(err, errlen, "scaling: null argument");
        return -EINVAL;
    }
    const SpeedqaFormat *f = &src->format;
    if (f->width != s->src.width || f->height != s->src.height || f->fmt != s->src.fmt ||
        f->bpc != s->src.bpc || src->memory != SPEEDQA_MEM_HOST) {
        msg(err, errlen, "scaling: not the %dx%d host picture the scaler was opened for",
            s->src.width, s->src.height);
        return -EINVAL;
    }
    for (int i = 0; i < s->nplanes; i++) {
        int sw, sh, dw, dh;
        plane_size(&s->src, i, s->src.width, s->src.height, &sw, &sh);
        plane_size(&s->src, i, s->dst_w, s->dst_h, &dw, &dh);
        if (!src->data[i] || !dst[i] || row_bytes(src->stride[i]) < (size_t)sw * s->bps ||
            row_bytes(dst_stride[i]) < (size_t)dw * s->bps) {
            msg(err, errlen, "scaling: plane %d missing or its stride too small", i);
            return -EINVAL;
        }
    }
    if (!s->sws) { /* same size: ffmpeg passes the frame through */
        for (int i = 0; i < s->nplanes; i++) {
            int w, h;
            plane_size(&s->src, i, s->dst_w, s->dst_h, &w, &h);
            copy_plane(dst[i], dst_stride[i], src->data[i], src->stride[i],
                       (size_t)w * s->bps, h);
        }
        return 0;
    }
    for (int i = 0; i < s->nplanes; i++) {
        int w, h;
        plane_size(&s->src, i, s->src.width, s->src.height, &w, &h);
        copy_plane(s->in.p[i], s->in.stride[i], src->data[i], src->stride[i],
                   (size_t)w * s->bps, h);
    }
    int ret = s->f.sws_scale(s->sws, (const uint8_t *const *)s->in.p, s->in.stride, 0,
                             s->src.height, s->out.p, s->out.stride);
    if (ret != s->dst_h) {
        msg(err, errlen, "scaling: libswscale failed (returned %d)", ret);
        return ret < 0 ? av_to_errno(ret) : -EIO;
    }
    for (int i = 0; i < s->nplanes; i++) {
        int w, h;
        plane_size(&s->src, i, s->dst_w, s->dst_h, &w, &h);
        copy_plane(dst[i], dst_stride[i], s->out.p[i], s->out.stride[i],
                   (size_t)w * s->bps, h);
    }
    return 0;
}

void sq_scaler_close(SqScaler **ps)
{
    if (!ps || !*ps)
        return;
    SqScaler *s = *ps;
    if (s->sws)
        s->f.sws_freeContext(s->sws);
    if (s->dl)
        dlclose(s->dl);
    free(s->buf);
    free(s);
    *ps = NULL;
}
