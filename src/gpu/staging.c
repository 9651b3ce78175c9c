/*
 * Frames into the device: host pictures are copied (only the rows the
 * features read) into the pinned staging of their frame slot, then
 * uploaded on the copy stream; device pictures are copied device to
 * device, whole. A frame of lent host pictures is staged by one staging
 * thread while send returns (frames in parallel, each picture given back
 * once copied); others are split over the staging threads inside send.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "core/mem.h"
#include "core/picture.h"
#include "gpu/pipeline_priv.h"

/* One frame's staging, split into nparts row ranges. */
typedef struct StageJob {
    const GpuPriv *g;
    const SpeedqaPicture *pic[2]; /* NULL: a device picture, not staged */
    uint8_t *stage;
    int nparts;
} StageJob;

/*
 * Rows are staged planar and LSB-aligned: a plane with another sample
 * access (semi-planar chroma, MSB-aligned samples) is unpacked on the way
 * (sq_unpack_row), so the kernels read every staged plane as access 0 or 1.
 */
static void stage_copy(uint8_t *d, const uint8_t *src, ptrdiff_t stride, int acc, int w,
                       size_t rb, int lo, int n)
{
    if (acc < 2 && stride == (ptrdiff_t)rb)
        sq_copy_stream(d, src + (ptrdiff_t)lo * stride, rb * (size_t)n);
    else if (acc < 2)
        for (int y = 0; y < n; y++)
            sq_copy_stream(d + (size_t)y * rb, src + (ptrdiff_t)(lo + y) * stride, rb);
    else
        for (int y = 0; y < n; y++)
            sq_unpack_row(d + (size_t)y * rb, src + (ptrdiff_t)(lo + y) * stride, w, acc);
}

/* Rows [i0, i1) of op rows: each run of rows around row 16i, clipped to the plane. */
static void stage_runs(const PlaneGeo *pg, const uint8_t *src, ptrdiff_t stride, int acc,
                       uint8_t *dst, int i0, int i1)
{
    const size_t rb = (size_t)pg->row_bytes;
    const int r = pg->runs >> 1;
    for (int i = i0; i < i1; i++) {
        const int lo = sq_imax(0, (i << SQ_DECIM_SHIFT) - r);
        const int hi = sq_imin(pg->h - 1, (i << SQ_DECIM_SHIFT) + r);
        uint8_t *d = dst + ((int64_t)i * pg->runs + lo - (i << SQ_DECIM_SHIFT) + r) * (int64_t)rb;
        stage_copy(d, src, stride, acc, pg->w, rb, lo, hi - lo + 1);
    }
}

static void stage_rows(const PlaneGeo *pg, const uint8_t *src, ptrdiff_t stride, int acc,
                       uint8_t *dst, int y0, int y1)
{
    const size_t rb = (size_t)pg->row_bytes;
    stage_copy(dst + (size_t)y0 * rb, src, stride, acc, pg->w, rb, y0, y1 - y0);
}

/* Part k of both host pictures (a pool loop body). */
static void stage_part(void *ctx, int64_t k, int thread)
{
    const StageJob *job = ctx;
    (void)thread;
    for (int s = 0; s < 2; s++) {
        const SpeedqaPicture *pic = job->pic[s];
        if (!pic)
            continue;
        for (int c = 0; c < 3; c++) {
            const PlaneGeo *pg = &job->g->geo[c];
            if (!pg->need)
                continue;
            const int n = pg->runs ? pg->op_h : pg->h;
            const int a = (int)(n * k / job->nparts), b = (int)(n * (k + 1) / job->nparts);
            uint8_t *dst = job->stage + pg->stage_off[s];
            const uint8_t *src;
            ptrdiff_t stride;
            const int acc = sq_plane_access(pic, c, &src, &stride);
            if (pg->runs)
                stage_runs(pg, src, stride, acc, dst, a, b);
            else
                stage_rows(pg, src, stride, acc, dst, a, b);
        }
    }
    sq_copy_fence(); /* whoever uploads it learns it is done through the pool */
}

