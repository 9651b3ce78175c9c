/* The HIP runtime plumbing behind sq_backend_hip, exposed for the tests. */
#ifndef SQ_GPU_HIP_HIP_H
#define SQ_GPU_HIP_HIP_H

#include "gpu/gpu.h"

extern const SqGpuFns sq_gpu_hip_fns;

#endif
