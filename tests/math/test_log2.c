/*
 * sq_log2 is the one log2 of every backend; it must stay within 1 ulp of
 * libm's so the Netflix numbers (computed with glibc) still hold.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "math/log2.h"

static double ulps(double got, double want)
{
    if (got == want || (isnan(got) && isnan(want)))
        return 0;
    if (isinf(got) || isinf(want) || isnan(got) || isnan(want))
        return INFINITY;
    return fabs(got - want) / (nextafter(fabs(want), INFINITY) - fabs(want));
}

int main(void)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    double worst = 0, worst_x = 0;
    long same = 0, n = 0;
    for (long i = 0; i < 4000000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const double u = (double)(s >> 11) / 9007199254740992.0;
        double x;
        switch (i % 4) {
        case 0: x = ldexp(0.5 + u, (int)(s % 2000) - 1000); break;    /* wide range */
        case 1: x = 1.0 + (u - 0.5) * 1e-3; break;                     /* near 1 */
        case 2: x = 0.1 + u * 2000.0; break;                           /* entropy args */
        default: x = ldexp(u, -1060); break;                           /* subnormals */
        }
        if (x <= 0)
            continue;
        const double d = ulps(sq_log2(x), log2(x));
        same += d == 0;
        n++;
        if (d > worst) {
            worst = d;
            worst_x = x;
        }
    }
    const double specials[] = { 0.0, -0.0, 1.0, 2.0, 0.5, 1024.0, INFINITY, 4.9406564584124654e-324 };
    int fails = 0;
    for (unsigned i = 0; i < sizeof(specials) / sizeof(specials[0]); i++)
        if (ulps(sq_log2(specials[i]), log2(specials[i])) != 0) {
            printf("FAIL log2(%g) = %.17g, libm %.17g\n", specials[i], sq_log2(specials[i]), log2(specials[i]));
            fails++;
        }
    if (!isnan(sq_log2(-1.0)) || !isnan(sq_log2(NAN))) {
        printf("FAIL log2 of a negative or NaN is not NaN\n");
        fails++;
    }
    printf("%ld inputs: worst %.3g ulp at %.17g, identical to libm on %ld\n", n, worst, worst_x, same);
    if (worst > 1.0) {
        printf("FAIL more than 1 ulp from libm\n");
        fails++;
    }
    return fails ? 1 : 0;
}
