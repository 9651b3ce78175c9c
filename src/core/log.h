/*
 * One line to the caller's logger (SpeedqaSettings.logger), when its level
 * lets it through: the library's only way of saying anything.
 */
#ifndef SQ_CORE_LOG_H
#define SQ_CORE_LOG_H

#include "speedqa/speedqa.h"

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void sq_log(const SpeedqaSettings *s, SpeedqaLogLevel lvl, const char *fmt, ...);

#endif
