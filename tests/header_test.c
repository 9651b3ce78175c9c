/* The public header compiles on its own (C11 here, C++ in header_test.cpp). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "speedqa/speedqa.h"

#define END(T, f) (offsetof(T, f) + sizeof(((T *)0)->f))

/*
 * Every struct a later version may grow ends in its reserved room, so
 * fields are added only out of it: the room is the tail of the struct and
 * the size stays (python/speedqa/_lib.py mirrors these sizes). The sizes
 * are those of LP64 (x86-64, arm64 Linux); a change is a new minor
 * version and a new soname.
 */
_Static_assert(END(SpeedqaSettings, reserved) == sizeof(SpeedqaSettings), "settings: room not last");
_Static_assert(END(SpeedqaCudaSettings, reserved) == sizeof(SpeedqaCudaSettings), "cuda: room not last");
_Static_assert(END(SpeedqaOpenclSettings, reserved) == sizeof(SpeedqaOpenclSettings), "opencl: room not last");
_Static_assert(END(SpeedqaPicture, reserved) == sizeof(SpeedqaPicture), "picture: room not last");
_Static_assert(END(SpeedqaScores, reserved) == sizeof(SpeedqaScores), "scores: room not last");
_Static_assert(END(SpeedqaPooled, reserved) == sizeof(SpeedqaPooled), "pooled: room not last");
_Static_assert(sizeof(SpeedqaFormat) == 4 * sizeof(int), "SpeedqaFormat is a fixed value type");
_Static_assert(sizeof(((SpeedqaSettings *)0)->reserved) >= 64, "settings room");
_Static_assert(sizeof(((SpeedqaPicture *)0)->reserved) >= 32, "picture room");
_Static_assert(sizeof(((SpeedqaScores *)0)->reserved) >= 32, "scores room");
#if UINTPTR_MAX == 0xffffffffffffffffu && defined(__LP64__)
_Static_assert(sizeof(SpeedqaCudaSettings) == 32, "SpeedqaCudaSettings size");
_Static_assert(sizeof(SpeedqaOpenclSettings) == 32, "SpeedqaOpenclSettings size");
_Static_assert(sizeof(SpeedqaSettings) == 256, "SpeedqaSettings size");
_Static_assert(sizeof(SpeedqaPicture) == 128, "SpeedqaPicture size");
_Static_assert(sizeof(SpeedqaScores) == 64, "SpeedqaScores size");
_Static_assert(sizeof(SpeedqaPooled) == 64, "SpeedqaPooled size");
#endif

static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

int main(void)
{
    SpeedqaSettings s;
    memset(&s, 0xa5, sizeof(s));
    speedqa_default_settings(&s);
    /* defaults leave every room zeroed (open refuses anything else) */
    if (!all_zero(s.reserved, sizeof(s.reserved)) || !all_zero(s.cuda.reserved, sizeof(s.cuda.reserved)) ||
        !all_zero(s.opencl.reserved, sizeof(s.opencl.reserved)) || s.cuda.keep_device ||
        s.opencl.soft_f64)
        return 1;
    /* a picture zeroed by initialisation has its room zeroed */
    SpeedqaPicture p = { 0 };
    if (!all_zero(p.reserved, sizeof(p.reserved)))
        return 2;
    /* a library-filled struct has its room written as zeros */
    SpeedqaPooled pooled;
    memset(&pooled, 0xa5, sizeof(pooled));
    const double v[2] = { 1.0, 3.0 };
    if (speedqa_pool(v, 2, 1, &pooled) || pooled.mean != 2.0 ||
        !all_zero(pooled.reserved, sizeof(pooled.reserved)))
        return 3;
    if (speedqa_auto_threads() < 1 || speedqa_auto_threads() > SPEEDQA_MAX_THREADS)
        return 4;
    if (SPEEDQA_RECEIVE_WAIT == 0)
        return 5;
    return s.n_threads == 1 ? 0 : 6;
}
