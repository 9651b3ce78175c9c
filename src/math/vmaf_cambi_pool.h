/*
 * libvmaf's CAMBI, part 3: the spatial pooling of a scale (spec A.6.4: the
 * top K c-values through libvmaf's exact quickselect, summed in f64 in the
 * order the selection leaves them), the frame score (A.7: the scale weights
 * 16, 8, 4, 2, 1, divided by ws^2, clipped to cambi_max_val) and the whole
 * frame, sq_vc_frame.
 *
 * The pooled sum without the selection (sq_vc_topk_exact): c-values are
 * non-negative f32, so each is an integer multiple of u = 2^Emin, Emin the
 * lowest exponent of a nonzero one (its ulp). When the exact sum of all of
 * them is below 2^53 u, every partial sum of any subset in any order is a
 * multiple of u below 2^53 u, exactly representable in f64: each f64
 * addition is exact and the sum does not depend on the order. Only the top
 * K are summed, so Emin and the bound are theirs. Their sum is found with
 * two 16-bit radix passes over the f32 bits (order-preserving for
 * non-negative floats), all in integers. Above the bound, libvmaf's
 * selection runs and its order decides the bits.
 */
#ifndef SQ_MATH_VMAF_CAMBI_POOL_H
#define SQ_MATH_VMAF_CAMBI_POOL_H

#include "math/vmaf_cambi_scale.h"

