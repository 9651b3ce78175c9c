/*
 * checkkernel: every DSP slot of every CPU level against the C reference,
 * on random inputs of random sizes plus extreme fills, compared bit for bit
 * (memcmp). In the spirit of dav1d's checkasm, written for this project.
 */
#ifndef SQ_CHECKKERNEL_H
#define SQ_CHECKKERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/dsp.h"

typedef struct CkLevel {
    const char *name;  /* "avx2" */
    unsigned flags;    /* SPEEDQA_CPU_* levels up to this one */
    SqDsp dsp;
} CkLevel;

typedef struct CkCtx {
    SqDsp ref;         /* C table */
    CkLevel lvl[4];
    int nlvl;
    int bench;
    const char *only;  /* run only tests whose name contains this */
} CkCtx;

/* Random numbers (xorshift64*), seeded once from --seed. */
uint32_t ck_rand(void);
int ck_irand(int lo, int hi);           /* uniform in [lo, hi] */
float ck_frand(float lo, float hi);
int ck_chance(int percent);

/* Bookkeeping: a failed check prints its parameters once per function. */
void ck_begin(const char *func, const char *level);
int ck_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ck_end(void);
int ck_wanted(const CkCtx *c, const char *func);

/* Bit-identical comparison of n floats / doubles; prints the first difference. */
int ck_cmp_f32(const char *what, const float *a, const float *b, size_t n);
int ck_cmp_f64(const char *what, const double *a, const double *b, size_t n);

/* Seconds from a monotonic clock. */
double ck_now(void);
/* Nanoseconds per call of fn(arg), best of several timed batches. */
double ck_time(void (*fn)(void *), void *arg);
void ck_bench_row(const char *func, double ns_c, const char *level, double ns_opt);

void ck_filter(const CkCtx *c);
void ck_cov(const CkCtx *c);
void ck_linalg(const CkCtx *c);
void ck_prescale(const CkCtx *c);
void ck_motion(const CkCtx *c);
void ck_adm(const CkCtx *c);
void ck_cambi(const CkCtx *c);
void ck_cambi_gpu(const CkCtx *c);
void ck_vif(const CkCtx *c);
void ck_e2e(const CkCtx *c);

#endif
