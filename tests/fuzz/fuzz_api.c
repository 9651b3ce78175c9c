/*
 * The scoring API end to end. The first bytes choose a configuration, the
 * rest is pixel material:
 *   u16 width, u16 height    -> 1..640 x 1..480 (below the 80x80 minimum too)
 *   u8 pixel format          -> 4:0:0..4:4:4, sometimes an invalid value
 *   u8 bit depth             -> 8..16, sometimes 0, 7, 17, -1, ...
 *   u8 threads               -> 1..3, sometimes 0 (one per core), -1 or 4
 *   u8 allocation failure    -> none, or [u8] the n-th allocation fails once
 *   u8 feature count         -> 0 (library defaults) .. 4 feature strings,
 *                               each [u8 kind + option mask, u8 per option];
 *                               a kind byte >= 0xe0 picks one of libvmaf's
 *                               integer features (motion, adm, vif, cambi),
 *                               then [u8 option mask, u8 per option]
 *   u8 frames                -> 1..8, each [u8 op, u8 distorted mode]
 *   u8 x 3 plane strides     -> padding 0..31 bytes, bit 7 negative stride,
 *                               bit 6 odd 16-bit rows (host rows may sit
 *                               at any address: scored like the others)
 *   rest                     -> pattern tiled into some planes, PRNG seed
 * Frames are sent, received eagerly or only when the queue is full, and
 * flushed in the middle as the ops say; bad pictures are sent in between.
 * Promises checked: open fails cleanly (NULL context, every allocation
 * freed, -EINVAL for invalid settings (-ENOTSUP, -EEXIST for features not
 * implemented or twice), -ENOMEM only when an allocation was
 * made to fail) and succeeds for valid default settings; every score is
 * finite, or the run stops with -ERANGE, and only when a picture holds a
 * sample above the declared depth (sample mode 6 writes raw 16-bit
 * values); frames come out in order, all of them after a flush; the first
 * speed_temporal of a sequence is 0; a bad picture is -EINVAL and changes
 * nothing; the scores equal, bit for bit, those of a rerun on 1 thread with
 * the C reference (cpu_mask 0): threads and SIMD change no bit; nothing
 * leaks (counting allocator here, LSan for the rest). Planes are allocated
 * to their exact size so ASan sees any read past them.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "common/util.h"
#include "fuzz_common.h"
#include "speedqa/speedqa.h"

#define MAX_W 640
#define MAX_H 480
#define MAX_FRAMES 8
#define MAX_FEATS 4

typedef struct Config {
    SpeedqaFormat fmt;
    int n_threads;
    long fail_at;
    int nfeat;                    /* 0: features = NULL (defaults) */
    double ps[MAX_FEATS];         /* prescale of each feature (1: none) */
    char feat[MAX_FEATS][200];
    const char *feats[MAX_FEATS + 1];
    int look_ahead;               /* frames a feature waits for (motion: 1, or 2) */
    int nframes;
    unsigned op[MAX_FRAMES], dmode[MAX_FRAMES];
    int pad[3], neg[3], odd16[3];
    const uint8_t *pattern;
    size_t npattern;
} Config;

typedef struct Pic {
    uint8_t *buf[3];
    SpeedqaPicture pic;
    int over;          /* holds a sample above (1 << bpc) - 1 somewhere */
} Pic;

static const double valid_ks[] = {
    1.0, 0.5, 1.5, 2.0, 2.0 / 3.0, 2.4, 360.0 / 97.0, 4.0 / 3.0, 3.5 / 3.0, 1.25, 4.25 / 3.0,
    5.0 / 3.0, 3.0, 1.0 / 2.25, 1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.740740, 1.111111,
};
static const double prescales[] = { 0.5, 0.75, 1.5, 2.0, 0.25, 0.1, 4.0, 1.0, 1.0004, 0.9995, 1.25, 3.0 };
static const char *const methods[] = { "nearest", "bilinear", "bicubic", "lanczos4" };

static void add_opt(char *buf, size_t len, int *first, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add_opt(char *buf, size_t len, int *first, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 2 >= len)
        return;
    buf[n++] = *first ? '=' : ':';
    buf[n] = '\0';
    *first = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
}

/*
 * An integer feature's option, bit k of its mask byte: BOOL reads a byte
 * (bit 0: "true", else "false", or `alt` then the name's value instead of
 * "true"), REAL a + k * byte, INT a + byte % mod, INT16 a + u16 % mod,
 * FLAG no byte ("true").
 */
