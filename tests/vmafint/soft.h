/*
 * The motion and ADM math built with soft doubles (SQ_SOFT_F64, as the
 * OpenCL backend builds it for devices without fp64), behind an interface
 * of plain bits, so the tests can require the same bits as the hardware
 * build. Doubles travel as their uint64_t bits.
 */
#ifndef VMAFINT_SOFT_H
#define VMAFINT_SOFT_H

#include <stdint.h>

/* opt: blend_factor, blend_offset, fps_weight, max_val bits; flags: five_frame_window, moving_average */
uint64_t soft_vm_sad_score(uint64_t sad, int w, int h, const uint64_t *opt, int ffw, int mma);
void soft_vm_flush(const uint64_t *s, int n, const uint64_t *opt, int ffw, int mma, uint64_t *m2,
                   uint64_t *m3);

/* raw: 4 scales x (num[3], aim[3], den[3]) floats; ir[4][3]; rf3[4][3] bits */
void soft_va_frame(const uint8_t *ref, const uint8_t *dis, int64_t stride, int acc, int bpc, int w,
                   int h, const uint32_t *ir, const uint64_t *rf3, uint64_t egl, int skip0, int skip_aim,
                   int32_t *const *bufs, float *raw);
/* out: adm2, aim, adm3, scale0..3 bits */
void soft_va_scores(const float *num, const float *den, const float *aim, int w, int h,
                    uint64_t dlmw, uint64_t min_val, uint64_t *out);
float soft_va_noise(int area, uint64_t nw);

/* CAMBI: the frame score from the scale scores (bits); the pooling of c[0..n):
 * order-free with cnt (65536 counters), else the selection */
uint64_t soft_vc_score(const uint64_t *score, int ws, uint64_t max_val);
uint64_t soft_vc_pool(float *c, int n, int k, uint32_t *cnt);

#endif
