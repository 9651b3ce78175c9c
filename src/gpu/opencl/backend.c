/*
 * The OpenCL SqBackend: the generic GPU pipeline (gpu/pipeline.c) on the
 * OpenCL plumbing of fns.c. Only device selection by name is resolved
 * here, since SqGpuFns.open takes an index.
 */
#include <errno.h>
#include <stdio.h>

#include "core/backend.h"
#include "gpu/opencl/cl.h"
#include "gpu/opencl/fns.h"

static int opencl_open(void **priv, const SqBackendParams *p, char *err, size_t errlen)
{
    SqBackendParams q = *p;
    *priv = NULL;
    if (p->device_name && p->device_name[0]) {
        SqCl cl;
        SqClDevInfo info;
        int ret = sq_cl_load(&cl, err, errlen);
        if (ret < 0)
            return ret;
        ret = sq_cl_select(&cl, -1, p->device_name, &info, &q.device, err, errlen);
        sq_cl_unload(&cl);
        if (ret < 0)
            return ret;
        q.device_name = NULL;
    }
    return sq_gpu_open(priv, &q, &sq_cl_fns, err, errlen);
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
