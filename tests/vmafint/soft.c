/* The motion and ADM math with soft doubles: any double left in it fails to compile here. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SQ_SOFT_F64 1
#define double soft_vmafint_has_no_double
#include "math/vmaf_adm_pool.h"
#include "math/vmaf_motion.h"
#include "math/vmaf_cambi_pool.h"
#undef double

#include "soft.h"

static SqVmOpts vm_opts(const uint64_t *opt, int ffw, int mma)
{
    SqVmOpts o = sq_vm_opts_default();
    o.blend_factor = sq_d_from_bits(opt[0]);
    o.blend_offset = sq_d_from_bits(opt[1]);
    o.fps_weight = sq_d_from_bits(opt[2]);
    o.max_val = sq_d_from_bits(opt[3]);
    o.five_frame_window = ffw;
    o.moving_average = mma;
    return o;
}

uint64_t soft_vm_sad_score(uint64_t sad, int w, int h, const uint64_t *opt, int ffw, int mma)
{
    const SqVmOpts o = vm_opts(opt, ffw, mma);
    return sq_d_bits(sq_vm_sad_score(sad, w, h, &o));
}

void soft_vm_flush(const uint64_t *s, int n, const uint64_t *opt, int ffw, int mma, uint64_t *m2,
                   uint64_t *m3)
{
    const SqVmOpts o = vm_opts(opt, ffw, mma);
    sq_f64 *b = malloc(3 * (size_t)n * sizeof *b);
    for (int i = 0; i < n; i++)
        b[i] = sq_d_from_bits(s[i]);
    sq_vm_flush(b, n, &o, b + n, b + 2 * n);
    for (int i = 0; i < n; i++) {
        m2[i] = sq_d_bits(b[n + i]);
        m3[i] = sq_d_bits(b[2 * n + i]);
    }
    free(b);
}

/* bufs: ob[4], tb[4], oa, ta, r[3], e[3], A[3], F[3], lo, hi, as the hardware build's. */
void soft_va_frame(const uint8_t *ref, const uint8_t *dis, int64_t stride, int acc, int bpc, int w,
                   int h, const uint32_t *ir, const uint64_t *rf3, uint64_t egl, int skip0, int skip_aim,
                   int32_t *const *bufs, float *raw)
{
    SqVaParams p;
    memset(&p, 0, sizeof p);
    for (int s = 0; s < 4; s++)
        for (int th = 0; th < 3; th++) {
            p.s[s].ir[th] = ir[3 * s + th];
            p.s[s].rf3[th] = sq_d_from_bits(rf3[3 * s + th]);
        }
    p.egl = sq_d_from_bits(egl);
    p.skip_scale0 = skip0;
    p.skip_aim = skip_aim;
    SqVaBufs b;
    for (int i = 0; i < 4; i++) {
        b.ob[i] = bufs[i];
        b.tb[i] = bufs[4 + i];
    }
    b.oa = bufs[8];
    b.ta = bufs[9];
    for (int i = 0; i < 3; i++) {
        b.r[i] = bufs[10 + i];
        b.e[i] = bufs[13 + i];
        b.A[i] = bufs[16 + i];
        b.F[i] = bufs[19 + i];
    }
    b.lo = bufs[22];
    b.hi = bufs[23];
    SqVaRaw r[4];
    sq_va_frame(ref, dis, stride, acc, bpc, w, h, &p, &b, r);
    for (int s = 0; s < 4; s++)
        for (int th = 0; th < 3; th++) {
            raw[9 * s + th] = r[s].num[th];
            raw[9 * s + 3 + th] = r[s].aim[th];
            raw[9 * s + 6 + th] = r[s].den[th];
        }
}

void soft_va_scores(const float *num, const float *den, const float *aim, int w, int h,
                    uint64_t dlmw, uint64_t min_val, uint64_t *out)
{
    const SqVaScores o = sq_va_scores(num, den, aim, w, h, sq_d_from_bits(dlmw),
                                      sq_d_from_bits(min_val));
    out[0] = sq_d_bits(o.adm2);
    out[1] = sq_d_bits(o.aim);
    out[2] = sq_d_bits(o.adm3);
    for (int s = 0; s < 4; s++)
        out[3 + s] = sq_d_bits(o.scale[s]);
}

float soft_va_noise(int area, uint64_t nw)
{
    return sq_va_noise(area, sq_d_from_bits(nw));
}

uint64_t soft_vc_score(const uint64_t *score, int ws, uint64_t max_val)
{
    SqVcParams p;
    memset(&p, 0, sizeof p);
    p.ws = ws;
    p.max_val = sq_d_from_bits(max_val);
    sq_f64 s[SQ_VC_SCALES];
    for (int k = 0; k < SQ_VC_SCALES; k++)
        s[k] = sq_d_from_bits(score[k]);
    return sq_d_bits(sq_vc_score(s, &p));
}

uint64_t soft_vc_pool(float *c, int n, int k, uint32_t *cnt)
{
    return sq_d_bits(cnt ? sq_vc_pool_fast(c, n, k, cnt) : sq_vc_pool(c, n, k));
}
