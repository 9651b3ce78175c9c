/*
 * The few CUDA driver API types and functions the backend uses, declared
 * here (ABI of CUDA 12/13, unchanged since 11) so nothing links against the
 * toolkit: libcuda.so.1 is opened at run time and each function resolved by
 * its versioned symbol name.
 */
#ifndef SQ_GPU_CUDA_API_H
#define SQ_GPU_CUDA_API_H

#include <stddef.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

/* Enumerators rather than macros: a failed call is quoted after macro
 * expansion (gpu/cudahip/device.c), and these keep their names there. */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_NOT_READY = 600,
    CU_STREAM_NON_BLOCKING = 1,
    CU_EVENT_DEFAULT = 0,
    CU_MEMHOSTREGISTER_READ_ONLY = 8,
    CU_MEMORYTYPE_HOST = 1,
    CU_MEMORYTYPE_DEVICE = 2,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

typedef struct CUDA_MEMCPY2D {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

/* X(field, symbol, return, parameters) */
#define SQ_CUDA_FUNCS(X)                                                                        \
    X(cuInit, "cuInit", CUresult, (unsigned flags))                                             \
    X(cuDriverGetVersion, "cuDriverGetVersion", CUresult, (int *v))                             \
    X(cuDeviceGetCount, "cuDeviceGetCount", CUresult, (int *n))                                 \
    X(cuDeviceGet, "cuDeviceGet", CUresult, (CUdevice *d, int ordinal))                         \
    X(cuDeviceGetName, "cuDeviceGetName", CUresult, (char *name, int len, CUdevice d))          \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", CUresult, (int *v, int attr, CUdevice d))   \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult, (CUcontext *c, CUdevice d)) \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", CUresult, (CUdevice d))        \
    X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", CUresult, (CUcontext c))                         \
    X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", CUresult, (CUcontext *c))                          \
    X(cuModuleLoadData, "cuModuleLoadData", CUresult, (CUmodule *m, const void *image))         \
    X(cuModuleUnload, "cuModuleUnload", CUresult, (CUmodule m))                                 \
    X(cuModuleGetFunction, "cuModuleGetFunction", CUresult, (CUfunction *f, CUmodule m, const char *name)) \
    X(cuMemAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr *p, size_t bytes))                    \
    X(cuMemFree, "cuMemFree_v2", CUresult, (CUdeviceptr p))                                     \
    X(cuMemHostAlloc, "cuMemHostAlloc", CUresult, (void **p, size_t bytes, unsigned flags))     \
    X(cuMemFreeHost, "cuMemFreeHost", CUresult, (void *p))                                      \
    X(cuMemHostRegister, "cuMemHostRegister_v2", CUresult, (void *p, size_t bytes, unsigned flags)) \
    X(cuMemHostUnregister, "cuMemHostUnregister", CUresult, (void *p))                          \
    X(cuStreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream s))                       \
    X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", CUresult, (CUdeviceptr dst, const void *src, size_t n, CUstream s)) \
    X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", CUresult, (void *dst, CUdeviceptr src, size_t n, CUstream s)) \
    X(cuMemcpy2DAsync, "cuMemcpy2DAsync_v2", CUresult, (const CUDA_MEMCPY2D *c, CUstream s))    \
    X(cuStreamCreateWithPriority, "cuStreamCreateWithPriority", CUresult,                      \
      (CUstream *s, unsigned flags, int priority))                                              \
    X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream s))                            \
    X(cuStreamWaitEvent, "cuStreamWaitEvent", CUresult, (CUstream s, CUevent e, unsigned flags)) \
    X(cuEventCreate, "cuEventCreate", CUresult, (CUevent *e, unsigned flags))                   \
    X(cuEventDestroy, "cuEventDestroy_v2", CUresult, (CUevent e))                               \
    X(cuEventRecord, "cuEventRecord", CUresult, (CUevent e, CUstream s))                        \
    X(cuEventQuery, "cuEventQuery", CUresult, (CUevent e))                                      \
    X(cuEventSynchronize, "cuEventSynchronize", CUresult, (CUevent e))                          \
    X(cuEventElapsedTime, "cuEventElapsedTime_v2", CUresult, (float *ms, CUevent a, CUevent b)) \
    X(cuLaunchKernel, "cuLaunchKernel", CUresult,                                               \
      (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,           \
       unsigned bz, unsigned shmem, CUstream s, void **params, void **extra))                   \
    X(cuGetErrorName, "cuGetErrorName", CUresult, (CUresult r, const char **s))                 \
    X(cuGetErrorString, "cuGetErrorString", CUresult, (CUresult r, const char **s))

/* The symbol to try when `sym` is missing, else NULL: drivers before 12.8
 * have no cuEventElapsedTime_v2. */
#define SQ_CUDA_FALLBACK(sym) (!strcmp(sym, "cuEventElapsedTime_v2") ? "cuEventElapsedTime" : NULL)

#endif
