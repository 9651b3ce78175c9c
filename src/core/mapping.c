#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/mapping.h"

/* One line of /proc/self/maps: "lo-hi perms offset major:minor inode path". */
static int private_file_line(const char *s, uintptr_t lo, uintptr_t hi)
{
    char *e;
    const uintptr_t a = (uintptr_t)strtoull(s, &e, 16);
    if (*e != '-')
        return 0;
    const uintptr_t b = (uintptr_t)strtoull(e + 1, &e, 16);
    if (*e != ' ' || !(lo < b && a < hi) || strlen(e) < 6 || e[4] != 'p')
        return 0;
    e += 6;
    strtoull(e, &e, 16);                     /* offset */
    strtoull(e, &e, 16);                     /* major */
    if (*e == ':')
        strtoull(e + 1, &e, 16);             /* minor */
    return strtoull(e, NULL, 10) != 0;       /* inode: 0 for anonymous memory */
}

int sq_mem_in_private_file(const void *p, size_t n)
{
#ifdef __linux__
    const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    const uintptr_t lo = (uintptr_t)p, hi = lo + n;
    char buf[8192];
    size_t have = 0;
    int found = 0, skip = 0; /* skip: the rest of a line longer than buf */
    for (;;) {
        const ssize_t r = read(fd, buf + have, sizeof buf - 1 - have);
        if (r <= 0)
            break;
        have += (size_t)r;
        buf[have] = 0;
        char *line = buf, *nl;
        while (!found && (nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
            *nl = 0;
            found = !skip && private_file_line(line, lo, hi);
            skip = 0;
            line = nl + 1;
        }
        if (found)
            break;
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
        if (have == sizeof buf - 1) { /* a path too long for buf: judge the line by its head */
            found = !skip && private_file_line(buf, lo, hi);
            have = 0;
            skip = 1;
            if (found)
                break;
        }
    }
    close(fd);
    return found;
#else
    (void)p;
    (void)n;
    return 0;
#endif
}
