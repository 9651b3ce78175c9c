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
    const GpuLayout *l;
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
            const PlaneGeo *pg = &job->l->geo[c];
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

int sq_gpu_stage_init(GpuStage *st, GpuCtx *x, const GpuLayout *l, SqFrames *fr, GpuRegs *regs,
                      const void *owner, int n_threads)
{
    st->x = x;
    st->l = l;
    st->fr = fr;
    st->regs = regs;
    st->owner = owner;
    st->pinned_bytes = l->nslots * l->stage_bytes;
    const int want = sq_imin(n_threads - 1, MAX_STAGERS);
    if (want < 1)
        return 0;
    st->qslot = sq_calloc(&st->x->p.alloc, (size_t)st->l->nslots, sizeof(*st->qslot));
    if (!st->qslot)
        return -ENOMEM;
    /* room for every frame in flight: a queued stage never waits for a slot */
    const int ret = sq_pool_start(&st->pool, want, st->l->nslots, &st->x->p.alloc);
    if (ret == -ENOMEM)
        return ret;
    if (ret < 0 || sq_pool_threads(st->pool) < want) {
        sq_pool_stop(&st->pool);
        return -EAGAIN;
    }
    return 0;
}

void sq_gpu_stage_stop(GpuStage *st)
{
    if (st->pool)
        sq_gpu_drain_staging(st);
    sq_pool_stop(&st->pool);
}

void sq_gpu_stage_free(GpuStage *st)
{
    if (st->pinned)
        st->x->fns->host_free(st->x->dev, st->pinned);
    st->pinned = NULL;
    if (st->x)
        sq_free(&st->x->p.alloc, st->qslot);
    st->qslot = NULL;
}

