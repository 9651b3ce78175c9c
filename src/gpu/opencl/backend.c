/*
 * The OpenCL SqBackend: the generic GPU pipeline (gpu/pipeline.c) on the
 * OpenCL plumbing of fns.c (which also opens a device by name).
 */
#include "core/backend.h"
#include "gpu/opencl/cl.h"
#include "gpu/opencl/fns.h"

static int opencl_open(void **priv, const SqBackendParams *p, char *err, size_t errlen)
{
    return sq_gpu_open(priv, p, &sq_cl_fns, err, errlen);
}

const SqBackend sq_backend_opencl = {
    .name = "opencl",
    .open = opencl_open,
    .capacity = sq_gpu_capacity,
    .send = sq_gpu_send,
    .receive = sq_gpu_receive,
    .close = sq_gpu_close,
    .list_devices = sq_cl_list_devices,
};
