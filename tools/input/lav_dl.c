/*
 * The libav loader: dlopen of the sonames the headers name, dlsym of the
 * functions lav.c calls, once per process. The libraries stay loaded to
 * the end (libav keeps global state, and unloading buys nothing here).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "lav_dl.h"

enum { SQ_LAV_UTIL, SQ_LAV_CODEC, SQ_LAV_FORMAT, SQ_LAV_NLIBS };

#define SQ_STR2(x) #x
#define SQ_STR(x) SQ_STR2(x)

#ifdef __APPLE__
#define SQ_SONAME(name, major) "lib" name "." SQ_STR(major) ".dylib"
#else
#define SQ_SONAME(name, major) "lib" name ".so." SQ_STR(major)
#endif

/* Dependency order: avcodec needs avutil, avformat needs both. */
static const char *const sonames[SQ_LAV_NLIBS] = {
    [SQ_LAV_UTIL] = SQ_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR),
    [SQ_LAV_CODEC] = SQ_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR),
    [SQ_LAV_FORMAT] = SQ_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR),
};

/* Debian/Ubuntu name the runtime packages after the soname's major. */
#define SQ_LAV_PACKAGES                                                   \
    "libavformat" SQ_STR(LIBAVFORMAT_VERSION_MAJOR) " libavcodec" SQ_STR( \
        LIBAVCODEC_VERSION_MAJOR) " libavutil" SQ_STR(LIBAVUTIL_VERSION_MAJOR)

SqLavFns sq_lav;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_result = -ENOSYS;
static char load_why[512];

static int fail(const char *what)
{
    snprintf(load_why, sizeof load_why, "libav not available: %s; install " SQ_LAV_PACKAGES,
             what ? what : "unknown dynamic-linker error");
    return -ENOSYS;
}

static int load(void)
{
    void *h[SQ_LAV_NLIBS];
    for (int i = 0; i < SQ_LAV_NLIBS; i++) {
        h[i] = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (!h[i])
            return fail(dlerror());
    }
    SqLavFns t;
    void *sym;
    (void)dlerror();
    /* POSIX guarantees a data pointer from dlsym converts to a function
     * pointer; memcpy keeps -Wpedantic quiet about the cast. */
#define SQ_LAV_RESOLVE(lib, fn)                    \
    sym = dlsym(h[lib], #fn);                      \
    if (!sym)                                      \
        return fail(dlerror());                    \
    memcpy(&t.fn, &sym, sizeof t.fn);
    SQ_LAV_FUNCS(SQ_LAV_RESOLVE)
#undef SQ_LAV_RESOLVE
    sq_lav = t;
    return 0;
}

static void load_once_fn(void)
{
    load_result = load();
}

int sq_lav_load(const char **why)
{
    pthread_once(&load_once, load_once_fn);
    if (why)
        *why = load_result == 0 ? NULL : load_why;
    return load_result;
}
