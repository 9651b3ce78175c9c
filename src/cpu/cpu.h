/*
 * CPU backend: the loops and buffers around the math core. One SqCpuSide
 * holds the scratch of one side (ref or dis) of one plane, allocated once,
 * and the DSP table it runs with (C, or upgraded to the allowed SIMD level).
 */
#ifndef SQ_CPU_CPU_H
#define SQ_CPU_CPU_H

#include <stdint.h>

#include "core/job.h"
#include "core/mem.h"
#include "cpu/dsp.h"

/* Where the core's input samples come from (see sq_src_at). */
typedef struct SqSrc {
    const uint8_t *cur, *prev; /* prev != NULL: temporal difference prev - cur */
    int64_t cur_stride, prev_stride;
    int hbd;
    /*
     * Sample access of cur and prev (math/filter.h, core/format.h). The DSP
     * loops read planar, LSB-aligned rows only (access 0 or 1); a plane
     * read in place with another access (a lent semi-planar or MSB-aligned
     * picture) has the rows the side reads unpacked into the side's
     * unpack buffers first (sq_unpack_row, the math core's sample access).
     */
    int cur_acc, prev_acc;
    float scale;
    /*
     * The out-of-range check (bpc 9..15 only: other depths use the whole
     * container): NULL, or [max, OR] of the raw samples of the rows read
     * (sq_plan_rows_read), for cur and for prev. The max is only looked for
     * when the OR has a bit above bpc. The backend leaves range_prev NULL
     * when that picture was already checked as the current one.
     */
    uint32_t *range_cur, *range_prev;
    int bpc;
    /*
     * NULL, or where the rows of cur the side reads are kept for the next
     * frame (the single-thread mode's copy of an unlent picture): row y of
     * cur (planar, w samples) is copied to row y of save once the side no
     * longer reads row y of prev, while it is still in cache. save may be
     * prev itself (the backend's buffer, read by this side only), so rows
     * are overwritten only after their last read; range_prev must be NULL
     * (its failure path reads prev again).
     */
    uint8_t *save;
    int64_t save_stride;
} SqSrc;

typedef struct SqCpuSide {
    SqDsp dsp;
    int32_t *spans;  /* columns the decimated horizontal pass reads, [begin, end) pairs */
    int nspans;
    uint8_t *rows;   /* prescale: scaled rows the vertical pass reads */
    uint8_t *srcrows; /* raw input rows the side reads (sq_plan_rows_read) */
    float *vrow;     /* one vertically filtered row, scaled_w */
    float *op;       /* operating image, op_w x op_h */
    float *dimg;     /* after local-mean removal */
    float *mrow;     /* local-mean vertical row, op_w */
    float *conv;     /* converted input, w x h (prescale only) */
    float *scaled;   /* prescaled image (prescale only) */
    double *dl;      /* covariance row terms, SQ_COV_LD per operating row */
    double *sums;    /* window sums, 5 x SQ_COV_LD */
    double *covws;   /* cov_rows workspace */
    float *wsf;      /* the float blocks below */
    float *k, *lambda, *eig, *sol, *y, *x;
    float *e, *s;    /* entropies and variances, nb each */
    float *terms;    /* the pooling's per-block terms, nb (sq_cpu_pair_score on this side as dis) */
    int singular;    /* the last solve failed (SQ_EST_SINGULAR): e and s are its fallback */
    uint8_t *unpack[2]; /* NULL, or planar copies of the rows read of cur, prev (w x h samples) */
} SqCpuSide;

/* Allocate for plan p; the DSP table starts at the best level this CPU has. */
int sq_cpu_side_alloc(SqCpuSide *s, const SqPlan *p, const SqAlloc *a);
/* The same, its zeroing deferred to zl (core/mem.h: sq_calloc_later). */
int sq_cpu_side_alloc_later(SqCpuSide *s, const SqPlan *p, const SqAlloc *a, SqZeroLater *zl);
void sq_cpu_side_free(SqCpuSide *s, const SqAlloc *a);

/* The unpack buffers, allocated on the first picture that needs them. 0 or -ENOMEM. */
int sq_cpu_side_alloc_unpack(SqCpuSide *s, const SqPlan *p, int hbd, const SqAlloc *a);

/* Restrict the DSP table to the SPEEDQA_CPU_* levels in cpu_mask (0: C only). */
void sq_cpu_side_set_cpu_mask(SqCpuSide *s, unsigned cpu_mask);

/* Operating image after local-mean removal, into s->dimg. */
void sq_cpu_operating_image(const SqPlan *p, SqCpuSide *s, const SqSrc *src);

/* The stages of est_params (spec 4.7) on s->dimg, in this order: */
void sq_cpu_covariance(const SqPlan *p, SqCpuSide *s);  /* -> s->k */
int sq_cpu_eigen(const SqPlan *p, SqCpuSide *s);        /* -> s->lambda; SQ_EST_EIGEN_CAP */
int sq_cpu_solve(const SqPlan *p, SqCpuSide *s);        /* -> s->x, s->singular; SQ_EST_SINGULAR */
void sq_cpu_entropy(const SqPlan *p, SqCpuSide *s);     /* -> s->s, s->e */

/* Full side: operating image, then est_params into s->e, s->s, s->singular. Returns SQ_EST_* flags. */
int sq_cpu_side(const SqPlan *p, SqCpuSide *s, const SqSrc *src);

