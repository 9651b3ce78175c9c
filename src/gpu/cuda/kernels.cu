/*
 * CUDA build of the kernels. Compiled with --fmad=false: every float
 * product is rounded before it is added, as in the C reference.
 */
#include "gpu/cuda/portable.h"
#include "gpu/cuda/kernels.h"
