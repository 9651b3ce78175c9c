/* The OpenCL SqGpuFns and what the backend entry points need beyond it. */
#ifndef SQ_GPU_OPENCL_FNS_H
#define SQ_GPU_OPENCL_FNS_H

#include "gpu/gpu.h"

/* Never -cl-mad-enable or -cl-fast-relaxed-math: the float stages must round like C. */
#define SQ_CL_BUILD_OPTIONS "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt"
/* Added for a device on soft doubles (sq_cl_soft_f64); part of the cache key like all options. */
#define SQ_CL_SOFT_F64_OPTION " -DSQ_SOFT_F64=1"

extern const SqGpuFns sq_cl_fns;

/* fns.open with a device name substring (NULL: by index, -1: first usable);
 * force_soft: soft doubles even on a device with cl_khr_fp64. */
int sq_cl_open_dev(SqGpuDev **dev, int device, const char *name, int nevents, int force_soft,
                   const SqAlloc *a, char *err, size_t errlen);

#endif
