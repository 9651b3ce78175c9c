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
 * Buffers allocated at open and zeroed by the thread that first uses them
 * (a CPU worker's scratch): their pages are faulted in by that thread, in
 * parallel with the other workers rather than one after another at open,
 * and a worker's set that no frame ever uses is never touched.
 */
#define SQ_ZERO_LATER_MAX 128
typedef struct SqZeroLater {
    void *p[SQ_ZERO_LATER_MAX];
    size_t bytes[SQ_ZERO_LATER_MAX];
    int n;
} SqZeroLater;
/* sq_calloc, whose zeroing z defers (NULL or full: zeroed at once). */
void *sq_calloc_later(const SqAlloc *a, size_t n, size_t size, SqZeroLater *z);
/* Zeroes what z deferred, once. */
void sq_zero_now(SqZeroLater *z);

/*
 * memcpy for bytes no CPU reads again soon (GPU staging, read by DMA): on
 * x86 the stores bypass the caches, so a destination line is not first
 * read from memory only to be overwritten. sq_copy_fence() makes such
 * stores visible before another thread is told they are done.
 */
void sq_copy_stream(void *dst, const void *src, size_t n);
void sq_copy_fence(void);

#endif
