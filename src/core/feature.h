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
 */
void sq_feature_assemble(const SqFeature *f, const SqRawResult *r, int i, double *out);

#endif
