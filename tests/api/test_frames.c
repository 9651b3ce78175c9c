/*
 * Frame lifetime (core/frames.c), which every backend uses: a held picture
 * goes back exactly once and at the right moment: when its frame is done,
 * or with hold 1 or 2 when the next frames are done too, or when the sequence
 * ends (end_seq, a new sequence's commit), or when named (give), or at
 * close; a dropped send gives nothing back. Then frames finished by other
 * threads while the caller sends (the CPU's workers): every picture once.
 * Also run under TSan by .ci/reliability.sh.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/frames.h"

#define NPIC 64

static atomic_int back[NPIC];
static int fails;

static void check(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL %s\n", what);
        fails++;
    }
}

static void release(void *opaque, const void *data0)
{
    (void)data0;
    atomic_fetch_add(&back[(int)(intptr_t)opaque], 1);
}

static SpeedqaPicture pic(int id, int lent)
{
    SpeedqaPicture p;
    memset(&p, 0, sizeof(p));
    p.release = lent ? release : NULL;
    p.release_opaque = (void *)(intptr_t)id;
    return p;
}

static int gone(int id)
{
    return atomic_load(&back[id]);
}

/* Send frame `first`..: pictures first (ref) and first + 1 (dis). */
static SqFrameSlot *send(SqFrames *f, int id, int new_seq, int lent)
{
    const SpeedqaPicture a = pic(id, lent), b = pic(id + 1, lent);
    const SpeedqaPicture *pics[2] = { &a, &b };
    SqFrameSlot *s = sq_frames_next(f, pics, new_seq);
    sq_frames_hold_all(f, s, pics);
    sq_frames_commit(f);
    return s;
}

static void prev_hold(void)
{
    const SqAlloc a = { 0 };
    SqFrames f;
    check(sq_frames_open(&f, 3, 2, 1, &a) == 0, "open");
    SqFrameSlot *s = send(&f, 0, 1, 1);
    check(s->past == 0 && s->present == 3, "frame 0: no previous, both pictures");
    sq_frames_done(&f, 0);
    check(gone(0) == 0 && gone(1) == 0, "frame 0 held for frame 1");
    s = send(&f, 2, 0, 1);
    check(s->past == 1, "frame 1 has a previous frame");
    sq_frames_done(&f, 1);
    check(gone(0) == 1 && gone(1) == 1, "frame 0 back once frame 1 is done");
    check(gone(2) == 0, "frame 1 held for frame 2");
    sq_frames_end_seq(&f);
    check(gone(2) == 1 && gone(3) == 1, "end of sequence: frame 1 back");
    sq_frames_end_seq(&f);
    check(gone(2) == 1, "a second end of sequence gives nothing back");
    /* a new sequence's frame drops its predecessor's hold at commit, even
     * when its own frame is not done yet */
    send(&f, 4, 1, 1);
    sq_frames_done(&f, 2);
    check(gone(4) == 0, "frame 2 held");
    s = send(&f, 6, 1, 1);
    check(s->past == 0, "a new sequence has no previous frame");
    check(gone(4) == 1 && gone(5) == 1, "new sequence: frame 2 back at commit");
    /* a picture named back by the backend is not given back again */
    sq_frames_give(s, 0);
    check(gone(6) == 1, "give");
    sq_frames_done(&f, 3);
    check(gone(6) == 1 && gone(7) == 0, "given once; the other held");
    /* a failed send takes nothing */
    const SpeedqaPicture d0 = pic(8, 1), d1 = pic(9, 1);
    const SpeedqaPicture *dp[2] = { &d0, NULL };
    s = sq_frames_next(&f, dp, 0);
    check(s->present == 1, "present: a stream that ended");
    sq_frames_hold(s, 0, &d0);
    sq_frames_hold(s, 1, &d1);
    sq_frames_drop(&f, s);
    sq_frames_close(&f, &a);
    check(gone(7) == 1, "close gives back what is held");
    check(gone(8) == 0 && gone(9) == 0, "dropped pictures are the caller's");
}

