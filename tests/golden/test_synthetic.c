/*
 * The 95 synthetic golden cases (spec 6.4): inputs from gen_synth.c,
 * expected values from Netflix libvmaf at full precision. Every frame of
 * every case must be within 1e-6.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/json.h"
#include "common/synth.h"
#include "common/util.h"

static int run_case(const char *dir, const JVal *ds, const JVal *c, Tally *t, int threads)
{
    const SpeedqaFormat fmt = synth_format(ds);
    const int nframes = (int)json_get(ds, "n")->num;
    char feat[512], rp[1024], dp[1024];
    feature_string(feat, sizeof(feat), json_get(c, "extractor")->str, json_get(c, "options"));
    snprintf(rp, sizeof(rp), "%s/%s", dir, json_get(ds, "ref")->str);
    snprintf(dp, sizeof(dp), "%s/%s", dir, json_get(ds, "dis")->str);

    LogCapture log = { 0 };
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = fmt;
    s.n_threads = threads;
    const char *feats[] = { feat, NULL };
    s.features = feats;
    s.logger = log_capture;
    s.log_cookie = &log;
    SpeedqaContext *ctx;
    if (speedqa_open(&ctx, &s) < 0) {
        printf("FAIL %s: open failed: %s\n", feat, log.last);
        return 1;
    }
    FILE *fr = fopen(rp, "rb"), *fd = fopen(dp, "rb");
    size_t fs = raw_frame_size(&fmt);
    unsigned char *br = malloc(fs), *bd = malloc(fs);
    const JVal *pf = json_get(c, "per_frame");
    int fails = 0;
    double worst = 0;
    TestScores *res = calloc((size_t)nframes, sizeof(*res));
    int got_n = 0;
    for (int i = 0; i < nframes && res; i++) {
        SpeedqaPicture pr, pd;
        if (!fr || !fd || !br || !bd || read_raw_frame(fr, &fmt, br, &pr) ||
            read_raw_frame(fd, &fmt, bd, &pd)) {
            printf("FAIL %s: frame %d could not be read\n", feat, i);
            fails++;
            break;
        }
        int ret;
        while ((ret = speedqa_send(ctx, &pr, &pd)) == SPEEDQA_ERR(EAGAIN))
            if (test_receive(ctx, &res[got_n], 1, 0) == 0) got_n++;
        if (ret < 0) {
            printf("FAIL %s: send frame %d: %s\n", feat, i, speedqa_strerror(ret));
            fails++;
            break;
        }
        while (got_n < nframes && test_receive(ctx, &res[got_n], 1, 0) == 0) got_n++;
    }
    speedqa_flush(ctx);
    while (res && got_n < nframes && test_receive(ctx, &res[got_n], 1, 0) == 0) got_n++;
    if (!fails && got_n != nframes) {
        printf("FAIL %s: %d of %d frames scored\n", feat, got_n, nframes);
        fails++;
    }
    for (int i = 0; i < got_n && !fails; i++) {
        if (res[i].frame != (unsigned)i) {
            printf("FAIL %s: frame %u out of order at %d\n", feat, res[i].frame, i);
            fails++;
        }
        for (int k = 0; k < pf->n; k++) {
            int idx = -1;
            for (int j = 0; j < speedqa_score_count(ctx); j++)
                if (!strcmp(speedqa_score_name(ctx, j), pf->keys[k])) idx = j;
            if (idx < 0) {
                printf("FAIL %s: no output named %s\n", feat, pf->keys[k]);
                fails++;
                continue;
            }
            const double want = pf->items[k].items[i].num, got = res[i].values[idx];
            const long over = t->over;
            tally_add(t, got, want, 1e-6);
            double d = got > want ? got - want : want - got;
            if (d > worst) worst = d;
            if (t->over != over) {
                printf("FAIL %s frame %d %s: got %.9g want %.9g\n", feat, i, pf->keys[k], got, want);
                fails++;
            }
        }
    }
    free(res);
    if (!fails)
        printf("ok   %-36s %-10s worst %.2g\n", feat, json_get(c, "dataset")->str, worst);
    if (fr) fclose(fr);
    if (fd) fclose(fd);
    free(br);
    free(bd);
    speedqa_close(&ctx);
    return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s GOLDEN_DIR WORK_DIR [THREADS]\n", argv[0]);
        return 2;
    }
    char path[1024];
    snprintf(path, sizeof(path), "%s/synthetic/synthetic_golden.json", argv[1]);
    JVal *g = json_load(path);
    if (!g) return 1;
    const JVal *datasets = json_get(g, "datasets"), *cases = json_get(g, "cases");
    if (synth_generate_all(datasets, argv[2]) < 0)
        return 1;
    const int threads = argc > 3 ? atoi(argv[3]) : 1;
    Tally t = { threads > 1 ? "synthetic (threads)" : "synthetic", 0, 0, 0, 0 };
    int fails = 0;
    for (int i = 0; i < cases->n; i++) {
        const JVal *c = &cases->items[i];
        fails += run_case(argv[2], json_get(datasets, json_get(c, "dataset")->str), c, &t, threads);
    }
    tally_print(&t);
    printf("%d cases, %d failed\n", cases->n, fails);
    if (!fails)
        synth_remove_all(datasets, argv[2]);
    json_free(g);
    return fails ? 1 : 0;
}
