#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"

void fuzz_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "\n*** fuzz check failed at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    fflush(stderr);
    abort();
}

int fuzz_verbose(void)
{
    static int v = -1;
    if (v < 0)
        v = getenv("FUZZ_VERBOSE") != NULL;
    return v;
}

unsigned fuzz_u8(FuzzBytes *b)
{
    if (!b->n)
        return 0;
    b->n--;
    return *b->p++;
}

unsigned fuzz_u16(FuzzBytes *b)
{
    unsigned lo = fuzz_u8(b);
    return lo | fuzz_u8(b) << 8;
}

uint32_t fuzz_u32(FuzzBytes *b)
{
    uint32_t lo = fuzz_u16(b);
    return lo | (uint32_t)fuzz_u16(b) << 16;
}

static int write_all(int fd, const uint8_t *data, size_t size)
{
    while (size) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

int fuzz_file(const uint8_t *data, size_t size, char *path, size_t pathlen)
{
    static int fd = -1;
    static char tmp[64];
    if (fd < 0) {
#ifdef MFD_CLOEXEC
        fd = memfd_create("speedqa-fuzz", MFD_CLOEXEC);
#endif
        if (fd >= 0) {
            snprintf(tmp, sizeof tmp, "/proc/self/fd/%d", fd);
        } else {
            snprintf(tmp, sizeof tmp, "/tmp/speedqa-fuzz-XXXXXX");
            fd = mkstemp(tmp);
            if (fd < 0)
                return -1;
        }
    }
    if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0 || write_all(fd, data, size) != 0)
        return -1;
    snprintf(path, pathlen, "%s", tmp);
    return 0;
}

int fuzz_pipe(const uint8_t *data, size_t size, char *path, size_t pathlen, int *fd)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    int cap = fcntl(p[1], F_GETPIPE_SZ);
    if (cap >= 0 && (size_t)cap < size)
        cap = fcntl(p[1], F_SETPIPE_SZ, (int)(size < 4096 ? 4096 : size));
    if (cap < 0 || (size_t)cap < size || write_all(p[1], data, size) != 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    close(p[1]);
    *fd = p[0];
    snprintf(path, pathlen, "/proc/self/fd/%d", p[0]);
    return 0;
}

void fuzz_pipe_close(int fd)
{
    if (fd >= 0)
        close(fd);
}

void *fuzz_alloc(void *opaque, size_t size)
{
    FuzzAlloc *a = opaque;
    if (a->fail_at > 0 && a->allocs + 1 == a->fail_at) {
        a->fail_at = -1;
        return NULL;
    }
    /* Header before the block keeps the size, for the live/peak counts;
     * 64 bytes so the block stays 64-aligned as the API requires. */
    void *p = NULL;
    if (size > SIZE_MAX - 64 || posix_memalign(&p, 64, size + 64))
        return NULL;
    *(size_t *)p = size;
    a->allocs++;
    a->live_bytes += size;
    if (a->live_bytes > a->peak_bytes)
        a->peak_bytes = a->live_bytes;
    return (char *)p + 64;
}

void fuzz_free(void *opaque, void *ptr)
{
    FuzzAlloc *a = opaque;
    FUZZ_CHECK(ptr != NULL, "library freed NULL through the allocator hook");
    char *base = (char *)ptr - 64;
    FUZZ_CHECK(((uintptr_t)ptr & 63) == 0, "library freed a pointer it was not given");
    a->frees++;
    a->live_bytes -= *(size_t *)base;
    free(base);
}
