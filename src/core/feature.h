/*
 * One feature instance: its parsed options, plan, output names and the
 * per-stream state (previous luma for speed_temporal). Score assembly for
 * both features lives here once, whatever backend computes the planes.
 */
#ifndef SQ_CORE_FEATURE_H
#define SQ_CORE_FEATURE_H

#include <stddef.h>
#include <stdint.h>

#include "core/options.h"
#include "core/backend.h"
#include "core/plan.h"
#include "speedqa/speedqa.h"

typedef struct SqFeature {
    SqFeatureSpec spec;
    SqPlan plan;
    int nscores;              /* 3 (u, v, uv) or 1 */
} SqFeature;

/* Parse, validate against the format and plan. */
int sq_feature_open(SqFeature *f, const char *str, const SpeedqaFormat *fmt,
                    const SqAlloc *a, char *err, size_t errlen);
void sq_feature_close(SqFeature *f);

/* Name of output i (0 .. nscores-1) into buf. */
void sq_feature_score_name(const SqFeature *f, int i, char *buf, size_t len);

/*
 * Final outputs of feature index i from a backend's raw result: the chroma
 * uv rule and speed_max_val clipping (temporal: never clipped, as libvmaf).
 * A chroma value that is NaN before the clip is published as speed_max_val,
 * as libvmaf's min(score, max_val) does, and sets bit k of *undefined for
 * output k. Returns -EDOM when an output would still not be finite (a
 * temporal NaN or infinity: nothing clips it); out is filled regardless.
 */
int sq_feature_assemble(const SqFeature *f, const SqRawResult *r, int i, double *out,
                        uint32_t *undefined);

/*
 * The promise that every score comes from samples within the declared
 * depth: 0, or -ERANGE with one line naming the picture, frame, plane, the
 * largest value and the depth in msg, when a sample that a feature read
 * (r->range) is above (1 << bpc) - 1. frame: 0-based send index of r.
 * speed_temporal's previous pictures belong to frame - 1 and are reported
 * first: that is the earlier frame.
 */
int sq_features_check_range(const SqFeature *f, int nfeat, const SqRawResult *r, int bpc,
                            unsigned frame, char *msg, size_t len);

#endif
