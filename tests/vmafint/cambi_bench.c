/*
 * CAMBI's time per frame, speedqa's math against libvmaf's extractor (one
 * thread, through its API: the picture copies into libvmaf pictures are in
 * its time). test_vmafint cambi bench GOLDEN WORK [DIS_REL]: the 1080p 8-bit
 * golden clip by default; best of 3 passes per frame, then the mean; the
 * process's CPU time (the machine is shared: wall time is noisier).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cambi_params.h"
#include "vmafint.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double ours(const ViSeq *s, const VcOpts *o, const float *recip)
{
    SqVcParams p;
    SqVcBufs bf;
    if (vc_params(o, s->w, s->h, s->bpc, &p) || vc_bufs_alloc(&bf, s->w, s->h, p.nd, recip))
        return -1.0;
    double total = 0.0;
    for (int i = 0; i < s->n; i++) {
        double best = 1e30;
        for (int r = 0; r < 3; r++) {
            const double t0 = now();
            (void)sq_vc_frame(s->dis[i], s->stride, s->bpc > 8 ? SQ_ACC_16 : 0, &p, &bf, NULL);
            const double t = now() - t0;
            best = t < best ? t : best;
        }
        total += best;
    }
    vc_bufs_free(&bf);
    return total / s->n;
}

static double theirs(const ViSeq *s, const ViUse *u, uint64_t cpumask)
{
    const int n_uses = u ? 1 : 0;
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        const double t0 = now();
        VmafContext *ctx = vi_vmaf_run(s, u, n_uses, cpumask);
        const double t = now() - t0;
        if (!ctx)
            return -1.0;
        vmaf_close(ctx);
        best = t < best ? t : best;
    }
    return best / s->n;
}

int vi_cambi_bench(const char *golden, const char *work, const char *dis)
{
    static float recip[SQ_VC_RECIP_N];
    vc_recip(recip);
    ViSeq s;
    if (!dis)
        dis = "clips/seeding_1920x1080_420p8_8f_x264crf28.y4m.xz";
    if (vi_seq_read(&s, golden, work, dis, dis, 0))
        return 1;
    static const ViUse def = { "cambi", { { NULL, NULL } } };
    static const ViUse v116 = { "cambi", { { "cambi_high_res_speedup", "1080" },
                                           { "cambi_vis_lum_threshold", "0.06" },
                                           { "cambi_max_val", "17" } } };
    VcOpts o = vc_opts_default();
    printf("%s: %d frames %dx%d bpc%d, CPU ms per frame (1 thread)\n", s.name, s.n, s.w, s.h, s.bpc);
    printf("defaults: speedqa %.1f, libvmaf default dispatch %.1f, libvmaf C (cpumask 63) %.1f\n",
           1e3 * ours(&s, &o, recip), 1e3 * theirs(&s, &def, 0), 1e3 * theirs(&s, &def, 63));
    o.hrs = 1080;
    o.vlt = 0.06;
    o.max_val = 17.0;
    printf("v1.0.16 (hrs 1080, vlt 0.06, cmxv 17): speedqa %.1f, libvmaf default %.1f, libvmaf C %.1f\n",
           1e3 * ours(&s, &o, recip), 1e3 * theirs(&s, &v116, 0), 1e3 * theirs(&s, &v116, 63));
    printf("libvmaf without an extractor (its picture copies, in the times above): %.1f\n",
           1e3 * theirs(&s, NULL, 0));
    vi_seq_free(&s);
    return 0;
}
