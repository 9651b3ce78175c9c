/* The CUDA build of the plumbing it shares with HIP (gpu/cudahip/rt.h). */
#define SQ_GPU_RT_CUDA 1
#include "gpu/cudahip/loader.c"
#include "gpu/cudahip/device.c"
#include "gpu/cudahip/ops.c"
