/*
 * libvmaf's integer motion SAD (math/vmaf_motion.h, spec
 * vmaf-integer-features 2.3) over VS_N 32-bit and VW_N 16-bit lanes,
 * written once for every SIMD level: included by x86/motion_avx2.c,
 * x86/motion_avx512.c and arm/motion_neon.c after their simd/vec_*.h. The
 * scalar code needs i64 for both passes; here every sum is split so that
 * each part stays inside its lanes, and the floors are put back together
 * exactly with floor(floor(x / a) / b) = floor(x / (a b)) (bounds below,
 * for any sample value of the container, not only those below 2^bpc).
 * Tails and planes under 3 x 3 (where the mirror leaves the plane) take
 * the scalar code, which is the definition.
 *
 * Taps t = [3571 16004 26386 16004 3571], sum 2^16, applied as
 * t0 (a0 + a4) + t1 (a1 + a3) + t2 a2.
 *
 * Bytes (vm_vert8, vm_row8): d = p - c in [-255, 255] and the pair sums in
 * [-510, 510] are 16-bit lanes, their tap sums s (|s| <= 255 * 2^16)
 * vw_taps' exact 32-bit lanes; y = (s + 2^(bpc-1)) >> bpc, |y| <= 65280,
 * is kept as yh = y >> 8 in [-255, 255] and yl = y & 255, 16 bits each.
 * The horizontal pass takes Yh = taps(yh) and Yl = taps(yl) the same way
 * (|Yh|, Yl <= 255 * 2^16) and, with Sum t y = 256 Yh + Yl,
 *   v = floor((Sum t y + 2^15) / 2^16) = (Yh + ((Yl + 2^15) >> 8)) >> 8.
 *
 * 16-bit containers: vm_vert16w (16-bit lanes, then vm_row8) for rows
 * whose y fit vm_row8's split, which samples under 2^bpc always do; any
 * other row again with vm_vert16 and vm_row16, 32-bit lanes throughout. For
 * 0 <= a_k < 2^16 every tap product is below 2^31 (16004 * 131070 is the
 * largest) and the sum below 2^16 (2^16 - 1) < 2^32: exact as u32 in
 * wrapping lanes. The differences' sum reaches +-2^32, so the two planes'
 * sums Sp, Sc are taken apart: with Sp = 256 ph + pl, Sc = 256 ch + cl
 * (pl, cl < 256),
 *   y = floor((Sp - Sc + r) / 2^bpc)
 *     = ((ph - ch) + ((pl - cl + r) >> 8)) >> (bpc - 8),
 * every term inside i32 (|ph - ch| < 2^24, r = 2^(bpc-1) <= 2^15), so
 * |y| < 2^24 + 1 at bpc 8. The horizontal pass splits y = 2^16 yh + yl
 * (|yh| <= 2^8, 0 <= yl < 2^16): Yh = taps(yh) within +-2^24, Yl = taps(yl)
 * < 2^32 - 2^16 as u32, so Yl + 2^15 does not wrap, and
 *   v = Yh + ((Yl + 2^15) >> 16)   (logical shift).
 *
 * |v| < 2^25 either way; the row's u32 sum of |v| wraps as libvmaf's does
 * (lanes and tail add mod 2^32 in any order).
 */
#include <stddef.h>
#include <stdint.h>

#include "cpu/dsp.h"
#include "math/vmaf_motion.h"

V_AI vs vm_taps(vs a0, vs a1, vs a2, vs a3, vs a4)
{
    const vs s = vs_add(vs_mul(vs_set1(3571), vs_add(a0, a4)), vs_mul(vs_set1(16004), vs_add(a1, a3)));
    return vs_add(s, vs_mul(vs_set1(26386), a2));
}

/* The split form of y the horizontal pass reads, at yh[j], yl[j]. */
V_AI void vm_put(int32_t *yh, int32_t *yl, int j, vs y)
{
    vs_store(yh + j, vs_sra(y, 16));
    vs_store(yl + j, vs_and(y, vs_set1(0xffff)));
}

