/*
 * The OpenCL SqBackend: the generic GPU pipeline (gpu/pipeline.c) on the
 * OpenCL plumbing of fns.c (which also opens a device by name).
 */
#include "core/backend.h"
#include "gpu/opencl/cl.h"
#include "gpu/opencl/fns.h"

SQ_GPU_BACKEND(sq_backend_opencl, "opencl", sq_cl_fns, sq_cl_list_devices, 0)
