#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "input_priv.h"
#include "prefetch.h"

#define MAX_DEPTH 40
#define DEVICE_DEPTH SQ_INPUT_HW_AHEAD
/* Frames read ahead of an input or lent hold at most this many bytes. */
#define AHEAD_BUDGET ((size_t)256 << 20)

typedef struct Slot {
    unsigned char *buf;
    SpeedqaPicture pic;
    struct SqPrefetch *owner;
    int lent;            /* handed out, not given back yet */
} Slot;

struct SqPrefetch {
    SqInput *in;
    int depth;
    Slot slot[MAX_DEPTH];
    /* frames [head, tail) are read and waiting; slots are used in order, so
     * the reader waits until slot tail % depth is no longer lent */
    unsigned long long head, tail;
    int end;             /* reader finished: its last result in final, final_msg */
    int final;
    char final_msg[1100];
    int quit;
    int reading;         /* the reader is inside a read */
    int started;
    int cancelable;      /* the reader's stack holds nothing but our own reads */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* A cancelled read leaves the reader's own buffer in place again. */
typedef struct Lent {
    SqInput *in;
    unsigned char *own;
} Lent;

static void give_back(void *arg)
{
    Lent *l = arg;
    l->in->buf = l->own;
}

static void *reader_main(void *arg)
{
    SqPrefetch *p = arg;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        /* a slot is free when neither waiting nor lent */
        while (!p->quit && (p->tail - p->head >= (unsigned)p->depth ||
                            p->slot[p->tail % (unsigned)p->depth].lent))
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->quit)
            break;
        Slot *s = &p->slot[p->tail % (unsigned)p->depth];
        p->reading = 1;
        pthread_mutex_unlock(&p->mu);
        char err[1100] = "";
        /* the readers fill in->buf: lend them this slot's buffer for one frame */
        Lent lent = { p->in, p->in->buf };
        p->in->buf = s->buf;
        int r;
        pthread_cleanup_push(give_back, &lent);
        /* a pipe may block here for good: stop cancels the thread in the read */
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
        r = sq_input_read(p->in, &s->pic, err, sizeof err);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
        pthread_cleanup_pop(1);
        pthread_mutex_lock(&p->mu);
        p->reading = 0;
        pthread_cond_broadcast(&p->cv);
        if (r != 1) {
            p->end = 1;
            p->final = r;
            snprintf(p->final_msg, sizeof p->final_msg, "%s", err);
            pthread_cond_broadcast(&p->cv);
            break;
        }
        p->tail++;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int sq_prefetch_start(SqPrefetch **out, SqInput *in, int depth, char *err, size_t errlen)
{
    *out = NULL;
    /* libav's state cannot survive a cancelled read, and a pipe can block
     * a read for good: such an input is read by the caller itself */
    const int lav = !strcmp(in->rd->name, "lav");
    if (lav && !in->seekable) {
        snprintf(err, errlen, "no read-ahead for a compressed pipe");
        return -ENOTSUP;
    }
    SqPrefetch *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory for the read-ahead");
        return -ENOMEM;
    }
    const size_t fb = sq_input_frame_bytes(in);
    const size_t fit = fb ? AHEAD_BUDGET / fb : MAX_DEPTH;
    depth = depth > MAX_DEPTH ? MAX_DEPTH : depth;
    /* GPU frames (no host buffer): each slot holds a decoded surface; the
     * CUDA backend gives them back at send, so a few ahead keep NVDEC busy */
    if (sq_input_info(in)->device_frames && depth > DEVICE_DEPTH)
        depth = DEVICE_DEPTH;
    depth = (size_t)depth > fit ? (int)fit : depth;
    p->depth = depth < 3 ? 3 : depth;
    p->in = in;
    p->cancelable = !lav;
    for (int i = 0; i < p->depth; i++) {
        p->slot[i].owner = p;
        if (fb && !(p->slot[i].buf = speedqa_buffer_alloc(fb))) {
            sq_prefetch_stop(&p);
            snprintf(err, errlen, "out of memory for %d read-ahead frames", depth);
            return -ENOMEM;
        }
    }
    if (pthread_mutex_init(&p->mu, NULL)) {
        sq_prefetch_stop(&p);
        snprintf(err, errlen, "cannot create the read-ahead lock");
        return -ENOMEM;
    }
    if (pthread_cond_init(&p->cv, NULL)) {
        pthread_mutex_destroy(&p->mu);
        p->depth = -p->depth; /* tell stop: no lock to tear down */
        sq_prefetch_stop(&p);
        snprintf(err, errlen, "cannot create the read-ahead condition");
        return -ENOMEM;
    }
    if (pthread_create(&p->thread, NULL, reader_main, p)) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        p->depth = -p->depth;
        sq_prefetch_stop(&p);
        snprintf(err, errlen, "cannot start the read-ahead thread");
        return -ENOMEM;
    }
    p->started = 1;
    *out = p;
    return 0;
}