/* Column j of the vertical pass of rows p[], c[] (5 each, mirrored): the scalar code's. */
static int32_t vm_vert1(const uint8_t *const *p, const uint8_t *const *c, int acc, int bpc, int j)
{
    int64_t po[5], co[5];
    for (int k = 0; k < 5; k++) {
        po[k] = p[k] - p[0];
        co[k] = c[k] - c[0];
    }
    return sq_vm_vert_px(p[0], po, acc, c[0], co, acc, bpc, j);
}

/*
 * Bytes: yh[j], yl[j] for j < w (the 5 rows p[], c[] mirrored already); np,
 * nc: the next output row's new rows, prefetched into L2 meanwhile (motion
 * is the first to read a frame: its rows come from memory).
 */
static void vm_vert8(const uint8_t *const *p, const uint8_t *const *c, const uint8_t *np,
                     const uint8_t *nc, int w, int bpc, int16_t *yh, int16_t *yl)
{
    const vs rnd = vs_set1(1 << (bpc - 1)), lo8 = vs_set1(255);
    int j = 0;
    for (; j + VW_N <= w; j += VW_N) {
        v_prefetch_l2(np + j);
        v_prefetch_l2(nc + j);
        vw d[5];
        for (int k = 0; k < 5; k++)
            d[k] = vw_sub(vw_u8(p[k] + j), vw_u8(c[k] + j));
        vs x, y;
        vw_taps(vw_add(d[0], d[4]), vw_add(d[1], d[3]), d[2], 3571, 16004, 26386, &x, &y);
        x = vs_sra(vs_add(x, rnd), bpc);
        y = vs_sra(vs_add(y, rnd), bpc);
        vw_store(yh + j, vw_pack(vs_sra(x, 8), vs_sra(y, 8)));
        vw_store(yl + j, vw_pack(vs_and(x, lo8), vs_and(y, lo8)));
    }
    for (; j < w; j++) {
        const int32_t y = vm_vert1(p, c, 0, bpc, j);
        yh[j] = (int16_t)(y >> 8);
        yl[j] = (int16_t)(y & 255);
    }
}

/* The u32 SAD of one row of vm_vert8's, its two mirrored columns each side in place. */
static uint32_t vm_row8(const int16_t *yh, const int16_t *yl, int w)
{
    const vs half = vs_set1(32768);
    vs acc = vs_set1(0);
    int j = 0;
    for (; j + VW_N <= w; j += VW_N) {
        vs hx, hy, lx, ly;
        vw_taps(vw_add(vw_load(yh + j - 2), vw_load(yh + j + 2)),
                vw_add(vw_load(yh + j - 1), vw_load(yh + j + 1)), vw_load(yh + j), 3571, 16004,
                26386, &hx, &hy);
        vw_taps(vw_add(vw_load(yl + j - 2), vw_load(yl + j + 2)),
                vw_add(vw_load(yl + j - 1), vw_load(yl + j + 1)), vw_load(yl + j), 3571, 16004,
                26386, &lx, &ly);
        acc = vs_add(acc, vs_abs(vs_sra(vs_add(hx, vs_sra(vs_add(lx, half), 8)), 8)));
        acc = vs_add(acc, vs_abs(vs_sra(vs_add(hy, vs_sra(vs_add(ly, half), 8)), 8)));
    }
    uint32_t s = vs_hsum(acc);
    for (; j < w; j++) {
        int64_t a = 0;
        for (int k = 0; k < 5; k++)
            a += sq_vm_tap(k) * ((int64_t)yh[j - 2 + k] * 256 + yl[j - 2 + k]);
        const int64_t v = (a + 32768) >> 16;
        s += (uint32_t)(v < 0 ? -v : v);
    }
    return s;
}

