/*
 * Backend-neutral GPU layer. Two halves:
 *
 *  1. Types the kernels (gpu/kernels.h) see, compiled by C, nvcc, hipcc
 *     and OpenCL C alike: fixed-size fields, every device location is a
 *     byte offset into one arena allocation, never a pointer.
 *  2. Host side: the SqGpuFns vtable a runtime (CUDA, HIP, ...) fills with
 *     plumbing only, and the generic SqBackend entry points of pipeline.c
 *     that run the plane jobs (core/job.h) on any such vtable.
 *
 * Define SQ_GPU_DEVICE_ONLY before including to get only the first half.
 */
#ifndef SQ_GPU_GPU_H
#define SQ_GPU_GPU_H

#include "core/plan_core.h"
#include "math/dims.h"
#include "math/prelude.h"
#include "math/vmaf_adm_pool.h"
#include "math/vmaf_cambi_pool.h"
#include "math/vmaf_vif.h"

/* Largest 25x25 problem of the eigen/solve kernels. */
#define SQ_GPU_NMAX (SQ_BLOCK * SQ_BLOCK)
#define SQ_GPU_ALIGN 256
/* Floats of the eigen (a; d, e, v, x) and solve (a, z, p, h, t1, t2; u) work matrices. */
#define SQ_GPU_WORK_EIGEN(n) ((n) * (n) + 4 * (n))
#define SQ_GPU_WORK_SOLVE(n) (6 * (n) * (n) + (n))

/* Kernel ids from the X-macro list (kernels.def). */
enum {
#define SQ_KERNEL(name, args) SQ_K_##name,
#include "gpu/kernels.def"
#undef SQ_KERNEL
    SQ_K_COUNT
};

/* Byte offsets of one side's scratch buffers, relative to its base. */
typedef struct SqGpuLayout {
    int64_t conv, scaled;  /* prescale only: converted plane, resampled plane */
    int64_t vrow;          /* op_h x scaled_w vertically filtered rows */
    int64_t op, mrow, dimg; /* op_h x op_w each */
    int64_t rows;          /* trunc_h x sq_cov_row_doubles(b) doubles */
    int64_t k, lambda;     /* n x n covariance, n eigenvalues */
    int64_t y, x;          /* n x nb blocks, n x nb solution */
    int64_t flags;         /* int[2]: solve failed, eigen cap hit */
    int64_t work;          /* eigen then solve work matrices, where block-shared
                            * memory cannot hold them (OpenCL C 1.2) */
    int64_t bytes;         /* total, aligned */
} SqGpuLayout;

/* One plan as the kernels read it (uploaded once at open): the host plan's
 * core as it is, then where this device put its buffers. */
typedef struct SqGpuPlan {
    SQ_PLAN_CORE_MEMBERS
    SqGpuLayout lay;
    int64_t ps_iy, ps_ix, ps_wy, ps_wx; /* arena offsets of the prescale tables */
    int64_t ps_rows;       /* prescale: arena offset of d.h bytes, 1 = a row the feature
                            * reads (sq_plan_rows_read), the rows range-checked */
} SqGpuPlan;

/*
 * One side (ref or dis) of one plane job (core/backend.h) of one frame. A raw
 * plane is either stored whole (runs == 0: row y at base + y * stride) or
 * as runs (runs = 2r + 1 rows around every 16th row: op row i's run holds
 * rows 16i - r .. 16i + r at base + (i * runs + k) * stride, k = row - 16i + r).
 */
typedef struct SqGpuSide {
    int64_t cur, prev;             /* arena offsets; prev < 0: no temporal difference */
    int64_t cur_stride, prev_stride;
    int64_t scratch;               /* arena offset of this side's SqGpuLayout */
    int32_t cur_runs, prev_runs;
    int32_t plan;
    int32_t acc;                   /* sample access of cur and prev (sq_acc_pair) */
    float scale;
    int32_t range_check;           /* 1 (bpc 9..15): fold the raw samples read into the
                                    * pair's SqGpuResult.range */
} SqGpuSide;

