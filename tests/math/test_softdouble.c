/*
 * math/softdouble.h against this CPU's IEEE doubles, bit for bit: every
 * pair of special values (signed zeros, subnormals, infinities, quiet and
 * signalling NaNs, halfway cases), then random operands drawn so that they
 * reach what uniform bits rarely do (close exponents for cancellation,
 * short significands for ties, subnormal and overflowing results, float
 * halfway points), then the math core built with SQ_SOFT_F64
 * (soft_core.c) against the same core on hardware doubles.
 *
 * usage: test_softdouble OP [COUNT]   OP: add sub mul div sqrt cmp cvt core
 * (cvt: double <-> float, int64 -> double, and the exact float x float product)
 * COUNT random operands (pairs for binary ops) per operation, default
 * 2000000; SPEEDQA_SOFTDOUBLE_OPS overrides it (CI runs 10^8 once).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "math/f64.h"
#include "math/log2.h"
#include "math/softdouble.h"
#include "soft_core.h"

static uint64_t rng = 0x6a09e667f3bcc908ull;
static int fails;

static uint64_t rnd(void)
{
    /* xorshift64*: fast, and every bit of the output is usable */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static double d_of(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
static uint64_t u_of(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
static float f_of(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static uint32_t uf_of(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }

/* The hardware side, out of the compiler's reach (no folding, no reordering of NaN operands). */
static volatile double va, vb;
static uint64_t hw_add(uint64_t a, uint64_t b) { va = d_of(a); vb = d_of(b); return u_of(va + vb); }
static uint64_t hw_sub(uint64_t a, uint64_t b) { va = d_of(a); vb = d_of(b); return u_of(va - vb); }
static uint64_t hw_mul(uint64_t a, uint64_t b) { va = d_of(a); vb = d_of(b); return u_of(va * vb); }
static uint64_t hw_div(uint64_t a, uint64_t b) { va = d_of(a); vb = d_of(b); return u_of(va / vb); }
static uint64_t hw_sqrt(uint64_t a) { va = d_of(a); return u_of(sqrt(va)); }

static const uint64_t specials[] = {
    0x0000000000000000ull, 0x8000000000000000ull, /* +-0 */
    0x0000000000000001ull, 0x8000000000000001ull, /* smallest subnormal */
    0x0000000000000003ull, 0x0008000000000000ull, 0x800fffffffffffffull, /* subnormals */
    0x0010000000000000ull, 0x8010000000000000ull, /* smallest normal */
    0x0010000000000001ull, 0x001fffffffffffffull,
    0x3ff0000000000000ull, 0xbff0000000000000ull, /* +-1 */
    0x3ff0000000000001ull, 0x3fefffffffffffffull, 0x3fe0000000000000ull, /* 1+ulp, 1-ulp/2, 0.5 */
    0x4000000000000000ull, 0x4008000000000000ull, 0x3ca0000000000000ull, /* 2, 3, 2^-53 */
    0x3cb0000000000000ull, 0x4340000000000000ull, 0x4340000000000001ull, /* 2^-52, 2^53, 2^53+2 */
    0x3fd5555555555555ull, 0x3eb0c6f7a0b5ed8dull, 0x4010000000000000ull, /* 1/3, 1e-6, 4 */
    0x7fefffffffffffffull, 0xffefffffffffffffull, 0x7fe0000000000000ull, /* max, 2^1023 */
    0x47efffffe0000000ull, 0x47effffff0000000ull, 0x36a0000000000000ull, /* float max, its tie, 2^-149 */
    0x3690000000000000ull, 0x36a8000000000000ull, 0x380fffffe0000000ull, /* float ties/subnormal edge */
    0x7ff0000000000000ull, 0xfff0000000000000ull, /* +-inf */
    0x7ff8000000000000ull, 0xfff8000000000000ull, /* quiet NaNs */
    0x7ff0000000000001ull, 0xfff4000000000123ull, 0x7ffc000000000abcull, /* signalling, payloads */
};
#define NSPEC (int)(sizeof(specials) / sizeof(specials[0]))

/* A random double of one of several kinds. */
static uint64_t gen(void)
{
    const uint64_t r = rnd(), s = r & 0x8000000000000000ull, m = rnd() & 0x000fffffffffffffull;
    switch ((r >> 8) % 8) {
    case 0: return r; /* any bits */
    case 1: return s | ((uint64_t)(1023 - 40 + (r >> 16) % 80) << 52) | m; /* around 1 */
    case 2: return s | ((uint64_t)((r >> 16) % 64) << 52) | m; /* subnormal and tiny */
    case 3: return s | ((uint64_t)(2047 - 1 - (r >> 16) % 64) << 52) | m; /* huge */
    case 4: /* a short significand: products and sums land on ties */
        return s | ((uint64_t)(1023 - 20 + (r >> 16) % 40) << 52) | (m & ~((1ull << ((r >> 24) % 52)) - 1));
    case 5: return specials[(r >> 16) % NSPEC];
    case 6: return s | ((uint64_t)(896 - 30 + (r >> 16) % 300) << 52) | m; /* float range */
    default: return s | ((uint64_t)((r >> 16) % 2047) << 52) | m; /* any finite exponent */
    }
}

/* b near a: close exponents, or a few ulps apart, or -a. */
static uint64_t gen_near(uint64_t a)
{
    const uint64_t r = rnd();
    switch (r % 4) {
    case 0: return a ^ 0x8000000000000000ull ^ ((r >> 8) % 5); /* cancellation */
    case 1: return a + ((r >> 8) % 7) - 3;
    case 2: return ((a & 0xfff0000000000000ull) + (((r >> 8) % 120) << 52) - (60ull << 52)) |
                   (rnd() & 0x000fffffffffffffull);
    default: return gen();
    }
}

static void report(const char *what, long n, long bad, uint64_t a, uint64_t b, uint64_t got,
                   uint64_t want)
{
    printf("%s %-10s %11ld cases", bad ? "FAIL" : "ok  ", what, n);
    if (bad)
        printf(", %ld differ; first: %016llx, %016llx -> %016llx, hardware %016llx", bad,
               (unsigned long long)a, (unsigned long long)b, (unsigned long long)got,
               (unsigned long long)want);
    printf("\n");
    fails += bad != 0;
}

typedef uint64_t (*Bin)(uint64_t, uint64_t);

static void test_binary(const char *name, Bin soft, Bin hw, long count)
{
    long n = 0, bad = 0;
    uint64_t fa = 0, fb = 0, fg = 0, fw = 0;
    for (long i = 0; i < (long)NSPEC * NSPEC + count; i++) {
        uint64_t a, b;
        if (i < NSPEC * NSPEC) {
            a = specials[i / NSPEC];
            b = specials[i % NSPEC];
        } else {
            a = gen();
            b = (i & 1) ? gen_near(a) : gen();
        }
        const uint64_t got = soft(a, b), want = hw(a, b);
        n++;
        if (got != want && !bad++) {
            fa = a; fb = b; fg = got; fw = want;
        }
    }
    report(name, n, bad, fa, fb, fg, fw);
}

static void test_sqrt(long count)
{
    long n = 0, bad = 0;
    uint64_t fa = 0, fg = 0, fw = 0;
    for (long i = 0; i < NSPEC + count; i++) {
        uint64_t a = i < NSPEC ? specials[i] : gen();
        if (i >= NSPEC && (i & 3) == 0) { /* exact squares and their neighbours */
            const double r = (double)(rnd() >> 38) * ldexp(1.0, (int)(rnd() % 400) - 200);
            a = u_of(r * r) + (rnd() % 3) - 1;
        }
        const uint64_t got = sq_sd_sqrt(a), want = hw_sqrt(a);
        n++;
        if (got != want && !bad++) {
            fa = a; fg = got; fw = want;
        }
    }
    report("sqrt", n, bad, fa, 0, fg, fw);
}

static void test_cmp(long count)
{
    long n = 0, bad = 0;
    uint64_t fa = 0, fb = 0, fg = 0, fw = 0;
    for (long i = 0; i < (long)NSPEC * NSPEC + count; i++) {
        uint64_t a, b;
        if (i < NSPEC * NSPEC) {
            a = specials[i / NSPEC];
            b = specials[i % NSPEC];
        } else {
            a = gen();
            b = (i & 1) ? gen_near(a) : (i & 2) ? a : gen();
        }
        va = d_of(a);
        vb = d_of(b);
        const uint64_t want = (uint64_t)(va < vb) | (uint64_t)(va <= vb) << 1 | (uint64_t)(va == vb) << 2;
        const uint64_t got = (uint64_t)sq_sd_lt(a, b) | (uint64_t)sq_sd_le(a, b) << 1 |
                             (uint64_t)sq_sd_eq(a, b) << 2;
        n++;
        if (got != want && !bad++) {
            fa = a; fb = b; fg = got; fw = want;
        }
    }
    report("lt/le/eq", n, bad, fa, fb, fg, fw);
}

/* double -> float, float -> double, int64 -> double. */
static void test_cvt(long count)
{
    long n = 0, bad = 0;
    uint64_t fa = 0, fg = 0, fw = 0;
    for (long i = 0; i < NSPEC + count; i++) {
        uint64_t a = i < NSPEC ? specials[i] : gen();
        if (i >= NSPEC && (i & 1)) /* a float halfway point or a neighbour of one */
            a = (u_of((double)f_of((uint32_t)rnd())) | (1ull << 28)) + (rnd() % 3) - 1;
        va = d_of(a);
        const uint64_t want = uf_of((float)va), got = sq_sd_to_f32(a);
        n++;
        if (got != want && !bad++) {
            fa = a; fg = got; fw = want;
        }
    }
    report("to_float", n, bad, fa, 0, fg, fw);

    n = bad = 0;
    for (long i = 0; i < 1024 + count; i++) {
        const uint32_t f = i < 512 ? (uint32_t)i * 0x00800001u : i < 1024 ? 0xff800000u + (uint32_t)i
                                                                          : (uint32_t)rnd();
        volatile float vf = f_of(f);
        const uint64_t want = u_of((double)vf), got = sq_sd_from_f32(f);
        n++;
        if (got != want && !bad++) {
            fa = f; fg = got; fw = want;
        }
    }
    report("from_float", n, bad, fa, 0, fg, fw);

    n = bad = 0;
    for (long i = 0; i < 4 + count; i++) {
        const int64_t v = i == 0 ? INT64_MIN : i == 1 ? INT64_MAX : i == 2 ? 0 : i == 3 ? -1
                        : (int64_t)((i & 1) ? 0 - (rnd() >> (rnd() % 64)) : rnd() >> (rnd() % 64));
        volatile int64_t vv = v;
        const uint64_t want = u_of((double)vv), got = sq_sd_from_i64(v);
        n++;
        if (got != want && !bad++) {
            fa = (uint64_t)v; fg = got; fw = want;
        }
    }
    report("from_int64", n, bad, fa, 0, fg, fw);

    n = bad = 0;
    uint64_t fb = 0;
    for (long i = 0; i < count; i++) {
        const uint32_t a = (i & 3) ? (uint32_t)rnd() : sq_sd_to_f32(specials[rnd() % NSPEC]);
        const uint32_t b = (i & 4) ? (uint32_t)rnd() : (a ^ (uint32_t)(rnd() % 7)) + 0x00800000u;
        volatile float x = f_of(a), y = f_of(b);
        const uint64_t want = u_of((double)x * (double)y), got = sq_sd_mul_f32(a, b);
        n++;
        if (got != want && !bad++) {
            fa = a; fb = b; fg = got; fw = want;
        }
    }
    report("mul_f32", n, bad, fa, fb, fg, fw);
}

/* The SQ_D constants of the core: value and bits must be the same number. */
static void test_constants(void)
{
    const struct { const char *name; double v; uint64_t bits; } c[] = {
#define C(name) { #name, name, name##_BITS }
        C(SQ_LOG2_LG1), C(SQ_LOG2_LG2), C(SQ_LOG2_LG3), C(SQ_LOG2_LG4), C(SQ_LOG2_LG5),
        C(SQ_LOG2_LG6), C(SQ_LOG2_LG7), C(SQ_LOG2_INV_LN2_HI), C(SQ_LOG2_INV_LN2_LO),
        C(SQ_LOG2_2PIE),
#undef C
        { "2^54", 18014398509481984.0, SQ_LOG2_TWO54_BITS },
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        if (u_of(c[i].v) != c[i].bits) {
            printf("FAIL constant %s: value %016llx, bits %016llx\n", c[i].name,
                   (unsigned long long)u_of(c[i].v), (unsigned long long)c[i].bits);
            bad++;
        }
    const uint64_t named[][2] = {
        { u_of(SQ_D_ZERO), soft_const(0) }, { u_of(SQ_D_HALF), soft_const(1) },
        { u_of(SQ_D_ONE), soft_const(2) }, { u_of(SQ_D_TWO), soft_const(3) },
        { u_of(SQ_D_QUARTER), soft_const(4) }, { u_of(SQ_D_3QUARTERS), soft_const(5) },
        { u_of(SQ_D_MHALF), soft_const(6) }, { u_of(SQ_D_1EM6), soft_const(7) },
        { u_of(SQ_D_LOG2_2PIE), soft_const(8) },
    };
    for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
        if (named[i][0] != named[i][1]) {
            printf("FAIL SQ_D constant %zu: value %016llx, soft bits %016llx\n", i,
                   (unsigned long long)named[i][0], (unsigned long long)named[i][1]);
            bad++;
        }
    printf("%s constants: the value and the bits of each SQ_D constant agree\n", bad ? "FAIL" : "ok  ");
    fails += bad != 0;
}

static uint64_t sd_add(uint64_t a, uint64_t b) { return sq_sd_add(a, b); }
static uint64_t sd_sub(uint64_t a, uint64_t b) { return sq_sd_sub(a, b); }
static uint64_t sd_mul(uint64_t a, uint64_t b) { return sq_sd_mul(a, b); }
static uint64_t sd_div(uint64_t a, uint64_t b) { return sq_sd_div(a, b); }

int main(int argc, char **argv)
{
    const char *op = argc > 1 ? argv[1] : "all";
    const char *env = getenv("SPEEDQA_SOFTDOUBLE_OPS");
    long count = argc > 2 ? atol(argv[2]) : 2000000;
    if (env && env[0])
        count = atol(env);
    const int all = !strcmp(op, "all");
    const clock_t t0 = clock();
    if (all || !strcmp(op, "add"))
        test_binary("add", sd_add, hw_add, count);
    if (all || !strcmp(op, "sub"))
        test_binary("sub", sd_sub, hw_sub, count);
    if (all || !strcmp(op, "mul")) {
        test_binary("mul", sd_mul, hw_mul, count);
        fails += soft_portable_check(count / 10);
    }
    if (all || !strcmp(op, "div"))
        test_binary("div", sd_div, hw_div, count);
    if (all || !strcmp(op, "sqrt"))
        test_sqrt(count);
    if (all || !strcmp(op, "cmp"))
        test_cmp(count);
    if (all || !strcmp(op, "cvt"))
        test_cvt(count);
    if (all || !strcmp(op, "core")) {
        test_constants();
        fails += soft_core_check(count / 20 > 1000 ? count / 20 : 1000);
    }
    printf("%s: %.1f s\n", op, (double)(clock() - t0) / CLOCKS_PER_SEC);
    return fails ? 1 : 0;
}