/*
 * sq_cpu_side in three phases, so that the eigenvalue problems of several
 * sides (a frame's planes) run interleaved: front (operating image and
 * covariance) on each side, sq_cpu_sides_eigen on all of them, back (solve
 * and entropy: e, s, singular) on each.
 */
void sq_cpu_side_front(const SqPlan *p, SqCpuSide *s, const SqSrc *src);
void sq_cpu_sides_eigen(SqCpuSide *const *s, const SqPlan *const *p, int count);
/*
 * The front in row bands, for idle threads to share (a frame alone in
 * flight, cpu/backend.c): sq_cpu_front_bands says how many bands of at
 * least SQ_CPU_BAND_ROWS operating rows src allows at most (1 or less:
 * compute the side whole with sq_cpu_side_front), up to SQ_CPU_BANDS are
 * used; each
 * band, on any thread (vrow: that thread's scratch, scaled_w floats),
 * writes its own rows of the operating image and its range check's ORs
 * into range (cur, then prev: [max, OR] pairs); once all
 * are done, one thread joins them (the ORs and the local mean). Then the
 * covariance: sq_cpu_covariance whole, or its row terms in bands of at
 * least SQ_CPU_COV_ROWS operating rows (up to sq_cpu_cov_bands, on any
 * thread; ws: that thread's scratch, sq_cov_ws_doubles of the plan's
 * trunc_w x trunc_h) and, once all are done, sq_cpu_cov_join (window sums
 * and entries). The bits equal sq_cpu_side_front's: no sum crosses a band.
 */
#define SQ_CPU_BANDS 16
#define SQ_CPU_BAND_ROWS 4
#define SQ_CPU_COV_ROWS 16
int sq_cpu_front_bands(const SqPlan *p, const SqSrc *src);
void sq_cpu_front_band(const SqPlan *p, SqCpuSide *s, const SqSrc *src, int band, int nbands,
                       float *vrow, uint32_t range[4]);
void sq_cpu_front_join(const SqPlan *p, SqCpuSide *s, const SqSrc *src, const uint32_t (*range)[4],
                       int nbands);
int sq_cpu_cov_bands(const SqPlan *p);
void sq_cpu_cov_band(const SqPlan *p, SqCpuSide *s, int band, int nbands, double *ws);
void sq_cpu_cov_join(const SqPlan *p, SqCpuSide *s);
void sq_cpu_side_back(const SqPlan *p, SqCpuSide *s);
/*
 * The back in column bands (blocks), for idle threads to share:
 * sq_cpu_back_prep does the whole-side steps (the solve's right-hand sides,
 * the regularity check, the factoring, singular), then each band [c0, c1)
 * solves its columns and computes their variances and entropies, on any
 * thread. The bits equal sq_cpu_side_back's: every column is its own problem.
 */
#define SQ_CPU_BACK_COLS 32 /* the fewest blocks a band */
int sq_cpu_back_prep(const SqPlan *p, SqCpuSide *s);
void sq_cpu_back_cols(const SqPlan *p, SqCpuSide *s, int c0, int c1);
/* sq_cpu_side on two independent sides, their eigenvalue problems interleaved. */
void sq_cpu_sides2(const SqPlan *p, SqCpuSide *a, SqCpuSide *b, const SqSrc *sa, const SqSrc *sb);

/* One plane pair's score; *err = either side singular. */
float sq_cpu_plane_score(const SqPlan *p, SqCpuSide *ref, SqCpuSide *dis,
                         const SqSrc *ref_src, const SqSrc *dis_src, int wvm, int *err);

/* The score of two sides already computed (a ladder's shared reference side
 * and one stream's distorted side, sq_cpu_side): as sq_cpu_plane_score. */
float sq_cpu_pair_score(const SqPlan *p, const SqCpuSide *ref, SqCpuSide *dis, int wvm,
                        int *err);

/*
 * sq_qr_solve (math/solve.h) bit for bit, skipping the products of the
 * explicit-Q updates that are exactly zero. ws: sq_solve_ws_floats(n, nb);
 * X is left at ws + 5 n^2 as in sq_qr_solve.
 */
int sq_cpu_qr_solve(const SqDsp *dsp, const float *kmat, int n, const float *y, int nb, float *ws);
/* sq_cpu_qr_solve in two parts: the factoring of kmat (Q^T and R in ws; -1
 * when a pivot fails), then columns [c0, c1) of X = R^-1 Q^T y (nb
 * columns): each column is its own problem, so any split gives the same bits. */
int sq_cpu_qr_factor(const SqDsp *dsp, const float *kmat, int n, float *ws);
void sq_cpu_qr_apply(const SqDsp *dsp, int n, const float *y, int nb, int c0, int c1, float *ws);

/* sq_eigenvalues with the DSP's tridiagonalisation. ws: sq_eigen_ws_floats(n). */
int sq_cpu_eigenvalues(const SqDsp *dsp, const float *k, int n, float *lambda, float *ws);

/* sq_cpu_eigenvalues on two independent matrices at once (their QR steps
 * interleaved for latency); ret[q] is what sq_cpu_eigenvalues returns for q. */
void sq_cpu_eigenvalues2(const SqDsp *dsp, const float *const k[2], int n, float *const lambda[2],
                         float *const ws[2], int ret[2]);
/* The same on count independent matrices (any count; SQ_CPU_EIGEN_WAYS at once). */
#define SQ_CPU_EIGEN_WAYS 8
void sq_cpu_eigenvalues_n(const SqDsp *dsp, const float *const *k, int n, float *const *lambda,
                          float *const *ws, int *ret, int count);

#endif
