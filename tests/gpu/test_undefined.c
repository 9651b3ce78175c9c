/*
 * A chroma score that is NaN before the speed_max_val clip (in-range 8-bit
 * input: case random-106 of test_gpu_parity's seed 515151 at 3840x2160,
 * frame 2) is published as speed_max_val, the number libvmaf publishes,
 * with its bit set in TestScores.undefined; a score that is merely
 * clipped (speed_chroma_v there) is not flagged. CPU, and OpenCL when a
 * device exists, through the public API.
 *
 *   test_undefined [opencl]
 *   test_undefined --y4m DIR   writes the case as DIR/ref.y4m, DIR/dis.y4m and
 *                              its --feature arguments to DIR/features.txt, for
 *                              the CLI's test of its warning (tests/cli)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cases.h"
#include "common/util.h"
#include "runner.h"

/* The generator state of seed 515151 after cases 0..105 (3840x2160): replaying
 * those 105 cases takes seconds, this starts at case 106 directly. */
#define RNG_AT_106 0xb80b343d905dac62ull

/* The case's pictures as a Y4M file (tight 8-bit 4:2:0 planes, any stride sign). */
static int write_y4m(const char *path, const Case *c, const SpeedqaPicture *pics)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fprintf(f, "YUV4MPEG2 W%d H%d F25:1 Ip C420jpeg\n", c->fmt.width, c->fmt.height);
    for (int t = 0; t < c->nframes; t++) {
        fputs("FRAME\n", f);
        for (int p = 0; p < 3; p++) {
            const int w = p ? c->fmt.width >> 1 : c->fmt.width, h = p ? c->fmt.height >> 1 : c->fmt.height;
            for (int y = 0; y < h; y++)
                fwrite((const unsigned char *)pics[t].data[p] + (ptrdiff_t)y * pics[t].stride[p], 1,
                       (size_t)w, f);
        }
    }
    return fclose(f) == 0 ? 0 : -1;
}

static int dump(const Case *c, const char *dir)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/ref.y4m", dir);
    if (write_y4m(path, c, c->ref) < 0)
        return 1;
    snprintf(path, sizeof(path), "%s/dis.y4m", dir);
    if (write_y4m(path, c, c->dis) < 0)
        return 1;
    snprintf(path, sizeof(path), "%s/features.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    for (int i = 0; i < c->nfeat; i++)
        fprintf(f, "%s\n", c->feat[i]);
    return fclose(f) == 0 ? 0 : 1;
}

static int run(const Case *c, SpeedqaBackend be, double v[][TEST_MAX_SCORES], uint64_t *undef,
               int *count)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = c->fmt;
    s.features = c->featp;
    s.backend = be;
    SpeedqaContext *ctx;
    int ret = speedqa_open(&ctx, &s);
    if (ret < 0)
        return ret;
    *count = speedqa_score_count(ctx);
    TestScores sc;
    for (int t = 0; t < c->nframes && ret == 0; t++) {
        if (c->new_seq[t])
            speedqa_flush(ctx);
        ret = speedqa_send(ctx, &c->ref[t], &c->dis[t]);
        if (t + 1 == c->nframes)
            speedqa_flush(ctx);
        while (ret == 0 && test_receive(ctx, &sc, 1, 0) == 0) {
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
    if (argc == 3 && !strcmp(argv[1], "--y4m")) {
        /* odd sizes would need ceil-sized chroma rows in the file */
        const int r = c.fmt.fmt == SPEEDQA_PIX_420 && !(c.fmt.width & 1) && !(c.fmt.height & 1)
                      ? dump(&c, argv[2]) : 1;
        case_free(&c);
        return r;
    }
    double v[CASE_MAX_FRAMES][TEST_MAX_SCORES];
    uint64_t undef[CASE_MAX_FRAMES];
    int n = 0;
    if (run(&c, SPEEDQA_BACKEND_CPU, v, undef, &n) < 0 || n != 7) {
        printf("FAIL: cpu run\n");
        return 1;
    }
    /* scores: temporal, chroma (ps 0.75) u v uv, chroma (ks 1.54) u v uv */
    for (int t = 0; t < c.nframes; t++) {
        printf("frame %d undefined %#llx:", t, (unsigned long long)undef[t]);
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
        double g[CASE_MAX_FRAMES][TEST_MAX_SCORES];
        uint64_t gu[CASE_MAX_FRAMES];
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
