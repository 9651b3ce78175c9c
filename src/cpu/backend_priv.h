/*
 * State shared by the files of the CPU backend: backend.c (the SqBackend
 * entry points, the workers, the copies and results of each frame slot of
 * the threaded mode; which pictures a frame holds, and until when, is
 * core/frames.c's), single.c (the one-thread mode and its previous
 * frame's copies), ring.c (the copies of a send, the rows they take, unpack
 * buffers), frame.c (one frame's jobs; a ladder's pairing of distorted
 * sides around a shared reference side) and bands.c (one frame's sides
 * shared with idle threads, in row and column bands).
 */
#ifndef SQ_CPU_BACKEND_PRIV_H
#define SQ_CPU_BACKEND_PRIV_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/format.h"
#include "core/frames.h"
#include "core/pool.h"
#include "cpu/adm.h"
#include "cpu/cambi.h"
#include "cpu/vif.h"
#include "cpu/cpu.h"
#include "math/filter.h"

/* Most bytes of frame copies the threaded mode keeps in flight. */
#define RING_BUDGET ((size_t)1 << 30)

typedef struct Planes {
    const uint8_t *data[3];
    int64_t stride[3];
    int acc[3];              /* sample access (core/format.h): < 2 for copies */
} Planes;

typedef struct Worker {
    /* per plan: a frame's jobs run one after another; [2] is a ladder's
     * second distorted side, scored together with [1] */
    SqCpuSide side[SQ_MAX_PLANS][3];
    /* one stream: a job whose plan an earlier job of the frame uses too
     * (speed_chroma's V) has sides of its own, so that every job's sides
     * live until the frame's eigenvalue problems run together */
    SqCpuSide jside[SQ_MAX_STREAM_JOBS][2];
    float *vrow; /* a row band's vertical pass (threaded mode), the widest plan's */
    double *covws; /* a band of covariance row terms (threaded mode), the largest plan's */
    int32_t *vmrow; /* an SQ_JOB_SAD job's scratch (SQ_MOTION_WS), the widest such plan's */
    SqVaBufs va;    /* SQ_JOB_ADM jobs' bands (cpu/adm.c), the largest such plan's */
    SqVcBufs vc;    /* SQ_JOB_CAMBI jobs' scratch (cpu/cambi.c), the largest such plan's */
    SqViBufs vi;    /* SQ_JOB_VIF jobs' pyramid and rows (cpu/vif.c), the largest such plan's */
    SqZeroLater zl; /* the zeroing of its sides, va, vc and vi: by the first frame it scores */
} Worker;

/* What the CPU keeps of frame slot i of CpuPriv.fr (threaded mode). */
typedef struct Slot {
    uint8_t *buf[SQ_MAX_PICS]; /* copies of the frame's pictures */
    Planes pl[SQ_MAX_PICS];
    SqRawResult res;
} Slot;

typedef struct CpuPriv {
    SqBackendParams p;
    int need[3];             /* planes any job reads */
    int need_prev[3];        /* planes some job reads from the previous frame */
    int keep;                /* the farthest frame back a job reads: 0, 1 or 2 */
    int npics;               /* 1 + ndis */
    int per;                 /* jobs of one stream */
    SqRangeKeys rk;          /* the planes the integer features check (sq_range_keys) */
    int own[SQ_MAX_STREAM_JOBS]; /* one stream: job j scores with Worker.jside[j] */
    int share[SQ_MAX_STREAM_JOBS]; /* ladder: job j's side 0 is the same in every stream */
    SqDsp dsp;               /* at the cpu_mask level: the frame-wide slots (motion_sad) */
    int nworkers;
    int nw;                  /* Workers: one per pool thread, and the caller's (sq_pool_collect_run) */
    Worker *w;
    int unpack_ready;        /* every worker side has its unpack buffers */
    /* single-thread mode: the previous frame's planes that jobs read, and
     * (keep 2) the frame's before it */
    uint8_t *prev[SQ_MAX_PICS][3], *prev2[SQ_MAX_PICS][3];
    /* per plane, the rows copies take (sq_plan_rows_read): one thread, those
     * read of the previous picture; threaded, those read at all (a slot's copy
     * is the current picture, then the next frame's previous one) */
    uint8_t *rows[3];
    /* job * 2 + side + 1 of the one side reading previous picture k's plane p,
     * when that side reads the current picture k's plane p too: it keeps
     * those rows itself while it reads them (SqSrc.save); 0: none */
    int saver[SQ_MAX_PICS][3];
    Planes prev_pl[SQ_MAX_PICS], prev2_pl[SQ_MAX_PICS]; /* a lent one is read in place: fr holds it */
    int have_prev;
    int prev_had_prev;       /* the frame before this one was scored with a predecessor */
    SqRawResult sync_res;
    int sync_ready;
    /* the frames sent and what they hold: threaded, pool item n scores frame n
     * on pool thread t with w[t], in slot[n % fr.nslots]; one thread, two slots
     * (a frame and its predecessor) and no Slot */
    SqFrames fr;
    int cap;
    Slot *slot;
    SqPool *pool;
} CpuPriv;

