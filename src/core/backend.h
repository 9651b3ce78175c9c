/*
 * What a backend implements: it runs plane jobs and returns their raw
 * results. What a feature means (which planes and pictures it reads, the
 * previous frame of speed_temporal, use_ref_diff, the pooling mode, score
 * assembly) is the feature layer's (sq_features_jobs) and reaches a backend
 * only as jobs; no backend sees a feature kind or an option.
 */
#ifndef SQ_CORE_BACKEND_H
#define SQ_CORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "core/job.h"
#include "core/mem.h"
#include "core/picture.h"
#include "speedqa/speedqa.h"

#define SQ_MAX_PLANS SPEEDQA_MAX_FEATURES
/* Jobs of one distorted stream, and of a ladder of SPEEDQA_MAX_DISTORTED. */
#define SQ_MAX_STREAM_JOBS (2 * SPEEDQA_MAX_FEATURES)
#define SQ_MAX_JOBS (SQ_MAX_STREAM_JOBS * SPEEDQA_MAX_DISTORTED)
/* The most frames a GPU batch takes (SpeedqaSettings.gpu_batch). */
#define SQ_MAX_GPU_BATCH 32
/* Pictures of one frame: the reference, then each distorted stream. */
#define SQ_MAX_PICS (1 + SPEEDQA_MAX_DISTORTED)

#define SQ_DEVICE_GPU_ONLY (-2)

typedef struct SqBackendParams {
    SpeedqaFormat format;   /* ref and dis share it */
    int nplans;
    const SqPlan *plans[SQ_MAX_PLANS];
    int njobs;              /* jobs of every frame, in result order */
    SqJob jobs[SQ_MAX_JOBS];
    /*
     * Distorted streams (a ladder when > 1): job d * (njobs / ndis) + j is
     * stream d's copy of job j, reading picture 1 + d where j reads 1.
     * Pictures are 1 + ndis per frame. Only backends with ladder set take
     * ndis > 1.
     */
    int ndis;
    int n_threads;          /* CPU workers (>= 1) */
    int device;             /* GPU index, -1 = first usable, SQ_DEVICE_GPU_ONLY = first
                             * usable GPU (never a CPU device: AUTO then falls back to
                             * the native CPU backend) */
    const char *device_name; /* substring match on the device name, or NULL */
    unsigned cpu_mask;
    int gpu_batch;          /* GPU frames per batch, 0: the pipeline's default */
    int force_soft_f64;     /* GPU runtimes that can (OpenCL): kernels on soft doubles */
    const SpeedqaSettings *settings; /* for the logger */
    SqAlloc alloc;
} SqBackendParams;

/* Which raw samples a plane job read, for the out-of-range check. */
enum { SQ_RANGE_CUR_MAX, SQ_RANGE_CUR_OR, SQ_RANGE_PREV_MAX, SQ_RANGE_PREV_OR, SQ_RANGE_N };

/*
 * Raw result of one frame, per job: the pooled plane score before any
 * feature rule, err = either side singular, and range[job][side]: max and
 * OR of the raw samples of the rows sq_plan_rows_read marks (all columns)
 * in each picture the side checks (SqJobSide). Ranges are filled for bpc
 * 9..15 only (zero otherwise, and for jobs that did not run); a max may be
 * left 0 while the OR has no bit above bpc (the CPU looks for the largest
 * value only on failure).
 */
typedef struct SqRawResult {
    float score[SQ_MAX_JOBS];
    int err[SQ_MAX_JOBS];
    uint64_t sum[SQ_MAX_JOBS]; /* SQ_JOB_SAD jobs: the plane's SAD (0 when it did not run) */
    /* SQ_JOB_ADM jobs: the four scales' raw values, before the cube roots,
     * stream d's job of slot k at [d * SQ_MAX_ADM_JOBS + k] (zero when it did not run) */
    SqVaRaw adm[SPEEDQA_MAX_DISTORTED * SQ_MAX_ADM_JOBS][4];
    double cambi[SQ_MAX_JOBS]; /* SQ_JOB_CAMBI jobs: the frame's score (0 when it did not run) */
    /* SQ_JOB_VIF jobs: each scale's num and den, stream d's job of slot k at
     * [d * SQ_MAX_VIF_JOBS + k] (zero when it did not run) */
    SqViRaw vif[SPEEDQA_MAX_DISTORTED * SQ_MAX_VIF_JOBS];
    uint32_t range[SQ_MAX_JOBS][2][SQ_RANGE_N];
} SqRawResult;

