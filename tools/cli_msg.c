/*
 * The CLI's error and warning lines: one visible line each, and a batch
 * thread's first error kept for its pair's result instead of printed.
 * Apart from the parser because every file of tools/ writes them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli_parse.h"

/* A batch thread's error lines go to its pair's result, not to stderr. */
static _Thread_local char *capture_buf;
static _Thread_local size_t capture_len;
static _Thread_local int capture_echo;

void cli_capture(char *buf, size_t len, int echo)
{
    capture_buf = buf;
    capture_len = len;
    capture_echo = echo;
}

/* Control characters of a message (a CR from a file's header, an escape
 * in a path) written as C escapes: an error stays one visible line. */
static void escape_controls(char *dst, size_t cap, const char *src)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p && o + 5 < cap; p++) {
        if (*p >= 0x20 && *p != 0x7f) {
            dst[o++] = (char)*p;
        } else if (*p == '\r' || *p == '\n' || *p == '\t') {
            dst[o++] = '\\';
            dst[o++] = *p == '\r' ? 'r' : *p == '\n' ? 'n' : 't';
        } else {
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[*p >> 4];
            dst[o++] = hex[*p & 15];
        }
    }
    dst[o] = '\0';
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
    char raw[2048], line[2048];
    vsnprintf(raw, sizeof raw, fmt, ap);
    escape_controls(line, sizeof line, raw);
    if (capture_buf && !strcmp(kind, "error")) {
        if (!capture_buf[0]) /* the first error is the cause */
            snprintf(capture_buf, capture_len, "%s", line);
        if (!capture_echo)
            return;
    }
    fprintf(stderr, "speedqa: %s: %s\n", kind, line);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("error", fmt, ap);
    va_end(ap);
}

void cli_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("warning", fmt, ap);
    va_end(ap);
}

int cli_finish_stdout(void)
{
    /* a long text (--help) may have failed while it was written already */
    const int early = ferror(stdout) ? errno : 0;
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return SQ_EXIT_OK;
    if (!errno)
        errno = early;
    /* a reader that went away (| head) wanted no more: end quietly */
    if (errno != EPIPE)
        cli_error("<stdout>: write failed: %s", errno ? strerror(errno) : "I/O error");
    return SQ_EXIT_OUTPUT;
}
