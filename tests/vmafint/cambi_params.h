/*
 * The host side of CAMBI (math/vmaf_cambi*.h) that a feature layer will own:
 * option resolution at an input size and the tables that need libm (pow for
 * the EOTFs, strtof of printed doubles for the reciprocals).
 */
#ifndef VMAFINT_CAMBI_PARAMS_H
#define VMAFINT_CAMBI_PARAMS_H

#include "math/vmaf_cambi_pool.h"

/* libvmaf's cambi options that this math covers, with libvmaf's defaults from vc_opts_default. */
typedef struct VcOpts {
    double max_val, topk, cambi_topk, tvi, vlt;
    int window_size, mlc, hrs, pq;
} VcOpts;

VcOpts vc_opts_default(void);
/* Parameters for a w x h input of bpc bits; -1 where libvmaf's init refuses, -2 where
 * a scale is smaller than the window's half (libvmaf's result is unspecified). */
int vc_params(const VcOpts *o, int w, int h, int bpc, SqVcParams *p);
/* R[0..SQ_VC_RECIP_N) (A.3). */
void vc_recip(float *r);
/* Buffers for w x h (recip shared); 0 or -1. */
int vc_bufs_alloc(SqVcBufs *b, int w, int h, int nd, const float *recip);
void vc_bufs_free(SqVcBufs *b);

#endif