typedef struct IntOpt {
    const char *name;
    enum { BOOL, REAL, INT, INT16, FLAG } type;
    double a, k;
    unsigned mod;
    const char *alt[2]; /* BOOL: the values for bit 0 clear and set, when not false/true */
} IntOpt;

static const IntOpt motion_opts[] = {
    { "motion_force_zero", BOOL }, { "motion_max_val", REAL, 0, 40.0 },
    { "motion_five_frame_window", BOOL }, { "motion_moving_average", BOOL },
    { "motion_blend_factor", REAL, 0, 1 / 255.0 }, { "motion_fps_weight", REAL, 0, 1 / 50.0 },
    { "debug", FLAG },
};
static const IntOpt adm_opts[] = {
    { "adm_csf_mode", INT, 0, 0, 5 }, /* 4: invalid */
    { "adm_enhn_gain_limit", REAL, 1.0, 99.0 / 255.0 },
    { "adm_norm_view_dist", REAL, 0.75, 23.25 / 255.0 },
    { "adm_ref_display_height", INT16, 1, 0, 4320 },
    { "adm_skip_aim", BOOL }, { "adm_skip_scale0", BOOL },
    { "adm_min_val", REAL, 0, 1 / 255.0 }, { "adm_noise_weight", REAL, 0, 1 / 64.0 },
};
static const IntOpt vif_opts[] = {
    { "vif_enhn_gain_limit", REAL, 1.0, 99.0 / 255.0 }, { "vif_skip_scale0", BOOL },
    { "debug", FLAG },
};
static const IntOpt cambi_opts[] = {
    { "cambi_high_res_speedup", INT16, 0, 0, 2200 }, { "cambi_max_val", REAL, 0, 4.0 },
    { "topk", REAL, 0.0001, 1 / 255.0 }, { "cambi_vis_lum_threshold", REAL, 0, 1 / 255.0 },
    { "window_size", INT, 13, 0, 117 }, /* 13, 14: invalid */
    { "max_log_contrast", INT, 0, 0, 7 }, /* 6: invalid */
    { "eotf", BOOL, 0, 0, 0, { "bt1886", "pq" } },
    { "tvi_threshold", REAL, 0.0001, 1 / 1024.0 },
};

/* One of libvmaf's integer features with options in their valid ranges (some past them). */
static void make_int_feature(FuzzBytes *b, unsigned kind, char *buf, size_t len)
{
    static const char *const names[] = { "motion", "adm", "vif", "cambi" };
    static const IntOpt *const opts[] = { motion_opts, adm_opts, vif_opts, cambi_opts };
    static const int nopts[] = { sizeof(motion_opts) / sizeof(IntOpt), sizeof(adm_opts) / sizeof(IntOpt),
                                 sizeof(vif_opts) / sizeof(IntOpt), sizeof(cambi_opts) / sizeof(IntOpt) };
    const unsigned m = fuzz_u8(b);
    int first = 1;
    snprintf(buf, len, "%s", names[kind & 3]);
    for (int k = 0; k < nopts[kind & 3]; k++) {
        const IntOpt *o = &opts[kind & 3][k];
        if (!(m >> k & 1))
            continue;
        switch (o->type) {
        case BOOL: {
            const unsigned v = fuzz_u8(b) & 1;
            add_opt(buf, len, &first, "%s=%s", o->name, o->alt[0] ? o->alt[v] : v ? "true" : "false");
            break;
        }
        case REAL:
            add_opt(buf, len, &first, "%s=%g", o->name, o->a + o->k * fuzz_u8(b));
            break;
        case INT:
            add_opt(buf, len, &first, "%s=%u", o->name, (unsigned)o->a + fuzz_u8(b) % o->mod);
            break;
        case INT16:
            add_opt(buf, len, &first, "%s=%u", o->name, (unsigned)o->a + fuzz_u16(b) % o->mod);
            break;
        case FLAG:
            add_opt(buf, len, &first, "%s=true", o->name);
            break;
        }
    }
}

