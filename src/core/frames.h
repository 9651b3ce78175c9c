/*
 * Frame lifetime, the same for every backend: send indices, a ring of frame
 * slots, and the pictures a frame holds. A picture with a release callback
 * (lent by the caller, or a library picture of core/picture.c) that a
 * backend reads after send returns is held in its frame's slot and given
 * back exactly once: by the backend naming it (sq_frames_give: its copy
 * is done), or when its frame is done (sq_frames_done), or at close.
 * With hold > 0 (some job reads the frame 1 or 2 sends back, and the
 * backend reads it from the caller's picture) a frame's slot is also held
 * for each of its next hold frames of its sequence, until that one is done
 * or the sequence ends (sq_frames_end_seq).
 * Backends keep their own per-slot state (copies, device offsets, results)
 * in arrays of nslots indexed like these slots.
 */
#ifndef SQ_CORE_FRAMES_H
#define SQ_CORE_FRAMES_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/backend.h"

typedef struct SqFrameSlot {
    SpeedqaPicture pic[SQ_MAX_PICS]; /* held while pic[k].release is set */
    atomic_int refs;  /* frames still to read the slot: its own, the next hold ones' */
    int pending;      /* caller thread: reads in refs of later frames not sent yet */
    int new_seq;      /* the frame starts a sequence */
    int past;         /* frames of its sequence before it, at most 2 */
    uint32_t present; /* bit k: picture k was sent (a ladder stream may have ended) */
} SqFrameSlot;

typedef struct SqFrames {
    SqFrameSlot *slot;
    int nslots, npics;
    int hold;         /* 0, 1 or 2: how many later frames read a frame */
    unsigned long long sent, received; /* send indices (receive order is send order) */
} SqFrames;

/* nslots > hold. -ENOMEM, nothing allocated. */
int sq_frames_open(SqFrames *f, int nslots, int npics, int hold, const SqAlloc *a);
/* Every picture still held goes back (no frame may run any more), then the ring is freed. */
void sq_frames_close(SqFrames *f, const SqAlloc *a);

static inline SqFrameSlot *sq_frames_at(const SqFrames *f, unsigned long long n)
{
    return &f->slot[n % (unsigned)f->nslots];
}

static inline int sq_frames_index(const SqFrames *f, unsigned long long n)
{
    return (int)(n % (unsigned)f->nslots);
}

/*
 * The slot of the next frame (send index f->sent), reset: it holds nothing,
 * its own read and the next hold frames' are counted. The caller's
 * thread only; every picture of the slot's earlier frame went back.
 */
SqFrameSlot *sq_frames_next(SqFrames *f, const SpeedqaPicture *const *pics, int new_seq);

/* Hold pic in slot s as picture k until it is given back (no callback: nothing to hold). */
static inline void sq_frames_hold(SqFrameSlot *s, int k, const SpeedqaPicture *pic)
{
    if (pic && pic->release)
        s->pic[k] = *pic;
}

/* Hold every picture of pics that has a release callback. */
void sq_frames_hold_all(const SqFrames *f, SqFrameSlot *s, const SpeedqaPicture *const *pics);

/* Give picture k back now, if held: any thread, one at a time per picture. */
void sq_frames_give(SqFrameSlot *s, int k);

/* Give back a picture never held (read before send returns). */
static inline void sq_frames_give_now(const SpeedqaPicture *pic)
{
    if (pic && pic->release)
        pic->release(pic->release_opaque, pic->data[0]);
}

/* Give back everything slot s holds, now. */
void sq_frames_give_all(SqFrames *f, SqFrameSlot *s);

/* The send failed and took nothing: slot s forgets its pictures, none goes back. */
void sq_frames_drop(SqFrames *f, SqFrameSlot *s);

/* The frame of sq_frames_next is sent: it takes over the reads of the
 * frames it reads; when it starts a sequence, the holds of the last
 * frames for successors go (it reads none of them). */
void sq_frames_commit(SqFrames *f);

/*
 * Frame n is done reading (any thread): its slot, and those of the earlier
 * frames of its sequence it read (up to hold), lose a read; the last read
 * of a slot gives its pictures back.
 */
void sq_frames_done(SqFrames *f, unsigned long long n);

/* The sequence ended (flush, a sticky failure): the last frames' holds for
 * successors go. The caller's thread. */
void sq_frames_end_seq(SqFrames *f);

#endif
