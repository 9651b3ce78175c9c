/*
 * The host side of libvmaf's integer ADM (spec vmaf-integer-features 3.6,
 * 3.10): what needs libm (Watson's CSF: log10, pow; the blend tables of
 * adm_csf_mode 2 and 3; the per-scale powf cube roots) and what the options
 * mean, around the arithmetic of math/vmaf_adm*.h. feature/adm.c builds a
 * plan's SqVaParams with it and assembles a frame's scores;
 * tests/vmafint/adm_check.c uses the same functions.
 */
#ifndef SQ_FEATURE_ADM_PARAMS_H
#define SQ_FEATURE_ADM_PARAMS_H

#include <stddef.h>

#include "feature/options.h"
#include "math/vmaf_adm_pool.h"

/*
 * 0, or -EINVAL with one line in err for an option set with no result to
 * give: adm_csf_mode 1 (Barten: libvmaf's C and SIMD paths disagree, spec
 * 7, and give NaN at times), adm_norm_view_dist * adm_ref_display_height
 * below 3 * 1080 (libvmaf fails every frame), a blend mode (2, 3) without
 * a table for the pair.
 */
int sq_adm_check_options(const SqOptions *o, char *err, size_t errlen);

/* The fixed-point CSF factors, pow(rf, 3), the limit and the skips of o
 * (checked by sq_adm_check_options). */
void sq_adm_params(const SqOptions *o, SqVaParams *p);

/*
 * One frame's published values from the raw scale values of sq_va_frame:
 * the cube roots (glibc powf, as libvmaf) and sums per scale, into
 * sums[0..4) (num), sums[4..8) (den), sums[8..12) (aim), then
 * sq_va_scores. W x H: the luma size.
 */
SqVaScores sq_adm_scores(const SqOptions *o, const SqVaRaw *raw, int W, int H, float *sums);

#endif
