/* libcuda.so.1 opened at run time: no link-time CUDA dependency. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu/cuda/cuda_api.h"

int sq_cuda_load(SqCudaApi *api, const char *libname, char *err, size_t errlen)
{
    memset(api, 0, sizeof(*api));
    if (!libname)
        libname = "libcuda.so.1";
    api->lib = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
    if (!api->lib) {
        snprintf(err, errlen, "no CUDA driver: cannot load %s (%s)", libname, dlerror());
        return -ENODEV;
    }
#define SQ_CUDA_RESOLVE(field, sym, ret, args)                                         \
    *(void **)&api->field = dlsym(api->lib, sym);                                      \
    if (!api->field && !strcmp(sym, "cuEventElapsedTime_v2")) /* drivers before 12.8 */ \
        *(void **)&api->field = dlsym(api->lib, "cuEventElapsedTime");                 \
    if (!api->field) {                                                                 \
        snprintf(err, errlen, "CUDA driver %s lacks %s", libname, sym);                \
        sq_cuda_unload(api);                                                           \
        return -ENODEV;                                                                \
    }
    SQ_CUDA_FUNCS(SQ_CUDA_RESOLVE)
#undef SQ_CUDA_RESOLVE
    return 0;
}

void sq_cuda_unload(SqCudaApi *api)
{
    if (api->lib)
        dlclose(api->lib);
    memset(api, 0, sizeof(*api));
}
