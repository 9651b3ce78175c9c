/*
 * adm_dec0 (scale 0's decouple and CSF) against the C table's (the scalar math
 * of math/vmaf_adm.h) on random band rows: lengths from 1 (the kernels hand
 * rows under a vector to the scalar code) to ~300, int16 coefficients uniform,
 * small, zero-heavy and at the bounds (-32768, 32767: the gain's clamp, the
 * int16 wraps of the restored value, of the error and of the CSF'd value),
 * distorted bands that follow the reference (the angle test passes) or not,
 * enhancement limits 1..100 and CSF factors over the whole u16 range; every
 * output row (r, e, A, the fine masks' sum S). adm_decs (scales 1..3) likewise
 * with int32 bands: real magnitudes (to 2^29), small ones and the int32
 * extremes, CSF factors over the whole u32 range.
 *
 * adm_dwt likewise on random planes: scale 0 from bytes and 16-bit
 * containers (bpc 8..16, MSB-aligned too) with fills at the depth's bounds,
 * scales 1..3 from int32 bands of every magnitude, sizes from 2 x 2 with odd
 * ones, skip_scale0's only_a, whole planes and any range of rows; the four
 * bands are compared.
 *
 * adm_den_row and adm_csf_row (the pooling's denominator, the AIM pass's CSF
 * rows over the extended region) from random bands, restored coefficients
 * and CSF planes, every scale, random CSF factors, int32 extremes at
 * scales 1..3: the denominators' row sums and every plane.
 *
 * adm_cm_row: one masking row from F's sums over the orientations (C's
 * against the math's sq_va_cm_rows from F too), widths 2..300 (odd ones, rows
 * shorter than a vector, columns the mirror reaches), its neighbours the
 * mirrored rows or any rows, every scale, realistic planes and planes with
 * int16 / int32 extremes, CSF factors over the whole u16 / u32 range (ir >=
 * 2^31 too).
 */
#include <stdlib.h>
#include <string.h>

#include "checkkernel.h"
#include "math/filter.h"
#include "math/vmaf_adm_pool.h"

#define NCASES 500

static int32_t coef(int mode)
{
    switch (mode) {
    case 0:
        return ck_irand(-32768, 32767);
    case 1:
        return ck_irand(-40, 40);
    case 2:
        return ck_chance(60) ? 0 : ck_irand(-3, 3);
    case 3:
        return ck_chance(50) ? -32768 : ck_chance(50) ? 32767 : ck_irand(-32768, 32767);
    default:
        return ck_irand(-2000, 2000);
    }
}

/* scales 1..3's bands: real ones reach 2^29; the extremes stay within
 * +-(2^31 - 1) in h and v (the angle's i64 sums of squares would overflow,
 * undefined, at -2^31) */
static int32_t coef32(int mode, int band)
{
    switch (mode) {
    case 0:
        return ck_irand(-(1 << 29), 1 << 29);
    case 3:
        if (band == SQ_VA_D && ck_chance(20))
            return INT32_MIN;
        if (ck_chance(50))
            return ck_chance(50) ? INT32_MAX : -INT32_MAX;
        const int32_t v = (int32_t)ck_rand(); /* ck_irand spans less than 2^31 */
        return v == INT32_MIN ? -INT32_MAX : v;
    case 4:
        return ck_irand(-(1 << 16), 1 << 16);
    default:
        return coef(mode);
    }
}

/* a distorted coefficient from the reference's: equal, scaled, or unrelated */
static int32_t follow(int32_t o, int mode, int big, int band)
{
    const int64_t lim = big ? INT32_MAX : 32767;
    int64_t t;
    switch (ck_irand(0, 3)) {
    case 0:
        t = o;
        break;
    case 1:
        t = (int64_t)o * ck_irand(0, 300) / 100;
        break;
    case 2:
        t = (int64_t)o + ck_irand(-5, 5);
        break;
    default:
        t = big ? coef32(mode, band) : coef(mode);
    }
    return (int32_t)(t < -lim ? -lim - (lim == 32767) : t > lim ? lim : t);
}

typedef struct Row {
    int32_t *ob[4], *tb[4], *out[2][12];
} Row;