static void no_prev_hold(void)
{
    const SqAlloc a = { 0 };
    SqFrames f;
    check(sq_frames_open(&f, 2, 2, 0, &a) == 0, "open");
    send(&f, 10, 1, 1);
    send(&f, 12, 0, 1);
    check(gone(10) == 0, "held until done");
    sq_frames_done(&f, 0);
    check(gone(10) == 1 && gone(11) == 1 && gone(12) == 0, "frame 0 back when done");
    send(&f, 14, 0, 0);
    sq_frames_close(&f, &a);
    check(gone(12) == 1 && gone(13) == 1, "close");
}

/* hold 2 (motion's five-frame window): a frame is held for the two after it
 * in its sequence, and no longer than its sequence. Pictures 48..59. */
static void hold_two(void)
{
    const SqAlloc a = { 0 };
    SqFrames f;
    check(sq_frames_open(&f, 4, 2, 2, &a) == 0, "hold 2: open");
    send(&f, 48, 1, 1);
    sq_frames_done(&f, 0);
    SqFrameSlot *s = send(&f, 50, 0, 1);
    sq_frames_done(&f, 1);
    check(s->past == 1 && gone(48) == 0, "hold 2: frame 0 held for frame 2");
    s = send(&f, 52, 0, 1);
    check(s->past == 2, "hold 2: frame 2 has two frames before it");
    sq_frames_done(&f, 2);
    check(gone(48) == 1 && gone(49) == 1 && gone(50) == 0,
          "hold 2: frame 0 back once frame 2 is done, frame 1 held for frame 3");
    sq_frames_end_seq(&f);
    check(gone(50) == 1 && gone(52) == 1 && gone(53) == 1,
          "hold 2: end of sequence: frames 1 and 2 back");
    send(&f, 54, 1, 1);
    send(&f, 56, 0, 1);
    sq_frames_done(&f, 3);
    s = send(&f, 58, 1, 1);
    check(s->past == 0 && gone(54) == 0 && gone(56) == 0,
          "hold 2: a new sequence drops the holds, not the reads of frames in flight");
    sq_frames_done(&f, 4);
    check(gone(54) == 1 && gone(56) == 1, "hold 2: frames 3 and 4 back once frame 4 is done");
    sq_frames_done(&f, 5);
    check(gone(58) == 0, "hold 2: frame 5 held for the frames after it");
    sq_frames_close(&f, &a);
    for (int id = 48; id < 60; id++)
        check(gone(id) == 1, "hold 2: every picture back once");
}

/* Frames done on other threads, in any order, while the caller sends. */
typedef struct Done {
    SqFrames *f;
    unsigned long long n;
} Done;

static void *done_thread(void *arg)
{
    const Done *d = arg;
    sq_frames_done(d->f, d->n);
    return NULL;
}

static void threads(void)
{
    enum { SLOTS = 6, FRAMES = 24, INFLIGHT = SLOTS - 2 };
    const SqAlloc a = { 0 };
    SqFrames f;
    pthread_t t[FRAMES];
    Done d[FRAMES];
    check(sq_frames_open(&f, SLOTS, 2, 1, &a) == 0, "open");
    for (int n = 0; n < FRAMES; n++) {
        /* a slot is sent again once the two frames that read it are done */
        if (n >= INFLIGHT)
            pthread_join(t[n - INFLIGHT], NULL);
        send(&f, 16 + (n % 16) * 2, n % 7 == 0, 1);
        d[n] = (Done){ &f, (unsigned long long)n };
        pthread_create(&t[n], NULL, done_thread, &d[n]);
    }
    for (int n = FRAMES - INFLIGHT; n < FRAMES; n++)
        pthread_join(t[n], NULL);
    sq_frames_end_seq(&f);
    sq_frames_close(&f, &a);
    /* pictures 16..47 were sent once (frames 0..15), 16..31 again (16..23) */
    for (int id = 16; id < 48; id++)
        check(gone(id) == (id < 32 ? 2 : 1), "threads: every picture back once per send");
}

int main(void)
{
    prev_hold();
    no_prev_hold();
    hold_two();
    threads();
    if (fails)
        return 1;
    printf("ok\n");
    return 0;
}
