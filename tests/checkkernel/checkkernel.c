/*
 * checkkernel [--seed N] [--bench] [--test NAME]
 *
 * Prints the seed first; a failure prints the function, the level and the
 * parameters of the case, and --seed N replays the same cases. Levels:
 * every one the machine has (AVX2, AVX-512, NEON), each against C; built as
 * checkkernel_avx512emu, the AVX-512 sources on SIMDe instead. Without a
 * SIMD level (none on the CPU, or SPEEDQA_CPU_MASK=0) only the C composites run
 * (cpu.c's solvers and plane scores against the math core) and the exit
 * status is 77 (meson: skipped) unless they fail.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkkernel.h"
#include "speedqa/speedqa.h"
#if defined(CK_AVX512_EMU) || defined(SQ_HAVE_AVX512)
#include "x86/dsp_x86.h"
#endif

static uint64_t rng_state;
static const char *cur_func, *cur_level;
static int cur_fails, total_fails, total_funcs;

uint32_t ck_rand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

int ck_irand(int lo, int hi)
{
    return lo + (int)(ck_rand() % (uint32_t)(hi - lo + 1));
}

float ck_frand(float lo, float hi)
{
    return lo + (hi - lo) * (float)(ck_rand() >> 8) * (1.0f / 16777216.0f);
}

int ck_chance(int percent)
{
    return (int)(ck_rand() % 100) < percent;
}

void ck_begin(const char *func, const char *level)
{
    cur_func = func;
    cur_level = level;
    cur_fails = 0;
}

int ck_fail(const char *fmt, ...)
{
    if (cur_fails++ < 3) {
        va_list ap;
        va_start(ap, fmt);
        printf("  FAIL %s_%s: ", cur_func, cur_level);
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
    }
    return 1;
}

void ck_end(void)
{
    total_funcs++;
    if (cur_fails)
        total_fails++;
    printf("  %-22s %-6s %s\n", cur_func, cur_level, cur_fails ? "FAILED" : "ok");
    fflush(stdout);
}

int ck_wanted(const CkCtx *c, const char *func)
{
    return !c->only || strstr(func, c->only);
}

int ck_cmp_f32(const char *what, const float *a, const float *b, size_t n)
{
    if (!memcmp(a, b, n * sizeof(float)))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(a + i, b + i, sizeof(float))) {
            ck_fail("%s[%zu]: C %.9g (%08x) vs %.9g", what, i, (double)a[i],
                    *(const uint32_t *)(a + i), (double)b[i]);
            break;
        }
    return 1;
}

int ck_cmp_f64(const char *what, const double *a, const double *b, size_t n)
{
    if (!memcmp(a, b, n * sizeof(double)))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(a + i, b + i, sizeof(double))) {
            ck_fail("%s[%zu]: C %.17g vs %.17g", what, i, a[i], b[i]);
            break;
        }
    return 1;
}

double ck_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double ck_time(void (*fn)(void *), void *arg)
{
    int reps = 1;
    for (;;) { /* batches of at least ~2 ms */
        const double t0 = ck_now();
        for (int i = 0; i < reps; i++)
            fn(arg);
        if (ck_now() - t0 > 2e-3 || reps > (1 << 24))
            break;
        reps *= 2;
    }
    double best = 1e30;
    for (int b = 0; b < 7; b++) {
        const double t0 = ck_now();
        for (int i = 0; i < reps; i++)
            fn(arg);
        const double t = (ck_now() - t0) / reps;
        if (t < best)
            best = t;
    }
    return best * 1e9;
}

void ck_bench_row(const char *func, double ns_c, const char *level, double ns_opt)
{
    printf("  %-34s %10.0f ns   %-5s %9.0f ns   x%.1f\n", func, ns_c, level, ns_opt,
           ns_c / ns_opt);
}

