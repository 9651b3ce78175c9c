/*
 * HIP build of the CUDA kernels: the same source through the same
 * portability header (hipcc keeps CUDA's built-ins), compiled with
 * -ffp-contract=off so no product is fused into an add.
 */
#include "gpu/cuda/portable.h"
#include "gpu/cuda/kernels.h"
