/*
 * Feature / option strings. Input: text, one feature string per line (at
 * most 10 lines, so the 8-feature limit is crossed too).
 * Each line goes through sq_feature_parse directly (with a roomy and with
 * a tiny error buffer); then the whole list through speedqa_open on a
 * 320x240 4:2:0 8-bit geometry with a counting allocator and, when it
 * opens, two textured frames are scored.
 * Promises checked: parse returns 0 with every option inside its documented
 * range (motion's and adm's too, adm's refused sets never), a valid
 * kernelscale and prescale method and a terminated suffix,
 * or -EINVAL (-ENOTSUP: what speedqa does not implement) with a message;
 * parsing is deterministic; open fails cleanly
 * (*out NULL, allocations all freed) or gives unique, non-empty score
 * names; scores are finite, speed_temporal of frame 0 is 0; no leak.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "feature/options.h"
#include "common/util.h"
#include "fuzz_common.h"
#include "speedqa/speedqa.h"

#define MAX_LINES 10
#define W 320
#define H 240

static uint8_t luma[2][2][W * H], chroma[2][2][2][(W / 2) * (H / 2)];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    uint32_t s = 12345;
    for (int f = 0; f < 2; f++)
        for (int side = 0; side < 2; side++) {
            for (int i = 0; i < W * H; i++) {
                s = s * 1664525u + 1013904223u;
                int x = i % W, y = i / W;
                luma[f][side][i] = (uint8_t)(((x * x + 3 * y * y + x * y + f * 37) >> 5) % 200 + (s >> 28) + side * 5);
            }
            for (int p = 0; p < 2; p++)
                for (int i = 0; i < (W / 2) * (H / 2); i++) {
                    s = s * 1664525u + 1013904223u;
                    chroma[f][side][p][i] = (uint8_t)(((i * (p + 3) + f) >> 3) % 180 + (s >> 27));
                }
        }
    return 0;
}

static void check_spec(const SqFeatureSpec *sp, const char *line)
{
    const SqOptions *o = &sp->opt;
    FUZZ_CHECK(sp->kind == SQ_FEATURE_CHROMA || sp->kind == SQ_FEATURE_TEMPORAL || sp->kind == SQ_FEATURE_MOTION ||
               sp->kind == SQ_FEATURE_ADM || sp->kind == SQ_FEATURE_CAMBI || sp->kind == SQ_FEATURE_VIF,
               "kind %d", (int)sp->kind);
    FUZZ_CHECK(memchr(sp->suffix, '\0', sizeof sp->suffix) != NULL, "suffix not terminated");
    FUZZ_CHECK(memchr(o->prescale_method, '\0', sizeof o->prescale_method) != NULL, "method not terminated");
    FUZZ_CHECK(o->kernelscale >= 0.1 && o->kernelscale <= 4.0, "kernelscale %g from '%s'", o->kernelscale, line);
    FUZZ_CHECK(o->prescale >= 0.1 && o->prescale <= 4.0, "prescale %g from '%s'", o->prescale, line);
    FUZZ_CHECK(sq_prescale_method_index(o->prescale_method) >= 0, "method '%s'", o->prescale_method);
    FUZZ_CHECK(o->sigma_nn >= 0.1 && o->sigma_nn <= 2.0, "sigma_nn %g from '%s'", o->sigma_nn, line);
    FUZZ_CHECK(o->nn_floor >= 0.0 && o->nn_floor <= 1.0, "nn_floor %g from '%s'", o->nn_floor, line);
    FUZZ_CHECK(o->max_val >= 0.0 && o->max_val <= 1000.0, "max_val %g from '%s'", o->max_val, line);
    FUZZ_CHECK(o->weight_var_mode >= 0 && o->weight_var_mode <= 6, "wvm %d", o->weight_var_mode);
    FUZZ_CHECK(o->use_ref_diff == 0 || o->use_ref_diff == 1, "urd %d", o->use_ref_diff);
    FUZZ_CHECK(sp->kind == SQ_FEATURE_CHROMA || o->weight_var_mode == 0, "wvm set on speed_temporal");
    FUZZ_CHECK(sp->kind == SQ_FEATURE_TEMPORAL || o->use_ref_diff == 0, "urd set on speed_chroma");
    FUZZ_CHECK(o->motion_blend_factor >= 0.0 && o->motion_blend_factor <= 1.0, "mbf %g", o->motion_blend_factor);
    FUZZ_CHECK(o->motion_blend_offset >= 0.0 && o->motion_blend_offset <= 1000.0, "mbo %g", o->motion_blend_offset);
    FUZZ_CHECK(o->motion_fps_weight >= 0.0 && o->motion_fps_weight <= 5.0, "mfw %g", o->motion_fps_weight);
    FUZZ_CHECK(o->motion_max_val >= 0.0 && o->motion_max_val <= 10000.0, "mmxv %g", o->motion_max_val);
    FUZZ_CHECK(o->motion_five_frame_window == 0, "mffw accepted though unsupported");
    FUZZ_CHECK((o->motion_moving_average | o->motion_force_zero | o->debug) <= 1, "motion flag not 0/1");
    /* cambi (spec vmaf-cambi-and-prediction A.1): ranges, the eotfs; the options the
     * math does not cover (enc_*, src_*, full_ref, heatmaps_path) never parse */
    FUZZ_CHECK(o->cambi_max_val >= 0.0 && o->cambi_max_val <= 1000.0, "cmxv %g", o->cambi_max_val);
    FUZZ_CHECK(o->topk >= 0.0001 && o->topk <= 1.0, "topk %g", o->topk);
    FUZZ_CHECK(o->cambi_topk >= 0.0001 && o->cambi_topk <= 1.0, "ctpk %g", o->cambi_topk);
    FUZZ_CHECK(o->tvi_threshold >= 0.0001 && o->tvi_threshold <= 1.0, "tvit %g", o->tvi_threshold);
    FUZZ_CHECK(o->cambi_vis_lum_threshold >= 0.0 && o->cambi_vis_lum_threshold <= 300.0, "vlt %g",
               o->cambi_vis_lum_threshold);
    FUZZ_CHECK(o->window_size >= 15 && o->window_size <= 127, "ws %d", o->window_size);
    FUZZ_CHECK(o->max_log_contrast >= 0 && o->max_log_contrast <= 5, "mlc %d", o->max_log_contrast);
    FUZZ_CHECK(o->cambi_high_res_speedup >= 0 && o->cambi_high_res_speedup <= 2160, "hrs %d",
               o->cambi_high_res_speedup);
    FUZZ_CHECK(!strcmp(o->eotf, "bt1886") || !strcmp(o->eotf, "pq"), "eotf '%s' from '%s'", o->eotf, line);
    FUZZ_CHECK(!strcmp(o->cambi_eotf, "bt1886") || !strcmp(o->cambi_eotf, "pq"), "ceot '%s'", o->cambi_eotf);
    FUZZ_CHECK(sp->kind != SQ_FEATURE_CAMBI ||
                   (!strstr(line, "enc_") && !strstr(line, "src_") && !strstr(line, "full_ref") &&
                    !strstr(line, "heatmaps_path")),
               "cambi accepted an option it does not cover: '%s'", line);
    FUZZ_CHECK(sp->kind == SQ_FEATURE_CAMBI ||
                   (o->window_size == 65 && o->max_log_contrast == 2 && o->cambi_high_res_speedup == 0 &&
                    o->cambi_max_val == 1000.0 && !strcmp(o->eotf, "bt1886")),
               "cambi option set on another feature");
    /* adm (spec 3.1): ranges, and the refused sets (Barten, below 3H at 1080, a blend
     * mode without a table) never parse */
    FUZZ_CHECK(o->adm_csf_scale >= 0.0 && o->adm_csf_scale <= 50.0, "scf %g", o->adm_csf_scale);
    FUZZ_CHECK(o->adm_csf_diag_scale >= 0.0 && o->adm_csf_diag_scale <= 50.0, "scfd %g", o->adm_csf_diag_scale);
    FUZZ_CHECK(o->adm_dlm_weight >= 0.0 && o->adm_dlm_weight <= 1.0, "dlmw %g", o->adm_dlm_weight);
    FUZZ_CHECK(o->adm_enhn_gain_limit >= 1.0 && o->adm_enhn_gain_limit <= 100.0, "egl %g", o->adm_enhn_gain_limit);
    FUZZ_CHECK(o->adm_norm_view_dist >= 0.75 && o->adm_norm_view_dist <= 24.0, "nvd %g", o->adm_norm_view_dist);
    FUZZ_CHECK(o->adm_ref_display_height >= 1 && o->adm_ref_display_height <= 4320, "rdh %d",
               o->adm_ref_display_height);
    FUZZ_CHECK(o->adm_noise_weight >= 0.0 && o->adm_noise_weight <= 1500.0, "nw %g", o->adm_noise_weight);
    FUZZ_CHECK(o->adm_min_val >= 0.0 && o->adm_min_val <= 1.0, "min %g", o->adm_min_val);
    FUZZ_CHECK(o->adm_csf_mode >= 0 && o->adm_csf_mode <= 3 && o->adm_csf_mode != 1, "csf %d from '%s'",
               o->adm_csf_mode, line);
    FUZZ_CHECK((o->adm_skip_aim | o->adm_skip_scale0) <= 1, "adm flag not 0/1");
    FUZZ_CHECK(sp->kind != SQ_FEATURE_ADM || o->adm_norm_view_dist * o->adm_ref_display_height >= 3240.0,
               "nvd * rdh %g accepted", o->adm_norm_view_dist * o->adm_ref_display_height);
    FUZZ_CHECK(sp->kind == SQ_FEATURE_ADM ||
                   (o->adm_csf_mode == 0 && o->adm_ref_display_height == 1080 && o->adm_norm_view_dist == 3.0 &&
                    !o->adm_skip_aim && !o->adm_skip_scale0),
               "adm option set on another feature");
    /* vif (spec 4.1): its range, and its options on vif only */
    FUZZ_CHECK(o->vif_enhn_gain_limit >= 1.0 && o->vif_enhn_gain_limit <= 100.0, "vif egl %g",
               o->vif_enhn_gain_limit);
    FUZZ_CHECK(o->vif_skip_scale0 <= 1, "ssclz not 0/1");
    FUZZ_CHECK(sp->kind == SQ_FEATURE_VIF || (o->vif_enhn_gain_limit == 100.0 && !o->vif_skip_scale0),
               "vif option set on another feature");
}