/* n_threads - 1 helpers (the caller stages too), all of them or -EAGAIN. */
int sq_gpu_start_stagers(GpuPriv *g, int n_threads)
{
    const int want = sq_imin(n_threads - 1, MAX_STAGERS);
    if (want < 1)
        return 0;
    g->stage.qslot = sq_calloc(&g->p.alloc, (size_t)g->nslots, sizeof(*g->stage.qslot));
    if (!g->stage.qslot)
        return -ENOMEM;
    /* room for every frame in flight: a queued stage never waits for a slot */
    const int ret = sq_pool_start(&g->stage.pool, want, g->nslots, &g->p.alloc);
    if (ret == -ENOMEM)
        return ret;
    if (ret < 0 || sq_pool_threads(g->stage.pool) < want) {
        sq_pool_stop(&g->stage.pool);
        return -EAGAIN;
    }
    return 0;
}

void sq_gpu_stop_stagers(GpuPriv *g)
{
    if (g->stage.pool)
        sq_gpu_drain_staging(g);
    sq_pool_stop(&g->stage.pool);
    sq_free(&g->p.alloc, g->stage.qslot);
    g->stage.qslot = NULL;
}

static void stage_record(const GpuPriv *g, int s, FrameRec *fr, int64_t slot)
{
    for (int c = 0; c < 3; c++) {
        const PlaneGeo *pg = &g->geo[c];
        if (!pg->need)
            continue;
        fr->base[s][c] = slot + pg->dev_off[s];
        fr->stride[s][c] = pg->row_bytes;
        fr->runs[s][c] = pg->runs;
        fr->acc[s][c] = g->p.format.bpc > 8;
    }
}

/*
 * Whether a host picture goes up in the staged layout (each plane at its
 * staged offset, a plane read in runs as just its runs) rather than as
 * whole planes: it is planar and every plane read in runs has tight rows
 * (stride == row bytes) of planar samples. Then every plane lands where
 * staging would put it, so the staged and the whole-plane regions of the
 * slot, which overlap, are never mixed within one side.
 */
static int runs_fit(const GpuPriv *g, const SpeedqaPicture *pic)
{
    if (pic->memory != SPEEDQA_MEM_HOST || pic->layout == SPEEDQA_LAYOUT_SEMI_PLANAR)
        return 0;
    int any = 0;
    for (int c = 0; c < 3; c++) {
        const PlaneGeo *pg = &g->geo[c];
        if (!pg->need || !pg->runs)
            continue;
        const uint8_t *base;
        ptrdiff_t stride;
        if (sq_plane_access(pic, c, &base, &stride) >= 2 || stride != (ptrdiff_t)pg->row_bytes ||
            pg->op_h < 1 || pg->h <= pg->runs >> 1)
            return 0;
        any = 1;
    }
    return any;
}

/*
 * A plane read in runs (runs_fit): just the runs around every 16th row go
 * up, as stage_runs lays them out, in two copies: run 0, clipped at the
 * top, then every other run, 16 rows apart in the picture and back to back
 * in the slot.
 */
static int upload_runs(GpuPriv *g, const PlaneGeo *pg, const uint8_t *base, int acc, int s, int c,
                       FrameRec *fr, int64_t slot)
{
    const int64_t rb = pg->row_bytes, runs = pg->runs, r = runs >> 1;
    const int64_t dst = slot + pg->dev_off[s];
    int ret = g->fns->upload2d(g->dev, SQ_GPU_STREAM_COPY, g->arena + dst + r * rb,
                               (size_t)((r + 1) * rb), base, (size_t)((r + 1) * rb),
                               (size_t)((r + 1) * rb), 1);
    const int64_t step = (int64_t)1 << SQ_DECIM_SHIFT;
    if (!ret && pg->op_h > 1)
        ret = g->fns->upload2d(g->dev, SQ_GPU_STREAM_COPY, g->arena + dst + runs * rb,
                               (size_t)(runs * rb), base + (step - r) * rb, (size_t)(step * rb),
                               (size_t)(runs * rb), (size_t)(pg->op_h - 1));
    if (ret < 0)
        return sq_gpu_fail(g, ret, "picture upload");
    fr->base[s][c] = dst;
    fr->stride[s][c] = rb;
    fr->runs[s][c] = (int)runs;
    fr->acc[s][c] = acc;
    return 0;
}

