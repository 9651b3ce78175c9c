/* The HIP build of the plumbing it shares with CUDA (gpu/cudahip/rt.h). */
#define SQ_GPU_RT_HIP 1
#include "gpu/cudahip/loader.c"
#include "gpu/cudahip/device.c"
#include "gpu/cudahip/ops.c"
