/*
 * Netflix's C unit vectors for the estimator (spec 6.1): est_params with
 * block size 3, eigenvalues of 5x5/9x9/25x25 matrices, get_speed_score.
 * Netflix's tolerance is 1e-4; the worst |delta| per group is printed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "math/est.h"

static const char *dir;

static float *load(const char *name, int *count)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/unit/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("FAIL cannot open %s\n", path);
        return NULL;
    }
    int cap = 1024, n = 0;
    float *v = malloc(sizeof(float) * cap);
    double x;
    while (v && fscanf(f, "%lf", &x) == 1) {
        if (n == cap) {
            float *t = realloc(v, sizeof(float) * (cap *= 2));
            if (!t) { free(v); v = NULL; break; }
            v = t;
        }
        v[n++] = (float)x;
    }
    fclose(f);
    *count = n;
    return v;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int est_case(const char *stem, int w, int h, Tally *te, Tally *tv)
{
    char name[128];
    int n_in, n_e, n_v, fails = 0;
    snprintf(name, sizeof(name), "%s_input.txt", stem);
    float *img = load(name, &n_in);
    snprintf(name, sizeof(name), "%s_expected_entropy.txt", stem);
    float *we = load(name, &n_e);
    snprintf(name, sizeof(name), "%s_expected_variance.txt", stem);
    float *wv = load(name, &n_v);
    SqDims d;
    sq_dims_est(&d, w, h, 3);
    if (!img || !we || !wv || n_in != w * h || n_e != d.nb || n_v != d.nb) {
        printf("FAIL %s: inputs missing or sized wrongly\n", stem);
        fails = 1;
        goto out;
    }
    double *wsd = calloc((size_t)sq_est_ws_doubles(&d), sizeof(double));
    float *wsf = calloc((size_t)sq_est_ws_floats(&d), sizeof(float));
    float *e = calloc((size_t)d.nb, sizeof(float)), *s = calloc((size_t)d.nb, sizeof(float));
    int flags = sq_est_params(img, w, &d, 0.1f, wsd, wsf, e, s);
    if (flags & SQ_EST_SINGULAR) {
        printf("FAIL %s: reported singular\n", stem);
        fails = 1;
    }
    for (int m = 0; m < d.nb; m++) {
        long oe = te->over, ov = tv->over;
        tally_add(te, e[m], we[m], 1e-4);
        tally_add(tv, s[m], wv[m], 1e-4);
        if (te->over != oe || tv->over != ov) {
            printf("FAIL %s block %d: E %.7g want %.7g, S %.7g want %.7g\n", stem, m, e[m], we[m], s[m], wv[m]);
            fails = 1;
        }
    }
    printf("%s %s: %d blocks\n", fails ? "FAIL" : "ok  ", stem, d.nb);
    free(wsd); free(wsf); free(e); free(s);
out:
    free(img); free(we); free(wv);
    return fails;
}

static int eig_case(int n, Tally *t)
{
    char name[128];
    int n_in, n_w, fails = 0;
    snprintf(name, sizeof(name), "eigenvalues_%dx%d_input.txt", n, n);
    float *k = load(name, &n_in);
    snprintf(name, sizeof(name), "eigenvalues_%dx%d_expected.txt", n, n);
    float *want = load(name, &n_w);
    float *ws = calloc((size_t)sq_eigen_ws_floats(n), sizeof(float)), lambda[25];
    if (!k || !want || !ws || n_in != n * n || n_w != n) {
        printf("FAIL eigenvalues %dx%d: inputs missing\n", n, n);
        fails = 1;
        goto out;
    }
    if (sq_eigenvalues(k, n, lambda, ws) < 0) {
        printf("FAIL eigenvalues %dx%d: iteration cap hit\n", n, n);
        fails = 1;
    }
    qsort(lambda, (size_t)n, sizeof(float), cmp_float);
    for (int i = 0; i < n; i++) {
        long o = t->over;
        tally_add(t, lambda[i], want[i], 1e-4);
        if (t->over != o) {
            printf("FAIL eigenvalue %d of %dx%d: %.7g want %.7g\n", i, n, n, lambda[i], want[i]);
            fails = 1;
        }
    }
    printf("%s eigenvalues %dx%d\n", fails ? "FAIL" : "ok  ", n, n);
out:
    free(k); free(want); free(ws);
    return fails;
}

static int score_case(Tally *t)
{
    int n[4], fails = 0;
    float *er = load("get_speed_score_entropy_ref.txt", &n[0]);
    float *sr = load("get_speed_score_variance_ref.txt", &n[1]);
    float *ed = load("get_speed_score_entropy_dis.txt", &n[2]);
    float *sd = load("get_speed_score_variance_dis.txt", &n[3]);
    if (!er || !sr || !ed || !sd || n[0] != 1296 || n[1] != 1296 || n[2] != 1296 || n[3] != 1296) {
        printf("FAIL get_speed_score: inputs missing\n");
        fails = 1;
    } else {
        float score = sq_pool(er, sr, ed, sd, 9, 1296, 0.0f, 0.0f, 0);
        long o = t->over;
        tally_add(t, score, 6.773138, 1e-4);
        fails = t->over != o;
        printf("%s get_speed_score: %.7g want 6.773138\n", fails ? "FAIL" : "ok  ", score);
    }
    free(er); free(sr); free(ed); free(sd);
    return fails;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s GOLDEN_DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    Tally te = { .group = "unit est_params entropy" }, tv = { .group = "unit est_params variance" };
    Tally tl = { .group = "unit eigenvalues" }, ts = { .group = "unit get_speed_score" };
    int fails = est_case("est_params_13x9", 13, 9, &te, &tv) + est_case("est_params_20x10", 20, 10, &te, &tv) +
                est_case("est_params_288x162", 288, 162, &te, &tv) + eig_case(5, &tl) + eig_case(9, &tl) +
                eig_case(25, &tl) + score_case(&ts);
    tally_print(&te);
    tally_print(&tv);
    tally_print(&tl);
    tally_print(&ts);
    return fails ? 1 : 0;
}
