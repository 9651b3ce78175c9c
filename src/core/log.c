#include <stdarg.h>
#include <stdio.h>

#include "core/log.h"

void sq_log(const SpeedqaSettings *s, SpeedqaLogLevel lvl, const char *fmt, ...)
{
    if (!s || !s->logger || lvl > s->log_level)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    s->logger(s->log_cookie, lvl, buf);
}
