/*
 * The GPU's CAMBI layout, shared by the host and every kernel compiler:
 * the c-values' bands, the mask's shared row, the pooling's lanes, counters
 * and state, and the parts of a job's scratch. Included by gpu/gpu.h after
 * SqGpuCambi.
 */
#ifndef SQ_GPU_GPU_CAMBI_H
#define SQ_GPU_GPU_CAMBI_H

/*
 * A scale's c-values run in bands of rows, each with histograms of its own
 * (at most this many): an item slides its column's window down its band
 * alone, a chain of dependent counter updates, so more bands are more items
 * in flight and shorter chains; each band first fills its window (ws - 1
 * rows), so a large scale's band keeps at least ws rows, and a small
 * scale's bands are as many as give its columns SQ_GPU_VC_ITEMS items.
 */
#define SQ_GPU_VC_BANDS 16
#define SQ_GPU_VC_ITEMS 65536

/* The bands of a scale of cw x ch, a window of side ws, in n jobs. */
SQ_FN int sq_gpu_vc_bands(int cw, int ch, int ws, int n)
{
    const int64_t cols = (int64_t)(cw > 0 ? cw : 1) * (n > 0 ? n : 1);
    const int want = (int)((SQ_GPU_VC_ITEMS + cols - 1) / cols);
    const int fit = ch / (ws > 0 ? ws : 1);
    const int b = want > fit ? want : fit;
    const int top = ch < SQ_GPU_VC_BANDS ? ch : SQ_GPU_VC_BANDS;
    return b < 1 ? 1 : b > top ? (top > 0 ? top : 1) : b;
}
/*
 * CAMBI's mask keeps a row's column sums in shared memory up to this width
 * (wider rows sum each pixel's 7x7).
 */
#define SQ_GPU_VC_MASK_W 8192
/*
 * CAMBI's c-values stage the histogram bins of a band's entering and
 * leaving rows in shared memory for windows up to 2 * this + 1 wide
 * (wider windows read each pixel of the window).
 */
#define SQ_GPU_VC_PAD 128

/* A scale's pooling passes run in this many lanes (blocks) a job. */
#define SQ_GPU_VC_LANES 64
/* Pass 1's high digits, then pass 2's low ones (u32 counters). */
#define SQ_GPU_VC_CNT1 32768
#define SQ_GPU_VC_CNT2 65536

/* A CAMBI job's pooling state of the current scale, and its scale scores. */
typedef struct SqGpuVcPool {
    uint32_t zeros;                 /* pass 1's zero values */
    uint32_t bad;                   /* bit 0: pass 1 met a value not finite; bit 1: pass 2's
                                     * sum cannot be exact (either: libvmaf's selection) */
    int32_t hi, above, emin, pad;   /* sq_vc_topk_digit's */
    int64_t part[SQ_GPU_VC_LANES];  /* pass 2's sum per lane */
    uint64_t score[SQ_VC_SCALES];   /* f64 bits */
    uint32_t runs[SQ_VC_RUNS2];     /* the run sums of the pass's counters */
} SqGpuVcPool;

/*
 * The parts of an SqGpuCambi's scratch, in order: the image X (a scale's,
 * mode filtered) and Y (before the filter), u16 w x h each; Z and the two
 * masks (M0 the input's, the decimations alternate), u8; the c-values, f32;
 * the histograms (sq_vc_sizes, one a band); the pooling's counters; first[]; the
 * pooling's state.
 */
enum {
    SQ_GPU_VC_X = 0, SQ_GPU_VC_Y = 1, SQ_GPU_VC_Z = 2, SQ_GPU_VC_M0 = 3, SQ_GPU_VC_M1 = 4,
    SQ_GPU_VC_C = 5, SQ_GPU_VC_HIST = 6, SQ_GPU_VC_CNT = 7, SQ_GPU_VC_FIRST = 8,
    SQ_GPU_VC_POOL = 9, SQ_GPU_VC_END = 10
};

/* Counters of a band's histograms: those of the widest scale's (hrs: decimated before scale 0). */
SQ_FN int64_t sq_gpu_vc_band_hist(int w, int nd, int hrs)
{
    return sq_vc_sizes(hrs ? (w + 1) >> 1 : w, 1, nd).hist;
}

/* Byte offset of part k in the scratch of a w x h job of 2^max_log_contrast nd. */
SQ_FN int64_t sq_gpu_vc_at(int w, int h, int nd, int hrs, int k)
{
    const int64_t n = (int64_t)w * h;
    const int64_t bytes[SQ_GPU_VC_END] = { 2 * n, 2 * n, n, n, n, 4 * n,
                                           2 * SQ_GPU_VC_BANDS * sq_gpu_vc_band_hist(w, nd, hrs),
                                           4 * (SQ_GPU_VC_CNT1 + SQ_GPU_VC_CNT2), 1025,
                                           (int64_t)sizeof(SqGpuVcPool) };
    int64_t o = 0;
    for (int p = 0; p < k; p++)
        o += sq_gpu_align(bytes[p]);
    return o;
}

SQ_FN int64_t sq_gpu_vc_bytes(int w, int h, int nd, int hrs)
{
    return sq_gpu_vc_at(w, h, nd, hrs, SQ_GPU_VC_END);
}

#endif
