// Compile check: the motion, ADM and CAMBI math as OpenCL C 1.2 (hardware and soft doubles),
// as the OpenCL backend will build it; every entry point is reached from the kernel.
#include "math/vmaf_adm_pool.h"
#include "math/vmaf_motion.h"
#include "math/vmaf_cambi_pool.h"
#include "math/vmaf_vif.h"
__kernel void k(__global const uchar *raw, __global int *row, __global float *f, __global int *b0, __global int *b1)
{
    SqVmOpts o = sq_vm_opts_default();
    row[0] = sq_vm_vert(raw, raw, 64, 0, 32, 8, get_global_id(0), 1);
    ulong sad = sq_vm_plane_sad(raw, raw, 64, 1, 32, 32, 10, row);
    sq_f64 sc = sq_vm_sad_score(sad, 32, 32, &o);
    f[0] = sq_d_to_float(sc);
    SqVaBufs bf;
    for (int i = 0; i < 4; i++) { bf.ob[i] = b0 + i * 1024; bf.tb[i] = b1 + i * 1024; }
    bf.oa = b0 + 5000; bf.ta = b1 + 5000;
    for (int i = 0; i < 3; i++) { bf.r[i] = b0 + 6000 + i * 1024; bf.e[i] = b1 + 6000 + i * 1024; bf.A[i] = b0 + 10000 + i * 1024; bf.F[i] = b1 + 10000 + i * 1024; }
    bf.lo = b0 + 20000; bf.hi = b1 + 20000;
    SqVaParams p;
    for (int s = 0; s < 4; s++) for (int t = 0; t < 3; t++) { p.s[s].ir[t] = 1000; p.s[s].rf3[t] = SQ_D_ONE; }
    p.egl = SQ_D_ONE; p.skip_scale0 = 0; p.skip_aim = 0;
    SqVaRaw r[4];
    sq_va_frame(raw, raw, 64, 0, 8, 64, 64, &p, &bf, r);
    float n[4] = {1,1,1,1};
    SqVaScores s = sq_va_scores(n, n, n, 64, 64, SQ_D_HALF, SQ_D_ZERO);
    f[1] = sq_d_to_float(s.adm3) + r[1].num[0];
}
__kernel void kc(__global const uchar *raw, __global ushort *u16, __global uchar *u8, __global float *f, __global int *o, __global uint *cnt,
                 __global SqVcParams *p)
{
    int i = get_global_id(0);
    SqVcBufs bf;
    bf.img = u16; bf.colsum = u16 + 8192; bf.mode = u16 + 9000; bf.hist = u16 + 10000;
    bf.zero = u8; bf.mask = u8 + 8192; bf.first = u8 + 20000; bf.c = f; bf.recip = f + 8192; bf.cnt = cnt;
    /* the kernels read the plan's parameters where they lie (global memory) */
    p->w = 64; p->h = 64; p->bpc = 8; p->anti_dither = 1; p->nd = 4; p->ws = 9; p->hrs = 0; p->vlt_luma = 0;
    for (int d = 0; d < SQ_VC_MAX_DIFFS; d++) { p->tvi[d] = 1023; p->weight[d] = 1; }
    for (int s = 0; s < SQ_VC_SCALES; s++) p->K[s] = 1;
    p->max_val = SQ_D_ONE;
    sq_vc_convert_row(raw, 64, 0, 8, 64, i, bf.img);
    sq_vc_dither_row(bf.img, 64, 64, i);
    sq_vc_zero_row(bf.img, 64, 64, i, bf.zero);
    sq_vc_colsum_row(bf.zero, 64, 64, i, 1, bf.colsum);
    sq_vc_mask_row(bf.colsum, 64, i, sq_vc_mask_index(64, 64), bf.mask);
    sq_vc_hist_move(bf.img, bf.mask, 32, 32, i, i - 9, 4, p->nd, 0, 1024, bf.hist);
    sq_vc_first_table(p, bf.first);
    sq_vc_cvalue_row(bf.img, bf.mask, bf.hist, 32, i, bf.first, p, bf.recip, bf.c);
    sq_f64 sc[SQ_VC_SCALES];
    sq_f64 v = sq_vc_frame(raw, 64, 0, p, &bf, sc);
    SqVcSizes z = sq_vc_sizes(64, 64, 4);
    o[0] = (int)z.hist + (sq_d_lt(v, sq_vc_pool(bf.c, 1024, 600)) ? 1 : 0) +
           (sq_d_lt(v, sq_vc_pool_fast(bf.c, 1024, 600, bf.cnt)) ? 1 : 0);
    o[1] = (int)sq_vc_mode3(1, 2, 3);
}
__kernel void kv(__global const ushort *x, __global const ushort *lt, __global float *f, __global uint *t, __global ushort *p)
{
    SqViBufs bf;
    bf.p[0][0] = p; bf.p[0][1] = p + 4096; bf.p[1][0] = p + 8192; bf.p[1][1] = p + 9216;
    bf.t.m1 = t + 8; bf.t.m2 = t + 200; bf.t.xx = t + 400; bf.t.yy = t + 600; bf.t.xy = t + 800; bf.sub = t + 1000;
    SqViRaw raw;
    sq_vi_frame(x, 64, x + 4096, 64, 64, 64, 10, SQ_D_ONE, get_global_id(0) & 1, lt, &bf, &raw);
    f[0] = raw.num[1] + raw.den[2];
}
