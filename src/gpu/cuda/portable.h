/*
 * What kernels.h expects from a GPU compiler: the same spelling works for
 * nvcc and hipcc (HIP keeps CUDA's built-ins). No warp size is assumed
 * anywhere: blocks synchronise with barriers only.
 */
#ifndef SQ_GPU_PORTABLE_H
#define SQ_GPU_PORTABLE_H

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif

#define SQ_GPU_DEVICE_ONLY 1
#define SQ_KERNEL_BEGIN(name, threads) \
    extern "C" __global__ void __launch_bounds__(threads) sq_k_##name(unsigned char *arena, SqKArgs ka)
#define SQ_TID ((int)threadIdx.x)
#define SQ_NTH ((int)blockDim.x)
#define SQ_BX ((int)blockIdx.x)
#define SQ_BY ((int)blockIdx.y)
#define SQ_SYNC() __syncthreads()
#define SQ_SHARED __shared__
#define SQ_DFN static __device__ inline

#endif