int main(int argc, char **argv)
{
    unsigned long long seed = 0;
    CkCtx c;
    memset(&c, 0, sizeof(c));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--bench"))
            c.bench = 1;
        else if (!strcmp(argv[i], "--test") && i + 1 < argc)
            c.only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--seed N] [--bench] [--test NAME]\n", argv[0]);
            return 2;
        }
    }
    if (!seed) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = ((unsigned long long)ts.tv_sec * 1000003u) ^ (unsigned long long)ts.tv_nsec;
        seed = seed ? seed : 1;
    }
    rng_state = seed;
    printf("checkkernel: seed %llu\n", seed);
    sq_dsp_init(&c.ref, 0);
    /* SPEEDQA_CPU_MASK (e.g. 0) masks the levels checked; the library reads no environment */
    const char *mask_env = getenv("SPEEDQA_CPU_MASK");
    const unsigned flags =
        sq_cpu_flags() & (mask_env && *mask_env ? (unsigned)strtoul(mask_env, NULL, 0) : ~0u);
    if (flags & SPEEDQA_CPU_AVX2) {
        c.lvl[c.nlvl].name = "avx2";
        c.lvl[c.nlvl].flags = SPEEDQA_CPU_AVX2;
        sq_dsp_init(&c.lvl[c.nlvl].dsp, SPEEDQA_CPU_AVX2);
        c.nlvl++;
    }
#if defined(SQ_HAVE_AVX512) && !defined(CK_AVX512_EMU)
    /* the AVX-512 table without the extensions this CPU adds to it (VBMI, VNNI) */
    if ((flags & SPEEDQA_CPU_AVX512) && sq_x86_ext()) {
        c.lvl[c.nlvl].name = "avx512base";
        c.lvl[c.nlvl].flags = SPEEDQA_CPU_AVX2 | SPEEDQA_CPU_AVX512;
        sq_dsp_init(&c.lvl[c.nlvl].dsp, SPEEDQA_CPU_AVX2);
        sq_dsp_fill_avx512(&c.lvl[c.nlvl].dsp, 0);
        c.nlvl++;
    }
#endif
    if (flags & SPEEDQA_CPU_AVX512) {
        c.lvl[c.nlvl].name = "avx512";
        c.lvl[c.nlvl].flags = SPEEDQA_CPU_AVX2 | SPEEDQA_CPU_AVX512;
        sq_dsp_init(&c.lvl[c.nlvl].dsp, c.lvl[c.nlvl].flags);
        c.nlvl++;
    }
    if (flags & SPEEDQA_CPU_NEON) {
        c.lvl[c.nlvl].name = "neon";
        c.lvl[c.nlvl].flags = SPEEDQA_CPU_NEON;
        sq_dsp_init(&c.lvl[c.nlvl].dsp, SPEEDQA_CPU_NEON);
        c.nlvl++;
    }
#ifdef CK_AVX512_EMU
    /* The AVX-512 sources on SIMDe (x86/simd512.h), over the AVX2 table. */
    c.nlvl = 0;
    c.lvl[0].name = "avx512e";
    c.lvl[0].flags = SPEEDQA_CPU_AVX2;
    sq_dsp_init(&c.lvl[0].dsp, SPEEDQA_CPU_AVX2);
    sq_dsp_fill_avx512emu(&c.lvl[0].dsp, SQ_X86_VBMI | SQ_X86_VNNI);
    c.nlvl = 1;
#endif
    if (!c.nlvl)
        printf("no SIMD level on this CPU (flags %#x): only the C composites run\n", flags);
    ck_filter(&c);
    ck_cov(&c);
    ck_linalg(&c);
    ck_prescale(&c);
    ck_motion(&c);
    ck_adm(&c);
    ck_cambi(&c);
    ck_cambi_gpu(&c);
    ck_vif(&c);
    ck_e2e(&c);
    printf("checkkernel: %d functions, %d failed (seed %llu)\n", total_funcs, total_fails, seed);
    return total_fails ? 1 : c.nlvl ? 0 : 77;
}
