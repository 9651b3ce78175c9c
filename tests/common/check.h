/*
 * CHECK(cond, fmt, ...): on failure, one "FAIL file:line: message" line on
 * stdout and one more in the including file's `fails` counter.
 */
#ifndef SQ_TEST_CHECK_H
#define SQ_TEST_CHECK_H

#include <stdio.h>

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
            fails++;                                                                           \
        }                                                                                      \
    } while (0)

#endif
