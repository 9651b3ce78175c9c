/* The public header compiles on its own (C11 in header_test.c, C++ here). */
#include <cstddef>

#include "speedqa/speedqa.h"

// C++ sees the same layout as C: what header_test.c checks holds here too.
static_assert(offsetof(SpeedqaSettings, reserved) + sizeof(SpeedqaSettings::reserved) ==
                  sizeof(SpeedqaSettings), "settings: room not last");
static_assert(offsetof(SpeedqaPicture, reserved) + sizeof(SpeedqaPicture::reserved) ==
                  sizeof(SpeedqaPicture), "picture: room not last");
static_assert(offsetof(SpeedqaScores, reserved) + sizeof(SpeedqaScores::reserved) ==
                  sizeof(SpeedqaScores), "scores: room not last");

int main()
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    SpeedqaPicture p = {};
    return s.n_threads == 1 && p.reserved[0] == 0 ? 0 : 1;
}