static void make_feature(FuzzBytes *b, char *buf, size_t len, double *ps_out)
{
    const unsigned k = fuzz_u8(b);
    const int chroma = k & 1;
    int first = 1;
    if (k >= 0xe0) {
        make_int_feature(b, k, buf, len);
        *ps_out = -1.0; /* luma, computed at several scales: counted as a prescaled plane */
        return;
    }
    snprintf(buf, len, "%s", chroma ? "speed_chroma" : "speed_temporal");
    if (k & 2) {
        unsigned v = fuzz_u8(b);
        if (v < 21 * 8)
            add_opt(buf, len, &first, "speed_kernelscale=%.17g", valid_ks[v % 21]);
        else
            add_opt(buf, len, &first, "speed_kernelscale=%g", 0.1 + 3.9 * fuzz_u16(b) / 65535.0);
    }
    if (k & 4) {
        unsigned v = fuzz_u8(b);
        const double ps = v < 12 * 16 ? prescales[v % 12] : 0.1 + 3.9 * fuzz_u16(b) / 65535.0;
        add_opt(buf, len, &first, "speed_prescale=%g", ps);
        *ps_out = ps;
    }
    if (k & 8) {
        unsigned v = fuzz_u8(b);
        add_opt(buf, len, &first, "speed_prescale_method=%s", v < 252 ? methods[v % 4] : "lanczos");
    }
    if (k & 16) {
        unsigned v = fuzz_u8(b);
        if (chroma)
            add_opt(buf, len, &first, "speed_weight_var_mode=%u", v % 8); /* 7: invalid */
        else
            add_opt(buf, len, &first, "speed_use_ref_diff=%s", v & 1 ? "true" : "false");
    }
    if (k & 32)
        add_opt(buf, len, &first, "speed_sigma_nn=%g", 0.1 + 1.9 * fuzz_u8(b) / 255.0);
    if (k & 64)
        add_opt(buf, len, &first, "speed_nn_floor=%g", fuzz_u8(b) / 255.0);
    if (k & 128)
        add_opt(buf, len, &first, "speed_max_val=%g", fuzz_u8(b) * 4.0);
}

static void parse_config(Config *c, const uint8_t *data, size_t size)
{
    FuzzBytes b = { data, size };
    memset(c, 0, sizeof *c);
    /* half of the sizes up to 256x256, to keep iterations quick */
    unsigned w = fuzz_u16(&b), h = fuzz_u16(&b);
    c->fmt.width = 1 + (int)(w & 0x8000 ? w % 256 : w % MAX_W);
    c->fmt.height = 1 + (int)(h & 0x8000 ? h % 256 : h % MAX_H);
    unsigned v = fuzz_u8(&b);
    c->fmt.fmt = (SpeedqaPixelFormat)(v < 252 ? (int)(v % 4) : v == 255 ? -1 : (int)v - 248);
    v = fuzz_u8(&b);
    static const int bad_bpc[] = { 0, 7, 17, 32, -1, 255, 1, 6, 24, 100, 9, 10, 12 };
    c->fmt.bpc = v < 243 ? 8 + (int)(v % 9) : bad_bpc[v - 243];
    v = fuzz_u8(&b);
    c->n_threads = v < 250 ? 1 + (int)(v % 3) : v == 250 ? 0 : v == 251 ? -1 : 4;
    v = fuzz_u8(&b);
    c->fail_at = v < 224 ? 0 : 1 + (long)fuzz_u8(&b);
    c->nfeat = (int)(fuzz_u8(&b) % (MAX_FEATS + 1));
    for (int i = 0; i < c->nfeat; i++) {
        c->ps[i] = 1.0;
        make_feature(&b, c->feat[i], sizeof c->feat[i], &c->ps[i]);
        c->feats[i] = c->feat[i];
        /* motion2 needs the next frame, the five-frame window's motion3 two (sq_vm_min_idx) */
        if (!strncmp(c->feat[i], "motion", 6)) {
            const int la = strstr(c->feat[i], "motion_five_frame_window=true") ? 2 : 1;
            c->look_ahead = la > c->look_ahead ? la : c->look_ahead;
        }
    }
    c->feats[c->nfeat] = NULL;
    c->nframes = 1 + (int)(fuzz_u8(&b) % MAX_FRAMES);
    for (int i = 0; i < c->nframes; i++) {
        c->op[i] = fuzz_u8(&b);
        c->dmode[i] = fuzz_u8(&b);
    }
    for (int p = 0; p < 3; p++) {
        v = fuzz_u8(&b);
        c->pad[p] = (int)(v & 31);
        c->neg[p] = (v & 0x80) != 0;
        c->odd16[p] = (v & 0x40) != 0;
    }
    c->pattern = b.p;
    c->npattern = b.n;
}

/*
 * Rough cost of a configuration in filtered samples: frames x planes x
 * scaled area, prescaled planes counted 4 times (the resampling runs over
 * the whole plane), twice for the 1-thread C rerun.
 */
