/*
 * OpenCL runtime plumbing: the loader (libOpenCL.so.1 through dlopen, so
 * the library runs where OpenCL is absent), device enumeration, program
 * build with a binary cache, and the SqGpuFns vtable of gpu/gpu.h.
 * Only the headers are needed at build time.
 */
#ifndef SQ_GPU_OPENCL_CL_H
#define SQ_GPU_OPENCL_CL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>

#include "core/mem.h"

/* The entry points we use, resolved once per loader. */
#define SQ_CL_FUNCS(X)                                                                      \
    X(cl_int, GetPlatformIDs, (cl_uint, cl_platform_id *, cl_uint *))                       \
    X(cl_int, GetPlatformInfo, (cl_platform_id, cl_platform_info, size_t, void *, size_t *)) \
    X(cl_int, GetDeviceIDs, (cl_platform_id, cl_device_type, cl_uint, cl_device_id *,       \
                             cl_uint *))                                                    \
    X(cl_int, GetDeviceInfo, (cl_device_id, cl_device_info, size_t, void *, size_t *))      \
    X(cl_context, CreateContext, (const cl_context_properties *, cl_uint,                   \
                                  const cl_device_id *,                                     \
                                  void(CL_CALLBACK *)(const char *, const void *, size_t,   \
                                                      void *),                              \
                                  void *, cl_int *))                                        \
    X(cl_int, ReleaseContext, (cl_context))                                                 \
    X(cl_command_queue, CreateCommandQueue, (cl_context, cl_device_id,                      \
                                             cl_command_queue_properties, cl_int *))        \
    X(cl_int, ReleaseCommandQueue, (cl_command_queue))                                      \
    X(cl_program, CreateProgramWithSource, (cl_context, cl_uint, const char **,             \
                                            const size_t *, cl_int *))                      \
    X(cl_program, CreateProgramWithBinary, (cl_context, cl_uint, const cl_device_id *,      \
                                            const size_t *, const unsigned char **,         \
                                            cl_int *, cl_int *))                            \
    X(cl_int, BuildProgram, (cl_program, cl_uint, const cl_device_id *, const char *,       \
                             void(CL_CALLBACK *)(cl_program, void *), void *))              \
    X(cl_int, GetProgramBuildInfo, (cl_program, cl_device_id, cl_program_build_info,        \
                                    size_t, void *, size_t *))                              \
    X(cl_int, GetProgramInfo, (cl_program, cl_program_info, size_t, void *, size_t *))      \
    X(cl_int, ReleaseProgram, (cl_program))                                                 \
    X(cl_kernel, CreateKernel, (cl_program, const char *, cl_int *))                        \
    X(cl_int, ReleaseKernel, (cl_kernel))                                                   \
    X(cl_int, SetKernelArg, (cl_kernel, cl_uint, size_t, const void *))                     \
    X(cl_int, GetKernelWorkGroupInfo, (cl_kernel, cl_device_id, cl_kernel_work_group_info,  \
                                       size_t, void *, size_t *))                           \
    X(cl_mem, CreateBuffer, (cl_context, cl_mem_flags, size_t, void *, cl_int *))           \
    X(cl_int, ReleaseMemObject, (cl_mem))                                                   \
    X(cl_int, EnqueueWriteBuffer, (cl_command_queue, cl_mem, cl_bool, size_t, size_t,       \
                                   const void *, cl_uint, const cl_event *, cl_event *))    \
    X(cl_int, EnqueueReadBuffer, (cl_command_queue, cl_mem, cl_bool, size_t, size_t,        \
                                  void *, cl_uint, const cl_event *, cl_event *))           \
    X(cl_int, EnqueueCopyBufferRect, (cl_command_queue, cl_mem, cl_mem, const size_t *,     \
                                      const size_t *, const size_t *, size_t, size_t,       \
                                      size_t, size_t, cl_uint, const cl_event *,            \
                                      cl_event *))                                          \
    X(cl_int, EnqueueWriteBufferRect, (cl_command_queue, cl_mem, cl_bool, const size_t *,   \
                                       const size_t *, const size_t *, size_t, size_t,      \
                                       size_t, size_t, const void *, cl_uint,               \
                                       const cl_event *, cl_event *))                       \
    X(void *, EnqueueMapBuffer, (cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t,   \
                                 size_t, cl_uint, const cl_event *, cl_event *, cl_int *))  \
    X(cl_int, EnqueueUnmapMemObject, (cl_command_queue, cl_mem, void *, cl_uint,            \
                                      const cl_event *, cl_event *))                        \
    X(cl_int, EnqueueNDRangeKernel, (cl_command_queue, cl_kernel, cl_uint, const size_t *,  \
                                     const size_t *, const size_t *, cl_uint,               \
                                     const cl_event *, cl_event *))                         \
    X(cl_int, EnqueueMarkerWithWaitList, (cl_command_queue, cl_uint, const cl_event *,      \
                                          cl_event *))                                      \
    X(cl_int, EnqueueBarrierWithWaitList, (cl_command_queue, cl_uint, const cl_event *,     \
                                           cl_event *))                                     \
    X(cl_int, Flush, (cl_command_queue))                                                    \
    X(cl_int, Finish, (cl_command_queue))                                                   \
    X(cl_int, WaitForEvents, (cl_uint, const cl_event *))                                   \
    X(cl_int, GetEventInfo, (cl_event, cl_event_info, size_t, void *, size_t *))            \
    X(cl_int, GetEventProfilingInfo, (cl_event, cl_profiling_info, size_t, void *,          \
                                      size_t *))                                            \
    X(cl_int, ReleaseEvent, (cl_event))