/* One plane job of one frame: sides 2 * index (ref) and 2 * index + 1 (dis). */
typedef struct SqGpuPair {
    int64_t terms;                 /* arena offset of nb pooling terms */
    int32_t plan, wvm;
    int32_t frame, job;            /* host bookkeeping */
} SqGpuPair;

/* Per side of SqGpuResult: max and OR of the current, then the previous picture's samples. */
#define SQ_GPU_RANGE_N 4

/* What a pair leaves for the host; range must be zero before the kernels run. */
typedef struct SqGpuResult {
    float score;
    int32_t err;
    uint32_t range[2][SQ_GPU_RANGE_N]; /* ref, dis side: as SqRawResult.range */
    uint32_t sum[2];                   /* an SQ_JOB_SAD job's: the plane SAD, low and high half */
    SqVaRaw adm[4];                    /* an SQ_JOB_ADM job's: SqRawResult.adm of its slot */
    SqViRaw vif;                       /* an SQ_JOB_VIF job's: SqRawResult.vif of its slot */
    uint64_t cambi;                    /* an SQ_JOB_CAMBI job's: SqRawResult.cambi, f64 bits */
} SqGpuResult;

/* One SQ_JOB_SAD job of one frame (libvmaf's integer motion): the SAD of
 * the blurred difference prev - cur of one plane (math/vmaf_motion.h). */
typedef struct SqGpuSad {
    int64_t cur, prev;             /* arena offsets of the planes */
    int64_t cur_stride, prev_stride;
    int64_t vert;                  /* w x h int32: the vertical pass */
    int64_t rows;                  /* h uint64: each row's SAD */
    int32_t cur_acc, prev_acc;     /* sample access (math/filter.h) */
    int32_t w, h, bpc;
    int32_t result;                /* its SqGpuResult, after the pairs' */
    int32_t frame, job;            /* host bookkeeping */
    int32_t pad;
} SqGpuSad;

SQ_FN int64_t sq_gpu_align(int64_t v)
{
    return (v + SQ_GPU_ALIGN - 1) & ~(int64_t)(SQ_GPU_ALIGN - 1);
}

/*
 * One SQ_JOB_ADM job of one frame (libvmaf's integer ADM of the luma, ref
 * against dis, math/vmaf_adm*.h): the host's parameters and the planes;
 * its scratch (sq_gpu_adm_at) holds every scale's planes in turn and the
 * per-row sums that the fold adds up.
 */
typedef struct SqGpuAdm {
    SqVaParams va;                 /* the plan's (feature/adm_params.c) */
    int64_t pic[2], stride[2];     /* ref, dis: arena offsets of the planes */
    int64_t scratch;               /* arena offset of sq_gpu_adm_bytes(w, h) */
    int32_t acc[2];                /* sample access (math/filter.h) */
    int32_t w, h, bpc;
    int32_t result;                /* its SqGpuResult, after the pairs' and the sads' */
    int32_t frame, job;            /* host bookkeeping */
} SqGpuAdm;

/* The parts of an SqGpuAdm's scratch, in order; each is one plane of int32
 * (the row sums: SQ_GPU_ADM_SUMS u64 per band row of every scale). */
enum {
    SQ_GPU_ADM_LO = 0,  /* side k's vertical pass at 2k (lo), 2k + 1 (hi): (h + 1) / 2 x w */
    SQ_GPU_ADM_BAND = 4, /* side k's band b (SQ_VA_*) at 4 + 4k + b: (w + 1) / 2 x (h + 1) / 2 */
    SQ_GPU_ADM_R = 12,  /* r, e, A, F of orientation th at 12 + 3 * {0, 1, 2, 3} + th */
    SQ_GPU_ADM_ROWS = 24
};
/* Per band row: den h, v, d; DLM h, v, d; AIM h, v, d (each rounded by its rho). */
#define SQ_GPU_ADM_SUMS 9

SQ_FN int64_t sq_gpu_adm_vplane(int w, int h)
{
    return sq_gpu_align((int64_t)((h + 1) / 2) * w * 4);
}

SQ_FN int64_t sq_gpu_adm_bplane(int w, int h)
{
    return sq_gpu_align((int64_t)((h + 1) / 2) * ((w + 1) / 2) * 4);
}

