/*
 * Layout of one program-binary cache entry, kept apart from files and from
 * the driver so that the fuzz target (tests/fuzz/fuzz_clcache.c) and the
 * tests reach the very parser and writer that cache.c uses, without OpenCL:
 * nothing here needs the CL headers.
 */
#ifndef SQ_GPU_OPENCL_CACHEFMT_H
#define SQ_GPU_OPENCL_CACHEFMT_H

#include <stddef.h>
#include <stdint.h>

/* Bytes in front of the binary. */
#define SQ_CL_CACHE_HDR 56
/*
 * No driver hands back a usable binary of our kernels this small (PoCL's is
 * some 300 KiB), and a few bytes are exactly what crashed PoCL's
 * deserializer: refused before any driver sees them.
 */
#define SQ_CL_CACHE_MIN_BIN 1024
/* Larger files are not read at all: one entry must not cost a large allocation. */
#define SQ_CL_CACHE_MAX_FILE ((size_t)256 << 20)

/* Four 64-bit FNV-1a lanes (cache key and entry checksum). */
typedef struct SqClHash {
    uint64_t h[4];
} SqClHash;

uint64_t sq_cl_fmix64(uint64_t k);
void sq_cl_hash_init(SqClHash *s);
/* Length-prefixed, so consecutive fields cannot run into each other. */
void sq_cl_hash_bytes(SqClHash *s, const void *p, size_t len);

/* Whether a binary of binlen bytes may be stored or loaded. */
int sq_cl_cache_plausible(size_t binlen);

/* The header of an entry holding bin (binlen bytes) for identity ident. */
void sq_cl_cache_header(unsigned char hdr[SQ_CL_CACHE_HDR], const uint64_t ident[4],
                        const unsigned char *bin, size_t binlen);

/*
 * 0 when buf (the whole file, len bytes) is an entry for ident whose binary
 * passes every check: magic and version, identity, length equal to what
 * the file holds, plausible size, checksum. *bin then points into buf.
 * -1 otherwise. Reads nothing outside buf[0, len), whatever len is.
 */
int sq_cl_cache_parse(const unsigned char *buf, size_t len, const uint64_t ident[4],
                      const unsigned char **bin, size_t *binlen);

/* Like sq_cl_cache_parse for whatever identity buf holds (copied to ident). */
int sq_cl_cache_ident(const unsigned char *buf, size_t len, uint64_t ident[4]);

#endif