/* The library is done with a lent frame (any thread; twice is harmless). */
static void give_back_slot(void *opaque, const void *data0)
{
    Slot *s = opaque;
    SqPrefetch *p = s->owner;
    pthread_mutex_lock(&p->mu);
    /* a GPU frame is the reader's loan too: it goes back to the decoder
     * (only while still lent: the slot may hold the next frame already) */
    if (s->lent && s->pic.release)
        s->pic.release(s->pic.release_opaque, data0);
    s->lent = 0;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

const SpeedqaPicture *sq_prefetch_origin(const SpeedqaPicture *pic)
{
    return pic->release == give_back_slot ? &((const Slot *)pic->release_opaque)->pic : pic;
}

static struct timespec in_ms(int ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

int sq_prefetch_next(SqPrefetch *p, SpeedqaPicture *pic, char *err, size_t errlen)
{
    return sq_prefetch_next_within(p, pic, err, errlen, -1);
}

int sq_prefetch_next_within(SqPrefetch *p, SpeedqaPicture *pic, char *err, size_t errlen, int ms)
{
    const struct timespec until = in_ms(ms < 0 ? 0 : ms);
    pthread_mutex_lock(&p->mu);
    while (p->head == p->tail && !p->end)
        if (ms < 0)
            pthread_cond_wait(&p->cv, &p->mu);
        else if (pthread_cond_timedwait(&p->cv, &p->mu, &until) == ETIMEDOUT)
            break;
    int r;
    if (p->head == p->tail && !p->end) {
        r = -ETIMEDOUT;
    } else if (p->head < p->tail) {
        Slot *s = &p->slot[p->head % (unsigned)p->depth];
        *pic = s->pic;
        pic->release = give_back_slot;
        pic->release_opaque = s;
        s->lent = 1;
        p->head++;
        pthread_cond_broadcast(&p->cv);
        r = 1;
    } else {
        r = p->final;
        if (r < 0 && err && errlen)
            snprintf(err, errlen, "%s", p->final_msg);
    }
    pthread_mutex_unlock(&p->mu);
    return r;
}

void sq_prefetch_stop(SqPrefetch **pp)
{
    SqPrefetch *p = *pp;
    if (!p)
        return;
    if (p->depth > 0 && p->started) {
        pthread_mutex_lock(&p->mu);
        p->quit = 1;
        pthread_cond_broadcast(&p->cv);
        /* a read of a file ends soon; one of a stalled pipe whose other side
         * outlives us may never: give it a moment, then cancel it there */
        const struct timespec until = in_ms(200);
        while (p->reading && pthread_cond_timedwait(&p->cv, &p->mu, &until) == 0)
            ;
        const int stuck = p->reading;
        pthread_mutex_unlock(&p->mu);
        if (stuck && p->cancelable)
            pthread_cancel(p->thread);
        pthread_join(p->thread, NULL);
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
    }
    const int n = p->depth < 0 ? -p->depth : p->depth;
    for (int i = 0; i < n && i < MAX_DEPTH; i++)
        speedqa_buffer_free(p->slot[i].buf);
    free(p);
    *pp = NULL;
}
