/*
 * Every host allocation of the library goes through the caller's allocator
 * (SpeedqaSettings.alloc/free) or aligned malloc. Tests plug in an allocator
 * that fails on the Nth call to prove each failure path frees what it took.
 */
#ifndef SQ_CORE_MEM_H
#define SQ_CORE_MEM_H

#include <stddef.h>

typedef struct SqAlloc {
    void *(*alloc)(void *opaque, size_t size);
    void (*free)(void *opaque, void *ptr);
    void *opaque;
} SqAlloc;

/* Zeroed, 64-byte aligned; NULL on failure or when n * size overflows. */
void *sq_calloc(const SqAlloc *a, size_t n, size_t size);
/* Same, not zeroed: for large buffers that are written before being read,
 * so their pages are committed only as frames arrive. */
void *sq_malloc(const SqAlloc *a, size_t n, size_t size);
void sq_free(const SqAlloc *a, void *p);

/*
 * memcpy for bytes no CPU reads again soon (GPU staging, read by DMA): on
 * x86 the stores bypass the caches, so a destination line is not first
 * read from memory only to be overwritten. sq_copy_fence() makes such
 * stores visible before another thread is told they are done.
 */
void sq_copy_stream(void *dst, const void *src, size_t n);
void sq_copy_fence(void);

#endif
