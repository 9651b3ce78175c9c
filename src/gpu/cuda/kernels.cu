/*
 * CUDA build of the one kernel source (gpu/kernels.h). Compiled with
 * --fmad=false: every float product is rounded before it is added, as in
 * the C reference.
 */
#include "gpu/kernels.h"
