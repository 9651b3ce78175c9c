/*
 * Program-binary cache: one file per (device, driver, source, options) in
 * $XDG_CACHE_HOME/speedqa or ~/.cache/speedqa, so a warm open skips the
 * OpenCL C compile. Nothing here is ever fatal: whatever is odd about an
 * entry means a rebuild from source and a fresh entry in its place.
 *
 * Threat model. The folder is input we did not necessarily write: files
 * can be damaged (full disk, copied between machines), planted by whoever
 * can write the folder, or be something other than a file (FIFO, symlink,
 * directory, device). Drivers do not check binaries: PoCL crashes (SIGSEGV,
 * or an assertion) on a binary cut to any length, even when the entry
 * around it is well-formed. Hence:
 *  - open() never blocks and never follows a link (O_NONBLOCK, O_NOFOLLOW),
 *    and only a regular file of ours (owner, not group/other-writable) of
 *    sane size is read;
 *  - every length is checked against the bytes actually read, and the
 *    checksum covers header and binary, before the driver sees a byte
 *    (cachefmt.c, which the fuzz target exercises);
 *  - binaries come only from clGetProgramInfo after a successful build;
 *  - a well-formed forgery still passes all that: the checksum is no MAC,
 *    and a keyed one would not help, as the key would have to live where
 *    the same writer can read it. What stays possible is making a driver
 *    crash happen once instead of on every later run: the entry is moved
 *    aside (".trial") while the driver loads it and moved back only after
 *    a successful build, so a crashed run leaves no entry behind, and the
 *    next one rebuilds. An entry that cannot be moved aside is not used.
 * Files are written to a temp name (O_EXCL, O_NOFOLLOW, 0600) and renamed,
 * which also replaces a FIFO or symlink; a directory in the way is removed
 * when empty, else the entry is simply not written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/opencl/cachefmt.h"
#include "gpu/opencl/cl.h"

/* mkdir -p for the last two components (…/.cache/speedqa). */
static int make_dir(const char *path)
{
    char tmp[1024];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

void sq_cl_cache_key(SqClCacheKey *k, const SqClDevInfo *dev, const char *src, size_t srclen,
                     const char *opts)
{
    SqClHash s;
    sq_cl_hash_init(&s);
    const char *strs[] = { dev->platform_name, dev->name, dev->version, dev->driver, opts };
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
        sq_cl_hash_bytes(&s, strs[i], strlen(strs[i]));
    sq_cl_hash_bytes(&s, src, srclen);
    const uint64_t ptr_bits = sizeof(void *) * 8;
    sq_cl_hash_bytes(&s, &ptr_bits, sizeof(ptr_bits));
    for (int i = 0; i < 4; i++)
        k->ident[i] = sq_cl_fmix64(s.h[i]);

    k->path[0] = '\0';
    char dir[900];
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(dir, sizeof(dir), "%s/speedqa", xdg);
    else if (home && home[0] == '/')
        snprintf(dir, sizeof(dir), "%s/.cache/speedqa", home);
    else
        return;
    if (strlen(dir) > 850 || make_dir(dir) < 0)
        return;
    snprintf(k->path, sizeof(k->path), "%s/opencl-%016llx%016llx.bin", dir,
             (unsigned long long)k->ident[0], (unsigned long long)k->ident[1]);
}

static int read_all(int fd, void *p, size_t len)
{
    unsigned char *b = p;
    while (len) {
        ssize_t r = read(fd, b, len);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            return -1;
        }
        b += r;
        len -= (size_t)r;
    }
    return 0;
}

static int write_all(int fd, const void *p, size_t len)
{
    const unsigned char *b = p;
    while (len) {
        ssize_t r = write(fd, b, len);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            return -1;
        }
        b += r;
        len -= (size_t)r;
    }
    return 0;
}

unsigned char *sq_cl_cache_load(const SqClCacheKey *k, const SqAlloc *a, size_t *len)
{
    if (!k->path[0])
        return NULL;
    const int fd = open(k->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    unsigned char *buf = NULL;
    const unsigned char *bin;
    size_t size = 0, n;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size < SQ_CL_CACHE_HDR ||
        (uintmax_t)st.st_size > SQ_CL_CACHE_MAX_FILE)
        goto done;
    size = (size_t)st.st_size;
    if (!(buf = sq_malloc(a, size, 1)))
        goto done;
    if (read_all(fd, buf, size) || sq_cl_cache_parse(buf, size, k->ident, &bin, &n)) {
        sq_free(a, buf);
        buf = NULL;
        goto done;
    }
    memmove(buf, bin, n);
    *len = n;
done:
    close(fd);
    return buf;
}

static void aside_name(const SqClCacheKey *k, char *buf, size_t len)
{
    snprintf(buf, len, "%s.trial", k->path);
}

int sq_cl_cache_hold(const SqClCacheKey *k)
{
    char aside[1100];
    aside_name(k, aside, sizeof(aside));
    return k->path[0] && rename(k->path, aside) == 0 ? 0 : -1;
}

void sq_cl_cache_release(const SqClCacheKey *k, int ok)
{
    char aside[1100];
    aside_name(k, aside, sizeof(aside));
    if (!ok || rename(aside, k->path) < 0)
        unlink(aside);
}

int sq_cl_cache_store(const SqClCacheKey *k, const unsigned char *bin, size_t len)
{
    if (!k->path[0] || !sq_cl_cache_plausible(len))
        return -1;
    char tmp[1100];
    static const char hex[] = "0123456789abcdef";
    char rnd[9];
    uint64_t r = sq_cl_fmix64((uint64_t)getpid() ^ ((uint64_t)(uintptr_t)&r << 16) ^ k->ident[2]);
    for (int i = 0; i < 8; i++)
        rnd[i] = hex[(r >> (4 * i)) & 15];
    rnd[8] = '\0';
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld.%s", k->path, (long)getpid(), rnd);
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    unsigned char hdr[SQ_CL_CACHE_HDR];
    sq_cl_cache_header(hdr, k->ident, bin, len);
    int bad = write_all(fd, hdr, sizeof(hdr)) || write_all(fd, bin, len);
    bad |= close(fd) != 0;
    /* rmdir removes only an empty directory: anything in a full one is not ours to delete */
    if (!bad && rename(tmp, k->path) < 0)
        bad = errno != EISDIR || rmdir(k->path) < 0 || rename(tmp, k->path) < 0;
    if (bad) {
        unlink(tmp);
        return -1;
    }
    /* what a run that crashed inside the driver left aside */
    char aside[1100];
    aside_name(k, aside, sizeof(aside));
    unlink(aside);
    return 0;
}
