/*
 * The HIP runtime functions the backend uses, declared here (HIP 5.x/6.x
 * ABI) so nothing links against ROCm: libamdhip64 is opened at run time.
 */
#ifndef SQ_GPU_HIP_API_H
#define SQ_GPU_HIP_API_H

#include <stddef.h>

typedef int hipError_t;
typedef int hipDevice_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;

/* Enumerators, not macros, for the reason given in cuda_api.h. */
enum {
    hipSuccess = 0,
    hipErrorOutOfMemory = 2,
    hipErrorNotInitialized = 3,
    hipErrorNoDevice = 100,
    hipErrorInvalidDevice = 101,
    hipErrorNotReady = 600,
    hipStreamNonBlocking = 1,
    hipMemcpyDeviceToDevice = 3,
};

/* X(field, symbol, return, parameters) */
#define SQ_HIP_FUNCS(X)                                                                         \
    X(hipInit, "hipInit", hipError_t, (unsigned flags))                                         \
    X(hipGetDeviceCount, "hipGetDeviceCount", hipError_t, (int *n))                             \
    X(hipSetDevice, "hipSetDevice", hipError_t, (int d))                                        \
    X(hipGetDevice, "hipGetDevice", hipError_t, (int *d))                                       \
    X(hipDeviceGetName, "hipDeviceGetName", hipError_t, (char *name, int len, hipDevice_t d))   \
    X(hipModuleLoadData, "hipModuleLoadData", hipError_t, (hipModule_t *m, const void *image))  \
    X(hipModuleUnload, "hipModuleUnload", hipError_t, (hipModule_t m))                          \
    X(hipModuleGetFunction, "hipModuleGetFunction", hipError_t,                                 \
      (hipFunction_t *f, hipModule_t m, const char *name))                                      \
    X(hipMalloc, "hipMalloc", hipError_t, (void **p, size_t bytes))                             \
    X(hipFree, "hipFree", hipError_t, (void *p))                                                \
    X(hipHostMalloc, "hipHostMalloc", hipError_t, (void **p, size_t bytes, unsigned flags))     \
    X(hipHostFree, "hipHostFree", hipError_t, (void *p))                                        \
    X(hipMemcpyHtoDAsync, "hipMemcpyHtoDAsync", hipError_t,                                     \
      (void *dst, const void *src, size_t n, hipStream_t s))                                    \
    X(hipMemcpyDtoHAsync, "hipMemcpyDtoHAsync", hipError_t,                                     \
      (void *dst, void *src, size_t n, hipStream_t s))                                          \
    X(hipMemcpy2DAsync, "hipMemcpy2DAsync", hipError_t,                                         \
      (void *dst, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h, int kind,  \
       hipStream_t s))                                                                          \
    X(hipStreamCreateWithPriority, "hipStreamCreateWithPriority", hipError_t,                   \
      (hipStream_t *s, unsigned flags, int priority))                                           \
    X(hipStreamDestroy, "hipStreamDestroy", hipError_t, (hipStream_t s))                        \
    X(hipStreamWaitEvent, "hipStreamWaitEvent", hipError_t, (hipStream_t s, hipEvent_t e, unsigned flags)) \
    X(hipEventCreate, "hipEventCreate", hipError_t, (hipEvent_t *e))                            \
    X(hipEventDestroy, "hipEventDestroy", hipError_t, (hipEvent_t e))                           \
    X(hipEventRecord, "hipEventRecord", hipError_t, (hipEvent_t e, hipStream_t s))              \
    X(hipEventQuery, "hipEventQuery", hipError_t, (hipEvent_t e))                               \
    X(hipEventSynchronize, "hipEventSynchronize", hipError_t, (hipEvent_t e))                   \
    X(hipEventElapsedTime, "hipEventElapsedTime", hipError_t, (float *ms, hipEvent_t a, hipEvent_t b)) \
    X(hipModuleLaunchKernel, "hipModuleLaunchKernel", hipError_t,                               \
      (hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,        \
       unsigned bz, unsigned shmem, hipStream_t s, void **params, void **extra))                \
    X(hipGetErrorName, "hipGetErrorName", const char *, (hipError_t r))                         \
    X(hipGetErrorString, "hipGetErrorString", const char *, (hipError_t r))

/* No symbol of the runtime has another name to fall back on. */
#define SQ_HIP_FALLBACK(sym) ((const char *)NULL)

#endif
