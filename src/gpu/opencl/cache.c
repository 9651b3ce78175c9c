/*
 * Program-binary cache: one file per (device, driver, source, options) in
 * $XDG_CACHE_HOME/speedqa or ~/.cache/speedqa, so a warm open skips the
 * OpenCL C compile. Files are written to a temp name and renamed, and every
 * load checks magic, identity, length and a checksum, so a corrupt or stale
 * entry is simply rebuilt. Nothing here is ever fatal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/opencl/cl.h"

static const char sq_cl_magic[8] = { 'S', 'Q', 'C', 'L', 'B', 'I', 'N', 1 };

typedef struct Hash {
    uint64_t h[4];
} Hash;

static uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

static void hash_init(Hash *s)
{
    for (int i = 0; i < 4; i++)
        s->h[i] = 0xcbf29ce484222325ull ^ fmix64(0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
}

/* Four FNV-1a lanes with distinct seeds; fields are length-prefixed. */
static void hash_bytes(Hash *s, const void *p, size_t len)
{
    const unsigned char *b = p;
    uint64_t l = len;
    for (int i = 0; i < 4; i++) {
        uint64_t h = s->h[i];
        for (int k = 0; k < 8; k++)
            h = (h ^ ((l >> (8 * k)) & 0xff)) * 0x100000001b3ull;
        for (size_t k = 0; k < len; k++)
            h = (h ^ b[k]) * (0x100000001b3ull + 2 * (uint64_t)i);
        s->h[i] = h;
    }
}

static void hash_str(Hash *s, const char *str)
{
    hash_bytes(s, str, strlen(str));
}

static uint64_t checksum(const unsigned char *p, size_t len)
{
    Hash s;
    hash_init(&s);
    hash_bytes(&s, p, len);
    return fmix64(s.h[0]) ^ s.h[1];
}

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
    Hash s;
    hash_init(&s);
    hash_str(&s, dev->platform_name);
    hash_str(&s, dev->name);
    hash_str(&s, dev->version);
    hash_str(&s, dev->driver);
    hash_str(&s, opts);
    hash_bytes(&s, src, srclen);
    const uint64_t ptr_bits = sizeof(void *) * 8;
    hash_bytes(&s, &ptr_bits, sizeof(ptr_bits));
    for (int i = 0; i < 4; i++)
        k->ident[i] = fmix64(s.h[i]);

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

/* File: magic[8], ident[4] u64, length u64, checksum u64, binary. */
unsigned char *sq_cl_cache_load(const SqClCacheKey *k, const SqAlloc *a, size_t *len)
{
    if (!k->path[0])
        return NULL;
    const int fd = open(k->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    unsigned char *bin = NULL;
    char magic[8];
    uint64_t ident[4], n, sum;
    struct stat st;
    if (fstat(fd, &st) < 0 || read_all(fd, magic, 8) || memcmp(magic, sq_cl_magic, 8) ||
        read_all(fd, ident, sizeof(ident)) || memcmp(ident, k->ident, sizeof(ident)) ||
        read_all(fd, &n, 8) || read_all(fd, &sum, 8) || n == 0 ||
        (uint64_t)st.st_size != 8 + sizeof(ident) + 16 + n)
        goto done;
    if (!(bin = sq_calloc(a, (size_t)n, 1)))
        goto done;
    if (read_all(fd, bin, (size_t)n) || checksum(bin, (size_t)n) != sum) {
        sq_free(a, bin);
        bin = NULL;
        goto done;
    }
    *len = (size_t)n;
done:
    close(fd);
    return bin;
}

int sq_cl_cache_store(const SqClCacheKey *k, const unsigned char *bin, size_t len)
{
    if (!k->path[0] || !len)
        return -1;
    char tmp[1100];
    static const char hex[] = "0123456789abcdef";
    char rnd[9];
    uint64_t r = fmix64((uint64_t)getpid() ^ ((uint64_t)(uintptr_t)&r << 16) ^ k->ident[2]);
    for (int i = 0; i < 8; i++)
        rnd[i] = hex[(r >> (4 * i)) & 15];
    rnd[8] = '\0';
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld.%s", k->path, (long)getpid(), rnd);
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    const uint64_t n = len, sum = checksum(bin, len);
    int bad = write_all(fd, sq_cl_magic, 8) || write_all(fd, k->ident, sizeof(k->ident)) ||
              write_all(fd, &n, 8) || write_all(fd, &sum, 8) || write_all(fd, bin, len);
    bad |= close(fd) != 0;
    if (bad || rename(tmp, k->path) < 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}