static inline Planes picture_planes(const SpeedqaPicture *pic)
{
    Planes p;
    for (int i = 0; i < 3; i++) {
        ptrdiff_t st;
        p.acc[i] = sq_plane_access(pic, i, &p.data[i], &st);
        p.stride[i] = st;
    }
    return p;
}

/* Row y of plane p of pic as a planar LSB-aligned row (w samples). */
static inline void copy_row(const SpeedqaPicture *pic, int p, int y, int w, uint8_t *dst)
{
    const uint8_t *base;
    ptrdiff_t stride;
    const int acc = sq_plane_access(pic, p, &base, &stride);
    sq_unpack_row(dst, base + (ptrdiff_t)y * stride, w, acc);
}

/*
 * The copies of one send, in parts of COPY_ROWS rows of one plane of one
 * picture, claimed by the caller and by idle workers (sq_pool_help): when
 * the caller's copying is what holds the workers back, they share it.
 */
#define COPY_ROWS 64

typedef struct CopyJob {
    const CpuPriv *c;
    const SpeedqaPicture *pic[SQ_MAX_PICS]; /* NULL: not copied */
    const Planes *pl[SQ_MAX_PICS];
    int first[SQ_MAX_PICS * 3 + 1];         /* first part of picture k's plane p: [3 k + p] */
    atomic_int next;
} CopyJob;

/* ring.c */
int sq_cpu_needs_unpack(const CpuPriv *c, const SpeedqaPicture *pic);
int sq_cpu_ensure_unpack(CpuPriv *c, char *err, size_t errlen);
void sq_cpu_copy_layout(const CpuPriv *c, uint8_t *buf, Planes *pl);
void sq_cpu_run_copies(const CpuPriv *c, CopyJob *j);
int sq_cpu_mark_rows(const SqBackendParams *p, int pl, int prev_only, uint8_t **out);
size_t sq_cpu_copy_size(const CpuPriv *c);

/* single.c: the one-thread mode (the previous frame's copies; frames scored in send) */
int sq_cpu_open_single(CpuPriv *c, const SqBackendParams *p);
void sq_cpu_send_single(CpuPriv *c, const SpeedqaPicture *const *pics, SqFrameSlot *fs,
                        int new_seq);

/* frame.c */
void sq_cpu_job_srcs(const CpuPriv *c, const SqJob *jb, SqRawResult *out, int j, const Planes *cur,
                     const Planes *prev, int prev_checked, SqSrc src[2]);
void sq_cpu_job_save(const CpuPriv *c, const SqJob *jb, int idx, const uint32_t *save,
                     uint32_t *saved, SqSrc src[2]);
/*
 * Run every job of one frame. cur, prev, prev2: the pictures' planes of the
 * frame and of the two before it (NULL: jobs that read it are skipped,
 * their raw score 0); present: bit k,
 * picture k exists (a stream that has ended has none: its jobs are
 * skipped); prev_checked: the previous frame had a predecessor itself, so
 * its pictures were range-checked as current ones (SQ_CHECK_IF_FIRST). In a
 * ladder, job j of every stream runs in a row, so that a shared side 0
 * (the reference's) is computed by the first of them and stays in the
 * worker's side buffers for the others.
 */
void sq_cpu_score_frame(const CpuPriv *c, Worker *w, SqPool *pool, int self, const Planes *cur,
                        const Planes *prev, const Planes *prev2, int prev_checked,
                        uint32_t present, const uint32_t *save, uint32_t *saved,
                        SqRawResult *out);

/* bands.c: sq_cpu_score_frame with one distorted stream */
/* The frame's SQ_JOB_SAD jobs into out->sum (a ladder's copies of a job read
 * the reference only: computed once, copied); pool, self as for
 * sq_cpu_score_frame1, whose test decides whether idle threads share rows. */
void sq_cpu_sad_jobs(const CpuPriv *c, Worker *w, SqPool *pool, int self, const Planes *cur,
                     const Planes *prev, const Planes *prev2, uint32_t present,
                     SqRawResult *out);
/* cpu/adm.c: the frame's SQ_JOB_ADM jobs into out->adm (each stream's: a
 * ladder's copies read their own distorted picture). */
void sq_cpu_adm_jobs(const CpuPriv *c, Worker *w, const Planes *cur, uint32_t present,
                     SqRawResult *out);
/* cpu/cambi.c: the frame's SQ_JOB_CAMBI jobs into out->cambi (each stream's
 * distorted luma) and their range checks into out->range. */
void sq_cpu_cambi_jobs(const CpuPriv *c, Worker *w, const Planes *cur, uint32_t present,
                       SqRawResult *out);
/* cpu/vif.c: the frame's SQ_JOB_VIF jobs into out->vif (each stream's: a
 * ladder's copies read their own distorted picture). */
void sq_cpu_vif_jobs(const CpuPriv *c, Worker *w, const Planes *cur, uint32_t present,
                     SqRawResult *out);
void sq_cpu_score_frame1(const CpuPriv *c, Worker *w, SqPool *pool, int self, const Planes *cur,
                         const Planes *prev, int prev_checked, uint32_t present,
                         const uint32_t *save, uint32_t *saved, SqRawResult *out);

#endif