/*
 * Device planes, and a library picture's pinned host planes: whole planes
 * (but for runs_fit pictures, whose planes read in runs go up as runs),
 * device to device or by DMA from the host (negative strides kept),
 * read by the kernels with the picture's sample access (MSB-aligned ones
 * shifted there). A semi-planar picture's interleaved chroma plane is
 * copied once, over the regions of U and V (they follow one another, and
 * the two hold 2 x its row bytes per row): U is read at its start, V one
 * sample on, both every other sample.
 */
static int copy_whole_picture(GpuPriv *g, const SpeedqaPicture *pic, int s, FrameRec *fr,
                              int64_t slot)
{
    const int host = pic->memory == SPEEDQA_MEM_HOST;
    const int semi = pic->layout == SPEEDQA_LAYOUT_SEMI_PLANAR;
    const int staged = runs_fit(g, pic);
    for (int c = 0; c < 3; c++) {
        const PlaneGeo *pg = &g->geo[c];
        if (!pg->need)
            continue;
        const uint8_t *base;
        ptrdiff_t stride;
        const int acc = sq_plane_access(pic, c, &base, &stride);
        fr->acc[s][c] = acc;
        if (semi && c == 2 && g->geo[1].need) { /* copied with U */
            const int64_t bps = g->p.format.bpc > 8 ? 2 : 1;
            fr->base[s][2] = fr->base[s][1] + bps;
            fr->stride[s][2] = fr->stride[s][1];
            fr->runs[s][2] = 0;
            continue;
        }
        if (semi && c && !(g->geo[1].need && g->geo[2].need))
            return -ENOTSUP; /* no feature reads one chroma plane alone */
        int ret;
        if (staged && pg->runs) {
            if ((ret = upload_runs(g, pg, base, acc, s, c, fr, slot)) < 0)
                return ret;
            continue;
        }
        const int64_t rb = pg->row_bytes * (semi && c ? 2 : 1), h = pg->h;
        const SqGpuAddr src = (SqGpuAddr)(uintptr_t)base;
        const int64_t dst = slot + (staged ? pg->dev_off[s] : pg->full_off[s]);
        const ptrdiff_t pitch = stride < 0 ? -stride : stride;
        if (pitch < rb)
            return -EINVAL; /* rows overlap: not a picture */
        const SqGpuAddr low = stride < 0 ? src - (SqGpuAddr)((h - 1) * pitch) : src;
        ret = host ? g->fns->upload2d(g->dev, SQ_GPU_STREAM_COPY, g->arena + dst, (size_t)rb,
                                          (const void *)(uintptr_t)low, (size_t)pitch,
                                          (size_t)rb, (size_t)h)
                       : g->fns->copy2d(g->dev, SQ_GPU_STREAM_COPY, g->arena + dst, (size_t)rb,
                                        low, (size_t)pitch, (size_t)rb, (size_t)h);
        if (ret < 0)
            return sq_gpu_fail(g, ret, host ? "picture upload" : "device picture copy");
        fr->base[s][c] = stride < 0 ? dst + (h - 1) * rb : dst;
        fr->stride[s][c] = stride < 0 ? -rb : rb;
        fr->runs[s][c] = 0;
    }
    return 0;
}

/* A library picture of this context, or a lent one in a registered range
 * (ranges: regs.mu is taken): pinned, so uploaded from in place. */
static int is_direct(const GpuPriv *g, const SpeedqaPicture *pic, int ranges)
{
    return pic->memory == SPEEDQA_MEM_HOST && g->fns->upload2d &&
           (sq_picture_owner(pic) == g || (ranges && sq_gpu_registered(g, pic)));
}

