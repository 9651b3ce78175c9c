/*
 * HIP build of the one kernel source (gpu/kernels.h; hipcc keeps CUDA's
 * built-ins), compiled with -ffp-contract=off so no product is fused into
 * an add.
 */
#include "gpu/kernels.h"
