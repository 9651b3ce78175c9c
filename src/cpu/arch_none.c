/* Architectures without SIMD versions: the C table is all there is. */
#include "cpu/dsp.h"

unsigned sq_arch_cpu_flags(void)
{
    return 0;
}

void sq_dsp_init_arch(SqDsp *d, unsigned flags)
{
    (void)d;
    (void)flags;
}
