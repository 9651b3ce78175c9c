/*
 * CAMBI's pooling passes (math/vmaf_cambi_pool.h) over VS_N 32-bit lanes:
 * a part of simd/cambi_tmpl.h, included by it (after its vc_iota), kept
 * apart for its size.
 */
/*
 * Pooling: most c-values are 0 (no mask, no counted term); a vector of
 * zeros is skipped. Pass 1 counts every lane of another vector, zeros too,
 * lane k's zeros into a scratch counter of its own, cnt[SQ_VC_ZCNT + k]: a
 * branch per lane on whether it is 0 was mispredicted where zeros and
 * values mix, and all lanes' zeros into cnt[0] chained their increments
 * through one counter in memory. The scratch counters (past the digits a
 * finite value has, 0x7f7f at most, and inside SQ_VC_CNT) are saved, and
 * restored on return, so cnt ends as the scalar pass leaves it. A vector
 * with a value not finite (or negative: not a c-value) fails as the scalar
 * code does.
 */
#define SQ_VC_ZCNT 32768
int V_NAME(sq_vc_count_hi)(const float *c, int n, uint32_t *cnt, uint32_t *zeros)
{
    const vs fin = vs_set1(0x7f7fffff), zero = vs_set1(0), one = vs_set1(1);
    int32_t b[VS_N];
    uint32_t keep[VS_N], *zc = cnt + SQ_VC_ZCNT, z = 0;
    const vs lane = vs_add(vs_load(vc_iota), vs_set1(SQ_VC_ZCNT));
    for (int k = 0; k < VS_N; k++) {
        keep[k] = zc[k];
        zc[k] = 0;
    }
    int i = 0, ok = 1;
    for (; i + VS_N <= n; i += VS_N) {
        const vs v = vf_bits(vf_load(c + i));
        if (!vs_any(v)) {
            z += VS_N;
            continue;
        }
        if (vs_any(vs_or(vs_gt(v, fin), vs_gt(zero, v)))) {
            ok = 0;
            break;
        }
        /* the counter of each lane without a branch (v >= 0 here: v == 0 is 1 > v) */
        vs_store(b, vs_sel(vs_gt(one, v), lane, vs_srl(v, 16)));
        for (int k = 0; k < VS_N; k++)
            cnt[b[k]]++;
    }
    for (int k = 0; k < VS_N; k++) {
        z += zc[k];
        zc[k] = keep[k];
    }
    if (!ok || !sq_vc_count_hi(c, i, n, cnt, &z))
        return 0;
    *zeros += z;
    return 1;
}

/*
 * Pass 2's values above digit hi: their units (m << sh, below 2^53) in
 * 64-bit lanes, the lanes' sums taken into *sum every SQ_VC_SUM_BLOCK
 * vectors (each lane below 2^60 then, so neither they nor their total
 * wrap). Whether the exact sum stays below 2^53 does not depend on the
 * order (the values are not negative), so the total is tested once a
 * block. A vector with a value of digit hi, or one whose shift is out of
 * range (sq_vc_add_units fails), takes the scalar code.
 */
#define SQ_VC_SUM_BLOCK 64
V_AI int vc_sum_flush(vq *acc, int64_t *sum)
{
    const uint64_t s = vq_hsum(*acc);
    *acc = vq_set1(0);
    if (s >= (uint64_t)1 << 53)
        return 0;
    *sum += (int64_t)s;
    return *sum < (int64_t)1 << 53;
}

int V_NAME(sq_vc_sum_hi)(const float *c, int n, int hi, int emin, int64_t *sum, uint32_t *cnt)
{
    const vs below = vs_set1(hi - 1), digit = vs_set1(hi), zero = vs_set1(0), one = vs_set1(1);
    const vs man = vs_set1(0x7fffff), lead = vs_set1(0x800000), base = vs_set1(150 + emin);
    const vs next = vs_set1(hi + 1), top = vs_set1(29);
    const vq lo32 = vq_set1(0xffffffffll);
    vq acc = vq_set1(0);
    int i = 0, blk = 0;
    for (; i + VS_N <= n; i += VS_N) {
        const vs b = vf_bits(vf_load(c + i)), d = vs_srl(b, 16);
        /* a lane matters when nonzero with a high digit of at least hi */
        const vs ge = vs_and(b, vs_gt(d, below));
        if (!vs_any(ge))
            continue;
        const vs above = vs_gt(d, digit), be = vs_srl(b, 23);
        const vs sh = vs_sub(vs_max(be, one), base);
        const vs out = vs_and(above, vs_or(vs_gt(zero, sh), vs_gt(sh, top)));
        /* digit hi's nonzero values, or a shift out of range */
        if (vs_any(vs_or(vs_and(ge, vs_gt(next, d)), out))) {
            if (!sq_vc_sum_hi(c, i, i + VS_N, hi, emin, sum, cnt))
                return 0;
            continue;
        }
        const vs m = vs_and(vs_or(vs_and(b, man), vs_and(vs_gt(be, zero), lead)), above);
        const vs s = vs_and(sh, above);
        acc = vq_add(acc, vq_add(vq_sllv(vq_and(vq_even(m), lo32), vq_and(vq_even(s), lo32)),
                                 vq_sllv(vq_odd(m), vq_odd(s))));
        if (++blk == SQ_VC_SUM_BLOCK) {
            blk = 0;
            if (!vc_sum_flush(&acc, sum))
                return 0;
        }
    }
    if (!vc_sum_flush(&acc, sum))
        return 0;
    return sq_vc_sum_hi(c, i, n, hi, emin, sum, cnt);
}
