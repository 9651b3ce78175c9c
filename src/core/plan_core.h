/*
 * The part of a plan (core/job.h) that every backend's kernels read, as
 * plain data with fixed-size fields: compiled by C, nvcc, hipcc and OpenCL
 * C alike (no pointers, no host types). It exists once: SqPlan holds it
 * and the GPU pipeline uploads it as it is inside SqGpuPlan (gpu/gpu.h).
 *
 * Both hold it as SQ_PLAN_CORE_MEMBERS: the named member `core` for the
 * struct copy, overlaid with the same fields unnamed, so code keeps writing
 * plan->taps_a rather than plan->core.taps_a.
 */
#ifndef SQ_CORE_PLAN_CORE_H
#define SQ_CORE_PLAN_CORE_H

#include "math/dims.h"

#define SQ_PLAN_CORE_FIELDS                                                  \
    SqDims d;               /* w, h, scaled and estimation geometry */       \
    int32_t prescale;       /* SQ_PS_* method, or -1 when skipped */         \
    int32_t taps_a, taps_m; /* anti-alias and local-mean window widths */    \
    float ga[SQ_MAX_TAPS], gm[SQ_MAX_TAPS];                                  \
    float sigma_nn, nn_floor;

typedef struct SqPlanCore {
    SQ_PLAN_CORE_FIELDS
} SqPlanCore;

#define SQ_PLAN_CORE_MEMBERS          \
    union {                           \
        SqPlanCore core;              \
        struct {                      \
            SQ_PLAN_CORE_FIELDS       \
        };                            \
    };

#endif
