/*
 * libvmaf's integer motion (extractor "motion", spec vmaf-integer-features
 * 2) as a speedqa feature: its plan, its one job per frame and its scores.
 * The arithmetic is math/vmaf_motion.h's; feature.c dispatches here for
 * SQ_FEATURE_MOTION.
 */
#ifndef SQ_FEATURE_MOTION_H
#define SQ_FEATURE_MOTION_H

#include <stddef.h>

#include "feature/feature.h"

/* Plan the reference luma (every row); -EINVAL for an option set this
 * first stage does not take (motion_five_frame_window). */
int sq_motion_open(SqFeature *f, const SpeedqaFormat *fmt, char *err, size_t errlen);

/* Name of output i: VMAF_integer_feature_motion_sad_score, then
 * integer_motion with debug, each with the option suffix. */
void sq_motion_score_name(const SqFeature *f, int i, char *buf, size_t len);

/* The job: the SAD of (previous reference luma) - (current reference luma),
 * on frames with a predecessor. */
void sq_motion_job(const SqFeature *f, int plan, SqJob *j);

/* The per-frame SAD score (spec 2.3) of the job's sum, into out[0 .. nscores). */
int sq_motion_assemble(const SqFeature *f, const SqRawResult *r, int job_base, double *out);

#endif
