/*
 * The parts of the generic GPU pipeline, one per file, each with its own
 * init and free: GpuLayout (layout.c: device layout and plan upload),
 * GpuRegs (hostreg.c: registered ranges), GpuStage (staging.c: frames into
 * pinned staging and the arena), GpuBatches (launch.c: batches, kernels,
 * results). A part records at init the parts it reads; pipeline.c (the
 * SqBackend entry points) holds them all, with GpuCtx, the frames
 * (core/frames.c) and where each lies (FrameRec). Not seen by the runtimes.
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

/* What every part reads: the parameters, the device and its arena, and
 * the first device error, after which every call fails (sq_gpu_fail). */
typedef struct GpuCtx {
    SqBackendParams p;
    const SqGpuFns *fns;
    SqGpuDev *dev;
    SqGpuAddr arena;
    int sticky;
    char msg[320];
} GpuCtx;

/* pipeline.c: record the first device error; returns the sticky error. */
int sq_gpu_fail(GpuCtx *x, int ret, const char *what);

typedef struct PlaneGeo {
    int need;            /* some feature reads this plane */
    int w, h, op_h;
    int runs;            /* rows per run (2r + 1), 0: whole plane */
    int64_t row_bytes;
    int64_t stage_bytes; /* bytes as staged (runs or whole) */
    int64_t stage_off[2]; /* per picture (ref, dis) in the pinned staging of a slot */
    int64_t dev_off[2], full_off[2]; /* in the device slot: staged, device-copied */
} PlaneGeo;

/* Where a frame's planes lie in its device slot: written by staging.c, read by launch.c. */
typedef struct FrameRec {
    int bslot, index;    /* batch slot, position in the batch */
    int past;            /* frames of its sequence before it, at most 2 (SqFrameSlot.past) */
    int64_t base[2][3], stride[2][3];
    int runs[2][3];
    int acc[2][3];       /* sample access (math/filter.h): staged planes are planar */
} FrameRec;

/* Offsets of the arena's parts (layout_arena). */
typedef struct ArenaMap {
    int64_t plans, tables, sides, pairs, results, sads, adms, vifs, cambis, ranges, scratch, slots;
    int64_t vi_lt;     /* the VIF jobs' log2 table (SQ_VI_LT_N u16), -1: none */
    int64_t vc_recip;  /* the CAMBI jobs' reciprocal table (SQ_VC_RECIP_N f32), -1: none */
} ArenaMap;

/*
 * layout.c's part: what a frame is (sq_gpu_layout_init) and how many are
 * in flight (sq_gpu_choose_batch); plain numbers, nothing to free.
 */
typedef struct GpuLayout {
    PlaneGeo geo[3];
    int64_t side_off[SQ_MAX_JOBS][2], pair_off[SQ_MAX_JOBS]; /* in a frame's scratch */
    int64_t frame_scratch;
    int pairs_per_frame;      /* every job's: a SpEED pair, an SQ_JOB_SAD, _ADM or _VIF entry */
    /* The planes the integer features range-check (SqGpuRange), one entry a
     * frame each: keys (3 * picture + plane) and a plan of their size;
     * none at 8 and 16 bits. */
    SqRangeKeys rk;         /* the planes the int_range chain checks (sq_range_keys) */
    int back;                 /* the farthest frame back a job reads (SqJob.needs_prev) */
    int has_prescale;
    int has_vif;              /* some job is SQ_JOB_VIF: the log2 table is uploaded */
    int has_cambi;            /* some job is SQ_JOB_CAMBI: the reciprocal table is uploaded */
    int64_t slot_bytes, stage_bytes;
    /* Per picture: its staged bytes (pinned offset, length) and its part of
     * the device slot. The two pictures' parts are disjoint, so a host
     * picture's upload never overwrites a device picture's copy. */
    int64_t stage_start[2], stage_len[2]; /* per side, in pinned and device slots alike */
    int batch, cap, nslots, nbslots;
    int64_t arena_bytes;
    ArenaMap at;
} GpuLayout;

/*
 * The event pool: per batch slot, "its frames are uploaded" (copy stream),
 * "its results are downloaded" (compute stream), "its tables are up"
 * (compute stream, for the side streams to start from) and each side
 * stream's "its chain is done" (for the compute stream to join); then the
 * profile marks (a start and one after each launch); then one for open's
 * plan upload. nbslots only ever shrinks after the device opened its
 * events, so sq_gpu_nevents at open covers every later index.
 */
