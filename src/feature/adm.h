/*
 * libvmaf's integer ADM (extractor "adm", spec vmaf-integer-features 3) as
 * a speedqa feature: its plan, its one job per frame and its scores. The
 * arithmetic is math/vmaf_adm*.h's, the host side (CSF factors, cube
 * roots) feature/adm_params.c's; feature.c dispatches here for
 * SQ_FEATURE_ADM.
 */
#ifndef SQ_FEATURE_ADM_H
#define SQ_FEATURE_ADM_H

#include <stddef.h>

#include "feature/feature.h"

/* Plan the luma of both sides (every row) with the options' SqVaParams;
 * -EINVAL for a luma plane below 33x33. */
int sq_adm_open(SqFeature *f, const SpeedqaFormat *fmt, char *err, size_t errlen);

/* Name of output i: integer_adm2, integer_aim, integer_adm3,
 * integer_adm_scale0..3, each with the option suffix (spec 5). */
void sq_adm_score_name(const SqFeature *f, int i, char *buf, size_t len);

/* The job: reference luma against distorted luma, every frame. */
void sq_adm_job(const SqFeature *f, int plan, SqJob *j);

/*
 * Stream d's outputs of a frame from its raw scale values (r->adm[d *
 * SQ_MAX_ADM_JOBS + f->slot]) into out[0 .. 7). When the denominator is 0 libvmaf leaves aim (and adm3,
 * from it) uninitialised: here aim is 0, and bits 1 and 2 of *undefined
 * flag both. -EDOM when an output is not finite (a scale whose denominator
 * is 0: a flat reference with adm_noise_weight 0, where libvmaf publishes
 * NaN or infinity).
 */
int sq_adm_assemble(const SqFeature *f, const SqRawResult *r, int d, double *out,
                    uint32_t *undefined);

#endif
