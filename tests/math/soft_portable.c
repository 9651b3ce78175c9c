/*
 * The plain-C fallbacks of math/softdouble.h (count of leading zeros, high
 * half of a 64x64 product), which GCC and clang builds never take, against
 * the builtins those builds do use.
 */
#include <stdint.h>
#include <stdio.h>

#define SQ_SD_PORTABLE 1
#include "math/softdouble.h"

#include "soft_core.h"

int soft_portable_check(long count)
{
#if !defined(__SIZEOF_INT128__) || !defined(__GNUC__)
    (void)count;
    printf("ok   portable clz64/mulhi: no builtins to hold them against here\n");
    return 0;
#else
    uint64_t r = 0x3c6ef372fe94f82bull;
    long bad = 0;
    for (long i = 0; i < count + 130; i++) {
        r ^= r >> 12;
        r ^= r << 25;
        r ^= r >> 27;
        const uint64_t x = r * 2685821657736338717ull;
        /* edge values first: each single bit and each all-ones prefix, then random bits */
        const uint64_t a = i < 64 ? 1ull << i : i < 128 ? ~0ull >> (i - 64) : i == 128 ? 0 : x >> (x % 64);
        const uint64_t b = i < 128 ? ~0ull : x * 0x9e3779b97f4a7c15ull;
        const int want_clz = a ? __builtin_clzll(a) : 64;
        const uint64_t want_hi = (uint64_t)(((unsigned __int128)a * b) >> 64);
        if (sq_sd_clz64(a) != want_clz || sq_sd_mulhi(a, b) != want_hi) {
            if (!bad)
                printf("     portable clz/mulhi of %016llx, %016llx differ\n", (unsigned long long)a,
                       (unsigned long long)b);
            bad++;
        }
    }
    printf("%s portable clz64/mulhi %ld cases%s\n", bad ? "FAIL" : "ok  ", count + 130, bad ? " differ" : "");
    return bad != 0;
#endif
}