#define WORK_BUDGET (6.0 * MAX_W * MAX_H)
static double work(const Config *c)
{
    const double luma = (double)c->fmt.width * c->fmt.height;
    const double chroma = c->fmt.fmt == SPEEDQA_PIX_444 ? 2 * luma : c->fmt.fmt == SPEEDQA_PIX_420 ? luma / 2 : luma;
    double per_frame = 0;
    if (!c->nfeat)
        per_frame = luma + chroma;
    for (int i = 0; i < c->nfeat; i++) {
        const double area = strncmp(c->feat[i], "speed_chroma", 12) == 0 ? chroma : luma;
        const double ps = c->ps[i];
        per_frame += ps < 0 ? 4 * luma : ps == 1.0 ? area : 4 * area * (ps > 1 ? ps * ps : 1);
    }
    return per_frame * c->nframes * 2;
}

static int valid_format(const SpeedqaFormat *f)
{
    return (unsigned)f->fmt <= SPEEDQA_PIX_444 && f->bpc >= 8 && f->bpc <= 16;
}

static void plane_dims(const SpeedqaFormat *f, int p, int *w, int *h)
{
    *w = f->width;
    *h = f->height;
    if (p) {
        if (f->fmt != SPEEDQA_PIX_444)
            *w >>= 1;
        if (f->fmt == SPEEDQA_PIX_420)
            *h >>= 1;
    }
}