/* big: scales 1..3's int32 bands, else scale 0's int16 ones */
static void row_new(Row *r, int n, int mode, int big)
{
    for (int b = 0; b < 4; b++) {
        r->ob[b] = malloc(sizeof(int32_t) * (size_t)n);
        r->tb[b] = malloc(sizeof(int32_t) * (size_t)n);
    }
    for (int j = 0; j < n; j++)
        for (int b = 0; b < 4; b++) {
            r->ob[b][j] = big ? coef32(mode, b) : coef(mode);
            r->tb[b][j] = follow(r->ob[b][j], mode, big, b);
        }
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 12; k++)
            r->out[s][k] = calloc((size_t)n, sizeof(int32_t));
}

static void row_free(Row *r)
{
    for (int b = 0; b < 4; b++) {
        free(r->ob[b]);
        free(r->tb[b]);
    }
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 12; k++)
            free(r->out[s][k]);
}

static void run(const SqDsp *d, Row *r, int s, int n, double egl, const uint32_t *ir, int big)
{
    int32_t *const *o = r->out[s]; /* r, e, A, then S in out[9] (10 and 11 stay 0) */
    (big ? d->adm_decs : d->adm_dec0)((const int32_t *const *)r->ob, (const int32_t *const *)r->tb, n, egl, ir, o, o + 3,
                o + 6, (uint32_t *)o[9]);
}

/*
 * adm_dec0 with every int16 reference coefficient in each band (the gain's
 * reciprocal of each, which the SIMD levels compute in float lanes), the
 * distorted ones following, integer and fractional enhancement limits
 */
static void check_all_o(const CkCtx *c, const CkLevel *l)
{
    static const double egls[3] = { 1.0, 100.0, 1.5 };
    const int n = 65536;
    const uint32_t ir[3] = { 36453, 36453, 49417 };
    Row r;
    row_new(&r, n, 0, 0);
    for (int j = 0; j < n; j++)
        for (int b = 0; b < 4; b++) {
            r.ob[b][j] = (j + 4099 * b) % 65536 - 32768;
            r.tb[b][j] = follow(r.ob[b][j], 0, 0, b);
        }
    for (int g = 0; g < 3; g++) {
        run(&c->ref, &r, 0, n, egls[g], ir, 0);
        run(&l->dsp, &r, 1, n, egls[g], ir, 0);
        for (int k = 0; k < 12; k++)
            if (memcmp(r.out[0][k], r.out[1][k], sizeof(int32_t) * (size_t)n)) {
                ck_fail("every o, egl %g: output %d differs", egls[g], k);
                break;
            }
    }
    row_free(&r);
}

/* adm_dec0, or adm_decs (big) */
static void check_level(const CkCtx *c, const CkLevel *l, int big)
{
    static const char *const what[12] = { "r h", "r v", "r d", "e h", "e v", "e d",
                                          "A h", "A v", "A d", "S", "-", "-" };
    ck_begin(big ? "adm_decs" : "adm_dec0", l->name);
    for (int i = 0; i < NCASES; i++) {
        const int n = ck_chance(20) ? ck_irand(1, 20) : ck_irand(21, 300), mode = ck_irand(0, 4);
        const double egl = ck_chance(50) ? 100.0 : ck_chance(50) ? 1.0 : ck_irand(100, 10000) / 100.0;
        uint32_t ir[3];
        for (int k = 0; k < 3; k++)
            ir[k] = big ? (ck_chance(20) ? UINT32_MAX : ck_chance(20) ? 1u << 31 : ck_rand())
                        : ck_chance(20) ? 65535u : ck_chance(20) ? 36453u : (uint32_t)ck_irand(0, 65535);
        Row r;
        row_new(&r, n, mode, big);
        run(&c->ref, &r, 0, n, egl, ir, big);
        run(&l->dsp, &r, 1, n, egl, ir, big);
        for (int k = 0; k < 12; k++)
            for (int j = 0; j < n; j++)
                if (r.out[0][k][j] != r.out[1][k][j]) {
                    ck_fail("n %d fill %d egl %g ir %u %u %u: %s[%d] = %d, want %d (o %d t %d)", n,
                            mode, egl, ir[0], ir[1], ir[2], what[k], j, r.out[1][k][j],
                            r.out[0][k][j], r.ob[k % 3 == 0 ? 2 : k % 3 == 1 ? 1 : 3][j],
                            r.tb[k % 3 == 0 ? 2 : k % 3 == 1 ? 1 : 3][j]);
                    k = 12;
                    break;
                }
        row_free(&r);
    }
    if (!big)
        check_all_o(c, l);
    ck_end();
}