/* Byte offset of part k in the scratch of a w x h job. */
SQ_FN int64_t sq_gpu_adm_at(int w, int h, int k)
{
    const int64_t v = sq_gpu_adm_vplane(w, h), b = sq_gpu_adm_bplane(w, h);
    return k <= SQ_GPU_ADM_BAND ? k * v : 4 * v + (k - SQ_GPU_ADM_BAND) * b;
}

/* The first band row of scale s among the row sums of a job of height h. */
SQ_FN int sq_gpu_adm_row0(int h, int s)
{
    int n = 0;
    for (int k = 0; k < s; k++) {
        h = (h + 1) / 2;
        n += h;
    }
    return n;
}

/* The scratch of a w x h job: the parts, then the row sums of the four scales. */
SQ_FN int64_t sq_gpu_adm_bytes(int w, int h)
{
    return sq_gpu_adm_at(w, h, SQ_GPU_ADM_ROWS) +
           sq_gpu_align((int64_t)sq_gpu_adm_row0(h, 4) * SQ_GPU_ADM_SUMS * 8);
}

/*
 * One SQ_JOB_VIF job of one frame (libvmaf's integer VIF of the luma, ref
 * against dis, math/vmaf_vif.h): the plan's options, the planes and the
 * log2 table the host built; its scratch (sq_gpu_vif_at) holds every
 * scale's u16 planes, the row buffers of its lanes and the lanes' sums.
 */
typedef struct SqGpuVif {
    sq_f64 egl;                    /* vif_enhn_gain_limit */
    int64_t pic[2], stride[2];     /* ref, dis: arena offsets of the planes */
    int64_t scratch;               /* arena offset of sq_gpu_vif_bytes(w, h) */
    int64_t lt;                    /* arena offset of the 2048 log2 table (SQ_VI_LT_N u16) */
    int32_t acc[2];                /* sample access (math/filter.h) */
    int32_t w, h, bpc;
    int32_t skip0;                 /* vif_skip_scale0 */
    int32_t result;                /* its SqGpuResult, after the pairs', sads' and adms' */
    int32_t frame, job;            /* host bookkeeping */
    int32_t pad;
} SqGpuVif;

/*
 * A scale's statistics and its decimation run in tiles of SQ_GPU_VIF_TH x
 * SQ_GPU_VIF_TW outputs, their vertical values in block-shared memory;
 * sq_gpu_vif_lanes blocks a job (and side) take tiles k, k + lanes, ...
 * and the statistics blocks keep their integer sums apart. Where other
 * chains run beside VIF's (ADM's, motion's: vmaf_v0.6.1), about
 * SQ_GPU_VIF_BLOCKS blocks a launch in all leave room for them on the
 * multiprocessors: an H100 (132 of them) scored vmaf_v0.6.1's 4K batches
 * of 7 frames fastest with 48 blocks a job (256: 9% slower, 32: 22%), its
 * 1080p batches of 16 with 24 (32 to 64: 7% slower).
 */
#define SQ_GPU_VIF_SLANES 256
#define SQ_GPU_VIF_BLOCKS 336
#define SQ_GPU_VIF_TW 64
#define SQ_GPU_VIF_TH 16
/* The parts of an SqGpuVif's scratch: scale s's u16 plane of side k at 2s + k
 * ((w >> s) x (h >> s)), then the statistics blocks' sums (SqViAcc as 4 u64
 * per scale and block). */
enum { SQ_GPU_VIF_SUMS = 8 };

/* Byte offset of part k in the scratch of a w x h job. */
SQ_FN int64_t sq_gpu_vif_at(int w, int h, int k)
{
    int64_t o = 0;
    for (int p = 0; p < k; p++)
        o += sq_gpu_align((int64_t)(w >> (p >> 1)) * (h >> (p >> 1)) * 2);
    return o;
}

/* The scratch of a w x h job: the planes and the blocks' sums. */
SQ_FN int64_t sq_gpu_vif_bytes(int w, int h)
{
    return sq_gpu_vif_at(w, h, SQ_GPU_VIF_SUMS) +
           sq_gpu_align((int64_t)4 * SQ_GPU_VIF_SLANES * 4 * 8);
}