/* Every copy queued so far has read its source (on failure the device is
 * lost, and nothing reads anything any more). */
void sq_gpu_sync_copies(GpuPriv *g)
{
    const int ev = ev_copies_done(g);
    if (g->fns->event_record(g->dev, ev, SQ_GPU_STREAM_COPY) < 0 ||
        g->fns->event_sync(g->dev, ev) < 0)
        sq_gpu_fail(g, -EIO, "picture upload wait");
}

void sq_gpu_release_held(GpuPriv *g, int slot, int sync)
{
    SqFrameSlot *s = &g->fr.slot[slot];
    if (!s->pic[0].release && !s->pic[1].release)
        return;
    if (sync)
        sq_gpu_sync_copies(g);
    sq_frames_give_all(&g->fr, s);
}

/* The staging slots, pinned on the first host picture: a job fed device
 * pictures (NVDEC) never pins them (215 MB at 1080p, 490 MB at 2160p; 80 to
 * 250 ms of a context's start-up and 20 to 35 ms of its close). */
static int stage_ready(GpuPriv *g)
{
    if (g->pinned)
        return 0;
    const int ret = g->fns->host_alloc(g->dev, (size_t)g->pinned_bytes, (void **)&g->pinned);
    if (ret < 0) {
        g->pinned = NULL;
        return sq_gpu_fail(g, ret, "pinned staging");
    }
    return 0;
}

/* Both pictures' staged span of a slot up, in one copy. */
static int upload_slot(GpuPriv *g, int slot, int first, int last)
{
    const int64_t slot_off = g->at.slots + slot * g->slot_bytes;
    const int64_t a = g->stage_start[first], b = g->stage_start[last] + g->stage_len[last];
    const uint8_t *stage = g->pinned + slot * g->stage_bytes;
    int ret;
    if (b > a && (ret = g->fns->upload(g->dev, SQ_GPU_STREAM_COPY, g->arena + slot_off + a,
                                       stage + a, (size_t)(b - a))) < 0)
        return sq_gpu_fail(g, ret, "frame upload");
    return 0;
}

/* A queued frame (pool item): its whole staging on one thread, then its pictures go back. */
static void stage_queued(void *ctx, int64_t frame, int thread)
{
    GpuPriv *g = ctx;
    const int slot = sq_frames_index(&g->fr, (unsigned long long)frame);
    SqFrameSlot *fs = &g->fr.slot[slot];
    StageJob job = { .g = g, .pic = { &fs->pic[0], &fs->pic[1] },
                     .stage = g->pinned + slot * g->stage_bytes, .nparts = 1 };
    (void)thread;
    stage_part(&job, 0, 0);
    sq_frames_give(fs, 0);
    sq_frames_give(fs, 1);
}

void sq_gpu_drain_staging(GpuPriv *g)
{
    for (; g->stage.uploaded < g->stage.queued; g->stage.uploaded++)
        sq_pool_collect(g->stage.pool, 1);
}

int sq_gpu_finish_staging(GpuPriv *g, int wait)
{
    while (g->stage.uploaded < g->stage.queued) {
        if (sq_pool_collect(g->stage.pool, wait) < 0)
            return 0;
        const int ret = upload_slot(g, g->stage.qslot[g->stage.uploaded % (unsigned)g->nslots], 0, 1);
        g->stage.uploaded++;
        if (ret < 0)
            return ret;
    }
    return 0;
}

/*
 * Both pictures into frame slot `slot` (described in fr). -EINVAL with a
 * message for a device picture that is not one; other errors are sticky.
 * Lent pictures are given back (now, or by the staging thread), others
 * are not read after the call.
 */
