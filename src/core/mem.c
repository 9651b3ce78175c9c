#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/mem.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static void *alloc_bytes(const SqAlloc *a, size_t n, size_t size, int zero)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    const size_t bytes = n * size > 0 ? n * size : 1;
    void *p;
    if (a && a->alloc) {
        p = a->alloc(a->opaque, bytes);
    } else {
        /* Buffers of megabytes (previous frames, copies) get huge pages:
         * far fewer first-touch page faults. So do those a little below a
         * huge page (ADM's 1080p band planes, 2073600 bytes each): rounded
         * up to one they waste at most an eighth, where 4 KiB pages cost
         * 506 faults each at open. */
        const size_t huge = (size_t)2 << 20;
        const size_t up = (bytes + huge - 1) & ~(huge - 1);
        const size_t align = bytes >= huge || up - bytes <= bytes / 8 ? huge : 64;
        const size_t padded = (bytes + align - 1) & ~(align - 1);
        if (posix_memalign(&p, align, padded))
            p = NULL;
#ifdef MADV_HUGEPAGE
        else if (align == huge)
            madvise(p, padded, MADV_HUGEPAGE);
#endif
    }
    if (p && zero)
        memset(p, 0, bytes);
    return p;
}

void *sq_calloc(const SqAlloc *a, size_t n, size_t size)
{
    return alloc_bytes(a, n, size, 1);
}

void *sq_malloc(const SqAlloc *a, size_t n, size_t size)
{
    return alloc_bytes(a, n, size, 0);
}

void *sq_calloc_later(const SqAlloc *a, size_t n, size_t size, SqZeroLater *z)
{
    if (!z || z->n == SQ_ZERO_LATER_MAX)
        return alloc_bytes(a, n, size, 1);
    void *p = alloc_bytes(a, n, size, 0);
    if (p) {
        z->p[z->n] = p;
        z->bytes[z->n++] = n * size > 0 ? n * size : 1;
    }
    return p;
}

void sq_zero_now(SqZeroLater *z)
{
    for (int i = 0; i < z->n; i++)
        memset(z->p[i], 0, z->bytes[i]);
    z->n = 0;
}

void sq_free(const SqAlloc *a, void *p)
{
    if (!p)
        return;
    if (a && a->free)
        a->free(a->opaque, p);
    else
        free(p);
}

void sq_copy_stream(void *dst, const void *src, size_t n)
{
#if defined(__SSE2__)
    uint8_t *d = dst;
    const uint8_t *s = src;
    /* below a few cache lines the plain copy costs less than the fence */
    if (n >= 256) {
        const size_t head = (size_t)(-(uintptr_t)d & 15);
        memcpy(d, s, head);
        d += head;
        s += head;
        n -= head;
        for (; n >= 64; n -= 64, d += 64, s += 64) {
            const __m128i a = _mm_loadu_si128((const __m128i *)s);
            const __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
            const __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
            const __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
            _mm_stream_si128((__m128i *)d, a);
            _mm_stream_si128((__m128i *)(d + 16), b);
            _mm_stream_si128((__m128i *)(d + 32), c);
            _mm_stream_si128((__m128i *)(d + 48), e);
        }
    }
    memcpy(d, s, n);
#else
    memcpy(dst, src, n);
#endif
}

void sq_copy_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}