/*
 * 16-bit containers in 16-bit lanes: with p = 256 ph + pl (bytes), the
 * tap sum of p - c is 256 Sh + Sl, Sh = taps(ph - ch), Sl = taps(pl - cl),
 * each pair sum within [-510, 510], so
 *   y = (Sh + ((Sl + 2^(bpc-1)) >> 8)) >> (bpc - 8)
 * exactly for any sample values. Samples under 2^bpc give y in
 * [-65536, 65535], split as vm_vert8's with yh in [-256, 255] (vm_row8's
 * bounds hold: pair sums within [-512, 512]); a row where some y is not
 * (values above the depth) returns nonzero, and the caller takes the
 * 32-bit lanes for it.
 */
static int vm_vert16w(const uint8_t *const *p, const uint8_t *const *c, int w, int bpc,
                      int16_t *yh, int16_t *yl)
{
    const vs rnd = vs_set1(1 << (bpc - 1)), lo8 = vs_set1(255), off = vs_set1(65536);
    vs out = vs_set1(0);
    int j = 0;
    for (; j + VW_N <= w; j += VW_N) {
        vw dh[5], dl[5];
        for (int k = 0; k < 5; k++) {
            const uint8_t *pk = p[k] + 2 * (ptrdiff_t)j, *ck = c[k] + 2 * (ptrdiff_t)j;
            dh[k] = vw_sub(vw_hi8(pk), vw_hi8(ck));
            dl[k] = vw_sub(vw_lo8(pk), vw_lo8(ck));
        }
        vs hx, hy, lx, ly;
        vw_taps(vw_add(dh[0], dh[4]), vw_add(dh[1], dh[3]), dh[2], 3571, 16004, 26386, &hx, &hy);
        vw_taps(vw_add(dl[0], dl[4]), vw_add(dl[1], dl[3]), dl[2], 3571, 16004, 26386, &lx, &ly);
        const vs x = vs_sra(vs_add(hx, vs_sra(vs_add(lx, rnd), 8)), bpc - 8);
        const vs y = vs_sra(vs_add(hy, vs_sra(vs_add(ly, rnd), 8)), bpc - 8);
        /* nonzero lanes: y + 2^16 outside [0, 2^17) */
        out = vs_or(out, vs_or(vs_sra(vs_add(x, off), 17), vs_sra(vs_add(y, off), 17)));
        vw_store(yh + j, vw_pack(vs_sra(x, 8), vs_sra(y, 8)));
        vw_store(yl + j, vw_pack(vs_and(x, lo8), vs_and(y, lo8)));
    }
    /* |lane| < 2^15: the sum of their magnitudes is 0 only if all are */
    int bad = vs_hsum(vs_abs(out)) != 0;
    for (; j < w; j++) {
        const int32_t y = vm_vert1(p, c, SQ_ACC_16, bpc, j);
        bad |= y < -65536 || y > 65535;
        yh[j] = (int16_t)(y >> 8);
        yl[j] = (int16_t)(y & 255);
    }
    return bad;
}

/* 16-bit containers in 32-bit lanes (any y): yh[j], yl[j] for j < w. */
static void vm_vert16(const uint8_t *const *p, const uint8_t *const *c, int w, int bpc, int32_t *yh,
                      int32_t *yl)
{
    const vs rnd = vs_set1(1 << (bpc - 1)), lo8 = vs_set1(255);
    int j = 0;
    for (; j + VS_N <= w; j += VS_N) {
        vs a[5], b[5];
        for (int k = 0; k < 5; k++) {
            a[k] = vs_u16(p[k] + 2 * (ptrdiff_t)j);
            b[k] = vs_u16(c[k] + 2 * (ptrdiff_t)j);
        }
        const vs sp = vm_taps(a[0], a[1], a[2], a[3], a[4]);
        const vs sc = vm_taps(b[0], b[1], b[2], b[3], b[4]);
        const vs hi = vs_sub(vs_srl(sp, 8), vs_srl(sc, 8));
        const vs lo = vs_sub(vs_and(sp, lo8), vs_and(sc, lo8));
        vm_put(yh, yl, j, vs_sra(vs_add(hi, vs_sra(vs_add(lo, rnd), 8)), bpc - 8));
    }
    for (; j < w; j++) {
        const int32_t y = vm_vert1(p, c, SQ_ACC_16, bpc, j);
        yh[j] = y >> 16;
        yl[j] = y & 0xffff;
    }
}

