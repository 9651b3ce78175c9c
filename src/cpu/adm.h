/*
 * The CPU's ADM scratch: the band planes of math/vmaf_adm_pool.h's
 * SqVaBufs for a W x H luma plane, allocated once per worker at open.
 */
#ifndef SQ_CPU_ADM_H
#define SQ_CPU_ADM_H

#include "core/mem.h"
#include "math/vmaf_adm_pool.h"

/*
 * 0, or -1 (out of memory: what was allocated is freed by sq_cpu_va_free).
 * whole: every band plane whole, as math's sq_va_frame reads them (tests);
 * else the rows and rings that the CPU's runner uses.
 */
int sq_cpu_va_alloc(SqVaBufs *b, int W, int H, int whole, const SqAlloc *a, SqZeroLater *z);
/* Frees b's planes (NULL ones too) and zeroes it. */
void sq_cpu_va_free(SqVaBufs *b, const SqAlloc *a);

#endif