static uint32_t rng(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/*
 * Content of one plane. mode: 0 noise, 1 constant, 2 pattern tiled,
 * 3 smooth gradient + noise, 4 checkerboard of 0 and max, 5 small noise
 * around mid grey, 6 pattern with all 16 bits (out of range above 8..15
 * bits: must still give finite scores), 7 rows of the pattern.
 */
static unsigned sample(const Config *c, int mode, uint32_t *s, int x, int y, unsigned maxv, unsigned cval)
{
    const size_t np = c->npattern;
    switch (mode & 7) {
    case 0: return rng(s) % (maxv + 1);
    case 1: return cval % (maxv + 1);
    case 2: return np ? c->pattern[((size_t)y * 131 + (size_t)x) % np] * (maxv + 1) / 256 : 0;
    case 3: return (((unsigned)(x * 3 + y * 2) * (maxv + 1)) / 4096 + rng(s) % 4) % (maxv + 1);
    case 4: return ((x >> 2) + (y >> 2)) & 1 ? maxv : 0;
    case 5: return (maxv + 1) / 2 + rng(s) % 3;
    case 6: {
        if (!np)
            return 0xffff;
        size_t i = ((size_t)y * 257 + (size_t)x * 2) % np;
        return (unsigned)c->pattern[i] << 8 | c->pattern[(i + 1) % np];
    }
    default: return np ? c->pattern[(size_t)y % np] * (maxv + 1) / 256 : maxv;
    }
}

static void pic_free(Pic *p)
{
    for (int i = 0; i < 3; i++)
        free(p->buf[i]);
    memset(p, 0, sizeof *p);
}

/* Fill a picture of c->fmt (made valid for allocation) with mode's content;
 * src, when given, is copied and perturbed instead (distorted = ref + noise). */
static int pic_make(Pic *p, const Config *c, int mode, uint32_t seed, const Pic *src, int noise)
{
    memset(p, 0, sizeof *p);
    SpeedqaFormat f = c->fmt;
    p->pic.format = f;
    if (!valid_format(&f))
        return 0; /* never sent: open refuses it */
    const int bps = f.bpc > 8 ? 2 : 1;
    const unsigned maxv = (1u << f.bpc) - 1;
    uint32_t s = seed | 1;
    const unsigned cval = seed >> 8;
    for (int pl = 0; pl < (f.fmt == SPEEDQA_PIX_400 ? 1 : 3); pl++) {
        int w, h;
        plane_dims(&f, pl, &w, &h);
        if (w < 1 || h < 1) {
            /* A 1-pixel-wide 4:2:x picture has no chroma samples; keep a
             * valid pointer anyway (the plane is never read). */
            w = h = 1;
        }
        /* 16-bit rows stay 2-byte aligned unless odd16 */
        const int pad = bps == 2 ? (c->odd16[pl] ? c->pad[pl] | 1 : c->pad[pl] & ~1) : c->pad[pl];
        const size_t stride = (size_t)w * bps + (size_t)pad;
        const size_t bytes = stride * (size_t)(h - 1) + (size_t)w * bps; /* last row without padding */
        if (!(p->buf[pl] = malloc(bytes)))
            return -1;
        memset(p->buf[pl], 0xee, bytes);
        for (int y = 0; y < h; y++) {
            uint8_t *row = p->buf[pl] + (size_t)y * stride;
            const uint8_t *srow = src ? src->buf[pl] + (size_t)y * stride : NULL;
            for (int x = 0; x < w; x++) {
                unsigned v;
                if (src) {
                    if (bps == 2) {
                        uint16_t t;
                        memcpy(&t, srow + 2 * (size_t)x, 2);
                        v = t;
                    } else {
                        v = srow[x];
                    }
                    if (noise) {
                        int d = (int)(rng(&s) % (2 * noise + 1)) - noise;
                        int nv = (int)v + d;
                        v = nv < 0 ? 0 : (unsigned)nv > maxv ? maxv : (unsigned)nv;
                    }
                } else {
                    v = sample(c, mode, &s, x, y, maxv, cval);
                    if (mode != 6)
                        v &= maxv;
                }
                p->over |= v > maxv;
                if (bps == 2) {
                    const uint16_t t = (uint16_t)v;
                    memcpy(row + 2 * (size_t)x, &t, 2);
                } else {
                    row[x] = (uint8_t)v;
                }
            }
        }
        if (c->neg[pl]) {
            p->pic.data[pl] = p->buf[pl] + stride * (size_t)(h - 1);
            p->pic.stride[pl] = -(ptrdiff_t)stride;
        } else {
            p->pic.data[pl] = p->buf[pl];
            p->pic.stride[pl] = (ptrdiff_t)stride;
        }
    }
    return 0;
}

/* A library picture (speedqa_picture_alloc) holding src's samples; -1 when
 * none could be had (an injected allocation failure: the caller sends src). */
static int lib_copy(SpeedqaContext *ctx, const SpeedqaPicture *src, SpeedqaPicture *dst)
{
    const int r = speedqa_picture_alloc(ctx, dst);
    if (r < 0) {
        FUZZ_CHECK(r == -ENOMEM, "picture_alloc returned %d", r);
        return -1;
    }
    const SpeedqaFormat *f = &src->format;
    FUZZ_CHECK(dst->format.width == f->width && dst->format.height == f->height &&
               dst->format.fmt == f->fmt && dst->format.bpc == f->bpc && dst->release,
               "library picture of another format");
    for (int pl = 0; pl < (f->fmt == SPEEDQA_PIX_400 ? 1 : 3); pl++) {
        int w, h;
        plane_dims(f, pl, &w, &h);
        FUZZ_CHECK(w < 1 || dst->stride[pl] >= (ptrdiff_t)w * (f->bpc > 8 ? 2 : 1),
                   "library picture stride %td below its row", dst->stride[pl]);
        for (int y = 0; w > 0 && y < h; y++)
            memcpy((uint8_t *)dst->data[pl] + y * dst->stride[pl],
                   (const uint8_t *)src->data[pl] + y * src->stride[pl], (size_t)w * (f->bpc > 8 ? 2 : 1));
    }
    return 0;
}

typedef struct Run {
    int open_ret;
    int nscores;
    int temporal[TEST_MAX_SCORES];
    int received;
    double v[MAX_FRAMES][TEST_MAX_SCORES];
} Run;

static void take(SpeedqaContext *ctx, Run *r, const int *seq_start, const TestScores *sc,
                 const Config *c)
{
    FUZZ_CHECK(sc->frame == (unsigned)r->received, "frame %u received, expected %d", sc->frame, r->received);
    FUZZ_CHECK(sc->count == r->nscores, "count %d, expected %d", sc->count, r->nscores);
    for (int i = 0; i < sc->count; i++) {
        FUZZ_CHECK(isfinite(sc->values[i]), "frame %u %s = %g (%dx%d fmt %d bpc %d, %d threads, feature 0 '%s')",
                   sc->frame, speedqa_score_name(ctx, i), sc->values[i], c->fmt.width, c->fmt.height,
                   (int)c->fmt.fmt, c->fmt.bpc, c->n_threads, c->nfeat ? c->feat[0] : "defaults");
        FUZZ_CHECK(!seq_start[sc->frame] || !r->temporal[i] || sc->values[i] == 0.0,
                   "frame %u starts a sequence but %s = %g", sc->frame, speedqa_score_name(ctx, i),
                   sc->values[i]);
        r->v[sc->frame][i] = sc->values[i];
    }
    r->received++;
}

/* -ERANGE answers samples above the declared depth, and nothing else: 1 when it stopped the run. */
static int range_stop(int ret, int over_sent)
{
    if (ret != -ERANGE)
        return 0;
    FUZZ_CHECK(over_sent, "-ERANGE, but no picture sent has a sample above the depth");
    return 1;
}

/* 0, or -ERANGE when a frame read samples above the depth (the context stopped). */
static int drain(SpeedqaContext *ctx, Run *r, const int *seq_start, const Config *c, int over_sent)
{
    TestScores sc;
    int ret;
    while ((ret = test_receive(ctx, &sc, 1, 0)) == 0)
        take(ctx, r, seq_start, &sc, c);
    if (range_stop(ret, over_sent))
        return ret;
    FUZZ_CHECK(ret == -EAGAIN || ret == SPEEDQA_EOF, "receive returned %d", ret);
    return 0;
}

/* A picture that must be refused, built from a good one. */
static void bad_picture(SpeedqaContext *ctx, const SpeedqaPicture *good, unsigned kind)
{
    SpeedqaPicture bad = *good;
    const SpeedqaPicture *arg = &bad;
    switch (kind & 3) {
    case 0: bad.format.width++; break;
    case 1: bad.memory = SPEEDQA_MEM_CUDA; break;
    case 2: bad.data[0] = NULL; break;
    default: arg = NULL; break;
    }
    int ret = (kind & 4) ? speedqa_send(ctx, good, arg) : speedqa_send(ctx, arg, good);
    FUZZ_CHECK(ret == -EINVAL, "bad picture (kind %u) gave %d", kind & 7, ret);
}

static void run(const Config *c, int n_threads, unsigned cpu_mask, long fail_at, const Pic (*pics)[2],
                Run *r)
{
    memset(r, 0, sizeof *r);
    FuzzAlloc al = { .fail_at = fail_at };
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.format = c->fmt;
    s.features = c->nfeat ? c->feats : NULL;
    s.n_threads = n_threads;
    s.cpu_mask = cpu_mask;
    s.alloc = fuzz_alloc;
    s.free = fuzz_free;
    s.alloc_opaque = &al;
    SpeedqaContext *ctx = (SpeedqaContext *)&al;
    r->open_ret = speedqa_open(&ctx, &s);
    if (r->open_ret < 0) {
        FUZZ_CHECK(ctx == NULL, "failed open left *out set");
        FUZZ_CHECK(al.allocs == al.frees, "failed open (%d) leaked: %ld allocs, %ld frees", r->open_ret,
                   al.allocs, al.frees);
        FUZZ_CHECK(r->open_ret == -EINVAL || r->open_ret == -ENOTSUP || r->open_ret == -EEXIST ||
                   (r->open_ret == -ENOMEM && al.fail_at == -1) ||
                   (r->open_ret == -EAGAIN && al.fail_at == -1),
                   "open returned %d (injected failure: %s)", r->open_ret, al.fail_at == -1 ? "yes" : "no");
        return;
    }
    FUZZ_CHECK(r->open_ret == 0 && ctx, "open returned %d", r->open_ret);
    FUZZ_CHECK(valid_format(&c->fmt) && n_threads >= 0, "invalid settings accepted");
    r->nscores = speedqa_score_count(ctx);
    FUZZ_CHECK(r->nscores >= 1 && r->nscores <= TEST_MAX_SCORES, "score count %d", r->nscores);
    for (int i = 0; i < r->nscores; i++) {
        const char *name = speedqa_score_name(ctx, i);
        FUZZ_CHECK(name != NULL, "score %d has no name", i);
        r->temporal[i] = strncmp(name, "speed_temporal", 14) == 0;
    }
    FUZZ_CHECK(strcmp(speedqa_backend_name(ctx), "cpu") == 0, "backend %s", speedqa_backend_name(ctx));
    /* the rows read: a count of marks within the plane, and only for its height */
    for (int p = 0; p < 3; p++) {
        int pw, ph;
        plane_dims(&c->fmt, p, &pw, &ph);
        uint8_t *mark = malloc((size_t)ph + 1);
        if (!mark)
            continue;
        const int n = speedqa_rows_read(ctx, p, mark, ph);
        int marks = 0;
        for (int y = 0; n >= 0 && y < ph; y++)
            marks += mark[y] == 1;
        FUZZ_CHECK(n == marks || n == -ENOMEM, "rows_read of plane %d: %d, %d marks", p, n, marks);
        FUZZ_CHECK(speedqa_rows_read(ctx, p, mark, ph + 1) == -EINVAL, "rows_read took a wrong height");
        free(mark);
    }

    int seq_start[MAX_FRAMES] = { 0 };
    int sent = 0, new_seq = 1, sticky = 0, over_sent = 0;
    for (int i = 0; i < c->nframes && !sticky; i++) {
        const unsigned op = c->op[i];
        if (c->dmode[i] & 0x80)
            bad_picture(ctx, &pics[i][0].pic, c->dmode[i] >> 4);
        over_sent |= pics[i][0].over | pics[i][1].over;
        /* op bit 5: the frame goes in library pictures, the same samples */
        SpeedqaPicture lib[2];
        memset(lib, 0, sizeof lib);
        const SpeedqaPicture *sp[2] = { &pics[i][0].pic, &pics[i][1].pic };
        if ((op & 0x20) && lib_copy(ctx, sp[0], &lib[0]) == 0) {
            if (lib_copy(ctx, sp[1], &lib[1]) == 0) {
                sp[0] = &lib[0];
                sp[1] = &lib[1];
            } else {
                speedqa_picture_unref(&lib[0]);
            }
        }
        int ret, stalls = 0;
        while ((ret = speedqa_send(ctx, sp[0], sp[1])) == -EAGAIN) {
            TestScores sc;
            /* the queue is full: receive blocks until a frame is done; a
             * look-ahead feature may hold it back (-EAGAIN), having made
             * room, so the next send must go through */
            ret = test_receive(ctx, &sc, 1, 0);
            if (range_stop(ret, over_sent))
                break;
            if (ret == -EAGAIN && c->look_ahead && !stalls++)
                continue;
            FUZZ_CHECK(ret == 0, "receive with a full queue returned %d (%d stalls)", ret, stalls);
            stalls = 0;
            take(ctx, r, seq_start, &sc, c);
        }
        /* a refused send took nothing; any other failure gave the pictures back already */
        if (ret == -EINVAL && sp[0] == &lib[0]) {
            speedqa_picture_unref(&lib[0]);
            speedqa_picture_unref(&lib[1]);
        }
        if (range_stop(ret, over_sent)) {
            sticky = ret;
            break;
        }
        if (ret == -ENOMEM && al.fail_at == -1) {
            sticky = ret;
            break;
        }
        FUZZ_CHECK(ret == 0, "send of frame %d returned %d", i, ret);
        seq_start[sent++] = new_seq;
        new_seq = 0;
        /* op bit 4: wait for every frame in flight (SPEEDQA_RECEIVE_WAIT) */
        if (op & 0x10) {
            TestScores sc;
            while ((ret = test_receive(ctx, &sc, 1, SPEEDQA_RECEIVE_WAIT)) == 0)
                take(ctx, r, seq_start, &sc, c);
            if (range_stop(ret, over_sent)) {
                sticky = ret;
                break;
            }
            /* a look-ahead feature holds back the frames whose next ones are not sent yet */
            FUZZ_CHECK(ret == -EAGAIN && r->received <= sent && r->received + c->look_ahead >= sent,
                       "receive(WAIT) returned %d with %d of %d frames received", ret, r->received, sent);
        }
        if ((op & 2) && (sticky = drain(ctx, r, seq_start, c, over_sent)) != 0)
            break;
        if (op & 1) {
            FUZZ_CHECK(speedqa_flush(ctx) == 0, "flush failed");
            if ((sticky = drain(ctx, r, seq_start, c, over_sent)) != 0)
                break;
            FUZZ_CHECK(r->received == sent, "after flush %d of %d frames received", r->received, sent);
            new_seq = 1;
        }
    }
    if (!sticky) {
        FUZZ_CHECK(speedqa_flush(ctx) == 0, "flush failed");
        sticky = drain(ctx, r, seq_start, c, over_sent);
    }
    if (!sticky) {
        FUZZ_CHECK(r->received == sent, "at the end %d of %d frames received", r->received, sent);
        FUZZ_CHECK(speedqa_flush(ctx) == 0, "second flush failed");
        TestScores sc;
        FUZZ_CHECK(test_receive(ctx, &sc, 1, 0) == SPEEDQA_EOF, "receive after the end did not say EOF");
    }
    /* op[0] bit 6: a library picture outlives its context, then is unreferenced */
    SpeedqaPicture late = { 0 };
    if ((c->op[0] & 0x40) && speedqa_picture_alloc(ctx, &late) < 0)
        memset(&late, 0, sizeof late);
    speedqa_close(&ctx);
    FUZZ_CHECK(ctx == NULL, "close did not clear the pointer");
    speedqa_picture_unref(&late);
    FUZZ_CHECK(al.allocs == al.frees, "leak: %ld allocs, %ld frees", al.allocs, al.frees);
}

/* Plane sizes for which default settings (both features, no prescale) must open. */
static int defaults_fit(const SpeedqaFormat *f)
{
    if (f->fmt == SPEEDQA_PIX_400)
        return 0;
    int cw, ch;
    plane_dims(f, 1, &cw, &ch);
    return f->width >= 80 && f->height >= 80 && cw >= 80 && ch >= 80;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    Config c;
    parse_config(&c, data, size);
    /* Keep iterations quick: the same code runs on smaller pictures. */
    if (work(&c) > WORK_BUDGET)
        return 0;

    uint32_t seed = 2166136261u;
    for (size_t i = 0; i < c.npattern; i++)
        seed = (seed ^ c.pattern[i]) * 16777619u;

    Pic pics[MAX_FRAMES][2];
    memset(pics, 0, sizeof pics);
    int ok = 1;
    for (int i = 0; i < c.nframes && ok; i++) {
        const unsigned op = c.op[i], dm = c.dmode[i];
        const uint32_t fs = seed + 0x9e3779b9u * (uint32_t)(i + 1);
        if (((op >> 2) & 7) == 7 && i > 0) /* a static scene: the previous frame again */
            ok = pic_make(&pics[i][0], &c, 0, fs, &pics[i - 1][0], 0) == 0;
        else
            ok = pic_make(&pics[i][0], &c, (int)(op >> 2), fs, NULL, 0) == 0;
        if (!ok)
            break;
        switch (dm & 3) {
        case 0: ok = pic_make(&pics[i][1], &c, 0, fs ^ 0x55u, &pics[i][0], 0) == 0; break;
        case 1: ok = pic_make(&pics[i][1], &c, 0, fs ^ 0x55u, &pics[i][0], 1 + (int)((dm >> 2) & 7)) == 0; break;
        default: ok = pic_make(&pics[i][1], &c, (int)(dm >> 2), fs * 7u + 3u, NULL, 0) == 0; break;
        }
    }
    if (ok) {
        static Run a, b;
        if (fuzz_verbose())
            for (int i = 0; i < c.nfeat; i++)
                fprintf(stderr, "  feature %d: '%s'\n", i, c.feat[i]);
        run(&c, c.n_threads, ~0u, c.fail_at, (const Pic(*)[2])pics, &a);
        if (fuzz_verbose())
            fprintf(stderr, "  %dx%d fmt %d bpc %d, %d threads, %d features ('%s'), fail at %ld: "
                    "open %d, %d frames received, first score %.9g\n", c.fmt.width, c.fmt.height,
                    (int)c.fmt.fmt, c.fmt.bpc, c.n_threads, c.nfeat, c.nfeat ? c.feat[0] : "",
                    c.fail_at, a.open_ret, a.received, a.received ? a.v[a.received - 1][0] : 0.0);
        if (c.fail_at == 0 && c.nfeat == 0 && valid_format(&c.fmt) && c.n_threads >= 0 && c.n_threads <= 4)
            FUZZ_CHECK((a.open_ret == 0) == defaults_fit(&c.fmt), "default settings on %dx%d fmt %d: open %d",
                       c.fmt.width, c.fmt.height, (int)c.fmt.fmt, a.open_ret);
        if (a.open_ret == 0 && c.fail_at == 0) {
            /* The same stream on one thread with the C reference only
             * (cpu_mask 0): the same numbers, bit for bit, whatever the
             * thread count and SIMD level of the first run. */
            run(&c, 1, 0, 0, (const Pic(*)[2])pics, &b);
            FUZZ_CHECK(b.open_ret == 0 && b.received == a.received, "1-thread C rerun differs in shape");
            for (int f = 0; f < a.received; f++)
                for (int i = 0; i < a.nscores; i++)
                    FUZZ_CHECK(memcmp(&a.v[f][i], &b.v[f][i], sizeof(double)) == 0,
                               "frame %d score %d: %d threads + SIMD %.17g, 1 thread C %.17g "
                               "(%dx%d fmt %d bpc %d, feature 0 '%s')", f, i, c.n_threads, a.v[f][i],
                               b.v[f][i], c.fmt.width, c.fmt.height, (int)c.fmt.fmt, c.fmt.bpc,
                               c.nfeat ? c.feat[0] : "defaults");
        }
    }
    for (int i = 0; i < MAX_FRAMES; i++) {
        pic_free(&pics[i][0]);
        pic_free(&pics[i][1]);
    }
    return 0;
}
