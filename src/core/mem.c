#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/mem.h"

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
         * far fewer first-touch page faults. */
        const size_t huge = (size_t)2 << 20;
        const size_t align = bytes >= huge ? huge : 64;
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

void sq_free(const SqAlloc *a, void *p)
{
    if (!p)
        return;
    if (a && a->free)
        a->free(a->opaque, p);
    else
        free(p);
}
