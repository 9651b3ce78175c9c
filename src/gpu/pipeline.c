/*
 * The plane-job pipeline on any GPU runtime (gpu.h vtable): the SqBackend
 * entry points, open and close.
 *
 * Frames are uploaded as they are sent (copy stream) into a ring of frame
 * slots (staging.c); every `batch` frames (or when a result is needed and
 * the caller may block) one chain of kernels scores all planes, sides and
 * frames of the batch at once (compute stream), and one download brings
 * back the per-plane scores (launch.c). Events tell receive() whether a
 * batch is done, so the steady state never waits on the device except when
 * the queue is full.
 *
 * Device memory is one arena (layout.c): plans, prescale tables, problem
 * tables, results, per-batch scratch and the frame slots, all addressed by
 * byte offsets. Host memory: two pinned blocks, the staging copy of every
 * frame slot (from the first host picture on) and the per-batch tables and
 * results.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "gpu/pipeline_priv.h"

/* Every part, and what they share: GpuCtx, the frames and where each lies. */
typedef struct GpuPriv {
    GpuCtx x;
    GpuLayout lay;
    SqFrames fr;
    FrameRec *frames;    /* nslots, like fr's slots */
    GpuRegs regs;
    GpuStage stage;
    GpuBatches bat;
    /* pinned blocks of library pictures (sq_gpu_pic_mem), freed at close */
    void **picmem;
    int npicmem;
} GpuPriv;

/* Record the first device error; every later call fails with it. */
int sq_gpu_fail(GpuCtx *x, int ret, const char *what)
{
    if (!x->sticky) {
        const char *dm = x->dev ? x->fns->error(x->dev) : "";
        x->sticky = ret == -ENOMEM ? -ENOMEM : -EIO;
        snprintf(x->msg, sizeof(x->msg), "%s: %s", what, dm && dm[0] ? dm : "device failure");
    }
    return x->sticky;
}

static int report(const GpuCtx *x, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", x->msg);
    return x->sticky;
}

/* Make the device current for this call: 0 or a sticky error. */
static int enter(GpuCtx *x)
{
    if (x->fns->enter && x->fns->enter(x->dev) < 0)
        return sq_gpu_fail(x, -EIO, "context");
    return 0;
}

