/*
 * What a backend implements. Options, plans, names and score assembly are
 * backend-neutral (core/feature.c); a backend only turns frame pairs into
 * raw per-plane results, in send order, possibly with several in flight.
 */
#ifndef SQ_CORE_BACKEND_H
#define SQ_CORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "core/mem.h"
#include "core/options.h"
#include "core/plan.h"
#include "speedqa/speedqa.h"

/* What a backend needs to know about each feature instance. */
typedef struct SqFeatureDesc {
    SqFeatureKind kind;
    const SqOptions *opt;
    const SqPlan *plan;     /* chroma: U/V plane plan; temporal: luma plan */
} SqFeatureDesc;

#define SQ_DEVICE_GPU_ONLY (-2)

typedef struct SqBackendParams {
    SpeedqaFormat format;   /* ref and dis share it */
    int nfeat;
    SqFeatureDesc feat[SPEEDQA_MAX_FEATURES];
    int n_threads;          /* CPU workers (>= 1) */
    int device;             /* GPU index, -1 = first usable, SQ_DEVICE_GPU_ONLY = first
                             * usable GPU (never a CPU device: AUTO then falls back to
                             * the native CPU backend) */
    const char *device_name; /* substring match on the device name, or NULL */
    unsigned cpu_mask;
    const SpeedqaSettings *settings; /* for the logger */
    SqAlloc alloc;
} SqBackendParams;

/* Which raw samples a plane job read, for the out-of-range check. */
enum { SQ_RANGE_CUR_MAX, SQ_RANGE_CUR_OR, SQ_RANGE_PREV_MAX, SQ_RANGE_PREV_OR, SQ_RANGE_N };

/*
 * Raw result of one frame: per feature, plane scores before the chroma uv
 * rule and clipping. chroma: [0] = U, [1] = V; temporal: [0] (0 for the
 * first frame of a sequence). err = either side singular.
 * range[feature][plane][side]: max and OR of every raw sample of the rows
 * sq_plan_rows_read marks (all columns) that the side read, current
 * picture and, for speed_temporal, previous picture (side 1 of
 * speed_use_ref_diff reads the current reference). Filled for bpc 9..15
 * only, all zero otherwise and for planes that were not scored.
 */
typedef struct SqRawResult {
    float score[SPEEDQA_MAX_FEATURES][2];
    int err[SPEEDQA_MAX_FEATURES][2];
    uint32_t range[SPEEDQA_MAX_FEATURES][2][2][SQ_RANGE_N];
} SqRawResult;

typedef struct SqBackend {
    const char *name;
    /* Allocate everything; message in err on failure, nothing leaked. */
    int (*open)(void **priv, const SqBackendParams *p, char *err, size_t errlen);
    /* Most frames that may be sent and not yet received. */
    int (*capacity)(void *priv);
    /*
     * Queue the next frame pair (formats already checked). new_seq: this
     * frame has no temporal predecessor. Pictures are only read during the
     * call. Negative errno on failure (message in err).
     */
    int (*send)(void *priv, const SpeedqaPicture *ref, const SpeedqaPicture *dis, int new_seq,
                char *err, size_t errlen);
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
    void (*close)(void **priv);
    /* Optional: describe visible devices (see speedqa_list_devices). */
    int (*list_devices)(char *buf, size_t len);
} SqBackend;

extern const SqBackend sq_backend_cpu;
extern const SqBackend sq_backend_cuda;
extern const SqBackend sq_backend_hip;
extern const SqBackend sq_backend_opencl;

#endif
