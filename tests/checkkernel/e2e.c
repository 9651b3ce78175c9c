/*
 * End to end: whole-plane scores of the CPU backend with the C table and
 * with each SIMD table, against the math core's serial reference
 * (sq_operating_image, every column of the vertical pass; sq_est_params), on
 * random planes, sizes, bit depths and options. Scores, singular flags and
 * every per-block entropy and variance must be bit-identical.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkkernel.h"
#include "feature/feature.h"
#include "cpu/cpu.h"
#include "math/est.h"
#include "math/filter.h"
#include "math/opimg.h"

#define NCASES 40

typedef struct RefSide {
    float *ws, *dimg, *wsf, *e, *s;
    double *wsd;
} RefSide;

static void ref_alloc(RefSide *r, const SqPlan *p)
{
    const SqDims *d = &p->d;
    r->ws = calloc((size_t)sq_opimg_ws_floats(d, p->prescale), sizeof(float));
    r->dimg = calloc((size_t)d->op_w * d->op_h, sizeof(float));
    r->wsd = calloc((size_t)sq_est_ws_doubles(d), sizeof(double));
    r->wsf = calloc((size_t)sq_est_ws_floats(d), sizeof(float));
    r->e = calloc((size_t)d->nb, sizeof(float));
    r->s = calloc((size_t)d->nb, sizeof(float));
}

static void ref_free(RefSide *r)
{
    free(r->ws), free(r->dimg), free(r->wsd), free(r->wsf), free(r->e), free(r->s);
}

/* The CPU backend as first written: full-resolution rows, math core only. */
static int ref_side(const SqPlan *p, RefSide *s, const SqSrc *src)
{
    const SqDims *d = &p->d;
    const SqOpFilter f = { p->prescale, p->taps_a, p->taps_m, p->ga, p->gm,
                           p->ps_iy, p->ps_ix, p->ps_wy, p->ps_wx };
    sq_operating_image(src->cur, src->cur_stride, src->prev, src->prev_stride, src->hbd,
                       src->scale, d, &f, s->ws, s->dimg);
    return sq_est_params(s->dimg, d->op_w, d, p->sigma_nn, s->wsd, s->wsf, s->e, s->s);
}

typedef struct Plane {
    uint8_t *mem;
    const uint8_t *base;
    int64_t stride;
} Plane;

static void make_plane(Plane *pl, int w, int h, int bpc, int t, int kind)
{
    const int bps = bpc > 8 ? 2 : 1;
    const int64_t row = (int64_t)w * bps + bps * ck_irand(0, 5);
    pl->mem = malloc((size_t)row * h);
    const uint32_t maxv = (1u << bpc) - 1, cst = ck_rand() % (maxv + 1);
    const int noise = ck_irand(0, 40);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t v;
            if (kind == 0) /* flat: singular covariance */
                v = cst;
            else if (kind == 1)
                v = ck_rand() % (maxv + 1);
            else {
                uint32_t pat = (((uint32_t)(x * x + 2 * y * y + x * y)) >> 4) + 9u * (uint32_t)t;
                v = 48 + (pat & 127) + (uint32_t)ck_irand(0, noise);
                v <<= bpc - 8;
                v = v > maxv ? maxv : v;
            }
            uint8_t *r = pl->mem + (size_t)row * y;
            if (bps == 2)
                ((uint16_t *)r)[x] = (uint16_t)v;
            else
                r[x] = (uint8_t)v;
        }
    pl->base = pl->mem;
    pl->stride = row;
}

