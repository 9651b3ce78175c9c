/*
 * Library pictures (speedqa_picture_alloc): planes in memory the backend
 * gives (pinned host memory on the GPU backends, huge-page aligned memory
 * otherwise), reference counted, recycled through the context's free list
 * so that the steady state allocates nothing. A picture's release callback
 * drops one reference; the last one returns its planes to the list.
 */
#ifndef SQ_CORE_PICTURE_H
#define SQ_CORE_PICTURE_H

#include "core/mem.h"
#include "speedqa/speedqa.h"

typedef struct SqPicPool SqPicPool;

/* Where a pool's planes come from: mem(be, bytes, &p) gives memory the
 * backend frees itself when it closes (NULL: aligned host memory the pool
 * frees). */
typedef int (*SqPicMem)(void *be, size_t bytes, void **out);

int sq_picpool_new(SqPicPool **out, const SpeedqaFormat *f, SqPicMem mem, void *be,
                   const SqAlloc *a);
/* A picture with one reference: from the free list, else newly allocated. */
int sq_picpool_get(SqPicPool *p, SpeedqaPicture *pic);
/* The context closes (after its backend): free planes are freed; planes
 * still referenced are freed by their last unreference (the backend's
 * memory is gone by then: such planes may only be unreferenced). */
void sq_picpool_close(SqPicPool **p);

/* One reference more (speedqa_picture_ref); -EINVAL: not a library picture. */
int sq_picture_addref(const SpeedqaPicture *pic);

/* The backend whose memory holds the picture's planes (the `be` of its
 * pool), or NULL when it is not a library picture. */
void *sq_picture_owner(const SpeedqaPicture *pic);

#endif
