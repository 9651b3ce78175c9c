/*
 * State shared by the files of the generic GPU pipeline (pipeline.c: the
 * SqBackend entry points; layout.c: device layout and plan upload;
 * staging.c: frames into pinned staging and the arena; launch.c: batches,
 * kernels, results). Not seen by the runtimes.
 */
#ifndef SQ_GPU_PIPELINE_PRIV_H
#define SQ_GPU_PIPELINE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "core/frames.h"
#include "core/job.h"
#include "core/pool.h"
#include "gpu/gpu.h"

/* Frames per batch. 16, not 32: on the H200, 1080p device-resident pictures
 * score at 24.8k fps instead of 27.8k (gpu_bench), while a context's pinned
 * staging and arena halve (109 and 296 MB at 1080p), which takes ~70 ms off
 * every process's start-up and close. SpeedqaSettings.gpu_batch picks up to MAX_BATCH. */
#define DEFAULT_BATCH 16
#define MAX_BATCH SQ_MAX_GPU_BATCH
/* Budgets that bound the batch size for large frames. */
#define PINNED_BUDGET ((int64_t)512 << 20)
#define SCRATCH_BUDGET ((int64_t)3 << 30)
#define MAX_STAGERS 16

typedef struct PlaneGeo {
    int need;            /* some feature reads this plane */
    int w, h, op_h;
    int runs;            /* rows per run (2r + 1), 0: whole plane */
    int64_t row_bytes;
    int64_t stage_bytes; /* bytes as staged (runs or whole) */
    int64_t stage_off[2]; /* per picture (ref, dis) in the pinned staging of a slot */
    int64_t dev_off[2], full_off[2]; /* in the device slot: staged, device-copied */
} PlaneGeo;

typedef struct FrameRec {
    int bslot, index;    /* batch slot, position in the batch */
    int has_prev;
    int64_t base[2][3], stride[2][3];
    int runs[2][3];
    int acc[2][3];       /* sample access (math/filter.h): staged planes are planar */
} FrameRec;

typedef struct BatchRec {
    unsigned long long first; /* send index of its first frame */
    int nframes, npairs;
    int launched, done;
    SqGpuSide *sides;    /* pinned */
    SqGpuPair *pairs;    /* pinned, right after sides */
    SqGpuResult *res;    /* pinned */
} BatchRec;

/* Offsets of the arena's parts (layout_arena). */
typedef struct ArenaMap {
    int64_t plans, tables, sides, pairs, results, scratch, slots;
} ArenaMap;

/*
 * staging.c's threads: lent host pictures are staged on them, a frame per
 * thread, while send returns: frame slots [uploaded, queued) wait there,
 * their pictures in lent[slot]; the caller uploads them in order. Started
 * by sq_gpu_start_stagers, ended by sq_gpu_stop_stagers. A queued frame's
 * pictures are held in its slot of GpuPriv.fr until its thread copied them.
 */
typedef struct GpuStagers {
    SqPool *pool;        /* NULL: the caller stages alone */
    int *qslot;          /* the frame slot of queued frame k, at k % nslots */
    unsigned long long queued, uploaded;
} GpuStagers;

/* hostreg.c's part: started by sq_gpu_reg_open, ended by sq_gpu_unregister_all. */
typedef struct GpuRegs {
    pthread_mutex_t mu;
    int ready;
    atomic_int n;
    struct { uintptr_t lo, hi; } r[SPEEDQA_MAX_HOST_RANGES];
} GpuRegs;

typedef struct GpuPriv {
    SqBackendParams p;
    const SqGpuFns *fns;
    SqGpuDev *dev;
    int sticky;
    char msg[320];

    /* what a frame is: set by plan_planes and plan_scratch */
    PlaneGeo geo[3];
    int64_t side_off[SQ_MAX_JOBS][2], pair_off[SQ_MAX_JOBS]; /* in a frame's scratch */
    int64_t frame_scratch;
    int pairs_per_frame;
    int has_prescale;
    int64_t slot_bytes, stage_bytes;
    /* Per picture: its staged bytes (pinned offset, length) and its part of
     * the device slot. The two pictures' parts are disjoint, so a host
     * picture's upload never overwrites a device picture's copy. */
    int64_t stage_start[2], stage_len[2]; /* per side, in pinned and device slots alike */

    /* how many of them are in flight: set by choose_batch */
    int batch, cap, nslots, nbslots;
    SqGpuAddr arena;
    int64_t arena_bytes;
    ArenaMap at;

    /* Pinned host memory: the staging of every frame slot (pinned_bytes),
     * allocated on the first host picture (sq_gpu_stage_ready), so a job
     * fed device pictures never pays for it; and per batch slot its tables
     * and results (tables_bytes), from open. */
    uint8_t *pinned, *tables;
    int64_t pinned_bytes, tables_bytes, desc_bytes;
    FrameRec *frames;    /* nslots */
    BatchRec *batches;   /* nbslots */
    unsigned long long nbatches;
    /* the frames sent (slot i of fr is frames[i]) and the pictures they hold
     * (core/frames.c): a queued frame's until staged, a library picture's (and
     * a registered range's) until its batch is done */
    SqFrames fr;
    int open_batch;      /* batch slot being filled, -1 none */

    int profile;
    double prof_ms[SQ_K_COUNT];
    int prof_batches;

    GpuStagers stage;
    /* Library pictures (speedqa_picture_alloc) go up by DMA from their own
     * pinned planes (held in fr until their batch is done). picmem: every
     * such block, freed at close. */
    void **picmem;
    int npicmem;
    /* The caller's registered ranges (speedqa_host_register): a lent host
     * picture all of whose planes lie in one goes up like a library picture.
     * regs.mu guards them and is held by send from the check to the queued
     * uploads, so an unregister that waits for the uploads queued after it
     * took a range out waits for every upload from that range. */
    GpuRegs regs;
} GpuPriv;

