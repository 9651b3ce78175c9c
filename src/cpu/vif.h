/*
 * The CPU's VIF scratch: math/vmaf_vif.h's SqViBufs for a W x H luma plane
 * (the scale-0 copies, the pyramid and the padded rows), allocated once per
 * worker at open.
 */
#ifndef SQ_CPU_VIF_H
#define SQ_CPU_VIF_H

#include "core/mem.h"
#include "math/vmaf_vif.h"

/* 0, or -1 (out of memory: what was allocated is freed by sq_cpu_vi_free). */
int sq_cpu_vi_alloc(SqViBufs *b, int W, int H, const SqAlloc *a, SqZeroLater *zl);
/* Frees b's buffers (NULL ones too) and zeroes it. */
void sq_cpu_vi_free(SqViBufs *b, const SqAlloc *a);

#endif
