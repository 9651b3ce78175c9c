/* The public header compiles on its own (C11 here, C++ in header_test.cpp). */
#include "speedqa/speedqa.h"

int main(void)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    return s.n_threads == 1 ? 0 : 1;
}
