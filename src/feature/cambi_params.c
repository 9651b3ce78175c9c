/* CAMBI's host side (spec vmaf-cambi-and-prediction A.1-A.3): options to SqVcParams. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/cambi_params.h"
#include "math/vmaf_cambi_scale.h"

SqCambiOpts sq_cambi_opts_default(void)
{
    const SqCambiOpts o = { 1000.0, 0.6, 0.6, 0.019, 0.0, 65, 2, 0, 0 };
    return o;
}

SqCambiOpts sq_cambi_opts(const SqOptions *o)
{
    SqCambiOpts c = sq_cambi_opts_default();
    c.max_val = o->cambi_max_val;
    c.topk = o->topk;
    c.cambi_topk = o->cambi_topk;
    c.tvi = o->tvi_threshold;
    c.vlt = o->cambi_vis_lum_threshold;
    c.window_size = o->window_size;
    c.mlc = o->max_log_contrast;
    c.hrs = o->cambi_high_res_speedup;
    c.pq = !strcmp(strcmp(o->cambi_eotf, "bt1886") ? o->cambi_eotf : o->eotf, "pq");
    return c;
}

int sq_cambi_refused(const char *name, char *err, size_t errlen)
{
    static const char *const what[][2] = {
        { "enc_width", "resampling to an encode size" },
        { "enc_height", "resampling to an encode size" },
        { "enc_bitdepth", "an encode bit depth" },
        { "src_width", "the full-reference mode" },
        { "src_height", "the full-reference mode" },
        { "full_ref", "the full-reference mode" },
        { "heatmaps_path", "writing heatmaps" },
    };
    for (size_t i = 0; i < sizeof what / sizeof what[0]; i++)
        if (!strcmp(name, what[i][0])) {
            snprintf(err, errlen, "cambi: option %s is not supported (%s is not implemented)",
                     name, what[i][1]);
            return -EINVAL;
        }
    return 0;
}

/* Luminance of a 10-bit code (A.3), BT.1886 or PQ. */
static double lum(int s, int pq)
{
    const int c = s < 64 ? 64 : s > 940 ? 940 : s;
    const double v = (c - 64) / 876.0;
    if (pq) {
        const double m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625,
                     c3 = 18.6875;
        const double p = pow(v, 1.0 / m2);
        const double num = p - c1 > 0.0 ? p - c1 : 0.0;
        const double den = c2 - c3 * pow(v, 1.0 / m2);
        return 10000.0 * pow(num / den, 1.0 / m1);
    }
    const double gamma = 2.4, lw = 300.0, lb = 0.01;
    const double a = pow(pow(lw, 1.0 / gamma) - pow(lb, 1.0 / gamma), gamma);
    const double b = pow(lb, 1.0 / gamma) / (pow(lw, 1.0 / gamma) - pow(lb, 1.0 / gamma));
    const double x = v + b > 0.0 ? v + b : 0.0;
    return a * pow(x, gamma);
}

static void cambi_levels(const SqCambiOpts *o, SqVcParams *p);

int sq_cambi_check_options(const SqOptions *o, char *err, size_t errlen)
{
    const char *const eotf[2] = { o->eotf, o->cambi_eotf };
    const char *const name[2] = { "eotf", "cambi_eotf" };
    for (int i = 0; i < 2; i++)
        if (strcmp(eotf[i], "bt1886") && strcmp(eotf[i], "pq")) {
            snprintf(err, errlen, "cambi: %s '%s' is not bt1886 or pq", name[i], eotf[i]);
            return -EINVAL;
        }
    const SqCambiOpts c = sq_cambi_opts(o);
    if (lum(940, c.pq) < c.vlt) {
        snprintf(err, errlen, "cambi: cambi_vis_lum_threshold %g is above the %s peak of %.6g "
                 "(libvmaf's init never ends)", c.vlt, c.pq ? "pq" : "bt1886", lum(940, c.pq));
        return -EINVAL;
    }
    /* A.6.3's band of values a c-value can read, empty: libvmaf's histogram
     * rows then run backwards and its loops read and write outside them
     * (a crash, or a number, by content) */
    SqVcParams p;
    memset(&p, 0, sizeof p);
    cambi_levels(&c, &p);
    int lo, hi;
    sq_vc_band(&p, &lo, &hi);
    if (lo > hi) {
        snprintf(err, errlen, "cambi: cambi_vis_lum_threshold %g (code %d) leaves no value a "
                 "contrast can count at max_log_contrast %d (values %d..%d: libvmaf reads "
                 "outside its histograms)", c.vlt, p.vlt_luma, c.mlc, lo, hi);
        return -EINVAL;
    }
    return 0;
}

