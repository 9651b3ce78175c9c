/*
 * Cache entry layout (native byte order: an entry never leaves the machine
 * that wrote it, the identity says so):
 *   magic[8] ("SQCLBIN" + format version), ident[4] u64, binary length u64,
 *   checksum u64 over the 48 bytes before it and the binary, binary.
 * The checksum is no MAC (see cache.c): it catches damage, not forgery.
 */
#include <string.h>

#include "gpu/opencl/cachefmt.h"

static const unsigned char sq_cl_magic[8] = { 'S', 'Q', 'C', 'L', 'B', 'I', 'N', 2 };

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

/* Over the header fields too, so that a length or identity edit is caught like a payload one. */
static uint64_t checksum(const unsigned char *hdr, const unsigned char *bin, size_t binlen)
{
    SqClHash s;
    sq_cl_hash_init(&s);
    sq_cl_hash_bytes(&s, hdr, 48);
    sq_cl_hash_bytes(&s, bin, binlen);
    return sq_cl_fmix64(s.h[0]) ^ s.h[1];
}

int sq_cl_cache_plausible(size_t binlen)
{
    return binlen >= SQ_CL_CACHE_MIN_BIN && binlen <= SQ_CL_CACHE_MAX_FILE - SQ_CL_CACHE_HDR;
}

void sq_cl_cache_header(unsigned char hdr[SQ_CL_CACHE_HDR], const uint64_t ident[4],
                        const unsigned char *bin, size_t binlen)
{
    const uint64_t n = binlen;
    memcpy(hdr, sq_cl_magic, 8);
    memcpy(hdr + 8, ident, 32);
    memcpy(hdr + 40, &n, 8);
    const uint64_t sum = checksum(hdr, bin, binlen);
    memcpy(hdr + 48, &sum, 8);
}

static int parse(const unsigned char *buf, size_t len, const uint64_t *ident,
                 const unsigned char **bin, size_t *binlen)
{
    uint64_t n, sum;
    if (len < SQ_CL_CACHE_HDR || len > SQ_CL_CACHE_MAX_FILE || memcmp(buf, sq_cl_magic, 8) ||
        (ident && memcmp(buf + 8, ident, 32)))
        return -1;
    memcpy(&n, buf + 40, 8);
    memcpy(&sum, buf + 48, 8);
    /* the length is compared before it sizes anything */
    if (n != len - SQ_CL_CACHE_HDR || !sq_cl_cache_plausible((size_t)n) ||
        checksum(buf, buf + SQ_CL_CACHE_HDR, (size_t)n) != sum)
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