/* Reorders a[0..n) so that a[0..k) holds the k largest values (libvmaf's selection). */
SQ_FN void sq_vc_select(SQ_GLOBAL float *a, int n, int k)
{
    int left = 0, right = n - 1;
    while (left < right) {
        const float pivot = a[k];
        int i = left, j = right;
        do {
            while (a[i] > pivot)
                i++;
            while (a[j] < pivot)
                j--;
            if (i <= j) {
                const float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < k)
            left = i;
        if (k < i)
            right = j;
    }
}

/* score[s]: the mean of the top k of the n c-values (selection first unless k == n). */
SQ_FN sq_f64 sq_vc_pool(SQ_GLOBAL float *c, int n, int k)
{
    if (k < n)
        sq_vc_select(c, n, k);
    sq_f64 sum = SQ_D_ZERO;
    for (int i = 0; i < k; i++)
        sum = sq_d_add(sum, sq_d_from_float(c[i]));
    return sq_d_div(sum, sq_d_from_int(k));
}

/* A non-negative f32 (bits b) in units of 2^emin: m * 2^(e - emin), the caller bounding e - emin. */
SQ_FN int64_t sq_vc_units(uint32_t b, int emin)
{
    const int be = (int)(b >> 23);
    const int64_t m = (int64_t)(b & 0x7fffffu) | (be ? (int64_t)0x800000 : 0);
    return m << ((be ? be : 1) - 150 - emin);
}

/* Adds cnt values of bits b (in units of 2^emin) to *sum; 0 once the sum would reach 2^53. */
SQ_FN int sq_vc_add_units(int64_t *sum, uint32_t b, int64_t cnt, int emin)
{
    const int64_t lim = (int64_t)1 << 53;
    if (!b || !cnt)
        return 1;
    const int be = (int)(b >> 23), sh = (be ? be : 1) - 150 - emin;
    if (sh < 0 || sh > 29)
        return 0;
    const int64_t u = sq_vc_units(b, emin);
    /* u and *sum are below 2^53: one value cannot overflow */
    if (cnt == 1) {
        *sum += u;
        return *sum < lim;
    }
    if (u > (lim - 1 - *sum) / cnt)
        return 0;
    *sum += u * cnt;
    return 1;
}

/* Pass 1's reading of a value of bits b: its high digit, -1 for a zero (counted apart), -2 not finite. */
SQ_FN int sq_vc_digit_hi(uint32_t b)
{
    return !b ? -1 : b >= 0x7f800000u ? -2 : (int)(b >> 16);
}

/*
 * Pass 1 over c[i0..i1): each nonzero value's high 16 bits counted in cnt,
 * the zeros in *zeros. 0 at a value that is not finite (then the counts do
 * not matter: the selection decides).
 */
SQ_FN int sq_vc_count_hi(const SQ_GLOBAL float *c, int i0, int i1, SQ_GLOBAL uint32_t *cnt,
                         uint32_t *zeros)
{
    /* zeros (most c-values) in a register: one counter in memory would chain its increments */
    uint32_t z = 0;
    for (int i = i0; i < i1; i++) {
        const int d = sq_vc_digit_hi(sq_f32_bits(c[i]));
        if (d == -1) {
            z++;
            continue;
        }
        if (d == -2)
            return 0;
        cnt[d]++;
    }
    *zeros += z;
    return 1;
}

/*
 * Pass 2's step for a value of bits b: above digit hi, added to *sum (0 once
 * the sum cannot be exact, sq_vc_add_units); *lo: its low digit to count
 * (a nonzero value of digit hi), else -1.
 */
SQ_FN int sq_vc_sum_one(uint32_t b, int hi, int emin, int64_t *sum, int *lo)
{
    *lo = -1;
    if ((int)(b >> 16) > hi)
        return sq_vc_add_units(sum, b, 1, emin);
    if ((int)(b >> 16) == hi && b)
        *lo = (int)(b & 0xffffu);
    return 1;
}

/*
 * A part of pass 2's sum (the values of any split, each part's sum exact)
 * added: 0 once the total reaches 2^53, where one pass over all would fail.
 */
SQ_FN int sq_vc_add_part(int64_t *sum, int64_t part)
{
    *sum += part;
    return *sum < ((int64_t)1 << 53);
}

/*
 * Pass 2 over c[i0..i1): the values of high digit above hi summed into
 * *sum (units of 2^emin), the low 16 bits of the nonzero ones of digit hi
 * counted. 0 once the sum cannot be exact (sq_vc_add_units): the sum only
 * grows, so whether it fails does not depend on the order.
 */
SQ_FN int sq_vc_sum_hi(const SQ_GLOBAL float *c, int i0, int i1, int hi, int emin, int64_t *sum,
                       SQ_GLOBAL uint32_t *cnt)
{
    for (int i = i0; i < i1; i++) {
        int lo;
        if (!sq_vc_sum_one(sq_f32_bits(c[i]), hi, emin, sum, &lo))
            return 0;
        if (lo >= 0)
            cnt[lo]++;
    }
    return 1;
}

/* cnt[d - 7 .. d] all 0 (d >= 7): the scans below step over empty digits 8 at a time. */
SQ_FN int sq_vc_empty8(const SQ_GLOBAL uint32_t *cnt, int d)
{
    return d >= 7 && !(cnt[d] | cnt[d - 1] | cnt[d - 2] | cnt[d - 3] | cnt[d - 4] | cnt[d - 5] |
                       cnt[d - 6] | cnt[d - 7]);
}

/*
 * The counters in runs of SQ_VC_RUN digits: a run's sum says at once
 * whether a scan stops in it, so a scan steps over whole runs and reads
 * digits only in the run it stops in (the GPU sums the runs in parallel;
 * one item then scans; math/vmaf_cambi.h: SQ_VC_RUN). Counts of at most
 * n pixels: u32 sums.
 */
SQ_FN uint32_t sq_vc_run_sum(const SQ_GLOBAL uint32_t *cnt, int r)
{
    uint32_t s = 0;
    for (int d = r * SQ_VC_RUN; d < (r + 1) * SQ_VC_RUN; d++)
        s += cnt[d];
    return s;
}

SQ_FN void sq_vc_run_sums(const SQ_GLOBAL uint32_t *cnt, int nruns, SQ_GLOBAL uint32_t *runs)
{
    for (int r = 0; r < nruns; r++)
        runs[r] = sq_vc_run_sum(cnt, r);
}

/*
 * v[0..7] = a[d .. d + 7]: a scan over the runs reads eight before any
 * decides (a GPU item waits on memory once for the eight, not once a run).
 */
SQ_FN void sq_vc_load8(const SQ_GLOBAL uint32_t *a, int d, uint32_t *v)
{
    for (int q = 0; q < 8; q++)
        v[q] = a[d + q];
}

/* The zeros counted in digit 0, and in its run. */
SQ_FN void sq_vc_add_zeros(SQ_GLOBAL uint32_t *cnt, SQ_GLOBAL uint32_t *runs, uint32_t zeros)
{
    cnt[0] += zeros;
    runs[0] += zeros;
}

/*
 * After pass 1 (cnt: the high digits, zeros counted in cnt[0]; runs: their
 * run sums): the digit hi of the k-th largest, *above the values of higher
 * digits, and the exponent emin of the smallest nonzero value summed
 * (returned). Scanning down, the stop is the first digit where above
 * reaches k with its count; a run whose whole count leaves above below k
 * holds no stop, and the scan adds its sum as it would its digits'.
 */
SQ_FN int sq_vc_topk_digit(const SQ_GLOBAL uint32_t *cnt, const SQ_GLOBAL uint32_t *runs, int k,
                           int *hi_out, int *above_out)
{
    int above = 0, r = SQ_VC_RUNS1 - 1;
    /* the counts add up to n >= k: the stop is at digit 0 at the latest */
    while (r > 0) {
        if (sq_vc_empty8(runs, r)) {
            r -= 8;
            continue;
        }
        if (above + (int)runs[r] >= k)
            break;
        above += (int)runs[r--];
    }
    r = r > 0 ? r : 0;
    int hi = r * SQ_VC_RUN + SQ_VC_RUN - 1;
    while (hi > 0 && above + (int)cnt[hi] < k)
        above += (int)cnt[hi--];
    /* the smallest nonzero digit summed: hi's, or with hi = 0 the lowest nonzero one */
    int low = hi;
    for (int q0 = 0; low == 0 && q0 < SQ_VC_RUNS1; q0 += 8) {
        uint32_t rv[8];
        sq_vc_load8(runs, q0, rv);
        for (int q = q0; low == 0 && q < q0 + 8; q++)
            for (int d = q ? q * SQ_VC_RUN : 1; low == 0 && rv[q - q0] && d < (q + 1) * SQ_VC_RUN;
                 d++)
                low = cnt[d] ? d : 0;
    }
    *hi_out = hi;
    *above_out = above;
    /* all in digit 0: zeros and subnormals, multiples of 2^-149 */
    return (low >> 7 ? low >> 7 : 1) - 150;
}

/*
 * After pass 2 (cnt: the low digits of digit hi; runs: their run sums): the
 * k - above largest of digit hi added; *ok, and the sum as an f64. Empty
 * digits, and so empty runs, take nothing (sq_vc_add_units with a count of 0).
 */
SQ_FN sq_f64 sq_vc_topk_finish(const SQ_GLOBAL uint32_t *cnt, const SQ_GLOBAL uint32_t *runs,
                               int hi, int need, int emin, int64_t sum, int *ok)
{
    *ok = 0;
    for (int r0 = SQ_VC_RUNS2 - 8; need > 0 && r0 >= 0; r0 -= 8) {
        uint32_t rv[8];
        sq_vc_load8(runs, r0, rv);
        for (int r = r0 + 7; need > 0 && r >= r0; r--)
            for (int lo = r * SQ_VC_RUN + SQ_VC_RUN - 1;
                 rv[r - r0] && need > 0 && lo >= r * SQ_VC_RUN; lo--) {
                const int take = (int)cnt[lo] < need ? (int)cnt[lo] : need;
                const uint32_t b = (uint32_t)hi << 16 | (uint32_t)lo;
                if (!sq_vc_add_units(&sum, b, take, emin))
                    return SQ_D_ZERO;
                need -= take;
            }
    }
    /* fewer values of digit hi than its count above said: cannot be, but never a number */
    if (need > 0)
        return SQ_D_ZERO;
    *ok = 1;
    /* sum * 2^emin: exact (sum < 2^53, emin >= -149) */
    return sq_d_mul(sq_d_from_int(sum), sq_d_from_bits((uint64_t)(1023 + emin) << 52));
}

/*
 * The sum of the k largest of c[0..n) as libvmaf's f64 sum, when it cannot
 * depend on the order (above); *ok = 0 otherwise. cnt: SQ_VC_CNT counters.
 * Pass 1 counts the high 16 bits (sign, exponent, 7 mantissa bits): the
 * digit hi of the k-th largest, and so the exponent of the smallest nonzero
 * value summed, emin. Pass 2 sums the values of higher digits and counts
 * the low 16 bits of those of digit hi, each of which is one value.
 */
SQ_FN sq_f64 sq_vc_topk_exact(const SQ_GLOBAL float *c, int n, int k, SQ_GLOBAL uint32_t *cnt,
                              int *ok)
{
    *ok = 0;
    SQ_GLOBAL uint32_t *runs = cnt + 65536;
    /* c-values are finite and not negative: high digits below 0x8000 */
    for (int d = 0; d < 32768; d++)
        cnt[d] = 0;
    uint32_t zeros = 0;
    if (!sq_vc_count_hi(c, 0, n, cnt, &zeros))
        return SQ_D_ZERO;
    sq_vc_run_sums(cnt, SQ_VC_RUNS1, runs);
    sq_vc_add_zeros(cnt, runs, zeros);
    int hi, above;
    const int emin = sq_vc_topk_digit(cnt, runs, k, &hi, &above);
    for (int d = 0; d < 65536; d++)
        cnt[d] = 0;
    int64_t sum = 0;
    if (!sq_vc_sum_hi(c, 0, n, hi, emin, &sum, cnt))
        return SQ_D_ZERO;
    sq_vc_run_sums(cnt, SQ_VC_RUNS2, runs);
    if (!hi)
        sq_vc_add_zeros(cnt, runs, zeros);
    return sq_vc_topk_finish(cnt, runs, hi, k - above, emin, sum, ok);
}

/*
 * score[s] after the two passes (ok: both found the order-free sum usable;
 * cnt: pass 2's low digits, zeros: pass 1's): the top K's sum finished,
 * or where it is not order-free libvmaf's selection on c.
 */
SQ_FN sq_f64 sq_vc_pool_end(SQ_GLOBAL float *c, int n, int k, SQ_GLOBAL uint32_t *cnt,
                            SQ_GLOBAL uint32_t *runs, int ok, int hi, int above, int emin,
                            int64_t sum, uint32_t zeros)
{
    if (ok) {
        if (!hi)
            sq_vc_add_zeros(cnt, runs, zeros);
        const sq_f64 s = sq_vc_topk_finish(cnt, runs, hi, k - above, emin, sum, &ok);
        if (ok)
            return sq_d_div(s, sq_d_from_int(k));
    }
    return sq_vc_pool(c, n, k);
}

/* score[s] of an n-pixel scale: the order-free sum if it applies, else libvmaf's selection. */
SQ_FN sq_f64 sq_vc_pool_fast(SQ_GLOBAL float *c, int n, int k, SQ_GLOBAL uint32_t *cnt)
{
    int ok;
    const sq_f64 sum = sq_vc_topk_exact(c, n, k, cnt, &ok);
    return ok ? sq_d_div(sum, sq_d_from_int(k)) : sq_vc_pool(c, n, k);
}

/* The pooled count K of scale s (n pixels): the host's, clamped to [1, n] again. */
SQ_FN int sq_vc_scale_k(const SQ_GLOBAL SqVcParams *p, int s, int n)
{
    const int k = p->K[s];
    return k < 1 ? 1 : k > n ? n : k;
}

/* The published score from the five scale scores. */
SQ_FN sq_f64 sq_vc_score(const sq_f64 *score, const SQ_GLOBAL SqVcParams *p)
{
    sq_f64 acc = SQ_D_ZERO;
    for (int s = 0; s < SQ_VC_SCALES; s++)
        acc = sq_d_add(acc, sq_d_mul(score[s], sq_d_from_int(16 >> s)));
    const sq_f64 raw = sq_d_div(acc, sq_d_from_int((int64_t)p->ws * p->ws));
    return sq_d_lt(p->max_val, raw) ? p->max_val : raw;
}

/* Size of scale s (decimation at s > 0, and at s = 0 with hrs). */
SQ_FN void sq_vc_scale_dims(const SQ_GLOBAL SqVcParams *p, int s, int *cw, int *ch)
{
    int w = p->w, h = p->h;
    for (int k = 0; k <= s; k++)
        if (k > 0 || p->hrs) {
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
        }
    *cw = w;
    *ch = h;
}

/* The frame's work before the scales: preprocessing, spatial mask, first[]. */
SQ_FN void sq_vc_frame_begin(const SQ_GLOBAL uint8_t *src, int64_t stride, int acc,
                             const SQ_GLOBAL SqVcParams *p, const SqVcBufs *bf)
{
    sq_vc_preprocess(src, stride, acc, p, bf);
    sq_vc_mask(p, bf);
    sq_vc_first_table(p, bf->first);
}

/*
 * Scale s's image and mask from the previous scale's (*pw x *ph, the input
 * size before scale 0), mode filtered; *pw, *ph become the scale's size.
 */
SQ_FN void sq_vc_scale_image(const SQ_GLOBAL SqVcParams *p, const SqVcBufs *bf, int s, int *pw, int *ph)
{
    int cw, ch;
    sq_vc_scale_dims(p, s, &cw, &ch);
    if (cw != *pw || ch != *ph)
        sq_vc_decimate(bf->img, bf->mask, *pw, *ph);
    *pw = cw;
    *ph = ch;
    sq_vc_mode_filter(bf->img, cw, ch, bf->mode);
}

/*
 * CAMBI of one luma plane (acc: sq_sample's access code, p->bpc bits),
 * score[] the five scale scores (may be NULL). Returns the published value.
 */
SQ_FN sq_f64 sq_vc_frame(const SQ_GLOBAL uint8_t *src, int64_t stride, int acc,
                         const SQ_GLOBAL SqVcParams *p, const SqVcBufs *bf, sq_f64 *score)
{
    sq_f64 sc[SQ_VC_SCALES];
    sq_vc_frame_begin(src, stride, acc, p, bf);
    int w = p->w, h = p->h;
    for (int s = 0; s < SQ_VC_SCALES; s++) {
        sq_vc_scale_image(p, bf, s, &w, &h);
        sq_vc_cvalues(p, bf, w, h);
        sc[s] = sq_vc_pool_fast(bf->c, w * h, sq_vc_scale_k(p, s, w * h), bf->cnt);
        if (score)
            score[s] = sc[s];
    }
    return sq_vc_score(sc, p);
}

#endif