static void parse_line(const char *line)
{
    SqFeatureSpec a, b;
    char err[512] = "", tiny[8] = "";
    memset(&a, 0xa5, sizeof a);
    memset(&b, 0x5a, sizeof b);
    int ra = sq_feature_parse(&a, line, err, sizeof err);
    int rb = sq_feature_parse(&b, line, tiny, sizeof tiny);
    FUZZ_CHECK(ra == rb, "parse of '%s' gave %d then %d", line, ra, rb);
    FUZZ_CHECK(memchr(tiny, '\0', sizeof tiny) != NULL, "tiny error buffer not terminated");
    if (ra < 0) {
        FUZZ_CHECK(ra == -EINVAL || ra == -ENOTSUP, "parse of '%s' returned %d", line, ra);
        FUZZ_CHECK(err[0] != '\0', "parse of '%s' failed without a message", line);
        return;
    }
    FUZZ_CHECK(ra == 0, "parse returned %d", ra);
    check_spec(&a, line);
    FUZZ_CHECK(a.kind == b.kind && memcmp(&a.opt, &b.opt, offsetof(SqOptions, prescale_method)) == 0 &&
               strcmp(a.opt.prescale_method, b.opt.prescale_method) == 0 &&
               a.opt.sigma_nn == b.opt.sigma_nn && a.opt.nn_floor == b.opt.nn_floor &&
               a.opt.max_val == b.opt.max_val && a.opt.weight_var_mode == b.opt.weight_var_mode &&
               a.opt.use_ref_diff == b.opt.use_ref_diff && strcmp(a.suffix, b.suffix) == 0,
               "parse of '%s' is not deterministic", line);
}