static const char *rand_options(int chroma, char *buf, size_t len)
{
    static const char *const ks[] = { "1", "0.5", "0.666667", "1.5", "2", "3", "1.6", "0.740740" };
    static const char *const psm[] = { "nearest", "bilinear", "bicubic", "lanczos4" };
    static const char *const ps[] = { "0.5", "0.75", "1.5", "2" };
    int n = snprintf(buf, len, "%s", chroma ? "speed_chroma" : "speed_temporal");
    char sep = '=';
    if (ck_chance(50)) {
        n += snprintf(buf + n, len - (size_t)n, "%cspeed_kernelscale=%s", sep, ks[ck_irand(0, 7)]);
        sep = ':';
    }
    if (ck_chance(25)) {
        n += snprintf(buf + n, len - (size_t)n, "%cspeed_prescale=%s:speed_prescale_method=%s", sep,
                      ps[ck_irand(0, 3)], psm[ck_irand(0, 3)]);
        sep = ':';
    }
    if (ck_chance(30)) {
        n += snprintf(buf + n, len - (size_t)n, "%cspeed_sigma_nn=%s", sep,
                      ck_chance(50) ? "0.5" : "0.1");
        sep = ':';
    }
    if (ck_chance(20)) {
        n += snprintf(buf + n, len - (size_t)n, "%cspeed_nn_floor=0.1", sep);
        sep = ':';
    }
    if (chroma && ck_chance(30))
        n += snprintf(buf + n, len - (size_t)n, "%cspeed_weight_var_mode=%d", sep, ck_irand(1, 6));
    return buf;
}

static SqSrc src_of(const Plane *cur, const Plane *prev, int bpc)
{
    SqSrc s;
    memset(&s, 0, sizeof(s));
    s.cur = cur->base;
    s.cur_stride = cur->stride;
    if (prev) {
        s.prev = prev->base;
        s.prev_stride = prev->stride;
    }
    s.hbd = bpc > 8;
    s.scale = sq_bpc_scale(bpc);
    return s;
}

static void check_e2e(const CkCtx *c)
{
    const SqAlloc alloc = { 0 };
    int ran = 0;
    ck_begin("plane_score", "all");
    for (int t = 0; t < NCASES; t++) {
        const int chroma = ck_chance(50);
        static const int bpcs[] = { 8, 8, 10, 12, 16, 9 };
        SpeedqaFormat fmt = { ck_irand(160, 640), ck_irand(160, 400),
                              (SpeedqaPixelFormat)ck_irand(1, 3), bpcs[ck_irand(0, 5)] };
        char opts[256], err[256];
        rand_options(chroma, opts, sizeof(opts));
        SqFeature f;
        if (sq_feature_open(&f, opts, &fmt, &alloc, err, sizeof(err)) < 0) {
            sq_feature_close(&f);
            continue; /* e.g. a window too wide for this size */
        }
        const SqPlan *p = &f.plan;
        const int w = p->d.w, h = p->d.h, kind = ck_irand(0, 9) == 0 ? 0 : ck_irand(1, 4) == 1 ? 1 : 2;
        Plane cr, cd, pr, pd;
        make_plane(&cr, w, h, fmt.bpc, 1, kind);
        make_plane(&cd, w, h, fmt.bpc, 1, ck_chance(10) ? 0 : kind);
        make_plane(&pr, w, h, fmt.bpc, 0, kind);
        make_plane(&pd, w, h, fmt.bpc, 0, kind);
        const int urd = !chroma && ck_chance(30), wvm = chroma ? f.spec.opt.weight_var_mode : 0;
        const SqSrc rs = src_of(&cr, chroma ? NULL : &pr, fmt.bpc);
        const SqSrc ds = src_of(urd ? &cr : &cd, chroma ? NULL : &pd, fmt.bpc);

        RefSide rr, rd;
        ref_alloc(&rr, p);
        ref_alloc(&rd, p);
        const int fr = ref_side(p, &rr, &rs) & SQ_EST_SINGULAR, fd = ref_side(p, &rd, &ds) & SQ_EST_SINGULAR;
        const float want = sq_side_score(fr, fd, sq_pool(rr.e, rr.s, rd.e, rd.s, p->d.n, p->d.nb,
                                                          p->sigma_nn, p->nn_floor, wvm));
        /* Rows sq_plan_rows_read does not mark must not matter. */
        uint8_t *mark = calloc((size_t)h, 1);
        sq_plan_rows_read(p, mark, &alloc);
        const int bps = fmt.bpc > 8 ? 2 : 1;
        Plane *all[4] = { &cr, &cd, &pr, &pd };
        for (int q = 0; q < 4; q++)
            for (int y = 0; y < h; y++)
                if (!mark[y])
                    for (int x = 0; x < w * bps; x++)
                        all[q]->mem[(size_t)all[q]->stride * y + x] = (uint8_t)ck_rand();
        free(mark);
        for (int lv = -1; lv < c->nlvl; lv++) {
            SqCpuSide sr, sd;
            if (sq_cpu_side_alloc(&sr, p, &alloc) < 0 || sq_cpu_side_alloc(&sd, p, &alloc) < 0) {
                ck_fail("alloc");
                break;
            }
            const unsigned mask = lv < 0 ? 0 : c->lvl[lv].flags;
            sq_cpu_side_set_cpu_mask(&sr, mask);
            sq_cpu_side_set_cpu_mask(&sd, mask);
            if (lv >= 0) /* the level's own table (the emulated one is no cpu_mask) */
                sr.dsp = sd.dsp = c->lvl[lv].dsp;
            int e = -1;
            const float got = sq_cpu_plane_score(p, &sr, &sd, &rs, &ds, wvm, &e);
            const char *lname = lv < 0 ? "c" : c->lvl[lv].name;
            if (memcmp(&got, &want, sizeof(float)) || e != (fr || fd) ||
                ck_cmp_f32("ref e", rr.e, sr.e, (size_t)p->d.nb) ||
                ck_cmp_f32("ref s", rr.s, sr.s, (size_t)p->d.nb) ||
                ck_cmp_f32("dis e", rd.e, sd.e, (size_t)p->d.nb) ||
                ck_cmp_f32("dis s", rd.s, sd.s, (size_t)p->d.nb))
                ck_fail("%s: %s %dx%d fmt %d bpc %d kind %d urd %d: %.9g (err %d) vs %.9g (err %d)",
                        lname, opts, fmt.width, fmt.height, fmt.fmt, fmt.bpc, kind, urd,
                        (double)want, fr || fd, (double)got, e);
            sq_cpu_side_free(&sr, &alloc);
            sq_cpu_side_free(&sd, &alloc);
        }
        ran++;
        ref_free(&rr);
        ref_free(&rd);
        free(cr.mem), free(cd.mem), free(pr.mem), free(pd.mem);
        sq_feature_close(&f);
    }
    printf("  (%d planes)\n", ran);
    ck_end();
}