#define SQ_GPU_EV_SLOT (3 + SQ_GPU_NSIDES)
static inline int ev_upload_done(int bslot)
{
    return SQ_GPU_EV_SLOT * bslot;
}
static inline int ev_batch_done(int bslot)
{
    return SQ_GPU_EV_SLOT * bslot + 1;
}
static inline int ev_tables_up(int bslot)
{
    return SQ_GPU_EV_SLOT * bslot + 2;
}
static inline int ev_side_done(int bslot, int side)
{
    return SQ_GPU_EV_SLOT * bslot + 3 + side;
}
static inline int ev_profile_start(const GpuLayout *l)
{
    return SQ_GPU_EV_SLOT * l->nbslots;
}
/* A batch's launches at most (the chains have about 90). */
#define SQ_GPU_PROF_MARKS 128
static inline int ev_profile_mark(const GpuLayout *l, int i)
{
    return ev_profile_start(l) + 1 + i;
}
static inline int ev_plans_uploaded(const GpuLayout *l)
{
    return ev_profile_mark(l, SQ_GPU_PROF_MARKS - 1) + 1;
}
/* after open: recorded on the copy stream to wait for every queued copy */
static inline int ev_copies_done(const GpuLayout *l)
{
    return ev_plans_uploaded(l);
}
static inline int sq_gpu_nevents(const GpuLayout *l)
{
    return ev_plans_uploaded(l) + 1;
}

/* layout.c */
/* batch: SpeedqaSettings.gpu_batch (0: the default); the device's limit follows. */
void sq_gpu_layout_init(GpuLayout *l, const SqBackendParams *p, int batch);
/* Fewer frames per batch when the runtime has a largest allocation (max_alloc > 0). */
void sq_gpu_choose_batch(GpuLayout *l, const SqBackendParams *p, int64_t max_alloc);
int sq_gpu_upload_plans(const GpuLayout *l, GpuCtx *x);

/*
 * hostreg.c's part, the caller's registered ranges (speedqa_cuda_host_register):
 * a lent host picture all of whose planes lie in one goes up like a
 * library picture. mu guards them and is held by send from the check to
 * the queued uploads, so an unregister that waits for the uploads queued
 * after it took a range out waits for every upload from that range.
 * sq_gpu_regs_open / sq_gpu_regs_close.
 */
typedef struct GpuRegs {
    pthread_mutex_t mu;
    int ready;
    atomic_int n;
    struct { uintptr_t lo, hi; } r[SPEEDQA_CUDA_MAX_HOST_RANGES];
    GpuCtx *x;
    const GpuLayout *l;
} GpuRegs;

/* hostreg.c */
int sq_gpu_regs_open(GpuRegs *r, GpuCtx *x, const GpuLayout *l);
/* Close: unpin what is still registered (entered, copies done). */
void sq_gpu_regs_close(GpuRegs *r);
int sq_gpu_regs_add(GpuRegs *r, const void *p, size_t bytes);
int sq_gpu_regs_remove(GpuRegs *r, const void *p);
/* Take mu when some range is registered: 1 taken, 0 not. */
int sq_gpu_reg_lock(GpuRegs *r);
void sq_gpu_reg_unlock(GpuRegs *r, int taken);
/* A host picture whose every plane read lies in one registered range (only
 * with mu taken by sq_gpu_reg_lock). */
int sq_gpu_registered(const GpuRegs *r, const SpeedqaPicture *pic);

/*
 * staging.c's part: the pinned staging of every frame slot (pinned_bytes),
 * allocated on the first host picture, so a job fed device pictures never
 * pays for it; and the staging threads: lent host pictures are staged on
 * them, a frame per thread, while send returns: frame slots [uploaded,
 * queued) wait there, their pictures held in fr; the caller uploads them
 * in order. sq_gpu_stage_init starts them, sq_gpu_stage_stop ends them,
 * sq_gpu_stage_free frees the rest (after every copy is done).
 */
typedef struct GpuStage {
    SqPool *pool;        /* NULL: the caller stages alone */
    int *qslot;          /* the frame slot of queued frame k, at k % nslots */
    unsigned long long queued, uploaded;
    uint8_t *pinned;
    int64_t pinned_bytes;
    GpuCtx *x;
    const GpuLayout *l;
    SqFrames *fr;
    GpuRegs *regs;
    const void *owner;   /* the backend that library pictures of this context name */
} GpuStage;

/* staging.c */
/* n_threads - 1 helpers (the caller stages too), all of them or -EAGAIN. */
int sq_gpu_stage_init(GpuStage *st, GpuCtx *x, const GpuLayout *l, SqFrames *fr, GpuRegs *regs,
                      const void *owner, int n_threads);
/* Every queued stage run (its pictures go back), the threads stopped. */
void sq_gpu_stage_stop(GpuStage *st);
void sq_gpu_stage_free(GpuStage *st);
/* Give back the pictures frame slot `slot` holds (its batch is done,
 * or sync: once every queued copy is). */
void sq_gpu_release_held(GpuStage *st, int slot, int sync);
void sq_gpu_sync_copies(GpuStage *st);
/* Upload the frames staged on the stagers: all (wait), or those done. 0 or sticky. */
int sq_gpu_finish_staging(GpuStage *st, int wait);
/* Let every queued stage run (its pictures go back), uploading nothing: failures, close. */
void sq_gpu_drain_staging(GpuStage *st);
int sq_gpu_put_frame(GpuStage *st, FrameRec *fr, int slot, const SpeedqaPicture *ref,
                     const SpeedqaPicture *dis, char *err, size_t errlen);

