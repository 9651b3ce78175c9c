/* The public header compiles on its own (C11 here, C++ in header_test.cpp). */
#include <stddef.h>

#include "speedqa/speedqa.h"

/* Settings fields are added only out of the reserved room: every field
 * before it keeps its offset and the struct its size (python/'s mirror). */
_Static_assert(offsetof(SpeedqaSettings, reserved) + sizeof(((SpeedqaSettings *)0)->reserved) ==
                   offsetof(SpeedqaSettings, keep_device) + sizeof(int) + 56,
               "SpeedqaSettings grew");

int main(void)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    return s.n_threads == 1 ? 0 : 1;
}
