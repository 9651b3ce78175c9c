// Compile check: the motion and ADM math as OpenCL C 1.2 (hardware and soft doubles),
// as the OpenCL backend will build it; every entry point is reached from the kernel.
#include "math/vmaf_adm_pool.h"
#include "math/vmaf_motion.h"
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
