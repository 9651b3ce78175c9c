/* The runtime library opened at run time: no link-time CUDA or ROCm dependency. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu/cudahip/rt.h"

int sq_rt_load(SqRtApi *api, const char *libname, char *err, size_t errlen)
{
    static const char *const names[] = { SQ_RT_LIBS };
    /*
     * RTLD_NODELETE: the runtimes initialise process-lifetime state when
     * loaded (ROCm's HSA runtime allocates some even with no AMD device);
     * unmapping them at every close would redo and leak that per context.
     */
    const int mode = RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE;
    memset(api, 0, sizeof(*api));
    if (libname)
        api->lib = dlopen(libname, mode);
    for (size_t i = 0; !libname && i < sizeof(names) / sizeof(names[0]) && !api->lib; i++)
        api->lib = dlopen(names[i], mode);
    if (!libname)
        libname = names[0];
    if (!api->lib) {
        snprintf(err, errlen, "no " SQ_RT_LIB_WHAT ": cannot load %s (%s)", libname, dlerror());
        return -ENODEV;
    }
#if defined(SQ_GPU_RT_CUDA)
#define SQ_RT_LACKS(sym) snprintf(err, errlen, SQ_RT_LIB_WHAT " %s lacks %s", libname, sym)
#else
#define SQ_RT_LACKS(sym) snprintf(err, errlen, SQ_RT_LIB_WHAT " lacks %s", sym)
#endif
#define SQ_RT_RESOLVE(field, sym, ret, args)                   \
    {                                                          \
        const char *alt_ = SQ_RT_FALLBACK(sym);                \
        *(void **)&api->field = dlsym(api->lib, sym);          \
        if (!api->field && alt_)                               \
            *(void **)&api->field = dlsym(api->lib, alt_);     \
        if (!api->field) {                                     \
            SQ_RT_LACKS(sym);                                  \
            sq_rt_unload(api);                                 \
            return -ENODEV;                                    \
        }                                                      \
    }
    SQ_RT_FUNCS(SQ_RT_RESOLVE)
#undef SQ_RT_RESOLVE
#undef SQ_RT_LACKS
    return 0;
}

void sq_rt_unload(SqRtApi *api)
{
    if (api->lib)
        dlclose(api->lib);
    memset(api, 0, sizeof(*api));
}
