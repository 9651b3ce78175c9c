/*
 * The soft-double core (soft_core.c) against the hardware-double core:
 * log2 over the whole double range, the pooling terms of every
 * speed_weight_var_mode, the chroma mean and est_params (covariance,
 * eigenvalues, solve, entropies) on random and singular textures.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/est.h"
#include "math/log2.h"
#include "math/score.h"
#include "soft_core.h"

static uint64_t rng = 0xbb67ae8584caa73bull;

static uint64_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static float rndf(float lo, float hi)
{
    return lo + (hi - lo) * (float)(rnd() >> 40) / 16777216.0f;
}

static int same_f(float a, float b) { return !memcmp(&a, &b, 4); }

static int check_log2(long count)
{
    long bad = 0;
    for (long i = 0; i < count; i++) {
        uint64_t x = rnd();
        if (i % 3 == 0) /* positive, the entropies' range */
            x &= 0x7fffffffffffffffull;
        if (i % 3 == 1) /* 1 + a float, the pooling's range */
            x = sq_f64_bits(1.0 + (double)rndf(0.0f, 1e4f));
        const uint64_t want = sq_f64_bits(sq_log2(sq_bits_f64(x))), got = soft_log2(x);
        if (got != want && !bad++)
            printf("     log2(%016llx): soft %016llx, hardware %016llx\n", (unsigned long long)x,
                   (unsigned long long)got, (unsigned long long)want);
    }
    printf("%s core log2 %11ld cases%s\n", bad ? "FAIL" : "ok  ", count, bad ? " differ" : "");
    return bad != 0;
}

static int check_pool(long count)
{
    long bad = 0;
    for (long i = 0; i < count; i++) {
        const float snn = rndf(0.01f, 2.0f), fl = rndf(0.0f, 0.5f);
        const int n = 1 + (int)(rnd() % 49), wvm = (int)(rnd() % 7);
        const float er = rndf(-50.0f, 400.0f), ed = rndf(-50.0f, 400.0f);
        const float sr = (i & 8) ? 0.0f : rndf(0.0f, 5000.0f), sd = rndf(0.0f, 5000.0f);
        const float base = sq_pool_base(n, snn, fl);
        bad += !same_f(base, soft_pool_base(n, snn, fl));
        bad += !same_f(sq_pool_term(er, sr, ed, sd, base, wvm), soft_pool_term(er, sr, ed, sd, base, wvm));
        bad += !same_f(sq_chroma_uv(er, 0, ed, 0), soft_chroma_uv(er, ed));
    }
    printf("%s core pool_base/pool_term/chroma_uv %ld cases%s\n", bad ? "FAIL" : "ok  ", count,
           bad ? " differ" : "");
    return bad != 0;
}

static int check_est(int cases)
{
    int bad = 0;
    for (int c = 0; c < cases; c++) {
        const int b = c % 3 == 0 ? 5 : 3, w = 2 * b + 1 + (int)(rnd() % 40),
                  h = 2 * b + 1 + (int)(rnd() % 30);
        float *img = malloc(sizeof(float) * (size_t)(w * h));
        SqDims d;
        sq_dims_est(&d, w, h, b);
        const size_t nb = (size_t)d.nb ? (size_t)d.nb : 1;
        float *e = calloc(nb, 4), *s = calloc(nb, 4), *e2 = calloc(nb, 4), *s2 = calloc(nb, 4);
        double *wsd = calloc((size_t)sq_est_ws_doubles(&d), 8);
        float *wsf = calloc((size_t)sq_est_ws_floats(&d), 4);
        if (!img || !e || !s || !e2 || !s2 || !wsd || !wsf) {
            printf("FAIL out of memory\n");
            exit(1);
        }
        const float amp = c % 7 == 3 ? 0.0f : rndf(0.01f, 300.0f); /* flat: singular */
        for (int i = 0; i < w * h; i++)
            img[i] = c % 5 == 1 ? (float)(int)rndf(-3.0f, 3.0f) : rndf(-amp, amp);
        const float snn = rndf(0.05f, 1.0f);
        const int f1 = sq_est_params(img, w, &d, snn, wsd, wsf, e, s);
        const int f2 = soft_est_params(img, w, h, b, snn, e2, s2);
        if (f1 != f2 || memcmp(e, e2, nb * 4) || memcmp(s, s2, nb * 4)) {
            if (!bad)
                printf("     est_params %dx%d b=%d: flags %d / %d, values differ\n", w, h, b, f1, f2);
            bad++;
        }
        free(img); free(e); free(s); free(e2); free(s2); free(wsd); free(wsf);
    }
    printf("%s core est_params %d textures (random, integer-valued, flat)%s\n", bad ? "FAIL" : "ok  ",
           cases, bad ? " differ" : "");
    return bad != 0;
}

int soft_core_check(long count)
{
    return check_log2(count) + check_pool(count) + check_est(count > 200000 ? 400 : 120);
}
