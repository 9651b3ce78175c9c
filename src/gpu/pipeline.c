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

/* Record the first device error; every later call fails with it. */
int sq_gpu_fail(GpuPriv *g, int ret, const char *what)
{
    if (!g->sticky) {
        const char *dm = g->dev ? g->fns->error(g->dev) : "";
        g->sticky = ret == -ENOMEM ? -ENOMEM : -EIO;
        snprintf(g->msg, sizeof(g->msg), "%s: %s", what, dm && dm[0] ? dm : "device failure");
    }
    return g->sticky;
}

static int report(const GpuPriv *g, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", g->msg);
    return g->sticky;
}

/* Make the device current for this call: 0 or a sticky error. */
static int enter(GpuPriv *g)
{
    if (g->fns->enter && g->fns->enter(g->dev) < 0)
        return sq_gpu_fail(g, -EIO, "context");
    return 0;
}

static void leave(GpuPriv *g)
{
    if (g->fns->leave)
        g->fns->leave(g->dev);
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
    /* a queued stage that never ran would never give its pictures back */
    sq_gpu_stop_stagers(g);
    if (g->dev) {
        const double t0 = now_ms();
        const SqGpuFns *fn = g->fns;
        if (fn->enter)
            fn->enter(g->dev);
        /* Nothing may still write into what we free. */
        for (int j = 0; g->batches && j < g->nbslots; j++)
            if (g->batches[j].launched && !g->batches[j].done)
                fn->event_sync(g->dev, ev_batch_done(g, j));
        /* frames of a batch never launched may still be uploading */
        for (int k = 0; g->fr.slot && k < g->nslots; k++)
            sq_gpu_release_held(g, k, 1);
        sq_gpu_unregister_all(g);
        for (int k = 0; k < g->npicmem; k++)
            fn->host_free(g->dev, g->picmem[k]);
        const double t1 = now_ms();
        if (g->pinned)
            fn->host_free(g->dev, g->pinned);
        if (g->tables)
            fn->host_free(g->dev, g->tables);
        const double t2 = now_ms();
        if (g->arena)
            fn->free(g->dev, g->arena);
        leave(g);
        if (g->p.settings && g->p.settings->keep_device && fn->keep)
            fn->keep(g->dev);
        fn->close(&g->dev);
        sq_log(g->p.settings, SPEEDQA_LOG_DEBUG, "%s: closed in %.1f ms: last batches %.1f, pinned %.1f, arena and device %.1f",
                   fn->name, now_ms() - t0, t1 - t0, t2 - t1, now_ms() - t2);
    }
    const SqAlloc a = g->p.alloc;
    sq_free(&a, g->frames);
    sq_free(&a, g->batches);
    sq_frames_close(&g->fr, &a);
    sq_free(&a, g->picmem);
    sq_free(&a, g);
    *priv = NULL;
}

/* Sizes of the pinned blocks: the staging slots; per batch slot its tables and results. */
static void size_pinned(GpuPriv *g, int64_t *sides_bytes, int64_t *res_bytes)
{
    const int max_pairs = g->batch * g->pairs_per_frame;
    *sides_bytes = sq_gpu_align(2 * max_pairs * (int64_t)sizeof(SqGpuSide));
    *res_bytes = sq_gpu_align(max_pairs * (int64_t)sizeof(SqGpuResult));
    g->desc_bytes = *sides_bytes + sq_gpu_align(max_pairs * (int64_t)sizeof(SqGpuPair));
    g->pinned_bytes = g->nslots * g->stage_bytes;
    g->tables_bytes = g->nbslots * (g->desc_bytes + *res_bytes);
}