static void leave(GpuCtx *x)
{
    if (x->fns->leave)
        x->fns->leave(x->dev);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

void sq_gpu_close(void **priv)
{
    GpuPriv *g = *priv;
    if (!g)
        return;
    GpuCtx *x = &g->x;
    /* a queued stage that never ran would never give its pictures back */
    sq_gpu_stage_stop(&g->stage);
    if (x->dev) {
        const double t0 = now_ms();
        const SqGpuFns *fn = x->fns;
        if (fn->enter)
            fn->enter(x->dev);
        /* Nothing may still write into what we free. */
        sq_gpu_batches_sync(&g->bat);
        /* frames of a batch never launched may still be uploading */
        for (int k = 0; g->stage.fr && k < g->lay.nslots; k++)
            sq_gpu_release_held(&g->stage, k, 1);
        sq_gpu_regs_close(&g->regs);
        for (int k = 0; k < g->npicmem; k++)
            fn->host_free(x->dev, g->picmem[k]);
        const double t1 = now_ms();
        sq_gpu_stage_free(&g->stage);
        sq_gpu_batches_free(&g->bat);
        const double t2 = now_ms();
        if (x->arena)
            fn->free(x->dev, x->arena);
        leave(x);
        if (x->p.settings && x->p.settings->cuda.keep_device && fn->keep)
            fn->keep(x->dev);
        fn->close(&x->dev);
        sq_log(x->p.settings, SPEEDQA_LOG_DEBUG, "%s: closed in %.1f ms: last batches %.1f, pinned %.1f, arena and device %.1f",
                   fn->name, now_ms() - t0, t1 - t0, t2 - t1, now_ms() - t2);
    }
    const SqAlloc a = x->p.alloc;
    sq_frames_close(&g->fr, &a);
    sq_free(&a, g->frames);
    sq_free(&a, g->picmem);
    sq_free(&a, g);
    *priv = NULL;
}

int sq_gpu_open(void **priv, const SqBackendParams *p, const SqGpuFns *fns, char *err,
                size_t errlen)
{
    *priv = NULL;
    GpuPriv *g = sq_calloc(&p->alloc, 1, sizeof(*g));
    if (!g) {
        snprintf(err, errlen, "out of memory for the %s backend", fns->name);
        return -ENOMEM;
    }
    GpuCtx *x = &g->x;
    x->p = *p;
    x->fns = fns;
    for (int f = 0; f < p->nplans; f++)
        if (p->plans[f]->d.n > SQ_GPU_NMAX || p->plans[f]->taps_a > SQ_MAX_TAPS) {
            snprintf(err, errlen, "%s: block size %d unsupported", fns->name, p->plans[f]->d.b);
            sq_free(&p->alloc, g);
            return -EINVAL;
        }
    /* gpu_batch (1..MAX_BATCH, checked by lib.c) sets the frames per batch:
     * the pinned staging and the arena, and so start-up and close, scale
     * with it */
    sq_gpu_layout_init(&g->lay, p, p->gpu_batch >= 1 && p->gpu_batch <= MAX_BATCH ? p->gpu_batch : 0);

    int ret;
    const int nev = sq_gpu_nevents(&g->lay);
    const char *name = p->device_name && p->device_name[0] ? p->device_name : NULL;
    if (name && !fns->open_named && !fns->open_ex) {
        snprintf(err, errlen, "the %s backend cannot select a device by name", fns->name);
        sq_gpu_close((void **)&g);
        return -EINVAL;
    }
    const double t0 = now_ms();
    const SqGpuOpenOpts oo = { p->device, name, nev, p->force_soft_f64 };
    ret = fns->open_ex ? fns->open_ex(&x->dev, &oo, &p->alloc, err, errlen)
          : name       ? fns->open_named(&x->dev, name, nev, &p->alloc, err, errlen)
                       : fns->open(&x->dev, p->device, nev, &p->alloc, err, errlen);
    if (ret < 0) {
        x->dev = NULL;
        sq_gpu_close((void **)&g);
        return ret;
    }
    if (fns->enter && (ret = fns->enter(x->dev)) < 0)
        goto fail_dev;
    /* fewer frames per batch: the events opened above still suffice */
    if (fns->max_alloc)
        sq_gpu_choose_batch(&g->lay, p, (int64_t)fns->max_alloc(x->dev));
    g->frames = sq_calloc(&p->alloc, (size_t)g->lay.nslots, sizeof(*g->frames));
    if (!g->frames || sq_frames_open(&g->fr, g->lay.nslots, 2, 0, &p->alloc) < 0 ||
        sq_gpu_regs_open(&g->regs, x, &g->lay) < 0) {
        snprintf(err, errlen, "out of memory for the %s backend", fns->name);
        ret = -ENOMEM;
        goto fail_leave;
    }
    const double t1 = now_ms();
    if ((ret = fns->alloc(x->dev, (size_t)g->lay.arena_bytes, &x->arena)) < 0) {
        x->arena = 0;
        goto fail_dev;
    }
    const double t2 = now_ms();
    if ((ret = sq_gpu_batches_init(&g->bat, x, &g->lay, &g->fr, g->frames, &g->stage, err,
                                   errlen)) < 0)
        goto fail_leave;
    const double t3 = now_ms();
    if ((ret = sq_gpu_upload_plans(&g->lay, x)) < 0)
        goto fail_dev;
    if ((ret = sq_gpu_stage_init(&g->stage, x, &g->lay, &g->fr, &g->regs, g, p->n_threads)) < 0) {
        snprintf(err, errlen, ret == -ENOMEM ? "out of memory for the %s backend"
                                             : "cannot start %s staging threads", fns->name);
        goto fail_leave;
    }
    leave(x);
    if (fns->describe) {
        char what[256];
        fns->describe(x->dev, what, sizeof(what));
        sq_log(p->settings, SPEEDQA_LOG_INFO, "%s: %s", fns->name, what);
    }
    /* start-up and close are most of a short job's time: their split, for tuning */
    sq_log(p->settings, SPEEDQA_LOG_DEBUG, "%s: opened in %.1f ms: device and kernels %.1f, arena %.0f MB %.1f, pinned tables %.1f MB "
               "%.1f, plans and staging threads %.1f (batch %d frames, capacity %d; %.0f MB of staging pinned on the first host picture)", fns->name,
               now_ms() - t0, t1 - t0, (double)g->lay.arena_bytes / 1048576.0, t2 - t1,
               (double)g->bat.tables_bytes / 1048576.0, t3 - t2, now_ms() - t3, g->lay.batch,
               g->lay.cap, (double)g->stage.pinned_bytes / 1048576.0);
    *priv = g;
    return 0;

fail_dev:
    snprintf(err, errlen, "%s", fns->error(x->dev));
fail_leave:
    leave(x);
    sq_gpu_close((void **)&g);
    return ret == -ENOMEM || ret == -ENODEV || ret == -EAGAIN ? ret : -EIO;
}

/* Pinned memory for a library picture; freed at close. */
int sq_gpu_pic_mem(void *priv, size_t bytes, void **out)
{
    GpuPriv *g = priv;
    *out = NULL;
    void **list = sq_calloc(&g->x.p.alloc, (size_t)g->npicmem + 1, sizeof(*list));
    if (!list)
        return -ENOMEM;
    if (enter(&g->x) < 0) {
        sq_free(&g->x.p.alloc, list);
        return g->x.sticky;
    }
    const int ret = g->x.fns->host_alloc(g->x.dev, bytes, out);
    leave(&g->x);
    if (ret < 0 || !*out) {
        sq_free(&g->x.p.alloc, list);
        *out = NULL;
        return ret < 0 ? ret : -ENOMEM;
    }
    if (g->npicmem)
        memcpy(list, g->picmem, sizeof(*list) * (size_t)g->npicmem);
    sq_free(&g->x.p.alloc, g->picmem);
    g->picmem = list;
    g->picmem[g->npicmem++] = *out;
    return 0;
}

int sq_gpu_capacity(void *priv)
{
    return ((GpuPriv *)priv)->lay.cap;
}

void sq_gpu_stats(void *priv, SqGpuStats *st)
{
    const GpuPriv *g = priv;
    st->batch_frames = g->lay.batch;
    st->capacity = g->lay.cap;
    st->arena_bytes = (size_t)g->lay.arena_bytes;
    st->pinned_bytes = (size_t)(g->bat.tables_bytes + (g->stage.pinned ? g->stage.pinned_bytes : 0));
}

void sq_gpu_set_profile(void *priv, int on)
{
    GpuPriv *g = priv;
    g->bat.profile = on;
    memset(g->bat.prof_ms, 0, sizeof(g->bat.prof_ms));
    g->bat.prof_batches = 0;
}

int sq_gpu_profile(void *priv, double *ms)
{
    const GpuPriv *g = priv;
    for (int k = 0; k < SQ_K_COUNT; k++)
        ms[k] = g->bat.prof_batches ? g->bat.prof_ms[k] / g->bat.prof_batches : 0.0;
    return g->bat.prof_batches;
}

int sq_gpu_send(void *priv, const SpeedqaPicture *const *pic, int new_seq, char *err,
                size_t errlen)
{
    GpuPriv *g = priv;
    const SpeedqaPicture *ref = pic[0], *dis = pic[1];
    if (g->x.sticky)
        return report(&g->x, err, errlen);
    for (int s = 0; s < 2; s++)
        if (pic[s]->memory != SPEEDQA_MEM_HOST &&
            ((int)pic[s]->memory != g->x.fns->device_memory || !g->x.fns->copy2d)) {
            snprintf(err, errlen, "the %s backend cannot read this picture memory", g->x.fns->name);
            return -EINVAL;
        }
    if (g->fr.sent - g->fr.received >= (unsigned)g->lay.cap) {
        snprintf(err, errlen, "%s: queue full", g->x.fns->name);
        return -EAGAIN;
    }
    if (enter(&g->x) < 0)
        return report(&g->x, err, errlen);
    const int slot = sq_frames_index(&g->fr, g->fr.sent);
    FrameRec *fr = &g->frames[slot];
    memset(fr, 0, sizeof(*fr));
    const SqFrameSlot *fs = sq_frames_next(&g->fr, pic, new_seq);
    fr->past = fs->past;
    int ret = sq_gpu_put_frame(&g->stage, fr, slot, ref, dis, err, errlen);
    const int taken = !ret && (ret = sq_gpu_add_frame(&g->bat, fr)) < 0;
    /* a failed send reads nothing once it returns: a queued frame's staging
     * thread gives its pictures back, then what the slot still holds goes */
    if (ret < 0 && g->stage.pool)
        sq_gpu_drain_staging(&g->stage);
    if (taken)
        sq_gpu_release_held(&g->stage, slot, 1); /* taken, so given back before send returns */
    leave(&g->x);
    if (ret == -EINVAL && !g->x.sticky)
        return ret;
    return ret < 0 ? report(&g->x, err, errlen) : 0;
}

int sq_gpu_receive(void *priv, SqRawResult *out, int block, char *err, size_t errlen)
{
    GpuPriv *g = priv;
    if (g->x.sticky)
        return report(&g->x, err, errlen);
    const FrameRec *fr = &g->frames[sq_frames_index(&g->fr, g->fr.received)];
    if (enter(&g->x) < 0)
        return report(&g->x, err, errlen);
    int ret = 0;
    if (!g->bat.batches[fr->bslot].launched && !block)
        ret = -EAGAIN;
    else if (!g->bat.batches[fr->bslot].launched)
        ret = sq_gpu_launch_batch(&g->bat);
    if (!ret && (ret = sq_gpu_wait_batch(&g->bat, fr->bslot, block)) == 0)
        ret = -EAGAIN;
    leave(&g->x);
    if (ret == -EAGAIN)
        return ret;
    if (ret < 0)
        return report(&g->x, err, errlen);
    sq_gpu_take_result(&g->bat, fr->bslot, fr->index, out);
    g->fr.received++;
    return 0;
}

int sq_gpu_host_register(void *priv, const void *p, size_t bytes)
{
    return sq_gpu_regs_add(&((GpuPriv *)priv)->regs, p, bytes);
}

int sq_gpu_host_unregister(void *priv, const void *p)
{
    return sq_gpu_regs_remove(&((GpuPriv *)priv)->regs, p);
}
