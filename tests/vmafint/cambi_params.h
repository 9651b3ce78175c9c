/*
 * CAMBI's host side for the tests: the library's (feature/cambi_params.c,
 * one implementation) under the tests' names, and the tests' own scratch.
 */
#ifndef VMAFINT_CAMBI_PARAMS_H
#define VMAFINT_CAMBI_PARAMS_H

#include "feature/cambi_params.h"

typedef SqCambiOpts VcOpts;
#define vc_opts_default sq_cambi_opts_default
/* 0; -1 or -3 where libvmaf's init refuses; -2 where a scale is smaller than the window's half. */
#define vc_params sq_cambi_params
#define vc_recip sq_cambi_recip

/* Buffers for w x h (recip shared); 0 or -1. */
int vc_bufs_alloc(SqVcBufs *b, int w, int h, int nd, const float *recip);
void vc_bufs_free(SqVcBufs *b);

#endif
