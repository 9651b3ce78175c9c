#include <math.h>

#include "feature/taps.h"

int sq_window_size(int scale, double kernelscale)
{
    const int m = (1 << (4 - scale)) + 1;
    const float t = (float)m * (float)kernelscale;
    int c = (int)ceilf(t);
    if (!(c & 1))
        c++;
    return c < 3 ? 3 : c;
}

float sq_sigma_antialias(int taps)
{
    return (float)(sqrt(4.0) * taps / 5.0f);
}

float sq_sigma_local_mean(int taps)
{
    return (float)taps / 5.0f;
}

void sq_gaussian_taps(float *g, int taps, float sigma)
{
    const double sd = sigma;
    const float den = (float)(1.0 / (sd * sqrt(2.0 * M_PI)));
    float sum = 0.0f;
    for (int i = 0; i < taps; i++) {
        const double x = i - (taps - 1) / 2;
        const float num = (float)exp(-0.5 * x / sd * x / sd);
        g[i] = num / den;
        sum += g[i];
    }
    for (int i = 0; i < taps; i++)
        g[i] = g[i] / sum;
}

/* Single reflection of a float coordinate into [lo, hi]. */
static float mirror_f(float t, float lo, float hi)
{
    if (t < lo)
        return -t;
    if (t > hi)
        return 2.0f * hi - t;
    return t;
}

/* Guard for memory safety only: never changes an in-range index. */
static int32_t clamp_idx(int v, int n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

static float keys_weight(float t)
{
    const float a = -0.75f;
    t = fabsf(t);
    if (t < 1.0f)
        return ((a + 2.0f) * t - (a + 3.0f)) * t * t + 1.0f;
    if (t < 2.0f)
        return (((t - 5.0f) * t + 8.0f) * t - 4.0f) * a;
    return 0.0f;
}

static float lanczos_weight(double t)
{
    const double a = 4.0;
    if (t == 0.0)
        return 1.0f;
    if (t > -a && t < a)
        return (float)(a * sin(M_PI * t) * sin(M_PI * t / a) / (M_PI * M_PI * t * t));
    return 0.0f;
}

void sq_prescale_axis(int method, int n_in, int n_out, int32_t *idx, float *w)
{
    const float ratio = (float)n_in / (float)n_out;
    const float hi = (float)(n_in - 1);
    for (int o = 0; o < n_out; o++) {
        int32_t *ix = idx + (int64_t)o * SQ_PS_TAPS;
        float *wx = w + (int64_t)o * SQ_PS_TAPS;
        for (int k = 0; k < SQ_PS_TAPS; k++) {
            ix[k] = 0;
            wx[k] = 0.0f;
        }
        if (method == SQ_PS_NEAREST) {
            ix[0] = clamp_idx((int)((float)o * ratio), n_in);
            continue;
        }
        const float xx = (float)((o + 0.5) * ratio - 0.5);
        if (method == SQ_PS_BILINEAR) {
            const int x1 = (int)mirror_f(floorf(xx), 0.0f, hi);
            const int x2 = (int)mirror_f(ceilf(xx), 0.0f, hi);
            ix[0] = clamp_idx(x1, n_in);
            ix[1] = clamp_idx(x2, n_in);
            wx[0] = xx - (float)x1;
            continue;
        }
        const float x0 = floorf(xx);
        const float dx = xx - x0;
        if (method == SQ_PS_BICUBIC) {
            for (int i = -1; i <= 2; i++) {
                ix[i + 1] = clamp_idx((int)mirror_f(x0 + (float)i, 0.0f, hi), n_in);
                wx[i + 1] = keys_weight((float)i - dx);
            }
            continue;
        }
        for (int i = -4; i <= 4; i++) {
            ix[i + 4] = clamp_idx((int)mirror_f(x0 + (float)i, 0.0f, hi), n_in);
            wx[i + 4] = lanczos_weight((double)((float)i - dx));
        }
    }
}