/*
 * The planes the integer features range-check before they read them (9- to
 * 15-bit input only; SpEED's sides check inside their own kernels): each
 * picture's plane that a side of another kind reads with check_cur, once
 * however many jobs read it, with a plan of its size. Every backend fills
 * those sides' current-picture ranges through these.
 */
#define SQ_RANGE_KEYS (3 * SQ_MAX_PICS)
typedef struct SqRangeKeys {
    int n;
    int key[SQ_RANGE_KEYS];  /* 3 * picture + plane, as SqJobSide's */
    int plan[SQ_RANGE_KEYS]; /* a plan whose dims are the plane's */
} SqRangeKeys;
void sq_range_keys(const SqJob *jobs, int njobs, int bpc, SqRangeKeys *rk);

/* Checked plane `key`'s largest sample and OR into every side of r that reads it with check_cur. */
void sq_range_put(const SqJob *jobs, int njobs, int key, uint32_t mx, uint32_t bits, SqRawResult *r);

typedef struct SqBackend {
    const char *name;
    /* Allocate everything; message in err on failure, nothing leaked. */
    int (*open)(void **priv, const SqBackendParams *p, char *err, size_t errlen);
    /* Most frames that may be sent and not yet received. */
    int (*capacity)(void *priv);
    int ladder;     /* takes ndis > 1; a job side 0 shared by every stream is computed once */
    int sad;        /* runs SQ_JOB_SAD jobs (else open is refused before it is called) */
    int adm;        /* runs SQ_JOB_ADM jobs (else open is refused before it is called) */
    int cambi;      /* runs SQ_JOB_CAMBI jobs (else open is refused before it is called) */
    int vif;        /* runs SQ_JOB_VIF jobs (else open is refused before it is called) */
    /*
     * Queue the next frame: pics[0] the reference, pics[1 + d] distorted
     * stream d's picture, NULL once that stream has ended in this sequence
     * (its jobs do not run; their results stay zero). Formats are checked
     * already. new_seq: this frame has no temporal predecessor. A picture with a release
     * callback may be read after the call; the backend releases it exactly
     * once (any thread), when it no longer reads it. Negative errno on
     * failure (message in err): nothing was taken.
     */
    int (*send)(void *priv, const SpeedqaPicture *const *pics, int new_seq, char *err,
                size_t errlen);
    /*
     * Result of the oldest frame not yet received: 0, or -EAGAIN if it is
     * still in flight and block == 0. Only called with a frame outstanding.
     */
    int (*receive)(void *priv, SqRawResult *out, int block, char *err, size_t errlen);
    /*
     * Optional: the result of the frame send() just accepted when send()
     * already scored it (the CPU backend with one thread), else NULL. It
     * lets the library fail that send() on bad samples; receive() still
     * returns the same result later.
     */
    const SqRawResult *(*scored)(void *priv);
    /* Optional: the sequence ended (flush, or a sticky failure): release
     * what is held only as the next frame's previous picture. */
    void (*end_seq)(void *priv);
    /* Frees everything; every picture still held is released first. */
    void (*close)(void **priv);
    /* Optional: describe visible devices (see speedqa_list_devices). */
    int (*list_devices)(char *buf, size_t len);
    /* Optional: memory for library pictures (speedqa_picture_alloc), which
     * the backend frees at close: pinned on the GPU backends, uploaded
     * from in place. NULL: aligned host memory. */
    SqPicMem pic_mem;
    /* The SpeedqaMemory kind send() reads besides host memory (CUDA's
     * device pictures), or 0: host memory only. */
    int device_mem;
    /* Optional (speedqa_cuda_host_register): any thread, also during send. NULL:
     * -ENOTSUP, nothing to gain. */
    int (*host_register)(void *priv, const void *p, size_t bytes);
    int (*host_unregister)(void *priv, const void *p);
} SqBackend;

extern const SqBackend sq_backend_cpu;
extern const SqBackend sq_backend_cuda;
extern const SqBackend sq_backend_hip;
extern const SqBackend sq_backend_opencl;

#endif