static uint32_t sample(int mode, uint32_t max)
{
    return mode == 0 ? ck_rand() % (max + 1) : mode == 1 ? (ck_chance(50) ? max : 0)
                                                          : (uint32_t)ck_irand(0, 3) * (max / 3);
}

static int32_t band_coef(int scale, int mode)
{
    const int32_t lim = scale == 1 ? 32767 * 4 : scale == 2 ? 1 << 24 : (1 << 30) - 1;
    return mode == 1 ? (ck_chance(50) ? lim : -lim) : ck_irand(-lim, lim);
}

/* adm_dwt's input at scale 1 is scale 0's a: int16 values (its contract), both bounds */
static int32_t dwt_coef(int scale, int mode)
{
    if (scale == 1)
        return mode == 1 ? (ck_chance(50) ? 32767 : -32768) : ck_irand(-32768, 32767);
    return band_coef(scale, mode);
}

static void check_dwt_case(const CkCtx *c, const CkLevel *l)
{
    const int w = ck_irand(2, 200), h = ck_irand(2, 60), scale = ck_irand(0, 3), mode = ck_irand(0, 2);
    const int hbd = ck_chance(40), bpc = hbd ? ck_irand(8, 16) : 8;
    const int shift = hbd && bpc < 16 && ck_chance(30) ? 16 - bpc : 0;
    const int acc = hbd ? SQ_ACC_16 | SQ_ACC_SHIFT(shift) : 0, bytes = hbd ? 2 : 1;
    const int only_a = scale == 0 && ck_chance(20);
    const ptrdiff_t stride = (ptrdiff_t)(w + ck_irand(0, 9)) * bytes;
    uint8_t *raw = calloc((size_t)stride * (size_t)h, 1);
    int32_t *src = malloc(sizeof(int32_t) * (size_t)w * (size_t)h);
    const uint32_t max = (1u << bpc) - 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint32_t v = sample(mode, max) << shift;
            if (hbd) {
                const uint16_t u = (uint16_t)v;
                memcpy(raw + y * stride + 2 * x, &u, 2);
            } else {
                raw[y * stride + x] = (uint8_t)v;
            }
            src[y * w + x] = dwt_coef(scale ? scale : 1, mode);
        }
    /* the whole plane, or rows [i0, i1) as the CPU's runner asks for them (one at a time) */
    const int h2 = (h + 1) / 2, i0 = ck_chance(50) ? 0 : ck_irand(0, h2 - 1),
              i1 = i0 == 0 && ck_chance(50) ? h2 : ck_irand(i0 + 1, h2);
    const size_t nb = (size_t)((w + 1) / 2) * (size_t)(i1 - i0);
    int32_t *bands[2][4], *lo = malloc(sizeof(int32_t) * (size_t)w), *hi = malloc(sizeof(int32_t) * (size_t)w);
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 4; b++)
            bands[k][b] = calloc(nb, sizeof(int32_t));
    c->ref.adm_dwt(raw, stride, acc, bpc, src, w, h, scale, only_a, i0, i1, lo, hi, bands[0]);
    l->dsp.adm_dwt(raw, stride, acc, bpc, src, w, h, scale, only_a, i0, i1, lo, hi, bands[1]);
    for (int b = 0; b < 4; b++)
        if (memcmp(bands[0][b], bands[1][b], nb * sizeof(int32_t))) {
            ck_fail("%dx%d scale %d bpc %d acc %d only_a %d fill %d rows %d..%d: band %d differs", w,
                    h, scale, bpc, acc, only_a, mode, i0, i1, b);
            break;
        }
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 4; b++)
            free(bands[k][b]);
    free(lo);
    free(hi);
    free(raw);
    free(src);
}

