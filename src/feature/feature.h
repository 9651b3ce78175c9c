/*
 * One feature instance: its parsed options, plan, output names and the
 * per-stream state (previous luma for speed_temporal). Score assembly for
 * both features lives here once, whatever backend computes the planes.
 */
#ifndef SQ_FEATURE_FEATURE_H
#define SQ_FEATURE_FEATURE_H

#include <stddef.h>
#include <stdint.h>

#include "feature/options.h"
#include "core/backend.h"
#include "feature/plan.h"
#include "speedqa/speedqa.h"

typedef struct SqFeature {
    SqFeatureSpec spec;
    SqPlan plan;
    int nscores;              /* 3 (u, v, uv) or 1 */
    int job[2];               /* its jobs in SqBackendParams.jobs: chroma U, V; temporal Y */
    int slot;                 /* adm: its job's SqJob.slot */
} SqFeature;

/* The features a context computes when the caller names none (NULL-terminated). */
const char *const *sq_features_default(void);

/* Parse, validate against the format and plan. */
int sq_feature_open(SqFeature *f, const char *str, const SpeedqaFormat *fmt,
                    const SqAlloc *a, char *err, size_t errlen);
void sq_feature_close(SqFeature *f);

/* Name of output i (0 .. nscores-1) into buf. */
void sq_feature_score_name(const SqFeature *f, int i, char *buf, size_t len);

/*
 * What the features mean, as plane jobs for every frame (bp->plans,
 * bp->jobs; f[i].job tells where feature i's raw scores will be):
 * speed_chroma scores U and V, reference against distorted; speed_temporal
 * filters (previous - current) luma of both sides, only on frames with a
 * predecessor, and with speed_use_ref_diff its distorted side subtracts the
 * current reference from the previous distorted picture (spec 2.3).
 */
void sq_features_jobs(SqFeature *f, int nfeat, SqBackendParams *bp);

/* Sets mark[y] for every row y of plane `plane` that some job reads, in a
 * current or a previous picture (mark: the plane's height of bytes). */
int sq_features_rows_read(const SqFeature *f, int nfeat, int plane, uint8_t *mark,
                          const SqAlloc *a);

/*
 * A ladder of ndis distorted streams: the jobs of sq_features_jobs, once
 * per stream (stream d's read picture 1 + d where the single stream's read
 * 1, and its jobs follow stream d - 1's), and bp->ndis set.
 */
void sq_jobs_ladder(SqBackendParams *bp, int ndis);

/*
 * Final outputs of f from a backend's raw result: the chroma uv rule and
 * speed_max_val clipping (temporal: never clipped, as libvmaf). A chroma
 * value that is NaN before the clip is published as speed_max_val, as
 * libvmaf's min(score, max_val) does, and sets bit k of *undefined for
 * output k. Returns -EDOM when an output would still not be finite (a
 * temporal NaN or infinity: nothing clips it); out is filled regardless.
 */
int sq_feature_assemble(const SqFeature *f, const SqRawResult *r, double *out, uint32_t *undefined);
/* The farthest a feature looks ahead (frames), and the doubles of state it
 * keeps from frame to frame (per feature and stream). */
#define SQ_LOOK_AHEAD_MAX 2
#define SQ_FEATURE_STATE 2

/*
 * The same for ladder stream d, whose jobs start at job_base (d * jobs per
 * stream), of the frame with index seq_frame in its sequence. A feature
 * that looks ahead (sq_features_look_ahead: motion's motion2 / motion3)
 * also reads next[k], the raw result of the sequence's frame seq_frame + 1
 * + k for this stream (NULL past its last; k < SQ_LOOK_AHEAD_MAX), and
 * keeps state[SQ_FEATURE_STATE] (zero at open) from frame to frame.
 */
int sq_feature_assemble_at(const SqFeature *f, const SqRawResult *r,
                           const SqRawResult *const *next, int d, int job_base,
                           unsigned seq_frame, double *state, double *out, uint32_t *undefined);

/* How many later frames' raw results some feature's scores of frame n
 * need (0 .. SQ_LOOK_AHEAD_MAX). */
int sq_features_look_ahead(const SqFeature *f, int nfeat);

/*
 * The promise that every score comes from samples within the declared
 * depth: 0, or -ERANGE with one line naming the picture, frame, plane, the
 * largest value and the depth in msg, when a sample that a job read
 * (r->range) is above (1 << bpc) - 1. frame: 0-based send index of r.
 * Previous pictures belong to frame - 1 and are reported first: that is
 * the earlier frame. ndis > 1: a ladder, whose distorted pictures are
 * named by stream ("distorted 2", 1-based).
 */
int sq_jobs_check_range(const SqJob *jobs, int njobs, int ndis, const SqRawResult *r, int bpc,
                        unsigned frame, char *msg, size_t len);

#endif