static int put_frame(GpuPriv *g, FrameRec *fr, int slot, const SpeedqaPicture *ref,
                     const SpeedqaPicture *dis, int ranges, int *back, char *err,
                     size_t errlen)
{
    const SpeedqaPicture *pic[2] = { ref, dis };
    const int64_t slot_off = g->at.slots + slot * g->slot_bytes;
    SqFrameSlot *fs = &g->fr.slot[slot];
    int ret;
    const int direct[2] = { is_direct(g, ref, ranges), is_direct(g, dis, ranges) };
    if (((ref->memory == SPEEDQA_MEM_HOST && !direct[0]) ||
         (dis->memory == SPEEDQA_MEM_HOST && !direct[1])) && (ret = stage_ready(g)) < 0)
        return ret;
    StageJob job = { .g = g, .stage = g->pinned ? g->pinned + slot * g->stage_bytes : NULL,
                     .nparts = sq_pool_threads(g->stage.pool) + 1 };
    if (g->stage.pool && ref->memory == SPEEDQA_MEM_HOST && dis->memory == SPEEDQA_MEM_HOST &&
        ref->release && dis->release && !direct[0] && !direct[1]) {
        stage_record(g, 0, fr, slot_off);
        stage_record(g, 1, fr, slot_off);
        sq_frames_hold(fs, 0, ref);
        sq_frames_hold(fs, 1, dis);
        if (sq_pool_submit(g->stage.pool, stage_queued, g, (int64_t)g->fr.sent) == 0) {
            /* frames sent otherwise (from a range, device pictures) are not queued */
            g->stage.qslot[g->stage.queued % (unsigned)g->nslots] = slot;
            g->stage.queued++;
            return sq_gpu_finish_staging(g, 0); /* what is done goes up now */
        }
        sq_frames_drop(&g->fr, fs);
    }
    /* a parallel loop needs the queue empty */
    if (g->stage.pool && (ret = sq_gpu_finish_staging(g, 1)) < 0)
        return ret;
    for (int s = 0; s < 2; s++) {
        if (pic[s]->memory == SPEEDQA_MEM_HOST && !direct[s]) {
            stage_record(g, s, fr, slot_off);
            job.pic[s] = pic[s];
        } else if ((ret = copy_whole_picture(g, pic[s], s, fr, slot_off)) < 0) {
            /* a failed send reads nothing once it returns, and takes nothing */
            if (fs->pic[0].release) {
                sq_gpu_sync_copies(g);
                sq_frames_drop(&g->fr, fs);
            }
            if (ret == -EINVAL)
                snprintf(err, errlen, "%s: device picture stride is smaller than a row",
                         g->fns->name);
            if (ret == -ENOTSUP) {
                snprintf(err, errlen, "%s: a semi-planar device picture needs both chroma "
                         "planes read", g->fns->name);
                ret = -EINVAL;
            }
            return ret;
        } else if (direct[s]) {
            sq_frames_hold(fs, s, pic[s]); /* read by the DMA until its batch is done */
        }
    }
    if (job.pic[0] || job.pic[1])
        sq_pool_for(g->stage.pool, job.nparts, stage_part, &job);
    *back = (direct[0] ? 0 : 1) | (direct[1] ? 0 : 2);
    /* staged sides sit at the same offsets in pinned and device memory:
     * the span of the host ones goes up in one copy */
    const int first = job.pic[0] ? 0 : 1, last = job.pic[1] ? 1 : 0;
    return job.pic[first] ? upload_slot(g, slot, first, last) : 0;
}

int sq_gpu_put_frame(GpuPriv *g, FrameRec *fr, int slot, const SpeedqaPicture *ref,
                     const SpeedqaPicture *dis, char *err, size_t errlen)
{
    /* no range may be unregistered between the check and the queued uploads */
    int back = 0;
    const int taken = sq_gpu_reg_lock(g);
    const int ret = put_frame(g, fr, slot, ref, dis, taken, &back, err, errlen);
    sq_gpu_reg_unlock(g, taken);
    /* outside the lock: a release may unregister (staged pictures are read) */
    if (back & 1)
        sq_frames_give_now(ref);
    if (back & 2)
        sq_frames_give_now(dis);
    return ret;
}
