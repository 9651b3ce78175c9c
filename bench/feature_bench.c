/*
 * feature_bench: ms per frame of one library feature (any feature string,
 * e.g. adm, motion, vif or cambi, which the CLI's --feature leaves to libvmaf) on a
 * pair held in memory (any input the CLI reads), through the API: pictures lent, every score
 * received before the next send on one thread (frames in flight with more).
 *
 *   feature_bench REF.y4m DIS.y4m [--feature STR] [--threads N] [--reps R]
 *
 * Prints the best of R passes over all frames with every CPU level the
 * machine has and, alternating with them in the same run, with the C code
 * alone (cpu_mask 0), and their ratio. Compare with libvmaf's own tool on
 * the same pair (bench/README.md: vmaf -n --feature adm --threads 1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

/* One pass over the clip; seconds, or a negative errno. */
static double pass(const BenchClip *r, const BenchClip *d, const char *feat, int threads, unsigned mask)
{
    SpeedqaSettings st;
    speedqa_default_settings(&st);
    const char *feats[] = { feat, NULL };
    st.features = feats;
    st.format = r->format;
    st.n_threads = threads;
    st.backend = SPEEDQA_BACKEND_CPU;
    st.cpu_mask = mask;
    SpeedqaContext *c;
    int ret = speedqa_open(&c, &st);
    if (ret < 0)
        return ret;
    SpeedqaScores sc;
    const double t0 = bench_now();
    for (int i = 0; i < r->n && ret >= 0; i++) {
        SpeedqaPicture pr, pd;
        bench_clip_picture(r, i, &pr);
        bench_clip_picture(d, i, &pd);
        while ((ret = speedqa_send(c, &pr, &pd)) == -EAGAIN)
            if ((ret = speedqa_receive(c, &sc, 1, SPEEDQA_RECEIVE_WAIT)) < 0 && ret != -EAGAIN)
                break;
        while (ret >= 0 && (ret = speedqa_receive(c, &sc, 1, 0)) == 0)
            ;
        if (ret == -EAGAIN)
            ret = 0;
    }
    if (ret >= 0)
        ret = speedqa_flush(c);
    while (ret >= 0 && (ret = speedqa_receive(c, &sc, 1, 0)) == 0)
        ;
    const double t = bench_now() - t0;
    speedqa_close(&c);
    return ret == SPEEDQA_EOF ? t : ret < 0 ? ret : t;
}

int main(int argc, char **argv)
{
    const char *feat = "adm";
    int threads = 1, reps = 3;
    if (argc < 3) {
        fprintf(stderr, "usage: feature_bench REF.y4m DIS.y4m [--feature STR] [--threads N] [--reps R]\n");
        return 2;
    }
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--feature"))
            feat = argv[i + 1];
        else if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
    }
    BenchClip r, d;
    if (bench_clip_load(&r, argv[1], 0) < 0)
        return 1;
    if (bench_clip_load(&d, argv[2], r.n) < 0) {
        bench_clip_free(&r);
        return 1;
    }
    if (memcmp(&r.format, &d.format, sizeof r.format)) {
        fprintf(stderr, "%s and %s differ in size or format\n", argv[1], argv[2]);
        bench_clip_free(&r);
        bench_clip_free(&d);
        return 1;
    }
    if (d.n < r.n)
        r.n = d.n;
    double best[2] = { 1e30, 1e30 }; /* all levels, C only */
    for (int k = 0; k < reps; k++)
        for (int m = 0; m < 2; m++) {
            const double t = pass(&r, &d, feat, threads, m ? 0u : ~0u);
            if (t < 0) {
                fprintf(stderr, "%s: %s\n", feat, speedqa_strerror((int)t));
                return 1;
            }
            best[m] = t < best[m] ? t : best[m];
        }
    printf("%s: %dx%d %d-bit, %d frames, %d thread(s), best of %d: %.2f ms/frame, C only %.2f "
           "(x%.2f)\n", feat, r.format.width, r.format.height, r.format.bpc, r.n, threads, reps, 1e3 * best[0] / r.n,
           1e3 * best[1] / r.n, best[1] / best[0]);
    bench_clip_free(&r);
    bench_clip_free(&d);
    return 0;
}