static void picture(SpeedqaPicture *p, int f, int side)
{
    memset(p, 0, sizeof *p);
    p->format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, 8 };
    p->data[0] = luma[f][side];
    p->data[1] = chroma[f][side][0];
    p->data[2] = chroma[f][side][1];
    p->stride[0] = W;
    p->stride[1] = p->stride[2] = W / 2;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    const char *lines[MAX_LINES + 1];
    int n = 0;
    for (char *s = text; n < MAX_LINES;) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        lines[n++] = s;
        if (!nl)
            break;
        s = nl + 1;
    }
    lines[n] = NULL;
    for (int i = 0; i < n; i++)
        parse_line(lines[i]);

    FuzzAlloc al = { 0 };
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, 8 };
    s.features = lines;
    s.alloc = fuzz_alloc;
    s.free = fuzz_free;
    s.alloc_opaque = &al;
    SpeedqaContext *ctx = (SpeedqaContext *)&al;
    int r = speedqa_open(&ctx, &s);
    if (r < 0) {
        FUZZ_CHECK(ctx == NULL, "failed open left *out set");
        FUZZ_CHECK(r == -EINVAL || r == -ENOTSUP || r == -EEXIST || r == -ENOMEM,
                   "open returned %d", r);
        FUZZ_CHECK(al.allocs == al.frees, "failed open leaked: %ld allocs, %ld frees", al.allocs, al.frees);
        free(text);
        return 0;
    }
    const int count = speedqa_score_count(ctx);
    FUZZ_CHECK(count >= 1 && count <= TEST_MAX_SCORES, "score count %d", count);
    int zero_at_0[TEST_MAX_SCORES] = { 0 };
    for (int i = 0; i < count; i++) {
        const char *name = speedqa_score_name(ctx, i);
        FUZZ_CHECK(name && *name, "score %d has no name", i);
        FUZZ_CHECK(strncmp(name, "speed_chroma_", 13) == 0 || strncmp(name, "speed_temporal", 14) == 0 ||
                   strncmp(name, "integer_motion", 14) == 0 || strncmp(name, "integer_adm2", 12) == 0 ||
                   strncmp(name, "integer_aim", 11) == 0 || strncmp(name, "integer_adm3", 12) == 0 ||
                   strncmp(name, "integer_adm_scale", 17) == 0 || strncmp(name, "cambi", 5) == 0 ||
                   strncmp(name, "integer_vif", 11) == 0 ||
                   strncmp(name, "VMAF_integer_feature_motion_sad_score", 37) == 0,
                   "score name '%s'", name);
        /* frame 0 has no previous frame: temporal SpEED and motion2 are 0
         * there (motion3 of frame 0 is a stamp of frame 1's SAD, spec 2.4) */
        zero_at_0[i] = strncmp(name, "speed_temporal", 14) == 0 || strncmp(name, "integer_motion2", 15) == 0;
        for (int j = 0; j < i; j++)
            FUZZ_CHECK(strcmp(name, speedqa_score_name(ctx, j)) != 0, "score name '%s' twice", name);
    }
    FUZZ_CHECK(speedqa_score_name(ctx, count) == NULL && speedqa_score_name(ctx, -1) == NULL,
               "out-of-range score name");
    /* a full queue answers -EAGAIN: receive, then send again; motion2 holds
     * a frame back until the next one (or the flush) arrives */
    TestScores sc[2];
    int got = 0;
    for (int f = 0; f < 2; f++) {
        SpeedqaPicture ref, dis;
        picture(&ref, f, 0);
        picture(&dis, f, 1);
        /* receive may answer -EAGAIN having taken motion's held frame out of
         * the queue: the retried send must then go in */
        int stalled = 0;
        while ((r = speedqa_send(ctx, &ref, &dis)) == -EAGAIN) {
            FUZZ_CHECK(got < 2 && stalled < 2, "send refused, receive makes no progress");
            r = test_receive(ctx, &sc[got], 1, SPEEDQA_RECEIVE_WAIT);
            FUZZ_CHECK(r == 0 || r == -EAGAIN, "receive after a full queue returned %d", r);
            got += r == 0;
            stalled += r != 0;
        }
        FUZZ_CHECK(r == 0, "send returned %d", r);
    }
    r = speedqa_flush(ctx);
    FUZZ_CHECK(r == 0, "flush returned %d", r);
    for (; got < 2; got++) {
        r = test_receive(ctx, &sc[got], 1, 0);
        FUZZ_CHECK(r == 0, "receive returned %d", r);
    }
    for (int f = 0; f < 2; f++) {
        FUZZ_CHECK(sc[f].frame == (unsigned)f && sc[f].count == count, "frame %u count %d", sc[f].frame,
                   sc[f].count);
        for (int i = 0; i < count; i++) {
            FUZZ_CHECK(isfinite(sc[f].values[i]), "frame %d score %s = %g for '%s'", f,
                       speedqa_score_name(ctx, i), sc[f].values[i], text);
            FUZZ_CHECK(f || !zero_at_0[i] || sc[f].values[i] == 0.0, "frame 0 %s = %g",
                       speedqa_score_name(ctx, i), sc[f].values[i]);
        }
    }
    FUZZ_CHECK(test_receive(ctx, &sc[0], 1, 0) == SPEEDQA_EOF, "no end of stream after the flush");
    speedqa_close(&ctx);
    FUZZ_CHECK(ctx == NULL, "close did not clear the pointer");
    FUZZ_CHECK(al.allocs == al.frees, "leak: %ld allocs, %ld frees", al.allocs, al.frees);
    free(text);
    return 0;
}
