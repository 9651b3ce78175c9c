#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

static void *alloc_bytes(const SqAlloc *a, size_t n, size_t size, int zero)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    const size_t bytes = n * size > 0 ? n * size : 1;
    void *p;
    if (a && a->alloc) {
        p = a->alloc(a->opaque, bytes);
    } else if (posix_memalign(&p, 64, (bytes + 63) & ~(size_t)63)) {
        p = NULL;
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
