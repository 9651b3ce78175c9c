/*
 * Frame lifetime (frames.h). A slot's reads are counted: whoever drops the
 * last one gives its pictures back, so a frame scored on a worker and its
 * successor's hold (dropped by the caller at a new sequence) never give a
 * picture back twice.
 */
#include <errno.h>
#include <string.h>

#include "core/frames.h"

int sq_frames_open(SqFrames *f, int nslots, int npics, int prev_hold, const SqAlloc *a)
{
    memset(f, 0, sizeof(*f));
    f->slot = sq_calloc(a, (size_t)nslots, sizeof(*f->slot));
    if (!f->slot)
        return -ENOMEM;
    f->nslots = nslots;
    f->npics = npics;
    f->prev_hold = prev_hold;
    return 0;
}

void sq_frames_close(SqFrames *f, const SqAlloc *a)
{
    for (int i = 0; f->slot && i < f->nslots; i++)
        for (int k = 0; k < SQ_MAX_PICS; k++)
            sq_frames_give(&f->slot[i], k);
    sq_free(a, f->slot);
    f->slot = NULL;
}

SqFrameSlot *sq_frames_next(SqFrames *f, const SpeedqaPicture *const *pics, int new_seq)
{
    SqFrameSlot *s = sq_frames_at(f, f->sent);
    uint32_t present = 0;
    for (int k = 0; k < f->npics; k++) {
        present |= (uint32_t)(pics[k] != NULL) << k;
        s->pic[k].release = NULL;
    }
    s->present = present;
    s->new_seq = new_seq;
    s->has_prev = !new_seq && f->sent > 0;
    s->next_ref = 0;
    atomic_store_explicit(&s->refs, 1 + f->prev_hold, memory_order_relaxed);
    return s;
}

void sq_frames_hold_all(const SqFrames *f, SqFrameSlot *s, const SpeedqaPicture *const *pics)
{
    for (int k = 0; k < f->npics; k++)
        sq_frames_hold(s, k, pics[k]);
}

void sq_frames_give(SqFrameSlot *s, int k)
{
    SpeedqaPicture *p = &s->pic[k];
    const SpeedqaRelease fn = p->release;
    p->release = NULL;
    if (fn)
        fn(p->release_opaque, p->data[0]);
}

void sq_frames_give_all(SqFrames *f, SqFrameSlot *s)
{
    for (int k = 0; k < f->npics; k++)
        sq_frames_give(s, k);
}

void sq_frames_drop(SqFrames *f, SqFrameSlot *s)
{
    for (int k = 0; k < f->npics; k++)
        s->pic[k].release = NULL;
}

static void unref(SqFrames *f, SqFrameSlot *s)
{
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
        sq_frames_give_all(f, s);
}

void sq_frames_commit(SqFrames *f)
{
    SqFrameSlot *s = sq_frames_at(f, f->sent);
    SqFrameSlot *last = f->sent ? sq_frames_at(f, f->sent - 1) : NULL;
    s->next_ref = f->prev_hold;
    if (last && last->next_ref) {
        /* this frame reads the last one unless a sequence starts */
        last->next_ref = 0;
        if (s->new_seq)
            unref(f, last);
    }
    f->sent++;
}

void sq_frames_done(SqFrames *f, unsigned long long n)
{
    SqFrameSlot *s = sq_frames_at(f, n);
    if (f->prev_hold && s->has_prev)
        unref(f, sq_frames_at(f, n - 1));
    unref(f, s);
}

void sq_frames_end_seq(SqFrames *f)
{
    SqFrameSlot *last = f->sent ? sq_frames_at(f, f->sent - 1) : NULL;
    if (last && last->next_ref) {
        last->next_ref = 0;
        unref(f, last);
    }
}
