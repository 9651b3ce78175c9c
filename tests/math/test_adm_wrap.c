/*
 * ADM's masking sums wrap modulo 2^64 as libvmaf's i64 sums do (spec 1):
 * one scale-0 pooling row of coefficients just below 2^30 (CSF factor 1,
 * threshold 0), whose h and v terms sum past 2^63. The row's result must be
 * that wrapped sum rounded; under UBSan (CI's ASan stage) a signed overflow
 * in the sums stops the test.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "math/vmaf_adm.h"

enum { W = 64, H = 3 };

int main(void)
{
    static int32_t X[3][W * H], A[3][W * H], F[3][W * H];
    static uint32_t vs[W];
    const int32_t x = (1 << 30) - (1 << 10);
    for (int th = 0; th < 3; th++)
        for (int k = 0; k < W * H; k++)
            X[th][k] = x;
    const int32_t *Xp[3] = { X[0], X[1], X[2] }, *Ap[3] = { A[0], A[1], A[2] },
                  *Fp[3] = { F[0], F[1], F[2] };
    SqVaScale p; /* rf3: unused by the numerator */
    memset(&p, 0, sizeof(p));
    p.ir[0] = p.ir[1] = p.ir[2] = 1;
    int64_t acc[3] = { 0, 0, 0 };
    sq_va_cm_rows(0, &p, Xp, Ap, Fp, W, H, 0, W, 2 * W, acc, vs);

    const int n = sq_va_pool_hi(W) - sq_va_pool_lo(W), rho = sq_va_ceil_log2(H);
    int fails = 0, wrapped = 0;
    for (int th = 0; th < 3; th++) {
        const int64_t v = sq_va_cm_val(0, th, 1, x, 0, sq_va_cm_shift(0, th, W));
        const long double exact = (long double)v * n; /* the sum without wrapping */
        const uint64_t sum = (uint64_t)v * (uint64_t)n;
        const int64_t want = (int64_t)(sum + ((uint64_t)1 << (rho - 1))) >> rho;
        wrapped |= v > 0 && exact >= 9223372036854775808.0L;
        if (acc[th] != want) {
            printf("FAIL orientation %d: %lld, want %lld\n", th, (long long)acc[th], (long long)want);
            fails++;
        }
    }
    if (!wrapped) {
        printf("FAIL no orientation's row sum passes 2^63: the case does not test the wrap\n");
        fails++;
    }
    printf("%s\n", fails ? "FAILED" : "ADM masking sums past 2^63 wrap as libvmaf's: ok");
    return fails != 0;
}