/* the 24 planes of b in one order, n each (lo, hi: w) */
static void pool_planes(SqVaBufs *b, int32_t **all[24])
{
    int k = 0;
    for (int i = 0; i < 4; i++) {
        all[k++] = &b->ob[i];
        all[k++] = &b->tb[i];
    }
    all[k++] = &b->oa;
    all[k++] = &b->ta;
    for (int i = 0; i < 3; i++) {
        all[k++] = &b->r[i];
        all[k++] = &b->e[i];
        all[k++] = &b->A[i];
        all[k++] = &b->F[i];
    }
    all[k++] = &b->lo;
    all[k++] = &b->hi;
}

static void check_pool_case(const CkCtx *c, const CkLevel *l)
{
    /* scale 0's masking shift is ceil(log2(w)) - 4: bands under 9 wide would
     * shift by a negative count (undefined; the feature needs 32 x 32 luma,
     * 16-wide bands) */
    const int s = ck_irand(0, 3), w = ck_irand(s ? 2 : 16, 150), h = ck_irand(2, 60),
              mode = ck_irand(0, 2);
    const size_t n = (size_t)w * (size_t)h;
    SqVaParams p;
    memset(&p, 0, sizeof(p));
    for (int k = 0; k < 3; k++) {
        p.s[s].ir[k] = s ? ck_rand() : (uint32_t)ck_irand(0, 65535);
        p.s[s].rf3[k] = ck_irand(1, 1000) / 997.0;
    }
    SqVaBufs b[2];
    int32_t **all[2][24];
    for (int k = 0; k < 2; k++) {
        pool_planes(&b[k], all[k]);
        for (int i = 0; i < 24; i++)
            *all[k][i] = malloc(sizeof(int32_t) * n);
    }
    for (int i = 0; i < 22; i++)
        for (size_t x = 0; x < n; x++) {
            /* magnitudes of real bands: libvmaf's i64 row sums of the masking
             * overflow (undefined) for planes of extreme coefficients */
            int32_t v = i >= 10 && i < 22 && (i - 10) % 4 == 3
                            ? (int32_t)sq_va_fine(s, ck_irand(-4000, 4000))
                        : s == 0 ? coef(mode == 0 ? 4 : mode == 1 ? 1 : 2)
                                 : band_coef(s, mode) >> (s == 1 ? 0 : s == 2 ? 4 : 10);
            /* the denominator's u64 sums wrap alike; its square passes 2^32 at -2^31 */
            if (s && mode == 1 && ck_chance(30))
                v = ck_chance(30) ? INT32_MIN : (int32_t)ck_rand();
            (*all[0][i])[x] = (*all[1][i])[x] = s == 0 ? sq_va_i16(v) : v;
        }
    uint64_t den[2][3] = { { 0, 0, 0 }, { 0, 0, 0 } };
    const SqDsp *d[2] = { &c->ref, &l->dsp };
    const int L = sq_va_ext_lo(w), R = sq_va_ext_hi(w);
    int dc, rho;
    sq_va_den_shifts(s, w, h, &dc, &rho);
    for (int k = 0; k < 2; k++) {
        for (int i = sq_va_pool_lo(h); i < sq_va_pool_hi(h); i++) {
            const int32_t *row[4];
            for (int q = 0; q < 4; q++)
                row[q] = b[k].ob[q] + (int64_t)i * w;
            d[k]->adm_den_row(s, row, sq_va_pool_lo(w), sq_va_pool_hi(w), dc, rho, den[k]);
        }
        for (int i = sq_va_ext_lo(h); i < sq_va_ext_hi(h); i++) {
            const int64_t x = (int64_t)i * w + L;
            const int32_t *src[3] = { b[k].r[0] + x, b[k].r[1] + x, b[k].r[2] + x };
            int32_t *A[3] = { b[k].A[0] + x, b[k].A[1] + x, b[k].A[2] + x };
            d[k]->adm_csf_row(s, p.s[s].ir, src, R - L, A, (uint32_t *)b[k].F[0] + x);
        }
    }
    if (memcmp(den[0], den[1], sizeof(den[0])))
        ck_fail("scale %d %dx%d fill %d: adm_den_row %llu %llu %llu, want %llu %llu %llu", s, w, h,
                mode, (unsigned long long)den[1][0], (unsigned long long)den[1][1],
                (unsigned long long)den[1][2], (unsigned long long)den[0][0],
                (unsigned long long)den[0][1], (unsigned long long)den[0][2]);
    for (int i = 0; i < 22; i++)
        if (memcmp(*all[0][i], *all[1][i], sizeof(int32_t) * n)) {
            ck_fail("scale %d %dx%d fill %d: plane %d differs after adm_csf_row", s, w, h, mode, i);
            break;
        }
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 24; i++)
            free(*all[k][i]);
}

