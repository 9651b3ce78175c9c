/*
 * A chroma score that is NaN before the speed_max_val clip (in-range 8-bit
 * input: case random-106 of test_gpu_parity's seed 515151 at 3840x2160,
 * frame 2) is published as speed_max_val, the number libvmaf publishes,
 * with its bit set in SpeedqaScores.undefined; a score that is merely
 * clipped (speed_chroma_v there) is not flagged. CPU, and OpenCL when a
 * device exists, through the public API.
 *
 *   test_undefined [opencl]
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cases.h"
#include "runner.h"

/* The generator state of seed 515151 after cases 0..105 (3840x2160): replaying
 * those 105 cases takes seconds, this starts at case 106 directly. */
#define RNG_AT_106 0xb80b343d905dac62ull

static int run(const Case *c, SpeedqaBackend be, double v[][SPEEDQA_MAX_SCORES], uint32_t *undef,
               int *count)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.ref = s.dis = c->fmt;
    s.features = c->featp;
    s.backend = be;
    SpeedqaContext *ctx;
    int ret = speedqa_open(&ctx, &s);
    if (ret < 0)
        return ret;
    *count = speedqa_score_count(ctx);
    SpeedqaScores sc;
    for (int t = 0; t < c->nframes && ret == 0; t++) {
        if (c->new_seq[t])
            speedqa_flush(ctx);
        ret = speedqa_send(ctx, &c->ref[t], &c->dis[t]);
        if (t + 1 == c->nframes)
            speedqa_flush(ctx);
        while (ret == 0 && speedqa_receive(ctx, &sc) == 0) {
            memcpy(v[sc.frame], sc.values, sizeof(double) * (size_t)sc.count);
            undef[sc.frame] = sc.undefined;
        }
    }
    speedqa_close(&ctx);
    return ret;
}

int main(int argc, char **argv)
{
    uint64_t rng = RNG_AT_106;
    Case c;
    char desc[1200];
    int fails = 0;
    if (case_random(&c, &rng, 106, 3840, 2160) < 0)
        return 1;
    case_describe(&c, desc, sizeof(desc));
    printf("%s\n", desc);
    if (strncmp(desc, "random-106 224x1428 420 8-bit 4 fr [speed_temporal=speed_prescale=0.9227", 70)) {
        printf("FAIL: not the documented case (the generator changed)\n");
        return 1;
    }
    double v[CASE_MAX_FRAMES][SPEEDQA_MAX_SCORES];
    uint32_t undef[CASE_MAX_FRAMES];
    int n = 0;
    if (run(&c, SPEEDQA_BACKEND_CPU, v, undef, &n) < 0 || n != 7) {
        printf("FAIL: cpu run\n");
        return 1;
    }
    /* scores: temporal, chroma (ps 0.75) u v uv, chroma (ks 1.54) u v uv */
    for (int t = 0; t < c.nframes; t++) {
        printf("frame %d undefined %#x:", t, undef[t]);
        for (int k = 0; k < n; k++) {
            printf(" %.9g", v[t][k]);
            if (!isfinite(v[t][k])) {
                printf(" (not finite!)");
                fails++;
            }
        }
        printf("\n");
    }
    const int ok2 = v[2][1] == 1000.0 && v[2][3] == 1000.0 && v[2][2] == 1000.0 &&
                    undef[2] == ((1u << 1) | (1u << 3));
    printf("%s frame 2: u and uv undefined, published 1000 and flagged; v clipped to 1000, not flagged\n",
           ok2 ? "ok  " : "FAIL");
    fails += !ok2;
    const int ok0 = undef[0] == 0 && undef[1] == 0 && undef[3] == 0;
    printf("%s frames 0, 1, 3: nothing undefined\n", ok0 ? "ok  " : "FAIL");
    fails += !ok0;
    for (int i = 1; i < argc; i++) {
        const int be = runner_api_backend(argv[i]);
        char list[512];
        if (be < 0 || speedqa_list_devices((SpeedqaBackend)be, list, sizeof(list)) <= 0) {
            printf("skip %s: no device\n", argv[i]);
            continue;
        }
        double g[CASE_MAX_FRAMES][SPEEDQA_MAX_SCORES];
        uint32_t gu[CASE_MAX_FRAMES];
        int gn = 0;
        int ok = run(&c, (SpeedqaBackend)be, g, gu, &gn) == 0 && gn == n;
        for (int t = 0; ok && t < c.nframes; t++)
            ok = gu[t] == undef[t] && !memcmp(g[t], v[t], sizeof(double) * (size_t)n);
        printf("%s %s: the same values and undefined bits\n", ok ? "ok  " : "FAIL", argv[i]);
        fails += !ok;
    }
    case_free(&c);
    printf("%d failed\n", fails);
    return fails ? 1 : 0;
}
