/*
 * Feature strings in libvmaf syntax ("speed_chroma=speed_kernelscale=0.5"),
 * libvmaf's option parsing and value normalisation (spec 2.5, 3), and the
 * emitted score names with their option suffixes.
 */
#ifndef SQ_FEATURE_OPTIONS_H
#define SQ_FEATURE_OPTIONS_H

#include <stddef.h>

typedef enum SqFeatureKind {
    SQ_FEATURE_CHROMA = 0,
    SQ_FEATURE_TEMPORAL = 1,
    SQ_FEATURE_MOTION = 2,   /* libvmaf's integer "motion" (feature/motion.c) */
    SQ_FEATURE_ADM = 3,      /* libvmaf's integer "adm" (feature/adm.c) */
    SQ_FEATURE_CAMBI = 4,    /* libvmaf's "cambi" (feature/cambi.c) */
    SQ_FEATURE_VIF = 5,      /* libvmaf's integer "vif" (feature/vif.c) */
} SqFeatureKind;

typedef struct SqOptions {
    double kernelscale;
    double prescale;
    char prescale_method[16];
    double sigma_nn;
    double nn_floor;
    double max_val;
    int weight_var_mode;   /* chroma only */
    int use_ref_diff;      /* temporal only */
    /* motion only (spec 2.1) */
    double motion_blend_factor, motion_blend_offset, motion_fps_weight, motion_max_val;
    int motion_five_frame_window, motion_moving_average, motion_force_zero;
    /* adm only (spec 3.1) */
    double adm_csf_scale, adm_csf_diag_scale, adm_dlm_weight, adm_enhn_gain_limit;
    double adm_norm_view_dist, adm_noise_weight, adm_min_val;
    int adm_ref_display_height, adm_csf_mode, adm_skip_aim, adm_skip_scale0;
    /* cambi only (spec vmaf-cambi-and-prediction A.1) */
    double cambi_max_val, cambi_topk, topk, tvi_threshold, cambi_vis_lum_threshold;
    int window_size, max_log_contrast, cambi_high_res_speedup;
    char eotf[16], cambi_eotf[16];
    /* vif only (spec 4.1) */
    double vif_enhn_gain_limit;
    int vif_skip_scale0;
    int debug;             /* not a feature parameter: no suffix */
} SqOptions;

typedef struct SqFeatureSpec {
    SqFeatureKind kind;
    SqOptions opt;
    char suffix[256];      /* "_ks_0.5_psm_bilinear", "" for defaults */
} SqFeatureSpec;

/*
 * Parse one feature string. Returns 0, or with a one-line reason in err:
 * -ENOTSUP for what speedqa does not implement (an unknown feature or
 * option, cambi's options of sq_cambi_refused), which libvmaf may compute;
 * -EINVAL for the rest (a malformed or out-of-range value, an invalid
 * kernelscale, an unknown prescale method, adm's and cambi's option sets
 * with no result: sq_adm_check_options, sq_cambi_check_options).
 */
int sq_feature_parse(SqFeatureSpec *out, const char *str, char *err, size_t errlen);

/* Prescale method index (SQ_PS_*) of a name, or -1. */
int sq_prescale_method_index(const char *name);

/* 1 if |ps - 1| < 1e-3: the prescale is skipped and the plane used as is. */
int sq_prescale_skipped(double ps);

#endif