/* a masking plane value: realistic magnitudes, with 5% extremes (more would overflow
 * the scalar i64 row sums at scale 0, which is undefined) */
static int32_t cm_value(int s, int edge, int32_t real)
{
    if (edge && ck_chance(5))
        return s ? (ck_chance(50) ? INT32_MIN : INT32_MAX) : (ck_chance(50) ? -32768 : 32767);
    return ck_irand(-real, real);
}

typedef struct CmCase {
    int s, w, h, i, up, dn;
    uint32_t ir[3];
    int32_t *X[3], *A[3], *F[3];
    uint32_t *S; /* F's sums over the orientations, which adm_cm_row reads */
} CmCase;

static void cm_new(CmCase *k)
{
    k->s = ck_irand(0, 3);
    /* scale 0's shift is ceil(log2(w)) - 4: bands under 9 wide shift by a
     * negative count; a band 1 wide mirrors column -1 to 1, outside it */
    k->w = ck_chance(20) ? ck_irand(k->s ? 2 : 9, 24) : ck_irand(25, 300);
    k->h = ck_irand(2, 8);
    k->i = ck_irand(0, k->h - 1);
    /* the mirrored neighbours, or any rows (a caller's ring keeps its rows anywhere) */
    const int any = ck_chance(30);
    k->up = any ? ck_irand(0, k->h - 1) : sq_va_mirror(k->i - 1, k->h);
    k->dn = any ? ck_irand(0, k->h - 1) : sq_va_mirror(k->i + 1, k->h);
    const int edge = ck_chance(40), n = k->w * k->h;
    const int32_t real = k->s == 0 ? 2000 : k->s == 1 ? 1 << 17 : k->s == 2 ? 1 << 20 : 1 << 22;
    for (int th = 0; th < 3; th++) {
        k->ir[th] = k->s ? (ck_chance(20) ? UINT32_MAX : ck_chance(20) ? 1u << 31 : ck_rand())
                         : (ck_chance(20) ? 65535u : (uint32_t)ck_irand(0, 65535));
        k->X[th] = malloc(sizeof(int32_t) * (size_t)n);
        k->A[th] = malloc(sizeof(int32_t) * (size_t)n);
        k->F[th] = malloc(sizeof(int32_t) * (size_t)n);
        for (int x = 0; x < n; x++) {
            k->X[th][x] = cm_value(k->s, edge, real);
            k->A[th][x] = k->s ? cm_value(k->s, edge, real) : sq_va_i16(cm_value(0, edge, real));
            /* fine masks of A's kind, or anything: the thresholds' u32 sums wrap */
            k->F[th][x] = edge && ck_chance(10) ? (int32_t)ck_rand()
                                                : sq_va_fine(k->s, cm_value(k->s, edge, real));
            if (!k->s)
                k->F[th][x] = sq_va_i16(k->F[th][x]);
        }
    }
    k->S = malloc(sizeof(uint32_t) * (size_t)n);
    for (int x = 0; x < n; x++) /* what adm_dec0 / adm_csf_row write */
        k->S[x] = (uint32_t)k->F[0][x] + (uint32_t)k->F[1][x] + (uint32_t)k->F[2][x];
}

/* d's row from S, or (d NULL) the math's sq_va_cm_rows from F, which C's must equal */
static void cm_run(const SqDsp *d, const CmCase *k, const uint32_t *ir, int64_t *acc)
{
    uint32_t *vs = malloc(sizeof(uint32_t) * (size_t)k->w);
    const int64_t w = k->w, up = k->up * w, mid = k->i * w, dn = k->dn * w;
    for (int th = 0; th < 3; th++)
        acc[th] = 1000 * th - 7;
    if (d)
        d->adm_cm_row(k->s, ir, (const int32_t *const *)k->X, (const int32_t *const *)k->A, k->S,
                      k->w, k->h, up, mid, dn, acc, vs);
    else
        sq_va_cm_rows(k->s, &(SqVaScale){ { ir[0], ir[1], ir[2] }, { 0.0, 0.0, 0.0 } },
                      (const int32_t *const *)k->X, (const int32_t *const *)k->A,
                      (const int32_t *const *)k->F, k->w, k->h, up, mid, dn, acc, vs);
    free(vs);
}

