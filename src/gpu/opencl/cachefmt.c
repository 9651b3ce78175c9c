/* Cache entry layout: magic[8], ident[4] u64, length u64, checksum u64, binary. */
#include <string.h>

#include "gpu/opencl/cachefmt.h"

static const unsigned char sq_cl_magic[8] = { 'S', 'Q', 'C', 'L', 'B', 'I', 'N', 1 };

uint64_t sq_cl_fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

void sq_cl_hash_init(SqClHash *s)
{
    for (int i = 0; i < 4; i++)
        s->h[i] = 0xcbf29ce484222325ull ^ sq_cl_fmix64(0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
}

/* Four FNV-1a lanes with distinct seeds and primes. */
void sq_cl_hash_bytes(SqClHash *s, const void *p, size_t len)
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

static uint64_t checksum(const unsigned char *p, size_t len)
{
    SqClHash s;
    sq_cl_hash_init(&s);
    sq_cl_hash_bytes(&s, p, len);
    return sq_cl_fmix64(s.h[0]) ^ s.h[1];
}

void sq_cl_cache_header(unsigned char hdr[SQ_CL_CACHE_HDR], const uint64_t ident[4],
                        const unsigned char *bin, size_t binlen)
{
    const uint64_t n = binlen, sum = checksum(bin, binlen);
    memcpy(hdr, sq_cl_magic, 8);
    memcpy(hdr + 8, ident, 32);
    memcpy(hdr + 40, &n, 8);
    memcpy(hdr + 48, &sum, 8);
}

static int parse(const unsigned char *buf, size_t len, const uint64_t *ident,
                 const unsigned char **bin, size_t *binlen)
{
    uint64_t n, sum;
    if (len < SQ_CL_CACHE_HDR || memcmp(buf, sq_cl_magic, 8) ||
        (ident && memcmp(buf + 8, ident, 32)))
        return -1;
    memcpy(&n, buf + 40, 8);
    memcpy(&sum, buf + 48, 8);
    if (n == 0 || n != len - SQ_CL_CACHE_HDR || checksum(buf + SQ_CL_CACHE_HDR, (size_t)n) != sum)
        return -1;
    *bin = buf + SQ_CL_CACHE_HDR;
    *binlen = (size_t)n;
    return 0;
}

int sq_cl_cache_parse(const unsigned char *buf, size_t len, const uint64_t ident[4],
                      const unsigned char **bin, size_t *binlen)
{
    return parse(buf, len, ident, bin, binlen);
}

int sq_cl_cache_ident(const unsigned char *buf, size_t len, uint64_t ident[4])
{
    const unsigned char *bin;
    size_t binlen;
    if (parse(buf, len, NULL, &bin, &binlen))
        return -1;
    memcpy(ident, buf + 8, 32);
    return 0;
}
