/* Integer motion (math/vmaf_motion.h) against libvmaf's "motion" extractor. */
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "math/vmaf_motion.h"
#include "soft.h"
#include "vmafint.h"

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
}

/* The soft-double build (soft.c) of the scores and the flush: the same bits. */
static int soft_check(const ViSeq *s, const SqVmOpts *o, const uint64_t *sad, const double *S,
                      const double *m2, const double *m3)
{
    const uint64_t opt[4] = { bits(o->blend_factor), bits(o->blend_offset), bits(o->fps_weight),
                              bits(o->max_val) };
    uint64_t *b = malloc(3 * (size_t)s->n * sizeof *b);
    int bad = 0;
    for (int i = 0; i < s->n; i++)
        b[i] = o->force_zero || i < sq_vm_min_idx(o) ? bits(0.0)
             : soft_vm_sad_score(sad[i], s->w, s->h, opt, o->five_frame_window, o->moving_average);
    soft_vm_flush(b, s->n, opt, o->five_frame_window, o->moving_average, b + s->n, b + 2 * s->n);
    for (int i = 0; i < s->n; i++)
        bad += b[i] != bits(S[i]) || b[s->n + i] != bits(m2[i]) || b[2 * s->n + i] != bits(m3[i]);
    if (bad)
        printf("FAIL %s [motion] the soft-double build differs in %d frames\n", s->name, bad);
    free(b);
    return bad;
}

/*
 * The option sets: libvmaf's defaults (v0.6.1), v1.0.16's motion_max_val,
 * the HFR models' five-frame window and moving average, and the blend and
 * fps options with a low clip, force_zero. Names follow libvmaf's rule
 * (alias + suffix of each non-default option, sorted by option name).
 */
const ViUse vi_motion_uses[] = {
    { "motion", { { NULL, NULL } } },
    { "motion", { { "motion_max_val", "18" } } },
    { "motion", { { "motion_max_val", "18" }, { "motion_five_frame_window", "true" },
                  { "motion_moving_average", "true" } } },
    { "motion", { { "motion_blend_factor", "0.5" }, { "motion_blend_offset", "3" },
                  { "motion_fps_weight", "2.5" }, { "motion_max_val", "7" } } },
    { "motion", { { "motion_blend_factor", "0.25" }, { "motion_five_frame_window", "true" } } },
    { "motion", { { "motion_force_zero", "true" } } },
};
const int vi_motion_n_uses = (int)(sizeof vi_motion_uses / sizeof vi_motion_uses[0]);

static const char *const suffix[] = { "", "_mmxv_18", "_mffw_mmxv_18_mma",
                                      "_mbf_0.5_mbo_3_mfw_2.5_mmxv_7", "_mbf_0.25_mffw",
                                      "_force_0" };

static SqVmOpts set_opts(int k)
{
    SqVmOpts o = sq_vm_opts_default();
    if (k == 1 || k == 2)
        o.max_val = 18.0;
    if (k == 2)
        o.five_frame_window = o.moving_average = 1;
    if (k == 3) {
        o.blend_factor = 0.5;
        o.blend_offset = 3.0;
        o.fps_weight = 2.5;
        o.max_val = 7.0;
    }
    if (k == 4) {
        o.blend_factor = 0.25;
        o.five_frame_window = 1;
    }
    o.force_zero = k == 5;
    return o;
}

int vi_motion_check(VmafContext *ctx, const ViSeq *s)
{
    const int acc = s->bpc > 8 ? SQ_ACC_16 : 0;
    int32_t *ybuf = malloc((size_t)s->w * sizeof *ybuf);
    uint64_t *sad1 = malloc((size_t)s->n * sizeof *sad1), *sad2 = malloc((size_t)s->n * sizeof *sad2);
    double *sc = malloc((size_t)s->n * 3 * sizeof *sc);
    /* The SADs against the previous and the one-before frames, shared by every set. */
    for (int i = 0; i < s->n; i++) {
        sad1[i] = i >= 1 ? sq_vm_plane_sad(s->ref[i - 1], s->ref[i], s->stride, acc, s->w, s->h,
                                           s->bpc, ybuf) : 0;
        sad2[i] = i >= 2 ? sq_vm_plane_sad(s->ref[i - 2], s->ref[i], s->stride, acc, s->w, s->h,
                                           s->bpc, ybuf) : 0;
    }
    int bad = 0;
    for (int k = 0; k < vi_motion_n_uses; k++) {
        const SqVmOpts o = set_opts(k);
        double *S = sc, *m2 = sc + s->n, *m3 = sc + 2 * s->n;
        for (int i = 0; i < s->n; i++)
            S[i] = o.force_zero || i < sq_vm_min_idx(&o) ? 0.0
                 : sq_vm_sad_score(o.five_frame_window ? sad2[i] : sad1[i], s->w, s->h, &o);
        sq_vm_flush(S, s->n, &o, m2, m3);
        if (vi_check_soft)
            bad += soft_check(s, &o, o.five_frame_window ? sad2 : sad1, S, m2, m3);
        char n0[128], n2[128], n3[128];
        const int def = !suffix[k][0];
        snprintf(n0, sizeof n0, "VMAF_integer_feature_motion_sad_score%s", suffix[k]);
        snprintf(n2, sizeof n2, "%s%s", def ? "VMAF_integer_feature_motion2_score"
                                            : "integer_motion2", suffix[k]);
        snprintf(n3, sizeof n3, "%s%s", def ? "VMAF_integer_feature_motion3_score"
                                            : "integer_motion3", suffix[k]);
        bad += vi_check(ctx, s, "motion", n0, S);
        bad += vi_check(ctx, s, "motion", n2, m2);
        bad += vi_check(ctx, s, "motion", n3, m3);
    }
    free(ybuf);
    free(sad1);
    free(sad2);
    free(sc);
    return bad;
}