static void carve_pinned(GpuPriv *g, int64_t sides_bytes, int64_t res_bytes)
{
    uint8_t *hb = g->tables;
    for (int j = 0; j < g->nbslots; j++) {
        BatchRec *b = &g->batches[j];
        b->sides = (SqGpuSide *)hb;
        b->pairs = (SqGpuPair *)(hb + sides_bytes);
        b->res = (SqGpuResult *)(hb + g->desc_bytes);
        hb += g->desc_bytes + res_bytes;
    }
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
    g->p = *p;
    g->fns = fns;
    g->open_batch = -1;
    for (int f = 0; f < p->nplans; f++)
        if (p->plans[f]->d.n > SQ_GPU_NMAX || p->plans[f]->taps_a > SQ_MAX_TAPS) {
            snprintf(err, errlen, "%s: block size %d unsupported", fns->name, p->plans[f]->d.b);
            sq_free(&p->alloc, g);
            return -EINVAL;
        }
    sq_gpu_plan_planes(g);
    sq_gpu_plan_scratch(g);
    /* gpu_batch (1..MAX_BATCH, checked by lib.c) sets the frames per batch:
     * the pinned staging and the arena, and so start-up and close, scale
     * with it */
    if (p->gpu_batch >= 1 && p->gpu_batch <= MAX_BATCH)
        g->batch = p->gpu_batch;
    sq_gpu_choose_batch(g, 0);

    int ret;
    const int nev = sq_gpu_nevents(g);
    const char *name = p->device_name && p->device_name[0] ? p->device_name : NULL;
    if (name && !fns->open_named && !fns->open_ex) {
        snprintf(err, errlen, "the %s backend cannot select a device by name", fns->name);
        sq_gpu_close((void **)&g);
        return -EINVAL;
    }
    const double t0 = now_ms();
    const SqGpuOpenOpts oo = { p->device, name, nev, p->force_soft_f64 };
    ret = fns->open_ex ? fns->open_ex(&g->dev, &oo, &p->alloc, err, errlen)
          : name       ? fns->open_named(&g->dev, name, nev, &p->alloc, err, errlen)
                       : fns->open(&g->dev, p->device, nev, &p->alloc, err, errlen);
    if (ret < 0) {
        g->dev = NULL;
        sq_gpu_close((void **)&g);
        return ret;
    }
    if (fns->enter && (ret = fns->enter(g->dev)) < 0)
        goto fail_dev;
    /* fewer frames per batch: the events opened above still suffice */
    if (fns->max_alloc)
        sq_gpu_choose_batch(g, (int64_t)fns->max_alloc(g->dev));
    int64_t sides_bytes, res_bytes;
    size_pinned(g, &sides_bytes, &res_bytes);
    g->frames = sq_calloc(&p->alloc, (size_t)g->nslots, sizeof(*g->frames));
    g->batches = sq_calloc(&p->alloc, (size_t)g->nbslots, sizeof(*g->batches));
    if (!g->frames || !g->batches || sq_frames_open(&g->fr, g->nslots, 2, 0, &p->alloc) < 0) {
        snprintf(err, errlen, "out of memory for the %s backend", fns->name);
        ret = -ENOMEM;
        goto fail_leave;
    }
    if ((ret = sq_gpu_reg_open(g)) < 0) {
        snprintf(err, errlen, "out of memory for the %s backend", fns->name);
        goto fail_leave;
    }
    const double t1 = now_ms();
    if ((ret = fns->alloc(g->dev, (size_t)g->arena_bytes, &g->arena)) < 0) {
        g->arena = 0;
        goto fail_dev;
    }
    const double t2 = now_ms();
    if ((ret = fns->host_alloc(g->dev, (size_t)g->tables_bytes, (void **)&g->tables)) < 0) {
        g->tables = NULL;
        goto fail_dev;
    }
    const double t3 = now_ms();
    carve_pinned(g, sides_bytes, res_bytes);
    if ((ret = sq_gpu_upload_plans(g)) < 0)
        goto fail_dev;
    if ((ret = sq_gpu_start_stagers(g, p->n_threads)) < 0) {
        snprintf(err, errlen, ret == -ENOMEM ? "out of memory for the %s backend"
                                             : "cannot start %s staging threads", fns->name);
        goto fail_leave;
    }
    leave(g);
    if (fns->describe) {
        char what[256];
        fns->describe(g->dev, what, sizeof(what));
        sq_log(g->p.settings, SPEEDQA_LOG_INFO, "%s: %s", fns->name, what);
    }
    /* start-up and close are most of a short job's time: their split, for tuning */
    sq_log(g->p.settings, SPEEDQA_LOG_DEBUG, "%s: opened in %.1f ms: device and kernels %.1f, arena %.0f MB %.1f, pinned tables %.1f MB "
               "%.1f, plans and staging threads %.1f (batch %d frames, capacity %d; %.0f MB of staging pinned on the first host picture)", fns->name,
               now_ms() - t0, t1 - t0, (double)g->arena_bytes / 1048576.0, t2 - t1,
               (double)g->tables_bytes / 1048576.0, t3 - t2, now_ms() - t3, g->batch, g->cap,
               (double)g->pinned_bytes / 1048576.0);
    *priv = g;
    return 0;

fail_dev:
    snprintf(err, errlen, "%s", fns->error(g->dev));
fail_leave:
    leave(g);
    sq_gpu_close((void **)&g);
    return ret == -ENOMEM || ret == -ENODEV || ret == -EAGAIN ? ret : -EIO;
}