/*
 * adm_cm_row against C; the mutants (C with one CSF factor off by one, C
 * with the last pooled column's X changed) must differ from C in some
 * cases, or these inputs could not catch a kernel with such a fault.
 */
static void check_cm(const CkCtx *c, const CkLevel *l)
{
    int caught[2] = { 0, 0 };
    ck_begin("adm_cm_row", l->name);
    for (int n = 0; n < NCASES; n++) {
        CmCase k;
        cm_new(&k);
        int64_t want[3], got[3], mut[3];
        cm_run(&c->ref, &k, k.ir, want);
        cm_run(&l->dsp, &k, k.ir, got);
        cm_run(NULL, &k, k.ir, mut);
        if (memcmp(want, mut, sizeof(want)))
            ck_fail("scale %d %dx%d row %d: C from S is not the math", k.s, k.w, k.h, k.i);
        if (memcmp(want, got, sizeof(want)))
            ck_fail("scale %d %dx%d row %d ir %u %u %u: acc %lld %lld %lld, want %lld %lld %lld",
                    k.s, k.w, k.h, k.i, k.ir[0], k.ir[1], k.ir[2], (long long)got[0],
                    (long long)got[1], (long long)got[2], (long long)want[0], (long long)want[1],
                    (long long)want[2]);
        const uint32_t irm[3] = { k.ir[0], k.ir[1] ^ 1u, k.ir[2] };
        cm_run(&c->ref, &k, irm, mut);
        caught[0] += memcmp(want, mut, sizeof(want)) != 0;
        const int64_t last = (int64_t)k.i * k.w + sq_va_pool_hi(k.w) - 1;
        k.X[2][last] ^= 0x1000;
        cm_run(&c->ref, &k, k.ir, mut);
        caught[1] += memcmp(want, mut, sizeof(want)) != 0;
        for (int th = 0; th < 3; th++) {
            free(k.X[th]);
            free(k.A[th]);
            free(k.F[th]);
        }
        free(k.S);
    }
    if (caught[0] < NCASES / 4 || caught[1] < NCASES / 4)
        ck_fail("the mutants differ from C in only %d and %d of %d cases", caught[0], caught[1],
                NCASES);
    ck_end();
}

typedef struct AArgs {
    const SqDsp *d;
    Row r;
    int n;
} AArgs;

static void bench_dec0(void *arg)
{
    AArgs *a = arg;
    static const uint32_t ir[3] = { 36453, 36453, 49417 };
    for (int y = 0; y < 64; y++)
        run(a->d, &a->r, 0, a->n, 100.0, ir, 0);
}

void ck_adm(const CkCtx *c)
{
    for (int i = 0; i < c->nlvl; i++) {
        if (ck_wanted(c, "adm_den_csf")) {
            ck_begin("adm_den_csf", c->lvl[i].name);
            for (int n = 0; n < NCASES / 2; n++)
                check_pool_case(c, &c->lvl[i]);
            ck_end();
        }
        if (ck_wanted(c, "adm_cm_row"))
            check_cm(c, &c->lvl[i]);
        if (ck_wanted(c, "adm_dwt")) {
            ck_begin("adm_dwt", c->lvl[i].name);
            for (int n = 0; n < NCASES; n++)
                check_dwt_case(c, &c->lvl[i]);
            ck_end();
        }
        if (ck_wanted(c, "adm_dec0"))
            check_level(c, &c->lvl[i], 0);
        if (ck_wanted(c, "adm_decs"))
            check_level(c, &c->lvl[i], 1);
        if (c->bench && ck_wanted(c, "adm_dec0")) {
            AArgs ac = { .n = 960 }, ao;
            row_new(&ac.r, ac.n, 4, 0);
            ao = ac;
            ac.d = &c->ref;
            ao.d = &c->lvl[i].dsp;
            ck_bench_row("adm_dec0 (64 rows of 960)", ck_time(bench_dec0, &ac), c->lvl[i].name,
                         ck_time(bench_dec0, &ao));
            row_free(&ac.r);
        }
    }
}