/*
 * The event pool: per batch slot, "its frames are uploaded" (copy stream)
 * and "its results are downloaded" (compute stream); then the profile
 * marks (a start and one after each kernel); then one for open's plan
 * upload. nbslots only ever shrinks after the device opened its events,
 * so sq_gpu_nevents at open covers every later index.
 */
static inline int ev_upload_done(const GpuPriv *g, int bslot)
{
    (void)g;
    return 2 * bslot;
}
static inline int ev_batch_done(const GpuPriv *g, int bslot)
{
    (void)g;
    return 2 * bslot + 1;
}
static inline int ev_profile_start(const GpuPriv *g)
{
    return 2 * g->nbslots;
}
static inline int ev_profile_after(const GpuPriv *g, int kernel)
{
    return ev_profile_start(g) + 1 + kernel;
}
static inline int ev_plans_uploaded(const GpuPriv *g)
{
    return ev_profile_after(g, SQ_K_COUNT - 1) + 1;
}
/* after open: recorded on the copy stream to wait for every queued copy */
static inline int ev_copies_done(const GpuPriv *g)
{
    return ev_plans_uploaded(g);
}
static inline int sq_gpu_nevents(const GpuPriv *g)
{
    return ev_plans_uploaded(g) + 1;
}

/* pipeline.c */
int sq_gpu_fail(GpuPriv *g, int ret, const char *what);

/* layout.c */
void sq_gpu_plan_planes(GpuPriv *g);
void sq_gpu_plan_scratch(GpuPriv *g);
void sq_gpu_choose_batch(GpuPriv *g, int64_t max_alloc);
int sq_gpu_upload_plans(GpuPriv *g);

/* staging.c */
int sq_gpu_start_stagers(GpuPriv *g, int n_threads);
/* Every queued stage run (its pictures go back), the threads stopped, their tables freed. */
void sq_gpu_stop_stagers(GpuPriv *g);
/* Give back the library pictures frame slot `slot` holds (its batch is done,
 * or sync: once every queued copy is). */
void sq_gpu_release_held(GpuPriv *g, int slot, int sync);
void sq_gpu_sync_copies(GpuPriv *g);
/* Upload the frames staged on the stagers: all (wait), or those done. 0 or sticky. */
int sq_gpu_finish_staging(GpuPriv *g, int wait);
/* Let every queued stage run (its pictures go back), uploading nothing: failures, close. */
void sq_gpu_drain_staging(GpuPriv *g);
int sq_gpu_put_frame(GpuPriv *g, FrameRec *fr, int slot, const SpeedqaPicture *ref,
                     const SpeedqaPicture *dis, char *err, size_t errlen);

/* hostreg.c */
/* Take regs.mu when some range is registered: 1 taken, 0 not. */
int sq_gpu_reg_lock(GpuPriv *g);
void sq_gpu_reg_unlock(GpuPriv *g, int taken);
/* A host picture whose every plane read lies in one registered range (only
 * with regs.mu taken by sq_gpu_reg_lock). */
int sq_gpu_registered(const GpuPriv *g, const SpeedqaPicture *pic);
int sq_gpu_reg_open(GpuPriv *g);
/* Close: unpin what is still registered (entered, copies done). */
void sq_gpu_unregister_all(GpuPriv *g);

/* launch.c */
int sq_gpu_add_frame(GpuPriv *g, FrameRec *fr);
int sq_gpu_launch_batch(GpuPriv *g);
int sq_gpu_wait_batch(GpuPriv *g, int bslot, int block);
void sq_gpu_take_result(const GpuPriv *g, int bslot, int index, SqRawResult *out);

#endif
