/*
 * The vmafint tests: speedqa's math (src/math/vmaf_*.h) against libvmaf
 * itself, through its public API, every per-frame value compared as the bits
 * of a double. A sequence holds the luma planes of a reference and a
 * distorted stream (the only planes these features read); libvmaf gets
 * them in the sequence's pixel format with flat chroma.
 */
#ifndef VMAFINT_H
#define VMAFINT_H

#include <stddef.h>
#include <stdint.h>

#include <libvmaf/libvmaf.h>

typedef struct ViSeq {
    char name[160];
    int w, h, bpc, n;
    enum VmafPixelFormat fmt;
    ptrdiff_t stride;      /* bytes per luma row */
    uint8_t **ref, **dis;  /* n luma planes each */
} ViSeq;

/* One extractor instance: libvmaf name and up to 8 option pairs. */
typedef struct ViUse {
    const char *extractor;
    const char *opt[8][2];
} ViUse;

void vi_seq_free(ViSeq *s);
int vi_seq_alloc(ViSeq *s, int w, int h, int bpc, int n, enum VmafPixelFormat fmt);
/* Reads a Y4M pair (xz-compressed clips are unpacked into work once); max frames <= 0: all. */
int vi_seq_read(ViSeq *s, const char *golden, const char *work, const char *ref_rel,
                const char *dis_rel, int max_frames);
/* A random sequence from seed (sizes, depth, format and content drawn from it). */
void vi_seq_random(ViSeq *s, uint64_t seed, int min_side, int max_side);
/* splitmix64 from *st; uniform in [lo, hi]; one sample v (clamped to the depth) at (x, y) of plane p */
uint64_t vi_rnd(uint64_t *st);
int vi_urand(uint64_t *st, int lo, int hi);
void vi_put(const ViSeq *s, uint8_t *p, int x, int y, int v);
/* The same with CAMBI's content: gradients, flat areas, dither, quantised bands (cambi_seq.c). */
void vi_seq_banding(ViSeq *s, uint64_t seed, int min_side, int max_side);

/* libvmaf over the whole sequence with these extractors; NULL on failure (printed). */
VmafContext *vi_vmaf_run(const ViSeq *s, const ViUse *uses, int n_uses, uint64_t cpumask);
/* Compares ours[0..n) with libvmaf's feature name: 0 or the number of mismatches (printed). */
int vi_check(VmafContext *ctx, const ViSeq *s, const char *tag, const char *feature,
             const double *ours);

/* 1: also require the soft-double build (soft.c) to give the same bits (small frames) */
extern int vi_check_soft;

int vi_motion_check(VmafContext *ctx, const ViSeq *s);
extern const ViUse vi_motion_uses[];
extern const int vi_motion_n_uses;
/*
 * The library's feature over the option sets uses[0 .. n_uses) (ctx ran them),
 * with 1, 3 and 2 threads (a ladder); runs: the sequence sent once, or twice with
 * a flush between. The first gpu_sets sets also run on each GPU backend with a
 * device (copied, then lent), and the pair of the first two when gpu_sets >= 2.
 */
int vi_lib_check(VmafContext *ctx, const ViSeq *s, const ViUse *uses, int n_uses, int runs,
                 int gpu_sets);

/*
 * The first n_sets option sets of vi_adm_uses, which ctx must have run;
 * skip_aim: also adm_skip_aim, run here in a context of its own (cpumask).
 */
int vi_adm_check(VmafContext *ctx, const ViSeq *s, int n_sets, int skip_aim, uint64_t cpumask);
extern const ViUse vi_adm_uses[];
extern const int vi_adm_n_uses, vi_adm_clip_uses;

/* VIF's option sets (vi_vif_uses, which ctx ran) through the math: mismatches. */
int vi_vif_check(VmafContext *ctx, const ViSeq *s);
/* vi_seq_random's sequence at 16 bits (its samples shifted up, noise in the bits below). */
void vi_seq_random16(ViSeq *s, uint64_t seed, int min_side, int max_side);
extern const ViUse vi_vif_uses[];
extern const int vi_vif_n_uses;

/*
 * CAMBI over its option sets, each in a libvmaf context of its own, at
 * cpumasks[0] and for the first n_sets2 sets also at the other cpumasks;
 * the library's check of the first gpu_sets also on each GPU backend with a device.
 */
int vi_cambi_check(const ViSeq *s, const uint64_t *cpumasks, int n_masks, int n_sets2,
                   int gpu_sets);
/* The order-free pooling against libvmaf's selection on random arrays: mismatches. */
int vi_cambi_pool_selftest(uint64_t seed, int cases);
/* The c-value row's per-value term table against the per-term test: mismatches. */
int vi_cambi_table_selftest(uint64_t seed, int cases);
/* Time per frame of ours and libvmaf's cambi on a clip (NULL: the 1080p 8-bit one). */
int vi_cambi_bench(const char *golden, const char *work, const char *dis_rel);

#endif