typedef struct SqCl {
    void *lib;
#define SQ_CL_PTR(ret, name, args) ret(CL_API_CALL *name) args;
    SQ_CL_FUNCS(SQ_CL_PTR)
#undef SQ_CL_PTR
} SqCl;

/*
 * Load libOpenCL and resolve every entry point. -ENODEV with a message when
 * the loader or a symbol is missing. sq_cl_unload is safe on a failed load.
 */
int sq_cl_load(SqCl *cl, char *err, size_t errlen);
void sq_cl_unload(SqCl *cl);

/* "CL_OUT_OF_RESOURCES" for -5, "CL error -9999" for unknown codes (buf >= 32). */
const char *sq_cl_strerror(cl_int e, char *buf, size_t len);

/* One usable device as enumerated: flat index over all platforms. */
typedef struct SqClDevInfo {
    cl_platform_id platform;
    cl_device_id device;
    char name[256], platform_name[256], driver[128], version[128];
    cl_device_type type;
    cl_ulong mem, max_alloc;
    cl_uint units;
    int fp64, cr_divsqrt, denorms;
} SqClDevInfo;

#define SQ_CL_MAX_DEVICES 32

/* Every device of every platform, in platform order. Returns the count (>= 0). */
int sq_cl_enumerate(const SqCl *cl, SqClDevInfo *out, int max);

/*
 * Pick a device: by name substring (case-insensitive) if name is set, else
 * by flat index, else (index < 0) the first GPU with what speedqa needs,
 * then the first other device with it. -ENODEV with a message naming what
 * is missing (no device, no such index/name, correctly rounded
 * divide/sqrt, denormals).
 */
int sq_cl_select(const SqCl *cl, int index, const char *name, SqClDevInfo *out, int *flat,
                 char *err, size_t errlen);

/*
 * Whether the program for d is built with soft doubles (math/f64.h
 * SQ_SOFT_F64): when d has no cl_khr_fp64, or when forced
 * (SpeedqaSettings.opencl.soft_f64: tests, benches).
 */
int sq_cl_soft_f64(const SqClDevInfo *d, int forced);

/* list_devices of the backend table (see speedqa_list_devices). */
int sq_cl_list_devices(char *buf, size_t len);

/*
 * Build (or load from the binary cache) src for dev with opts. log/loglen
 * receive the build log on failure. Never fails because of the cache.
 * *from_cache tells whether the binary came from the cache.
 */
int sq_cl_build(const SqCl *cl, cl_context ctx, const SqClDevInfo *dev, const char *src,
                size_t srclen, const char *opts, const SqAlloc *a, cl_program *out,
                int *from_cache, char *err, size_t errlen);

/* The binary cache (cache.c). Paths are NUL-terminated; all failures are silent. */
typedef struct SqClCacheKey {
    char path[1024];   /* cache file, "" when no cache directory is usable */
    uint64_t ident[4]; /* identity stored in the file: device, driver, source, options */
} SqClCacheKey;

void sq_cl_cache_key(SqClCacheKey *k, const SqClDevInfo *dev, const char *src, size_t srclen,
                     const char *opts);
/* Binary of a valid entry (free with sq_free(a, .)), or NULL. */
unsigned char *sq_cl_cache_load(const SqClCacheKey *k, const SqAlloc *a, size_t *len);
/*
 * Around handing a loaded binary to the driver: hold moves the entry aside
 * (-1: it could not, so the binary must not be used), release puts it back
 * when the driver built it (ok) and drops it otherwise. A crash in between
 * leaves no entry, so it does not repeat on the next run.
 */
int sq_cl_cache_hold(const SqClCacheKey *k);
void sq_cl_cache_release(const SqClCacheKey *k, int ok);
/* Write atomically (temp file + rename); 0 or -1 (implausible size, no room, a full directory in the way). */
int sq_cl_cache_store(const SqClCacheKey *k, const unsigned char *bin, size_t len);

#endif
