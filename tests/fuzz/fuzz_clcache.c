/*
 * OpenCL program-binary cache entries (gpu/opencl/cachefmt.c): the parser
 * stands between a file anyone may have written and a driver that crashes
 * on a bad binary, so it must refuse everything but what our writer makes.
 * No OpenCL needed. Input: a mode byte, then material.
 *   mode & 3 == 0: the material is the file, as is
 *              1: the material is a binary; the library's writer wraps it
 *              2: like 1 with 5 leading edit bytes (u32 LE pos, u8 x): the
 *                 byte at pos % size is XORed with x (x = 0 means 0x80), or
 *                 with mode bit 2 the file is cut to pos % size bytes
 *              3: like 1, parsed with another identity
 * Promises checked: parse answers 0 or -1 and reads only the file's bytes
 * (exact-size copy, for ASan); an accepted file is one our writer would
 * produce byte for byte (header recomputed), of plausible size, its binary
 * ending where the file does; a wrapped binary is accepted exactly when its
 * size is plausible and comes back unchanged; any edit, cut or identity
 * change is refused; sq_cl_cache_ident agrees with parse.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "gpu/opencl/cachefmt.h"

static const uint64_t ident[4] = { 0x0123456789abcdefull, 0xfedcba9876543210ull, 42, 7 };

/* Whatever parse accepts must be exactly what the writer makes. */
static int check_parse(const unsigned char *f, size_t n, const uint64_t *id)
{
    const unsigned char *bin = NULL;
    size_t binlen = 0;
    const int r = sq_cl_cache_parse(f, n, id, &bin, &binlen);
    FUZZ_CHECK(r == 0 || r == -1, "parse returned %d", r);
    uint64_t seen[4];
    const int ri = sq_cl_cache_ident(f, n, seen);
    FUZZ_CHECK(ri == 0 || ri == -1, "ident returned %d", ri);
    FUZZ_CHECK(!(r == 0 && ri != 0), "parse accepts what ident refuses");
    if (ri == 0) {
        const unsigned char *b2;
        size_t l2;
        FUZZ_CHECK(sq_cl_cache_parse(f, n, seen, &b2, &l2) == 0,
                   "ident accepts what parse refuses with that identity");
    }
    if (r != 0)
        return r;
    FUZZ_CHECK(!memcmp(seen, id, sizeof(seen)), "accepted under another identity");
    FUZZ_CHECK(bin == f + SQ_CL_CACHE_HDR && binlen == n - SQ_CL_CACHE_HDR,
               "binary at offset %td, %zu bytes, in a file of %zu", bin - f, binlen, n);
    FUZZ_CHECK(sq_cl_cache_plausible(binlen), "accepted a binary of %zu bytes", binlen);
    unsigned char hdr[SQ_CL_CACHE_HDR];
    sq_cl_cache_header(hdr, id, bin, binlen);
    FUZZ_CHECK(!memcmp(hdr, f, sizeof(hdr)), "accepted a header the writer would not write");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > SQ_CL_CACHE_MAX_FILE)
        return 0;
    const unsigned mode = data[0];
    const uint8_t *m = data + 1;
    size_t mlen = size - 1;
    if ((mode & 3) == 0) {
        unsigned char *f = malloc(mlen ? mlen : 1);
        if (!f)
            return 0;
        memcpy(f, m, mlen);
        check_parse(f, mlen, ident);
        free(f);
        return 0;
    }
    uint32_t pos = 0;
    unsigned x = 0;
    if ((mode & 3) == 2) {
        const size_t e = mlen < 5 ? mlen : 5;
        FuzzBytes b = { m, e };
        pos = fuzz_u32(&b);
        x = fuzz_u8(&b);
        m += e;
        mlen -= e;
    }
    const size_t n = SQ_CL_CACHE_HDR + mlen;
    unsigned char *f = malloc(n);
    if (!f)
        return 0;
    sq_cl_cache_header(f, ident, m, mlen);
    memcpy(f + SQ_CL_CACHE_HDR, m, mlen);
    if (fuzz_verbose())
        fprintf(stderr, "mode %u, binary %zu bytes\n", mode, mlen);
    if ((mode & 3) == 1) {
        const int r = check_parse(f, n, ident);
        FUZZ_CHECK(r == (sq_cl_cache_plausible(mlen) ? 0 : -1), "binary of %zu bytes: parse %d", mlen, r);
        if (r == 0) {
            const unsigned char *bin;
            size_t binlen;
            sq_cl_cache_parse(f, n, ident, &bin, &binlen);
            FUZZ_CHECK(binlen == mlen && !memcmp(bin, m, mlen), "binary changed on the way");
        }
    } else if ((mode & 3) == 2) {
        size_t len = n;
        if (mode & 4)
            len = pos % n;
        else
            f[pos % n] ^= (unsigned char)(x ? x : 0x80);
        unsigned char *g = malloc(len ? len : 1);
        if (g) {
            memcpy(g, f, len);
            FUZZ_CHECK(check_parse(g, len, ident) == -1, "%s at %u accepted",
                       mode & 4 ? "cut" : "edit", (unsigned)(pos % n));
            free(g);
        }
    } else {
        uint64_t other[4];
        memcpy(other, ident, sizeof(other));
        other[mode >> 2 & 3] ^= 1ull << (mode >> 4);
        FUZZ_CHECK(check_parse(f, n, other) == -1, "accepted under another identity");
        check_parse(f, n, ident);
    }
    free(f);
    return 0;
}
