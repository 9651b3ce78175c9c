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
#include "core/plan.h"
#include "cpu/cpu.h"
#include "speedqa/speedqa.h"

typedef struct SqFeature {
    SqFeatureSpec spec;
    SqPlan plan;
    int nscores;              /* 3 (u, v, uv) or 1 */
    SqCpuSide ref, dis;
    /* speed_temporal: previous luma of each side, packed rows */
    uint8_t *prev[2];
    int64_t prev_stride;
    int have_prev;
} SqFeature;

/* Parse, validate against the format, plan and allocate. */
int sq_feature_open(SqFeature *f, const char *str, const SpeedqaFormat *fmt,
                    char *err, size_t errlen);
void sq_feature_close(SqFeature *f);

/* Name of output i (0 .. nscores-1) into buf. */
void sq_feature_score_name(const SqFeature *f, int i, char *buf, size_t len);

/* Compute this frame's scores into out[0 .. nscores-1]. */
void sq_feature_frame(SqFeature *f, const SpeedqaPicture *ref, const SpeedqaPicture *dis,
                      double *out);

/* Forget the temporal history (a new sequence starts). */
void sq_feature_reset(SqFeature *f);

#endif
