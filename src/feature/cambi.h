/*
 * libvmaf's CAMBI (extractor "cambi", spec vmaf-cambi-and-prediction part
 * A) as a speedqa feature, no-reference at the input size: its plan (the
 * distorted luma, every row, with the host-built SqVcParams and reciprocal
 * table), its one job per frame and stream, and its score. The arithmetic
 * is math/vmaf_cambi*.h's, the host side feature/cambi_params.c's;
 * feature.c dispatches here for SQ_FEATURE_CAMBI.
 */
#ifndef SQ_FEATURE_CAMBI_H
#define SQ_FEATURE_CAMBI_H

#include <stddef.h>

#include "feature/feature.h"

/* Plan the distorted luma; -EINVAL (one line in err) where libvmaf refuses the
 * size (both sides below 216, a window too large) or a scale is smaller than
 * the window's half; -ENOMEM. */
int sq_cambi_open(SqFeature *f, const SpeedqaFormat *fmt, const SqAlloc *a, char *err,
                  size_t errlen);

/* "cambi" with the option suffix (spec A.7). */
void sq_cambi_score_name(const SqFeature *f, int i, char *buf, size_t len);

/* The job: the distorted luma (both sides name it; nothing of the reference is read). */
void sq_cambi_job(const SqFeature *f, int plan, SqJob *j);

/* The frame's score of the job at index job (SqRawResult.cambi). */
int sq_cambi_assemble(const SqFeature *f, const SqRawResult *r, int job, double *out);

#endif
