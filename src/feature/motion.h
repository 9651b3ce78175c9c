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

/* Plan the reference luma (every row); -EINVAL for a frame under 3x3. */
int sq_motion_open(SqFeature *f, const SpeedqaFormat *fmt, char *err, size_t errlen);

/* Name of output i: VMAF_integer_feature_motion_sad_score, integer_motion
 * with debug, integer_motion2, integer_motion3 (vmaf's order), each with
 * the option suffix (spec 5). */
void sq_motion_score_name(const SqFeature *f, int i, char *buf, size_t len);

/* The job: the SAD of (previous reference luma) - (current reference luma),
 * on frames with a predecessor; with the five-frame window the previous is
 * the frame two back. */
void sq_motion_job(const SqFeature *f, int plan, SqJob *j);

/* How many later frames' raw results a frame's scores need: motion3's
 * stamp (frames before min_idx) is frame min_idx's (1, or 2 with the
 * five-frame window). */
int sq_motion_look_ahead(const SqFeature *f);

/*
 * Frame seq_frame's outputs (index in its sequence) into out[0 .. nscores):
 * the SAD score of r (spec 2.3), and motion2 / motion3 (spec 2.4) from it
 * and next[k], the raw result of frame seq_frame + 1 + k in the same
 * sequence (NULL past its last). state[0..2) carries motion3's previous
 * term and the previous frame's SAD score from frame to frame (per stream).
 */
int sq_motion_assemble(const SqFeature *f, const SqRawResult *r, const SqRawResult *const *next,
                       int job_base, unsigned seq_frame, double *state, double *out);

#endif
