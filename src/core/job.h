/*
 * The contract between the feature layer and the backends: plans (the
 * fixed geometry and tables of one plane computation) and plane jobs (what
 * one job reads, which plan it runs, how it pools). The feature layer
 * builds these from options at open (sq_plan_init, sq_features_jobs); the
 * core and every backend only read them, so this header includes nothing
 * above core and math. A later metric family adds its own job kind and plan
 * here, its builders to the feature layer and its arithmetic to math.
 */
#ifndef SQ_CORE_JOB_H
#define SQ_CORE_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "core/mem.h"
#include "core/plan_core.h"
#include "math/dims.h"
#include "math/vmaf_adm_pool.h"
#include "math/vmaf_cambi_pool.h"
#include "math/vmaf_vif.h"

typedef struct SqPlan {
    SQ_PLAN_CORE_MEMBERS   /* d, prescale, taps, sigma_nn, nn_floor (core/plan_core.h) */
    int32_t *ps_iy, *ps_ix; /* prescale tables (SQ_PS_TAPS per output), or NULL */
    float *ps_wy, *ps_wx;
    int wvm;
    int rows_all;           /* an integer plane job's plan (SQ_JOB_SAD, SQ_JOB_ADM,
                             * SQ_JOB_CAMBI, SQ_JOB_VIF): reads every row of a d.w x d.h
                             * plane, and nothing else of the plan is set but va, vc,
                             * vc_recip and the vi_ fields */
    SqVaParams va;          /* SQ_JOB_ADM: the CSF factors and options, built by the host
                             * (feature/adm_params.c) */
    SqVcParams vc;          /* SQ_JOB_CAMBI: the resolved options and thresholds, built by
                             * the host (feature/cambi_params.c) */
    float *vc_recip;        /* SQ_JOB_CAMBI: the reciprocal table (SQ_VC_RECIP_N), or NULL */
    uint16_t *vi_lt;        /* SQ_JOB_VIF: the 2048 log2 table (SQ_VI_LT_N), or NULL */
    double vi_egl;          /* SQ_JOB_VIF: vif_enhn_gain_limit */
    int vi_skip0;           /* SQ_JOB_VIF: vif_skip_scale0 */
    SqAlloc alloc;
} SqPlan;

/* Frees the tables; the plan may be freed twice. */
void sq_plan_free(SqPlan *p);

/* Marks the rows of a plane of height h within the anti-alias radius of
 * every 16th row: the rows the decimated vertical pass reads. */
void sq_plan_filter_rows(const SqPlan *p, int h, uint8_t *mark);

/*
 * Marks (sets to 1) the rows of the raw input plane (p->d.h rows) that the
 * plan reads; other rows may hold anything. Without prescale these are
 * sq_plan_filter_rows (about 9/16 of them at ks = 1); with prescale, the
 * rows the prescaler reads for those. Every backend reads (and range-checks)
 * exactly these rows, all columns of each. 0 or -ENOMEM.
 */
int sq_plan_rows_read(const SqPlan *p, uint8_t *mark, const SqAlloc *a);

/* When a side range-checks the previous picture it reads. */
enum {
    SQ_CHECK_NEVER = 0,
    SQ_CHECK_ALWAYS = 1,
    /* only when the previous frame had no predecessor itself: otherwise
     * that picture was checked when it was the current one */
    SQ_CHECK_IF_FIRST = 2,
};

/* What one side (ref or dis) of a plane job reads. */
typedef struct SqJobSide {
    int pic;        /* 0: the frame's reference picture, 1 + d: distorted stream d's */
    int plane;      /* 0 Y, 1 U, 2 V */
    int prev_pic;   /* -1, or the previous frame's picture: the side filters
                     * (that picture's plane) - (the current one's) */
    int check_cur;  /* range-check the current picture (0: another side does) */
    int check_prev; /* SQ_CHECK_* for the previous picture */
} SqJobSide;

/*
 * Job kinds. SQ_JOB_SPEED: two sides through one SpEED plan, one float score
 * (SqRawResult.score, err). SQ_JOB_SAD: the integer SAD of the 5-tap blurred
 * difference (side 0's previous picture) - (its current one) of one plane
 * (math/vmaf_motion.h), into SqRawResult.sum; side 1 is side 0 again; side 0
 * range-checks the current picture (SqRawResult.range, also at frames that
 * have no SAD). SQ_JOB_ADM: libvmaf's integer ADM of side 0's
 * plane (the reference) against side 1's (the distorted), with the plan's
 * va (math/vmaf_adm*.h: sq_va_frame2), into SqRawResult.adm (stream d's
 * job of slot k at d * SQ_MAX_ADM_JOBS + k); both sides range-check. SQ_JOB_CAMBI: libvmaf's CAMBI of side 1's plane (the
 * distorted luma; side 0 names it too), with the plan's vc and vc_recip
 * (math/vmaf_cambi*.h: sq_vc_frame), into SqRawResult.cambi; side 1
 * range-checks it (SqRawResult.range, as SQ_JOB_SPEED's current pictures).
 * SQ_JOB_VIF: libvmaf's integer VIF of side 0's plane (the reference)
 * against side 1's, with the plan's vi_lt, vi_egl, vi_skip0
 * (math/vmaf_vif.h: sq_vi_frame), into SqRawResult.vif (stream d's job of
 * slot k at d * SQ_MAX_VIF_JOBS + k); both sides range-check.
 * A backend runs the kinds its SqBackend says it can.
 */
enum { SQ_JOB_SPEED = 0, SQ_JOB_SAD = 1, SQ_JOB_ADM = 2, SQ_JOB_CAMBI = 3, SQ_JOB_VIF = 4 };

/* The most SQ_JOB_ADM jobs of one stream (adm features of a context): their raw
 * results are SqRawResult.adm's, kept small since every frame's result is copied. */
#define SQ_MAX_ADM_JOBS 2
/* The same for SQ_JOB_VIF (SqRawResult.vif). */
#define SQ_MAX_VIF_JOBS 2

/* One plane pair scored per frame: two sides through one plan, one raw score. */
typedef struct SqJob {
    int kind;       /* SQ_JOB_* */
    int plan;       /* index into SqBackendParams.plans */
    int wvm;        /* pooling weight mode (math/score.h) */
    /* 1: reads the previous frame's pictures (side prev_pic), 2: those of the
     * frame before it; runs only on frames with that many predecessors in
     * their sequence, raw score 0 otherwise */
    int needs_prev;
    int slot;       /* SQ_JOB_ADM, SQ_JOB_VIF: its index among its stream's jobs of that
                     * kind (< SQ_MAX_ADM_JOBS, SQ_MAX_VIF_JOBS) */
    SqJobSide side[2];
} SqJob;

#endif
