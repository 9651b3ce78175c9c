/*
 * libvmaf's integer VIF (extractor "vif", spec vmaf-integer-features 4) as
 * a speedqa feature: its plan (with the host-built log2 table), its one job
 * per frame and stream, and its scores from the raw per-scale num and den.
 * The arithmetic is math/vmaf_vif.h's; feature.c dispatches here for
 * SQ_FEATURE_VIF.
 */
#ifndef SQ_FEATURE_VIF_H
#define SQ_FEATURE_VIF_H

#include <stddef.h>

#include "feature/feature.h"

/* The table of math/vmaf_vif.h: lt[i - 32768] = 2048 log2f(i) rounded half away
 * from zero, i in [32768, 65535] (glibc's log2f is correctly rounded there). */
void sq_vif_log_table(uint16_t *lt);

/* 0 when every scale of a w x h luma exceeds its filter's half-width, else -1
 * (libvmaf reads outside its mirror there: no defined result). */
int sq_vif_size_ok(int w, int h);

/* Plan the luma of both sides (every row) with the table and options;
 * -EINVAL for a size sq_vif_size_ok refuses, -ENOMEM. */
int sq_vif_open(SqFeature *f, const SpeedqaFormat *fmt, const SqAlloc *a, char *err,
                size_t errlen);

/* Name of output i: integer_vif_scale0..3, then with debug integer_vif,
 * integer_vif_num, integer_vif_den, integer_vif_num_scaleK / den_scaleK,
 * each with the option suffix (spec 5; debug gives none). */
void sq_vif_score_name(const SqFeature *f, int i, char *buf, size_t len);

/* The job: reference luma against distorted luma, every frame. */
void sq_vif_job(const SqFeature *f, int plan, SqJob *j);

/* The outputs of raw values (spec 4.5) into out[0 .. 4 or 15); -EDOM when a
 * scale's score is not finite (a den of 0). */
int sq_vif_scores(const SqViRaw *raw, int skip0, int debug, double *out);

/* Stream d's outputs of a frame (r->vif[d * SQ_MAX_VIF_JOBS + f->slot]). */
int sq_vif_assemble(const SqFeature *f, const SqRawResult *r, int d, double *out);

#endif
