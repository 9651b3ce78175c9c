/* Shared helpers of the test programs. */
#ifndef SQ_TEST_UTIL_H
#define SQ_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "speedqa/speedqa.h"

/* Worst |delta| bookkeeping for one group of golden comparisons. */
typedef struct Tally {
    const char *group;
    double worst;
    long values, exact, over;
} Tally;

void tally_add(Tally *t, double got, double want, double tol);
void tally_print(const Tally *t);

/* Logger that prints library messages to stderr and keeps the last one. */
typedef struct LogCapture {
    char last[512];
    int count;
    int quiet;
} LogCapture;
void log_capture(void *cookie, SpeedqaLogLevel level, const char *msg);

/*
 * The knobs the test programs take from their environment (the library
 * reads none): SPEEDQA_CPU_MASK (a number, e.g. 0: the C path) masks the
 * CPU levels, SPEEDQA_GPU_BATCH (1 .. 32) sets the GPU frames per batch,
 * SPEEDQA_OPENCL_SOFT_F64 (anything but "" or "0") puts OpenCL on soft
 * doubles. test_env_settings applies all three to settings.
 */
unsigned test_env_cpu_mask(unsigned mask);
int test_env_gpu_batch(void);
int test_env_soft_f64(void);
void test_env_settings(SpeedqaSettings *s);

/* "cpu", "cuda", "opencl" or "hip" (anything else: the CPU). */
SpeedqaBackend backend_named(const char *name);

/*
 * One received frame's scores copied out of the context (SpeedqaScores
 * point into it until the next receive), for tests that keep frames to
 * compare later. undefined: bit i is SpeedqaScores.undefined[i].
 */
#define TEST_MAX_SCORES 64
typedef struct TestScores {
    unsigned frame, sequence, sequence_frame;
    int count;
    uint64_t undefined;
    double values[TEST_MAX_SCORES];
} TestScores;

/*
 * speedqa_receive(ctx, .., n, flags) copied into out[0 .. n-1]; its return
 * value. Aborts the test when a published SpeedqaScores breaks its
 * contract (nonzero reserved bytes, a count of neither 0 nor the score
 * count, NULL arrays with a count or arrays without one).
 */
int test_receive(SpeedqaContext *ctx, TestScores *out, int n, unsigned flags);

/* Every score ready now into out[*got...]: 0, or receive's error (neither EAGAIN nor EOF). */
int receive_ready(SpeedqaContext *ctx, TestScores *out, int *got);

/* Build "name=k1=v1:k2=v2" from a golden options object. */
struct JVal;
void feature_string(char *buf, size_t len, const char *name, const struct JVal *opts);

/* Read one planar frame (8-bit or LE 16-bit) of w x h fmt into a picture backed by buf. */
int read_raw_frame(FILE *f, const SpeedqaFormat *fmt, unsigned char *buf, SpeedqaPicture *pic);
size_t raw_frame_size(const SpeedqaFormat *fmt);

#endif
