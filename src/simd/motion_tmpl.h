/*
 * libvmaf's integer motion SAD (math/vmaf_motion.h, spec
 * vmaf-integer-features 2.3) over VS_N 32-bit lanes, written once for every
 * SIMD level: included by x86/motion_avx2.c, x86/motion_avx512.c and
 * arm/motion_neon.c after their simd/vec_*.h. The scalar code needs i64 for
 * both passes; here every sum is split so that each part stays inside 32
 * bits, and the floors are put back together exactly (bounds below, for any
 * sample values of the container, not only those below 2^bpc). Tails and
 * planes under 3 x 3 (where the mirror leaves the plane) take the scalar
 * code, which is the definition.
 *
 * Taps: t = [3571 16004 26386 16004 3571], sum 2^16, applied as
 * t0 (a0 + a4) + t1 (a1 + a3) + t2 a2. For 0 <= a_k < 2^16 every product
 * is below 2^31 (16004 * 131070 is the largest) and the sum below
 * 2^16 * (2^16 - 1) < 2^32: exact as u32 in wrapping lanes.
 *
 * Vertical pass, 8-bit: d = p - c in [-255, 255], |sum| < 2^24, so
 * y = (sum + 2^(bpc-1)) >> bpc directly (i32).
 * Vertical pass, 16-bit: the differences' sum reaches +-2^32, so the two
 * planes' sums Sp, Sc are taken apart as u32 (bound above). With
 * Sp = 256 ph + pl, Sc = 256 ch + cl (pl, cl < 256):
 *   floor((Sp - Sc + r) / 2^bpc)
 *     = floor(((ph - ch) + floor((pl - cl + r) / 256)) / 2^(bpc-8))
 * (floor(floor(x / a) / b) = floor(x / (a b))), every term inside i32
 * (|ph - ch| < 2^24, r = 2^(bpc-1) <= 2^15). So |y| < 2^24 + 1 at bpc 8,
 * below 2^16 for samples under 2^bpc.
 * Horizontal pass: y = 2^16 yh + yl, yh = y >> 16 (|yh| <= 2^8), yl in
 * [0, 2^16). Yh = taps(yh) is within +-2^24; Yl = taps(yl) < 2^32 - 2^16,
 * so Yl + 2^15 does not wrap as u32, and
 *   floor((Sum t y + 2^15) / 2^16) = Yh + ((Yl + 2^15) >> 16)   (logical)
 * which is the scalar v; |v| < 2^25, and the row's u32 sum of |v| wraps as
 * libvmaf's does (lanes and tail add mod 2^32 in any order).
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

/* Column j of the vertical pass of rows p[], c[] (5 each, mirrored), as the scalar code. */
static int32_t vm_vert1(const uint8_t *const *p, const uint8_t *const *c, int acc, int bpc, int j)
{
    int64_t s = 0;
    for (int k = 0; k < 5; k++)
        s += sq_vm_tap(k) * ((int64_t)sq_sample(p[k], j, acc) - (int64_t)sq_sample(c[k], j, acc));
    return (int32_t)((s + ((int64_t)1 << (bpc - 1))) >> bpc);
}

static void vm_vert(const uint8_t *const *p, const uint8_t *const *c, int acc, int w, int bpc,
                    int32_t *yh, int32_t *yl)
{
    const vs rnd = vs_set1(1 << (bpc - 1));
    int j = 0;
    if (!acc) {
        for (; j + VS_N <= w; j += VS_N) {
            vs d[5];
            for (int k = 0; k < 5; k++)
                d[k] = vs_sub(vs_u8(p[k] + j), vs_u8(c[k] + j));
            vm_put(yh, yl, j, vs_sra(vs_add(vm_taps(d[0], d[1], d[2], d[3], d[4]), rnd), bpc));
        }
    } else {
        const vs lo8 = vs_set1(255);
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
    }
    for (; j < w; j++) {
        const int32_t y = vm_vert1(p, c, acc, bpc, j);
        yh[j] = y >> 16;
        yl[j] = y & 0xffff;
    }
}

/* The u32 SAD of one split row whose two mirrored columns each side are in place. */
static uint32_t vm_row(const int32_t *yh, const int32_t *yl, int w)
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

uint64_t V_NAME(sq_motion_sad)(const uint8_t *prev, ptrdiff_t prev_stride, const uint8_t *cur,
                               ptrdiff_t cur_stride, int acc, int w, int h, int bpc, int y0, int y1,
                               int32_t *ws)
{
    if (w < 3 || h < 3 || bpc < 8 || bpc > 16 || (acc != 0 && acc != SQ_ACC_16))
        return sq_vm_rows_sad2(prev, prev_stride, acc, cur, cur_stride, acc, w, h, bpc, y0, y1, ws);
    int32_t *yh = ws + 2, *yl = ws + w + 6;
    uint64_t sad = 0;
    for (int i = y0; i < y1; i++) {
        const uint8_t *p[5], *c[5];
        for (int k = 0; k < 5; k++) {
            const ptrdiff_t r = sq_mirror(i - 2 + k, h);
            p[k] = prev + r * prev_stride;
            c[k] = cur + r * cur_stride;
        }
        vm_vert(p, c, acc, w, bpc, yh, yl);
        /* the horizontal mirror, so that every output reads five neighbours in place */
        for (int e = 0; e < 2; e++) {
            const int a = -1 - e, b = w + e;
            yh[a] = yh[sq_mirror(a, w)];
            yl[a] = yl[sq_mirror(a, w)];
            yh[b] = yh[sq_mirror(b, w)];
            yl[b] = yl[sq_mirror(b, w)];
        }
        sad += vm_row(yh, yl, w);
    }
    return sad;
}
