/*
 * The math core compiled with SQ_SOFT_F64 (soft_core.c), behind plain C
 * types, for test_softdouble.c to hold against the hardware-double build.
 */
#ifndef SQ_TEST_SOFT_CORE_H
#define SQ_TEST_SOFT_CORE_H

#include <stdint.h>

/* Bits of SQ_D constant i of math/f64.h in the soft build (see test_constants). */
uint64_t soft_const(int i);
uint64_t soft_log2(uint64_t x);
/* sq_est_params on a w x h image (stride w), workspaces of its own; -1 on no memory. */
int soft_est_params(const float *img, int w, int h, int b, float sigma_nn, float *e, float *s);
float soft_pool_base(int n, float sigma_nn, float nn_floor);
float soft_pool_term(float er, float sr, float ed, float sd, float base, int wvm);
float soft_chroma_uv(float u, float v);
/* softdouble.h's plain-C clz/mulhi against the builtins (soft_portable.c); 1 on a difference. */
int soft_portable_check(long count);
/* Random checks of the above against the hardware build; returns the failure count. */
int soft_core_check(long count);

#endif