/*
 * One SQ_JOB_CAMBI job of one frame (libvmaf's CAMBI of the distorted luma,
 * math/vmaf_cambi*.h): the plan's parameters, the plane and the host's
 * reciprocal table; its scratch (sq_gpu_vc_at) holds the working images,
 * the masks, a scale's c-values, the histograms, the pooling's counters,
 * first[] and the five scale scores.
 */
typedef struct SqGpuCambi {
    SqVcParams vc;                 /* the plan's (feature/cambi_params.c) */
    int64_t pic, stride;           /* the distorted luma: arena offset, row stride */
    int64_t scratch;               /* arena offset of sq_gpu_vc_bytes(w, h, nd) */
    int64_t recip;                 /* arena offset of R[] (SQ_VC_RECIP_N f32) */
    int32_t acc;                   /* sample access (math/filter.h) */
    int32_t result;                /* its SqGpuResult, after the pairs', sads', adms' and vifs' */
    int32_t frame, job;            /* host bookkeeping */
} SqGpuCambi;

/*
 * One picture's plane of one frame that the integer features (motion, adm,
 * vif, cambi) read and range-check, once whatever number of their jobs read
 * it (as the CPU's pass before its jobs): only LSB-aligned planes at 9 to 15
 * bits, whose containers can hold more than the depth. Its max and OR land
 * in SqGpuResult.range[0][SQ_RANGE_CUR_*] of its own result.
 */
typedef struct SqGpuRange {
    int64_t pic, stride;           /* arena offset of the plane, row stride */
    int32_t acc;                   /* sample access (math/filter.h) */
    int32_t w, h;
    int32_t result;                /* its SqGpuResult, after every job kind's */
    int32_t frame;                 /* host bookkeeping */
    int32_t key;                   /* 3 * picture + plane (SqJobSide) */
} SqGpuRange;

/*
 * The per-pixel kernels of whole rows give a block this many rows, its
 * items stepping along them (sq_gk_rows: no division per pixel).
 */
#define SQ_GPU_ROWS 4

#include "gpu/gpu_cambi.h"

/* The one argument struct every kernel takes (after the arena base). */
typedef struct SqKArgs {
    int64_t plans;    /* arena offset of SqGpuPlan[] */
    int64_t sides;    /* SqGpuSide[nsides] */
    int64_t pairs;    /* SqGpuPair[npairs] */
    int64_t results;  /* SqGpuResult[npairs + nsads + nadms + nvifs + ncambis + nranges] */
    int64_t sads;     /* SqGpuSad[nsads] */
    int64_t adms;     /* SqGpuAdm[nadms] */
    int64_t vifs;     /* SqGpuVif[nvifs] */
    int64_t cambis;   /* SqGpuCambi[ncambis] */
    int64_t ranges;   /* SqGpuRange[nranges] */
    int32_t nsides, npairs;
    int32_t nsads, nadms;
    int32_t scale;    /* the ADM and VIF kernels: which scale this launch runs */
    int32_t nvifs;
    int32_t ncambis;
    int32_t vc_bands; /* cambi_cval: the scale's bands (sq_gpu_vc_bands) */
    int32_t nranges;
    int32_t pad;
} SqKArgs;

/* VIF's blocks a job in a batch's launches: the grids' width (launch_vmaf.c) and the kernels' tile stride. */
SQ_FN int sq_gpu_vif_lanes(const SqKArgs *ka)
{
    const int nv = ka->nvifs, others = ka->nadms + ka->nsads + ka->npairs + ka->ncambis;
    const int l = nv > 0 && others > 0 ? SQ_GPU_VIF_BLOCKS / nv : SQ_GPU_VIF_SLANES;
    return l < 1 ? 1 : l > SQ_GPU_VIF_SLANES ? SQ_GPU_VIF_SLANES : l;
}

/* Offset of the raw row `row` of op row i's run (or of the whole plane). */
SQ_FN int64_t sq_gpu_run_base(int64_t base, int64_t stride, int runs, int i)
{
    if (!runs)
        return base;
    const int r = runs >> 1;
    return base + ((int64_t)i * runs - ((int64_t)i << SQ_DECIM_SHIFT) + r) * stride;
}