static void stage_record(const GpuStage *st, int s, FrameRec *fr, int64_t slot)
{
    for (int c = 0; c < 3; c++) {
        const PlaneGeo *pg = &st->l->geo[c];
        if (!pg->need)
            continue;
        fr->base[s][c] = slot + pg->dev_off[s];
        fr->stride[s][c] = pg->row_bytes;
        fr->runs[s][c] = pg->runs;
        fr->acc[s][c] = st->x->p.format.bpc > 8;
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
static int runs_fit(const GpuLayout *l, const SpeedqaPicture *pic)
{
    if (pic->memory != SPEEDQA_MEM_HOST || pic->layout == SPEEDQA_LAYOUT_SEMI_PLANAR)
        return 0;
    int any = 0;
    for (int c = 0; c < 3; c++) {
        const PlaneGeo *pg = &l->geo[c];
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
static int upload_runs(GpuStage *st, const PlaneGeo *pg, const uint8_t *base, int acc, int s, int c,
                       FrameRec *fr, int64_t slot)
{
    const int64_t rb = pg->row_bytes, runs = pg->runs, r = runs >> 1;
    const int64_t dst = slot + pg->dev_off[s];
    int ret = st->x->fns->upload2d(st->x->dev, SQ_GPU_STREAM_COPY, st->x->arena + dst + r * rb,
                               (size_t)((r + 1) * rb), base, (size_t)((r + 1) * rb),
                               (size_t)((r + 1) * rb), 1);
    const int64_t step = (int64_t)1 << SQ_DECIM_SHIFT;
    if (!ret && pg->op_h > 1)
        ret = st->x->fns->upload2d(st->x->dev, SQ_GPU_STREAM_COPY, st->x->arena + dst + runs * rb,
                               (size_t)(runs * rb), base + (step - r) * rb, (size_t)(step * rb),
                               (size_t)(runs * rb), (size_t)(pg->op_h - 1));
    if (ret < 0)
        return sq_gpu_fail(st->x, ret, "picture upload");
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
static int copy_whole_picture(GpuStage *st, const SpeedqaPicture *pic, int s, FrameRec *fr,
                              int64_t slot)
{
    const int host = pic->memory == SPEEDQA_MEM_HOST;
    const int semi = pic->layout == SPEEDQA_LAYOUT_SEMI_PLANAR;
    const int staged = runs_fit(st->l, pic);
    for (int c = 0; c < 3; c++) {
        const PlaneGeo *pg = &st->l->geo[c];
        if (!pg->need)
            continue;
        const uint8_t *base;
        ptrdiff_t stride;
        const int acc = sq_plane_access(pic, c, &base, &stride);
        fr->acc[s][c] = acc;
        if (semi && c == 2 && st->l->geo[1].need) { /* copied with U */
            const int64_t bps = st->x->p.format.bpc > 8 ? 2 : 1;
            fr->base[s][2] = fr->base[s][1] + bps;
            fr->stride[s][2] = fr->stride[s][1];
            fr->runs[s][2] = 0;
            continue;
        }
        if (semi && c && !(st->l->geo[1].need && st->l->geo[2].need))
            return -ENOTSUP; /* no feature reads one chroma plane alone */
        int ret;
        if (staged && pg->runs) {
            if ((ret = upload_runs(st, pg, base, acc, s, c, fr, slot)) < 0)
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
        ret = host ? st->x->fns->upload2d(st->x->dev, SQ_GPU_STREAM_COPY, st->x->arena + dst, (size_t)rb,
                                          (const void *)(uintptr_t)low, (size_t)pitch,
                                          (size_t)rb, (size_t)h)
                       : st->x->fns->copy2d(st->x->dev, SQ_GPU_STREAM_COPY, st->x->arena + dst, (size_t)rb,
                                        low, (size_t)pitch, (size_t)rb, (size_t)h);
        if (ret < 0)
            return sq_gpu_fail(st->x, ret, host ? "picture upload" : "device picture copy");
        fr->base[s][c] = stride < 0 ? dst + (h - 1) * rb : dst;
        fr->stride[s][c] = stride < 0 ? -rb : rb;
        fr->runs[s][c] = 0;
    }
    return 0;
}

/* A library picture of this context, or a lent one in a registered range
 * (ranges: GpuRegs.mu is taken): pinned, so uploaded from in place. */
static int is_direct(const GpuStage *st, const SpeedqaPicture *pic, int ranges)
{
    return pic->memory == SPEEDQA_MEM_HOST && st->x->fns->upload2d &&
           (sq_picture_owner(pic) == st->owner || (ranges && sq_gpu_registered(st->regs, pic)));
}

/* Every copy queued so far has read its source (on failure the device is
 * lost, and nothing reads anything any more). */
void sq_gpu_sync_copies(GpuStage *st)
{
    const int ev = ev_copies_done(st->l);
    if (st->x->fns->event_record(st->x->dev, ev, SQ_GPU_STREAM_COPY) < 0 ||
        st->x->fns->event_sync(st->x->dev, ev) < 0)
        sq_gpu_fail(st->x, -EIO, "picture upload wait");
}

void sq_gpu_release_held(GpuStage *st, int slot, int sync)
{
    SqFrameSlot *s = &st->fr->slot[slot];
    if (!s->pic[0].release && !s->pic[1].release)
        return;
    if (sync)
        sq_gpu_sync_copies(st);
    sq_frames_give_all(st->fr, s);
}

/* The staging slots, pinned on the first host picture: a job fed device
 * pictures (NVDEC) never pins them (215 MB at 1080p, 490 MB at 2160p; 80 to
 * 250 ms of a context's start-up and 20 to 35 ms of its close). */
static int stage_ready(GpuStage *st)
{
    if (st->pinned)
        return 0;
    const int ret = st->x->fns->host_alloc(st->x->dev, (size_t)st->pinned_bytes, (void **)&st->pinned);
    if (ret < 0) {
        st->pinned = NULL;
        return sq_gpu_fail(st->x, ret, "pinned staging");
    }
    return 0;
}

/* Both pictures' staged span of a slot up, in one copy. */
static int upload_slot(GpuStage *st, int slot, int first, int last)
{
    const int64_t slot_off = st->l->at.slots + slot * st->l->slot_bytes;
    const int64_t a = st->l->stage_start[first], b = st->l->stage_start[last] + st->l->stage_len[last];
    const uint8_t *stage = st->pinned + slot * st->l->stage_bytes;
    int ret;
    if (b > a && (ret = st->x->fns->upload(st->x->dev, SQ_GPU_STREAM_COPY, st->x->arena + slot_off + a,
                                       stage + a, (size_t)(b - a))) < 0)
        return sq_gpu_fail(st->x, ret, "frame upload");
    return 0;
}

/* A queued frame (pool item): its whole staging on one thread, then its pictures go back. */
static void stage_queued(void *ctx, int64_t frame, int thread)
{
    GpuStage *st = ctx;
    const int slot = sq_frames_index(st->fr, (unsigned long long)frame);
    SqFrameSlot *fs = &st->fr->slot[slot];
    StageJob job = { .l = st->l, .pic = { &fs->pic[0], &fs->pic[1] },
                     .stage = st->pinned + slot * st->l->stage_bytes, .nparts = 1 };
    (void)thread;
    stage_part(&job, 0, 0);
    sq_frames_give(fs, 0);
    sq_frames_give(fs, 1);
}

void sq_gpu_drain_staging(GpuStage *st)
{
    for (; st->uploaded < st->queued; st->uploaded++)
        sq_pool_collect(st->pool, 1);
}

int sq_gpu_finish_staging(GpuStage *st, int wait)
{
    while (st->uploaded < st->queued) {
        if (sq_pool_collect(st->pool, wait) < 0)
            return 0;
        const int ret = upload_slot(st, st->qslot[st->uploaded % (unsigned)st->l->nslots], 0, 1);
        st->uploaded++;
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
static int put_frame(GpuStage *st, FrameRec *fr, int slot, const SpeedqaPicture *ref,
                     const SpeedqaPicture *dis, int ranges, int *back, char *err,
                     size_t errlen)
{
    const SpeedqaPicture *pic[2] = { ref, dis };
    const int64_t slot_off = st->l->at.slots + slot * st->l->slot_bytes;
    SqFrameSlot *fs = &st->fr->slot[slot];
    int ret;
    const int direct[2] = { is_direct(st, ref, ranges), is_direct(st, dis, ranges) };
    if (((ref->memory == SPEEDQA_MEM_HOST && !direct[0]) ||
         (dis->memory == SPEEDQA_MEM_HOST && !direct[1])) && (ret = stage_ready(st)) < 0)
        return ret;
    StageJob job = { .l = st->l, .stage = st->pinned ? st->pinned + slot * st->l->stage_bytes : NULL,
                     .nparts = sq_pool_threads(st->pool) + 1 };
    if (st->pool && ref->memory == SPEEDQA_MEM_HOST && dis->memory == SPEEDQA_MEM_HOST &&
        ref->release && dis->release && !direct[0] && !direct[1]) {
        stage_record(st, 0, fr, slot_off);
        stage_record(st, 1, fr, slot_off);
        sq_frames_hold(fs, 0, ref);
        sq_frames_hold(fs, 1, dis);
        if (sq_pool_submit(st->pool, stage_queued, st, (int64_t)st->fr->sent) == 0) {
            /* frames sent otherwise (from a range, device pictures) are not queued */
            st->qslot[st->queued % (unsigned)st->l->nslots] = slot;
            st->queued++;
            return sq_gpu_finish_staging(st, 0); /* what is done goes up now */
        }
        sq_frames_drop(st->fr, fs);
    }
    /* a parallel loop needs the queue empty */
    if (st->pool && (ret = sq_gpu_finish_staging(st, 1)) < 0)
        return ret;
    for (int s = 0; s < 2; s++) {
        if (pic[s]->memory == SPEEDQA_MEM_HOST && !direct[s]) {
            stage_record(st, s, fr, slot_off);
            job.pic[s] = pic[s];
        } else if ((ret = copy_whole_picture(st, pic[s], s, fr, slot_off)) < 0) {
            /* a failed send reads nothing once it returns, and takes nothing */
            if (fs->pic[0].release) {
                sq_gpu_sync_copies(st);
                sq_frames_drop(st->fr, fs);
            }
            if (ret == -EINVAL)
                snprintf(err, errlen, "%s: device picture stride is smaller than a row",
                         st->x->fns->name);
            if (ret == -ENOTSUP) {
                snprintf(err, errlen, "%s: a semi-planar device picture needs both chroma "
                         "planes read", st->x->fns->name);
                ret = -EINVAL;
            }
            return ret;
        } else if (direct[s]) {
            sq_frames_hold(fs, s, pic[s]); /* read by the DMA until its batch is done */
        }
    }
    if (job.pic[0] || job.pic[1])
        sq_pool_for(st->pool, job.nparts, stage_part, &job);
    *back = (direct[0] ? 0 : 1) | (direct[1] ? 0 : 2);
    /* staged sides sit at the same offsets in pinned and device memory:
     * the span of the host ones goes up in one copy */
    const int first = job.pic[0] ? 0 : 1, last = job.pic[1] ? 1 : 0;
    return job.pic[first] ? upload_slot(st, slot, first, last) : 0;
}

int sq_gpu_put_frame(GpuStage *st, FrameRec *fr, int slot, const SpeedqaPicture *ref,
                     const SpeedqaPicture *dis, char *err, size_t errlen)
{
    /* no range may be unregistered between the check and the queued uploads */
    int back = 0;
    const int taken = sq_gpu_reg_lock(st->regs);
    const int ret = put_frame(st, fr, slot, ref, dis, taken, &back, err, errlen);
    sq_gpu_reg_unlock(st->regs, taken);
    /* outside the lock: a release may unregister (staged pictures are read) */
    if (back & 1)
        sq_frames_give_now(ref);
    if (back & 2)
        sq_frames_give_now(dis);
    return ret;
}