typedef struct BatchRec {
    unsigned long long first; /* send index of its first frame */
    int nframes, npairs, nsads, nadms, nvifs, ncambis, nranges;
    int launched, done;
    SqGpuSide *sides;    /* pinned */
    SqGpuPair *pairs;    /* pinned, right after sides */
    SqGpuSad *sads;      /* pinned, right after pairs */
    SqGpuAdm *adms;      /* pinned, right after sads */
    SqGpuVif *vifs;      /* pinned, right after adms */
    SqGpuCambi *cambis;  /* pinned, right after vifs */
    SqGpuRange *ranges;  /* pinned, right after cambis */
    SqGpuResult *res;    /* pinned: the pairs', then the sads', the adms', the vifs', the
                          * cambis', the ranges' */
} BatchRec;

/*
 * launch.c's part: the batch slots and their pinned tables and results
 * (tables_bytes, from open), the batch being filled, the profile.
 * sq_gpu_batches_init / sq_gpu_batches_sync (close: nothing launched
 * still runs) / sq_gpu_batches_free.
 */
typedef struct GpuBatches {
    BatchRec *batches;   /* nbslots */
    uint8_t *tables;
    int64_t tables_bytes, desc_bytes;
    unsigned long long nbatches;
    int open_batch;      /* batch slot being filled, -1 none */
    int profile;
    double prof_ms[SQ_K_COUNT];
    int prof_batches;
    int prof_n;                       /* the batch's marks so far */
    int prof_k[SQ_GPU_PROF_MARKS];    /* the kernel each mark follows */
    GpuCtx *x;
    const GpuLayout *l;
    SqFrames *fr;
    const FrameRec *frames; /* nslots, like fr's slots */
    GpuStage *st;
} GpuBatches;

/* launch.c */
/* Message in err on failure. */
int sq_gpu_batches_init(GpuBatches *b, GpuCtx *x, const GpuLayout *l, SqFrames *fr,
                        const FrameRec *frames, GpuStage *st, char *err, size_t errlen);
void sq_gpu_batches_sync(GpuBatches *b);
void sq_gpu_batches_free(GpuBatches *b);
int sq_gpu_add_frame(GpuBatches *b, FrameRec *fr);
int sq_gpu_launch_batch(GpuBatches *b);
int sq_gpu_wait_batch(GpuBatches *b, int bslot, int block);
void sq_gpu_take_result(const GpuBatches *b, int bslot, int index, SqRawResult *out);
/* Profile mode: a mark after a launch of kernel k on stream S (its time runs from the mark
 * before); -E2BIG past SQ_GPU_PROF_MARKS a batch. Nothing otherwise. */
int sq_gpu_prof_mark(GpuBatches *b, int k, int S);

/* launch_vmaf.c: the entries of libvmaf's integer ADM and VIF jobs of frame fr
 * (fs: its scratch, j: the job, bi: the frame's place in its batch), and
 * their kernel chains (after the others). */
void sq_gpu_fill_adm(const GpuBatches *bt, SqGpuAdm *a, const SqJob *jb, int64_t fs, int j,
                     int bi, const FrameRec *fr);
void sq_gpu_fill_vif(const GpuBatches *bt, SqGpuVif *v, const SqJob *jb, int64_t fs, int j,
                     int bi, const FrameRec *fr);
/* launch.c: SpEED's and motion's kernels on stream `stream`. */
int sq_gpu_launch_speed(GpuBatches *bt, const BatchRec *b, SqKArgs *ka, int stream);
/* chains.c: every chain of the batch's features, forked and joined (profiling: one stream). */
int sq_gpu_launch_chains(GpuBatches *bt, const BatchRec *b);
/* launch_vmaf.c: ADM's and VIF's chains of kernels on stream `stream`. */
int sq_gpu_launch_adm(GpuBatches *bt, const BatchRec *b, SqKArgs *ka, int stream);
int sq_gpu_launch_vif(GpuBatches *bt, const BatchRec *b, SqKArgs *ka, int stream);
/* launch_vmaf.c: the same for libvmaf's CAMBI (SQ_JOB_CAMBI). */
void sq_gpu_fill_cambi(const GpuBatches *bt, SqGpuCambi *c, const SqJob *jb, int64_t fs, int j,
                       int bi, const FrameRec *fr);
int sq_gpu_launch_cambi(GpuBatches *bt, const BatchRec *b, SqKArgs *ka, int stream);
/* launch_vmaf.c: the range check of the integer features' planes (SqGpuRange). */
int sq_gpu_launch_range(GpuBatches *bt, const BatchRec *b, SqKArgs *ka, int stream);

#endif
