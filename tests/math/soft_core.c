/*
 * The math core built with soft doubles as C. Any double left in the core
 * would be an error here: `double` itself is made unusable below, and
 * sq_f64 is a struct that + - * / and casts do not take.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SQ_SOFT_F64 1
#define double soft_core_has_no_double
#include "math/est.h"
#include "math/log2.h"
#include "math/score.h"
#undef double

#include "soft_core.h"

uint64_t soft_const(int i)
{
    const sq_f64 c[] = { SQ_D_ZERO, SQ_D_HALF, SQ_D_ONE, SQ_D_TWO, SQ_D_QUARTER,
                         SQ_D_3QUARTERS, SQ_D_MHALF, SQ_D_1EM6, SQ_D_LOG2_2PIE };
    return sq_d_bits(c[i]);
}

uint64_t soft_log2(uint64_t x)
{
    return sq_d_bits(sq_log2(sq_d_from_bits(x)));
}

int soft_est_params(const float *img, int w, int h, int b, float sigma_nn, float *e, float *s)
{
    SqDims d;
    sq_dims_est(&d, w, h, b);
    sq_f64 *wsd = calloc((size_t)sq_est_ws_doubles(&d), sizeof(*wsd));
    float *wsf = calloc((size_t)sq_est_ws_floats(&d), sizeof(*wsf));
    int flags = -1;
    if (wsd && wsf)
        flags = sq_est_params(img, w, &d, sigma_nn, wsd, wsf, e, s);
    free(wsd);
    free(wsf);
    return flags;
}

float soft_pool_base(int n, float sigma_nn, float nn_floor)
{
    return sq_pool_base(n, sigma_nn, nn_floor);
}

float soft_pool_term(float er, float sr, float ed, float sd, float base, int wvm)
{
    return sq_pool_term(er, sr, ed, sd, base, wvm);
}

float soft_chroma_uv(float u, float v)
{
    return sq_chroma_uv(u, 0, v, 0);
}
