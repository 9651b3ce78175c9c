/*
 * Backends this build does not contain: the symbols exist either way, so
 * the library's ABI and the backend table never depend on build options.
 */
#include <errno.h>
#include <stdio.h>

#include "config.h"
#include "core/backend.h"

#if !SQ_HAVE_CUDA || !SQ_HAVE_HIP || !SQ_HAVE_OPENCL
static int stub_open(void **priv, const SqBackendParams *p, char *err, size_t errlen,
                     const char *name, const char *how)
{
    (void)p;
    *priv = NULL;
    snprintf(err, errlen, "this speedqa was built without %s support (%s)", name, how);
    return -ENOSYS;
}
#endif

#define STUB(var, label, how)                                                              \
    static int var##_open(void **priv, const SqBackendParams *p, char *err, size_t errlen) \
    {                                                                                      \
        return stub_open(priv, p, err, errlen, label, how);                                \
    }                                                                                      \
    const SqBackend var = { .name = label, .open = var##_open };

#if !SQ_HAVE_CUDA
STUB(sq_backend_cuda, "cuda", "configure with -Dcuda=enabled and nvcc installed")
#endif
#if !SQ_HAVE_HIP
STUB(sq_backend_hip, "hip", "configure with -Dhip=enabled and hipcc installed")
#endif
#if !SQ_HAVE_OPENCL
STUB(sq_backend_opencl, "opencl", "configure with -Dopencl=enabled and the OpenCL headers installed")
#endif
