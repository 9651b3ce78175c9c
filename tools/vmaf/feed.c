/*
 * libvmaf's pictures handed over on a thread of their own (bridge.h). With
 * threads, libvmaf still runs its temporal extractors (motion) inside
 * vmaf_read_pictures on the calling thread, one frame after the other: a
 * chain that bounds the whole job. On the reading thread, that chain would
 * also wait for speedqa's reading, sending and copies; here it runs beside
 * them, and the job takes as long as the longer of the two.
 */
#include <pthread.h>
#include <stdlib.h>

#include "bridge.h"

enum { FEED_SLOTS = 8 };

struct SqVmafFeed {
    VmafContext *ctx;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    VmafPicture ref[FEED_SLOTS], dis[FEED_SLOTS];
    unsigned index[FEED_SLOTS];
    unsigned head, count;   /* the oldest queued slot; queued slots */
    int done;               /* no more pictures */
    int error;              /* the first vmaf_read_pictures error, sticky */
    unsigned bad_index;
};

static void *feed_main(void *arg)
{
    SqVmafFeed *f = arg;
    pthread_mutex_lock(&f->mu);
    for (;;) {
        while (!f->count && !f->done)
            pthread_cond_wait(&f->cv, &f->mu);
        if (!f->count)
            break;
        const unsigned s = f->head;
        pthread_mutex_unlock(&f->mu);
        /* libvmaf takes both pictures, whether it scores them or not */
        const int e = f->error ? 0 : vmaf_read_pictures(f->ctx, &f->ref[s], &f->dis[s], f->index[s]);
        if (f->error) {
            vmaf_picture_unref(&f->ref[s]);
            vmaf_picture_unref(&f->dis[s]);
        }
        pthread_mutex_lock(&f->mu);
        if (e && !f->error) {
            f->error = e;
            f->bad_index = f->index[s];
        }
        f->head = (f->head + 1) % FEED_SLOTS;
        f->count--;
        pthread_cond_broadcast(&f->cv);
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

int sq_vmaf_feed_start(SqVmafFeed **out, VmafContext *ctx)
{
    SqVmafFeed *f = calloc(1, sizeof *f);
    *out = NULL;
    if (!f)
        return -1;
    f->ctx = ctx;
    if (pthread_mutex_init(&f->mu, NULL)) {
        free(f);
        return -1;
    }
    if (pthread_cond_init(&f->cv, NULL)) {
        pthread_mutex_destroy(&f->mu);
        free(f);
        return -1;
    }
    if (pthread_create(&f->thread, NULL, feed_main, f)) {
        pthread_cond_destroy(&f->cv);
        pthread_mutex_destroy(&f->mu);
        free(f);
        return -1;
    }
    *out = f;
    return 0;
}

int sq_vmaf_feed_put(SqVmafFeed *f, VmafPicture *ref, VmafPicture *dis, unsigned index,
                     unsigned *bad_index)
{
    pthread_mutex_lock(&f->mu);
    while (f->count == FEED_SLOTS)
        pthread_cond_wait(&f->cv, &f->mu);
    const int e = f->error;
    *bad_index = f->bad_index;
    const unsigned s = (f->head + f->count) % FEED_SLOTS;
    f->ref[s] = *ref;
    f->dis[s] = *dis;
    f->index[s] = index;
    f->count++;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    return e;
}

int sq_vmaf_feed_stop(SqVmafFeed **pf, unsigned *bad_index)
{
    SqVmafFeed *f = *pf;
    if (!f)
        return 0;
    pthread_mutex_lock(&f->mu);
    f->done = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    pthread_join(f->thread, NULL);
    const int e = f->error;
    *bad_index = f->bad_index;
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    free(f);
    *pf = NULL;
    return e;
}
