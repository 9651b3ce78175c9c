/*
 * Library pictures (picture.h). A buffer's header holds its reference
 * count; the pool outlives the context while any buffer is referenced
 * (pool->users counts the context and every buffer out of the list).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "core/format.h"
#include "core/picture.h"

typedef struct PicBuf {
    SqPicPool *pool;
    atomic_int refs;
    uint8_t *mem;
    struct PicBuf *next;  /* in the free list */
} PicBuf;

struct SqPicPool {
    pthread_mutex_t mu;
    int users;            /* the context (until close) + buffers out of the list */
    int closed;
    PicBuf *free_list;
    SqPicMem mem;
    void *be;
    SqAlloc alloc;
    SpeedqaFormat fmt;
    ptrdiff_t stride[3];
    size_t off[3], bytes;
};

static void release(void *opaque, const void *data0);

static void pool_drop(SqPicPool *p)
{
    /* under p->mu; unlocks */
    const int last = --p->users == 0;
    pthread_mutex_unlock(&p->mu);
    if (last) {
        pthread_mutex_destroy(&p->mu);
        const SqAlloc a = p->alloc;
        sq_free(&a, p);
    }
}

static void buf_free(SqPicPool *p, PicBuf *b)
{
    /* the backend's memory is the backend's to free */
    if (!p->mem)
        sq_free(&p->alloc, b->mem);
    sq_free(&p->alloc, b);
}

int sq_picpool_new(SqPicPool **out, const SpeedqaFormat *f, SqPicMem mem, void *be,
                   const SqAlloc *a)
{
    SqPicPool *p = sq_calloc(a, 1, sizeof(*p));
    *out = NULL;
    if (!p)
        return -ENOMEM;
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        sq_free(a, p);
        return -ENOMEM;
    }
    p->users = 1;
    p->mem = mem;
    p->be = be;
    p->alloc = *a;
    p->fmt = *f;
    /* rows start 64-byte aligned: whole cache lines for the SIMD loads and the DMA */
    const int bps = f->bpc > 8 ? 2 : 1;
    for (int c = 0; c < (f->fmt == SPEEDQA_PIX_400 ? 1 : 3); c++) {
        int w, h;
        sq_plane_size(f, c, &w, &h);
        p->stride[c] = (ptrdiff_t)(((size_t)w * bps + 63) & ~(size_t)63);
        p->off[c] = p->bytes;
        p->bytes += (size_t)p->stride[c] * (size_t)h;
    }
    *out = p;
    return 0;
}

int sq_picpool_get(SqPicPool *p, SpeedqaPicture *pic)
{
    pthread_mutex_lock(&p->mu);
    PicBuf *b = p->free_list;
    if (b) {
        p->free_list = b->next;
        p->users++;
    }
    pthread_mutex_unlock(&p->mu);
    if (!b) {
        if (!(b = sq_calloc(&p->alloc, 1, sizeof(*b))))
            return -ENOMEM;
        int ret = 0;
        if (p->mem)
            ret = p->mem(p->be, p->bytes, (void **)&b->mem);
        else if (!(b->mem = sq_malloc(&p->alloc, 1, p->bytes)))
            ret = -ENOMEM;
        if (ret < 0 || !b->mem) {
            sq_free(&p->alloc, b);
            return ret < 0 ? ret : -ENOMEM;
        }
        b->pool = p;
        pthread_mutex_lock(&p->mu);
        p->users++;
        pthread_mutex_unlock(&p->mu);
    }
    atomic_store(&b->refs, 1);
    *pic = (SpeedqaPicture){ .format = p->fmt, .memory = SPEEDQA_MEM_HOST,
                             .release = release, .release_opaque = b };
    for (int c = 0; c < 3; c++) {
        const int has = p->fmt.fmt != SPEEDQA_PIX_400 || c == 0;
        pic->data[c] = has ? b->mem + p->off[c] : NULL;
        pic->stride[c] = has ? p->stride[c] : 0;
    }
    return 0;
}

/* One reference less; the last one puts the planes back (or frees them
 * once the context is gone). */
static void release(void *opaque, const void *data0)
{
    PicBuf *b = opaque;
    (void)data0;
    if (atomic_fetch_sub(&b->refs, 1) != 1)
        return;
    SqPicPool *p = b->pool;
    pthread_mutex_lock(&p->mu);
    if (p->closed) {
        buf_free(p, b);
    } else {
        b->next = p->free_list;
        p->free_list = b;
    }
    pool_drop(p);
}

void sq_picpool_close(SqPicPool **pp)
{
    SqPicPool *p = *pp;
    if (!p)
        return;
    *pp = NULL;
    pthread_mutex_lock(&p->mu);
    p->closed = 1;
    while (p->free_list) {
        PicBuf *b = p->free_list;
        p->free_list = b->next;
        buf_free(p, b);
    }
    pool_drop(p);
}

/* No lock on the send path: be never changes, and a picture of a closed
 * context may only be unreferenced (its planes are gone either way). */
void *sq_picture_owner(const SpeedqaPicture *pic)
{
    return pic->release == release ? ((const PicBuf *)pic->release_opaque)->pool->be : NULL;
}

int sq_picture_addref(const SpeedqaPicture *pic)
{
    if (!pic || pic->release != release)
        return -EINVAL;
    atomic_fetch_add(&((PicBuf *)pic->release_opaque)->refs, 1);
    return 0;
}