static int cond(int s, int k, double t, int pq)
{
    const double l = lum(s, pq), d = lum(s + k, pq) - l;
    return d > t * l;
}

enum { TOO_SMALL, CORRECT, TOO_BIG };

static int flag(int s, int k, double t, int pq)
{
    if (!cond(s, k, t, pq))
        return TOO_BIG;
    return cond(s + 1, k, t, pq) ? TOO_SMALL : CORRECT;
}

/* T(k) of A.3's bisection. */
static int tvi_raw(int k, double t, int pq)
{
    int foot = 64, head = 940 - k - 1;
    int f = flag(foot, k, t, pq);
    if (f == TOO_BIG)
        return 0;
    if (f == CORRECT)
        return foot;
    f = flag(head, k, t, pq);
    if (f == TOO_SMALL)
        return 1023;
    if (f == CORRECT)
        return head;
    for (;;) {
        const int mid = foot + (head - foot) / 2;
        f = flag(mid, k, t, pq);
        if (f == TOO_BIG)
            head = mid;
        else if (f == TOO_SMALL)
            foot = mid;
        else
            return mid;
    }
}

static int hrs_effective(int hrs, int w, int h)
{
    const long a = (long)w * h;
    return (hrs == 1080 && a >= 1920L * 1080) || (hrs == 1440 && a >= 2560L * 1440) ||
           (hrs == 2160 && a >= 3840L * 2160);
}

/* nd, the thresholds, the weights and vlt_luma (A.3): the options' alone. */
static void cambi_levels(const SqCambiOpts *o, SqVcParams *p)
{
    static const int cw[32] = { 1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
                                8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9 };
    p->nd = 1 << o->mlc;
    for (int d = 0; d < p->nd; d++) {
        p->tvi[d] = tvi_raw(d + 1, o->tvi, o->pq) + p->nd;
        p->weight[d] = cw[d];
    }
    int s = 64;
    while (lum(s, o->pq) < o->vlt)
        s++;
    p->vlt_luma = s == 64 ? 0 : s;
}

int sq_cambi_params(const SqCambiOpts *o, int w, int h, int bpc, SqVcParams *p)
{
    memset(p, 0, sizeof *p);
    if (w < 216 && h < 216)
        return -1;
    p->w = w;
    p->h = h;
    p->bpc = bpc;
    p->anti_dither = bpc < 10;
    p->hrs = hrs_effective(o->hrs, w, h);
    unsigned ws = (unsigned)o->window_size;
    ws = ((ws * (unsigned)(w + h)) / 375) >> 4;
    if (p->hrs)
        ws = (ws + 1) >> 1;
    ws |= 1;
    if (ws * ws >= SQ_VC_RECIP_N)
        return -3;
    p->ws = (int)ws;
    const double topk = o->topk != 0.6 ? o->topk : o->cambi_topk;
    cambi_levels(o, p);
    for (int k = 0; k < SQ_VC_SCALES; k++) {
        int sw, sh;
        sq_vc_scale_dims(p, k, &sw, &sh);
        const int n = sw * sh;
        int K = (int)(topk * n);
        p->K[k] = K < 1 ? 1 : K > n ? n : K;
        /* A.6.3: no specified result when the window's half exceeds a scale */
        if (sh < p->ws / 2 + 1 || sw < p->ws / 2)
            return -2;
    }
    p->max_val = o->max_val;
    return 0;
}

void sq_cambi_recip(float *r)
{
    char buf[64];
    r[0] = 0.0f;
    for (int n = 1; n < SQ_VC_RECIP_N; n++) {
        snprintf(buf, sizeof buf, "%.9g", 1.0 / n);
        r[n] = strtof(buf, NULL);
    }
}
