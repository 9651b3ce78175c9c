/*
 * A GPU that is the host: the SqGpuFns vtable on plain memory, launching
 * the one kernel source (src/gpu/kernels.h) compiled as C with one
 * thread per block. Runs pipeline.c and every kernel on machines without a
 * GPU, so the GPU path is checked against the CPU backend in CI too.
 * "Device" pictures (SPEEDQA_MEM_CUDA) are plain host pointers here.
 */
#ifndef SQ_TESTS_NULL_GPU_H
#define SQ_TESTS_NULL_GPU_H

#include "gpu/gpu.h"

extern const SqGpuFns sq_null_gpu_fns;
/* The same with upload2d and host ranges (speedqa_cuda_host_register), as CUDA has them. */
extern const SqGpuFns sq_null_dma_gpu_fns;

#endif