/* The u32 SAD of one row of vm_vert16's, its two mirrored columns each side in place. */
static uint32_t vm_row16(const int32_t *yh, const int32_t *yl, int w)
{
    const vs half = vs_set1(32768);
    vs acc = vs_set1(0);
    int j = 0;
    for (; j + VS_N <= w; j += VS_N) {
        const vs hi = vm_taps(vs_load(yh + j - 2), vs_load(yh + j - 1), vs_load(yh + j),
                              vs_load(yh + j + 1), vs_load(yh + j + 2));
        const vs lo = vm_taps(vs_load(yl + j - 2), vs_load(yl + j - 1), vs_load(yl + j),
                              vs_load(yl + j + 1), vs_load(yl + j + 2));
        acc = vs_add(acc, vs_abs(vs_add(hi, vs_srl(vs_add(lo, half), 16))));
    }
    uint32_t s = vs_hsum(acc);
    for (; j < w; j++) {
        int64_t a = 0;
        for (int k = 0; k < 5; k++)
            a += sq_vm_tap(k) * ((int64_t)yh[j - 2 + k] * 65536 + yl[j - 2 + k]);
        const int64_t v = (a + 32768) >> 16;
        s += (uint32_t)(v < 0 ? -v : v);
    }
    return s;
}

/* The horizontal mirror, so that every output reads its five neighbours in place. */
#define VM_PAD(y, w)                                           \
    do {                                                       \
        for (int e = 0; e < 2; e++) {                          \
            (y)[-1 - e] = (y)[sq_mirror(-1 - e, w)];           \
            (y)[(w) + e] = (y)[sq_mirror((w) + e, w)];         \
        }                                                      \
    } while (0)

uint64_t V_NAME(sq_motion_sad)(const uint8_t *prev, ptrdiff_t prev_stride, const uint8_t *cur,
                               ptrdiff_t cur_stride, int acc, int w, int h, int bpc, int y0, int y1,
                               int32_t *ws)
{
    if (w < 3 || h < 3 || bpc < 8 || bpc > 16 || (acc != 0 && acc != SQ_ACC_16))
        return sq_vm_rows_sad2(prev, prev_stride, acc, cur, cur_stride, acc, w, h, bpc, y0, y1, ws);
    /* ws: SQ_MOTION_WS(w) int32, each half with 2 columns of mirror either side */
    int16_t *yh8 = (int16_t *)ws + 2, *yl8 = (int16_t *)ws + w + 6;
    int32_t *yh16 = ws + 2, *yl16 = ws + w + 6;
    uint64_t sad = 0;
    for (int i = y0; i < y1; i++) {
        const uint8_t *p[5], *c[5];
        for (int k = 0; k < 5; k++) {
            const ptrdiff_t r = sq_mirror(i - 2 + k, h);
            p[k] = prev + r * prev_stride;
            c[k] = cur + r * cur_stride;
        }
        if (!acc || !vm_vert16w(p, c, w, bpc, yh8, yl8)) {
            const ptrdiff_t n = sq_imin(i + 3, h - 1);
            if (!acc)
                vm_vert8(p, c, prev + n * prev_stride, cur + n * cur_stride, w, bpc, yh8, yl8);
            VM_PAD(yh8, w);
            VM_PAD(yl8, w);
            sad += vm_row8(yh8, yl8, w);
        } else {
            vm_vert16(p, c, w, bpc, yh16, yl16);
            VM_PAD(yh16, w);
            VM_PAD(yl16, w);
            sad += vm_row16(yh16, yl16, w);
        }
    }
    return sad;
}
