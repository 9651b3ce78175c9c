/* libamdhip64 opened at run time: no link-time ROCm dependency. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu/hip/hip_api.h"

int sq_hip_load(SqHipApi *api, char *err, size_t errlen)
{
    static const char *const names[] = { "libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5" };
    memset(api, 0, sizeof(*api));
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !api->lib; i++)
        api->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!api->lib) {
        snprintf(err, errlen, "no HIP runtime: cannot load libamdhip64.so (%s)", dlerror());
        return -ENODEV;
    }
#define SQ_HIP_RESOLVE(field, sym, ret, args)                              \
    if (!(*(void **)&api->field = dlsym(api->lib, sym))) {                 \
        snprintf(err, errlen, "HIP runtime lacks %s", sym);                \
        sq_hip_unload(api);                                                \
        return -ENODEV;                                                    \
    }
    SQ_HIP_FUNCS(SQ_HIP_RESOLVE)
#undef SQ_HIP_RESOLVE
    return 0;
}

void sq_hip_unload(SqHipApi *api)
{
    if (api->lib)
        dlclose(api->lib);
    memset(api, 0, sizeof(*api));
}
