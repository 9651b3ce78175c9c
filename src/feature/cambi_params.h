/*
 * The host side of libvmaf's CAMBI (spec vmaf-cambi-and-prediction A.1-A.3):
 * what the options mean at an input size (window size, high_res_speedup,
 * topk counts) and what needs libm (pow for the EOTFs behind the TVI
 * thresholds and vlt_luma, strtof of printed doubles for the reciprocal
 * table), around the arithmetic of math/vmaf_cambi*.h. feature/cambi.c
 * builds a plan's SqVcParams with it; tests/vmafint/cambi_check.c uses the
 * same functions.
 */
#ifndef SQ_FEATURE_CAMBI_PARAMS_H
#define SQ_FEATURE_CAMBI_PARAMS_H

#include <stddef.h>

#include "feature/options.h"
#include "math/vmaf_cambi_pool.h"

/* libvmaf's cambi options that the math covers (defaults: sq_cambi_opts_default). */
typedef struct SqCambiOpts {
    double max_val, topk, cambi_topk, tvi, vlt;
    int window_size, mlc, hrs, pq;
} SqCambiOpts;

SqCambiOpts sq_cambi_opts_default(void);
/* The parsed options of a cambi feature (eotf resolved: cambi_eotf first, A.1). */
SqCambiOpts sq_cambi_opts(const SqOptions *o);

/*
 * 0, or -EINVAL with one line in err for an option libvmaf has that the
 * math does not cover (enc_width, enc_height, enc_bitdepth, src_width,
 * src_height, full_ref, heatmaps_path): name is the option's.
 */
int sq_cambi_refused(const char *name, char *err, size_t errlen);

/* 0, or -EINVAL with one line in err: an eotf other than bt1886 or pq (libvmaf's
 * init fails), a vis_lum_threshold above the EOTF's peak (libvmaf's init never ends). */
int sq_cambi_check_options(const SqOptions *o, char *err, size_t errlen);

/*
 * Parameters for a w x h input of bpc bits: 0; -1 where libvmaf's init
 * refuses the size (both sides below 216); -3 where the rescaled window is
 * too large (ws * ws >= 4226, libvmaf's init fails); -2 where a scale is
 * smaller than the window's half (libvmaf's result is unspecified).
 */
int sq_cambi_params(const SqCambiOpts *o, int w, int h, int bpc, SqVcParams *p);

/* R[0 .. SQ_VC_RECIP_N) (A.3). */
void sq_cambi_recip(float *r);

#endif
