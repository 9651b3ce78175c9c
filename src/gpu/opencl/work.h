/*
 * Per-side work area of the OpenCL eigsolve kernel. The math core's
 * functions take SQ_GLOBAL pointers and OpenCL C 1.2 has no generic
 * address space, so the matrices CUDA keeps in shared memory live in a
 * global buffer here: eigen (a, d, e, v, x) then solve (a, z, p, h, t1,
 * t2, u). Shared by the host (sizing) and kernels.cl.
 */
#ifndef SQ_GPU_OPENCL_WORK_H
#define SQ_GPU_OPENCL_WORK_H

#define SQ_CL_WORK_EIGEN 0
#define SQ_CL_WORK_SOLVE (SQ_GPU_NMAX * SQ_GPU_NMAX + 4 * SQ_GPU_NMAX)
#define SQ_CL_WORK_FLOATS 4608 /* >= SQ_CL_WORK_SOLVE + 6 * NMAX^2 + NMAX, 256-aligned */

#endif