#ifndef SQ_GPU_DEVICE_ONLY

#include <stddef.h>

#include "core/backend.h"

typedef uint64_t SqGpuAddr;
typedef struct SqGpuDev SqGpuDev;

/* The side streams run a batch's independent chains of kernels (CAMBI's,
 * VIF's, ADM's, the range check's) beside the compute stream's (gpu/chains.c). */
enum {
    SQ_GPU_STREAM_COPY = 0,
    SQ_GPU_STREAM_COMPUTE = 1,
    SQ_GPU_STREAM_SIDE = 2, /* the first of SQ_GPU_NSIDES */
    SQ_GPU_NSIDES = 4,
    SQ_GPU_NSTREAMS = SQ_GPU_STREAM_SIDE + SQ_GPU_NSIDES
};

/*
 * Plumbing of one runtime. Every function returns 0 or a negative errno;
 * on failure the device keeps the first error's text (call, runtime message,
 * file:line) for error(). Streams are in-order queues; events are indices
 * into a pool created by open. Calls other than open/close/error are made
 * between enter() and leave() when the runtime has them (CUDA: the primary
 * context is pushed and popped, so the caller's current context is kept).
 */
/* What the pipeline asks a runtime to open (SqGpuFns.open_ex). */
typedef struct SqGpuOpenOpts {
    int device;         /* index, -1: first usable; ignored when name is set */
    const char *name;   /* NULL, or the first device whose name contains it */
    int nevents;
    int force_soft_f64; /* kernels on soft doubles whatever the device has (where the runtime can) */
} SqGpuOpenOpts;

typedef struct SqGpuFns {
    const char *name;
    /* Load the runtime, pick device `device` (-1: first), load the kernels,
     * create the streams and `nevents` events. -ENODEV: no runtime/device. */
    int (*open)(SqGpuDev **dev, int device, int nevents, const SqAlloc *a, char *err,
                size_t errlen);
    /* Optional: open the first device whose name contains `name` (case-insensitive). */
    int (*open_named)(SqGpuDev **dev, const char *name, int nevents, const SqAlloc *a,
                      char *err, size_t errlen);
    /* Optional: open with every option; the pipeline prefers it to the two above. */
    int (*open_ex)(SqGpuDev **dev, const SqGpuOpenOpts *o, const SqAlloc *a, char *err,
                   size_t errlen);
    /* Optional: one line on what open chose (device, how the kernels were
     * built), which the pipeline logs at info level. */
    void (*describe)(const SqGpuDev *dev, char *buf, size_t len);
    void (*close)(SqGpuDev **dev);
    const char *(*error)(const SqGpuDev *dev);
    int (*alloc)(SqGpuDev *dev, size_t bytes, SqGpuAddr *out);
    void (*free)(SqGpuDev *dev, SqGpuAddr p);
    int (*host_alloc)(SqGpuDev *dev, size_t bytes, void **out); /* pinned */
    void (*host_free)(SqGpuDev *dev, void *p);
    /* Optional, any thread, no enter(): the caller's memory page-locked
     * read-only for upload2d (0, -ENOTSUP, -ENOMEM, -EIO), and unlocked
     * once every upload queued so far is done. Failures leave error() alone. */
    int (*host_register)(SqGpuDev *dev, void *p, size_t bytes);
    int (*host_unregister)(SqGpuDev *dev, void *p);
    int (*upload)(SqGpuDev *dev, int stream, SqGpuAddr dst, const void *src, size_t bytes);
    int (*download)(SqGpuDev *dev, int stream, void *dst, SqGpuAddr src, size_t bytes);
    /* rows x width bytes from pinned host memory (host_alloc's), asynchronous:
     * the rows are read after the call (NULL: unsupported). */
    int (*upload2d)(SqGpuDev *dev, int stream, SqGpuAddr dst, size_t dpitch, const void *src,
                    size_t spitch, size_t width, size_t rows);
    /* rows x width bytes from device memory the caller owns (NULL: unsupported). */
    int (*copy2d)(SqGpuDev *dev, int stream, SqGpuAddr dst, size_t dpitch, SqGpuAddr src,
                  size_t spitch, size_t width, size_t rows);
    /* Kernel `kernel` (gpu/kernels.def) as sq_k_<name>(arena, *args) on a grid of
     * blocks of `block` threads; arena is an address alloc returned, unoffset. */
    int (*launch)(SqGpuDev *dev, int stream, int kernel, const unsigned grid[3],
                  unsigned block, SqGpuAddr arena, const SqKArgs *args);
    int (*event_record)(SqGpuDev *dev, int event, int stream);
    /* 1 done, 0 pending, < 0 error. */
    int (*event_query)(SqGpuDev *dev, int event);
    int (*event_sync)(SqGpuDev *dev, int event);
    int (*stream_wait)(SqGpuDev *dev, int stream, int event);
    /* Milliseconds between two completed events (profiling). */
    int (*event_elapsed)(SqGpuDev *dev, int from, int to, float *ms);
    /* Make the device's context current for this thread / restore (may be NULL). */
    int (*enter)(SqGpuDev *dev);
    void (*leave)(SqGpuDev *dev);
    /* Optional: the largest single allocation the device accepts (0: no
     * limit but memory). The pipeline sizes its batch to fit one arena in it. */
    size_t (*max_alloc)(const SqGpuDev *dev);
    /* Optional: close leaves the device's context and the runtime loaded,
     * for the process to tear down at exit (SpeedqaSettings.cuda.keep_device). */
    void (*keep)(SqGpuDev *dev);
    /* Device memory kind accepted by send() besides host memory, or -1. */
    int device_memory;
} SqGpuFns;

