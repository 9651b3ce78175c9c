/*
 * Frame lifetime (frames.h). A slot's reads are counted: whoever drops the
 * last one gives its pictures back, so a frame scored on a worker and its
 * successor's hold (dropped by the caller at a new sequence) never give a
 * picture back twice.
 */
#include <errno.h>
#include <string.h>

#include "core/frames.h"

int sq_frames_open(SqFrames *f, int nslots, int npics, int hold, const SqAlloc *a)
{
    memset(f, 0, sizeof(*f));
    f->slot = sq_calloc(a, (size_t)nslots, sizeof(*f->slot));
    if (!f->slot)
        return -ENOMEM;
    f->nslots = nslots;
    f->npics = npics;
    f->hold = hold;
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
    s->past = 0;
    if (!new_seq && f->sent > 0) {
        const int lp = sq_frames_at(f, f->sent - 1)->past;
        s->past = lp < 2 ? lp + 1 : 2;
    }
    s->pending = 0;
    atomic_store_explicit(&s->refs, 1 + f->hold, memory_order_relaxed);
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

/* Slot s's reads by later frames that will not come go. */
static void drop_pending(SqFrames *f, SqFrameSlot *s)
{
    for (; s->pending > 0; s->pending--)
        unref(f, s);
}

void sq_frames_commit(SqFrames *f)
{
    SqFrameSlot *s = sq_frames_at(f, f->sent);
    /* a slot of the last hold frames with reads pending is of this frame's
     * sequence, unless this frame starts one (new_seq and end_seq zero them) */
    for (int k = 1; k <= f->hold && (unsigned long long)k <= f->sent; k++) {
        SqFrameSlot *last = sq_frames_at(f, f->sent - (unsigned)k);
        if (s->new_seq)
            drop_pending(f, last);
        else if (last->pending > 0)
            last->pending--; /* this frame's read now: it drops it when done */
    }
    s->pending = f->hold;
    f->sent++;
}

void sq_frames_done(SqFrames *f, unsigned long long n)
{
    SqFrameSlot *s = sq_frames_at(f, n);
    const int back = s->past < f->hold ? s->past : f->hold;
    for (int k = 1; k <= back; k++)
        unref(f, sq_frames_at(f, n - (unsigned)k));
    unref(f, s);
}

void sq_frames_end_seq(SqFrames *f)
{
    for (int k = 1; k <= f->hold && (unsigned long long)k <= f->sent; k++)
        drop_pending(f, sq_frames_at(f, f->sent - (unsigned)k));
}