/* Pinned memory for a library picture; freed at close. */
int sq_gpu_pic_mem(void *priv, size_t bytes, void **out)
{
    GpuPriv *g = priv;
    *out = NULL;
    void **list = sq_calloc(&g->p.alloc, (size_t)g->npicmem + 1, sizeof(*list));
    if (!list)
        return -ENOMEM;
    if (enter(g) < 0) {
        sq_free(&g->p.alloc, list);
        return g->sticky;
    }
    const int ret = g->fns->host_alloc(g->dev, bytes, out);
    leave(g);
    if (ret < 0 || !*out) {
        sq_free(&g->p.alloc, list);
        *out = NULL;
        return ret < 0 ? ret : -ENOMEM;
    }
    if (g->npicmem)
        memcpy(list, g->picmem, sizeof(*list) * (size_t)g->npicmem);
    sq_free(&g->p.alloc, g->picmem);
    g->picmem = list;
    g->picmem[g->npicmem++] = *out;
    return 0;
}

int sq_gpu_capacity(void *priv)
{
    return ((GpuPriv *)priv)->cap;
}

void sq_gpu_stats(void *priv, SqGpuStats *st)
{
    const GpuPriv *g = priv;
    st->batch_frames = g->batch;
    st->capacity = g->cap;
    st->arena_bytes = (size_t)g->arena_bytes;
    st->pinned_bytes = (size_t)(g->tables_bytes + (g->pinned ? g->pinned_bytes : 0));
}

void sq_gpu_set_profile(void *priv, int on)
{
    GpuPriv *g = priv;
    g->profile = on;
    memset(g->prof_ms, 0, sizeof(g->prof_ms));
    g->prof_batches = 0;
}

int sq_gpu_profile(void *priv, double *ms)
{
    const GpuPriv *g = priv;
    for (int k = 0; k < SQ_K_COUNT; k++)
        ms[k] = g->prof_batches ? g->prof_ms[k] / g->prof_batches : 0.0;
    return g->prof_batches;
}

int sq_gpu_send(void *priv, const SpeedqaPicture *const *pic, int new_seq, char *err,
                size_t errlen)
{
    GpuPriv *g = priv;
    const SpeedqaPicture *ref = pic[0], *dis = pic[1];
    if (g->sticky)
        return report(g, err, errlen);
    for (int s = 0; s < 2; s++)
        if (pic[s]->memory != SPEEDQA_MEM_HOST &&
            ((int)pic[s]->memory != g->fns->device_memory || !g->fns->copy2d)) {
            snprintf(err, errlen, "the %s backend cannot read this picture memory", g->fns->name);
            return -EINVAL;
        }
    if (g->fr.sent - g->fr.received >= (unsigned)g->cap) {
        snprintf(err, errlen, "%s: queue full", g->fns->name);
        return -EAGAIN;
    }
    if (enter(g) < 0)
        return report(g, err, errlen);
    const int slot = sq_frames_index(&g->fr, g->fr.sent);
    FrameRec *fr = &g->frames[slot];
    memset(fr, 0, sizeof(*fr));
    fr->has_prev = sq_frames_next(&g->fr, pic, new_seq)->has_prev;
    int ret = sq_gpu_put_frame(g, fr, slot, ref, dis, err, errlen);
    if (!ret && (ret = sq_gpu_add_frame(g, fr)) < 0)
        sq_gpu_release_held(g, slot, 1); /* taken, so given back before send returns */
    /* a failed send reads nothing once it returns */
    if (ret < 0 && g->stage.pool)
        sq_gpu_drain_staging(g);
    leave(g);
    if (ret == -EINVAL && !g->sticky)
        return ret;
    return ret < 0 ? report(g, err, errlen) : 0;
}

int sq_gpu_receive(void *priv, SqRawResult *out, int block, char *err, size_t errlen)
{
    GpuPriv *g = priv;
    if (g->sticky)
        return report(g, err, errlen);
    const FrameRec *fr = &g->frames[sq_frames_index(&g->fr, g->fr.received)];
    if (enter(g) < 0)
        return report(g, err, errlen);
    int ret = 0;
    if (!g->batches[fr->bslot].launched && !block)
        ret = -EAGAIN;
    else if (!g->batches[fr->bslot].launched)
        ret = sq_gpu_launch_batch(g);
    if (!ret && (ret = sq_gpu_wait_batch(g, fr->bslot, block)) == 0)
        ret = -EAGAIN;
    leave(g);
    if (ret == -EAGAIN)
        return ret;
    if (ret < 0)
        return report(g, err, errlen);
    sq_gpu_take_result(g, fr->bslot, fr->index, out);
    g->fr.received++;
    return 0;
}