/* The SqBackend entry points of the generic pipeline (pipeline.c). */
int sq_gpu_open(void **priv, const SqBackendParams *p, const SqGpuFns *fns, char *err,
                size_t errlen);
int sq_gpu_capacity(void *priv);
int sq_gpu_send(void *priv, const SpeedqaPicture *const *pics, int new_seq,
                char *err, size_t errlen);
int sq_gpu_receive(void *priv, SqRawResult *out, int block, char *err, size_t errlen);
void sq_gpu_close(void **priv);
int sq_gpu_pic_mem(void *priv, size_t bytes, void **out);
/* speedqa_cuda_host_register / _unregister (hostreg.c). */
int sq_gpu_host_register(void *priv, const void *p, size_t bytes);
int sq_gpu_host_unregister(void *priv, const void *p);

/* Sizes chosen at open (bench, diagnostics). */
typedef struct SqGpuStats {
    int batch_frames;
    int capacity;
    size_t arena_bytes, pinned_bytes;
} SqGpuStats;
void sq_gpu_stats(void *priv, SqGpuStats *st);

/*
 * Diagnostics: with profiling on, every batch is timed kernel by kernel
 * (and waited for: not for production). sq_gpu_profile fills ms[SQ_K_COUNT]
 * with the mean per batch and returns the number of batches timed.
 */
void sq_gpu_set_profile(void *priv, int on);
int sq_gpu_profile(void *priv, double *ms);

#endif /* SQ_GPU_DEVICE_ONLY */

/* The SqBackend of a GPU runtime: the shared pipeline over its SqGpuFns. */
#define SQ_GPU_BACKEND(var, label, fns, list, devmem)                                  \
    static int var##_open(void **priv, const SqBackendParams *p, char *err, size_t errlen) \
    {                                                                                  \
        return sq_gpu_open(priv, p, &(fns), err, errlen);                              \
    }                                                                                  \
    const SqBackend var = { .name = label, .open = var##_open,                         \
                            .capacity = sq_gpu_capacity, .send = sq_gpu_send,          \
                            .receive = sq_gpu_receive, .close = sq_gpu_close,          \
                            .list_devices = list, .pic_mem = sq_gpu_pic_mem,   \
                            .sad = 1, .adm = 1, .vif = 1, .cambi = 1,         \
                            .device_mem = (devmem),                            \
                            .host_register = sq_gpu_host_register,            \
                            .host_unregister = sq_gpu_host_unregister };

#endif
