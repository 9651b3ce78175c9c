/*
 * The CPU's CAMBI scratch: math/vmaf_cambi.h's SqVcBufs for a W x H luma
 * plane with nd contrast differences, allocated once per worker at open.
 */
#ifndef SQ_CPU_CAMBI_H
#define SQ_CPU_CAMBI_H

#include "core/mem.h"
#include "math/vmaf_cambi.h"

/* 0, or -1 (out of memory: what was allocated is freed by sq_cpu_vc_free). recip stays NULL
 * (each job's plan has its own). W x H: the largest input; W0 x H0: the largest scale 0
 * (sq_vc_scale_dims: half the input with high_res_speedup), the size of c and hist. */
int sq_cpu_vc_alloc(SqVcBufs *b, int W, int H, int W0, int H0, int nd, const SqAlloc *a,
                    SqZeroLater *zl);
/* Frees b's buffers (NULL ones too) and zeroes it. */
void sq_cpu_vc_free(SqVcBufs *b, const SqAlloc *a);

#endif