typedef struct BArgs {
    const SqPlan *p;
    SqCpuSide *s;
    const SqSrc *src;
} BArgs;

static void bench_side(void *a)
{
    BArgs *b = a;
    sq_cpu_side(b->p, b->s, b->src);
}

static void bench_e2e(const CkCtx *c)
{
    const SqAlloc alloc = { 0 };
    for (int chroma = 0; chroma < 2; chroma++) {
        SpeedqaFormat fmt = { 1920, 1080, SPEEDQA_PIX_420, 8 };
        char err[256];
        SqFeature f;
        if (sq_feature_open(&f, chroma ? "speed_chroma" : "speed_temporal", &fmt, &alloc, err,
                            sizeof(err)) < 0)
            return;
        Plane cur, prev;
        make_plane(&cur, f.plan.d.w, f.plan.d.h, 8, 1, 2);
        make_plane(&prev, f.plan.d.w, f.plan.d.h, 8, 0, 2);
        const SqSrc src = src_of(&cur, chroma ? NULL : &prev, 8);
        SqCpuSide sc, so;
        sq_cpu_side_alloc(&sc, &f.plan, &alloc);
        sq_cpu_side_alloc(&so, &f.plan, &alloc);
        sq_cpu_side_set_cpu_mask(&sc, 0);
        BArgs bc = { &f.plan, &sc, &src }, bo = { &f.plan, &so, &src };
        ck_bench_row(chroma ? "side: chroma 960x540" : "side: temporal 1920x1080",
                     ck_time(bench_side, &bc), c->nlvl ? c->lvl[c->nlvl - 1].name : "-",
                     ck_time(bench_side, &bo));
        sq_cpu_side_free(&sc, &alloc);
        sq_cpu_side_free(&so, &alloc);
        free(cur.mem);
        free(prev.mem);
        sq_feature_close(&f);
    }
}

void ck_e2e(const CkCtx *c)
{
    if (c->bench)
        bench_e2e(c);
    else if (ck_wanted(c, "plane_score"))
        check_e2e(c);
}
