/*
 * libvmaf's integer ADM on the CPU: its scratch, and a frame's SQ_JOB_ADM
 * jobs (every stream's: the distorted side differs) by the thread that
 * scores the frame.
 */
#include <string.h>

#include "cpu/adm.h"
#include "cpu/backend_priv.h"

/* The planes of b in one order: band-sized ones first, then lo and hi (W each). */
static void va_planes(SqVaBufs *b, int32_t **all[24])
{
    int n = 0;
    for (int i = 0; i < 4; i++)
        all[n++] = &b->ob[i];
    for (int i = 0; i < 4; i++)
        all[n++] = &b->tb[i];
    all[n++] = &b->oa;
    all[n++] = &b->ta;
    for (int i = 0; i < 3; i++) {
        all[n++] = &b->r[i];
        all[n++] = &b->e[i];
        all[n++] = &b->A[i];
        all[n++] = &b->F[i];
    }
    all[n++] = &b->lo;
    all[n++] = &b->hi;
}

int sq_cpu_va_alloc(SqVaBufs *b, int W, int H, const SqAlloc *a)
{
    int32_t **all[24];
    const size_t n = (size_t)((W + 1) / 2) * (size_t)((H + 1) / 2);
    memset(b, 0, sizeof(*b));
    va_planes(b, all);
    for (int i = 0; i < 24; i++)
        if (!(*all[i] = sq_calloc(a, i >= 22 ? (size_t)W : n, sizeof(int32_t))))
            return -1;
    return 0;
}

void sq_cpu_va_free(SqVaBufs *b, const SqAlloc *a)
{
    int32_t **all[24];
    va_planes(b, all);
    for (int i = 0; i < 24; i++)
        sq_free(a, *all[i]);
    memset(b, 0, sizeof(*b));
}

/*
 * sq_va_frame2 with the DWT, every scale's decouple and CSF (row by row
 * over the extended region) and the pooling through the DSP table; the
 * band a a scale keeps for the next is its plane itself (bf's pointers
 * move; sq_cpu_va_free frees whichever planes they hold).
 */
static void va_frame(const SqDsp *dsp, const Planes *r, int pr, const Planes *t, int pt, int bpc,
                     int W, int H, const SqVaParams *p, SqVaBufs *bf, SqVaRaw *raw)
{
    int w = W, h = H;
    for (int s = 0; s < 4; s++) {
        const int scored = !(s == 0 && p->skip_scale0);
        dsp->adm_dwt(r->data[pr], r->stride[pr], r->acc[pr], bpc, bf->oa, w, h, s, !scored, bf->lo,
                     bf->hi, bf->ob);
        dsp->adm_dwt(t->data[pt], t->stride[pt], t->acc[pt], bpc, bf->ta, w, h, s, !scored, bf->lo,
                     bf->hi, bf->tb);
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        sq_va_scale_raw(w, h, &raw[s]);
        const int L = sq_va_ext_lo(w), R = sq_va_ext_hi(w);
        for (int i = sq_va_ext_lo(h); scored && i < sq_va_ext_hi(h); i++) {
            const int64_t x = (int64_t)i * w + L;
            const int32_t *ob[4], *tb[4];
            int32_t *rr[3], *ee[3], *aa[3], *ff[3];
            for (int b = 0; b < 4; b++) {
                ob[b] = bf->ob[b] + x;
                tb[b] = bf->tb[b] + x;
            }
            for (int o = 0; o < 3; o++) {
                rr[o] = bf->r[o] + x;
                ee[o] = bf->e[o] + x;
                aa[o] = bf->A[o] + x;
                ff[o] = bf->F[o] + x;
            }
            (s ? dsp->adm_decs : dsp->adm_dec0)(ob, tb, R - L, p->egl, p->s[s].ir, rr, ee, aa, ff);
        }
        if (scored)
            dsp->adm_pool(s, w, h, p, bf, &raw[s]);
        /* the next scale reads this one's a: the planes change places (same size, no copy) */
        int32_t *const oa = bf->oa, *const ta = bf->ta;
        bf->oa = bf->ob[SQ_VA_A];
        bf->ta = bf->tb[SQ_VA_A];
        bf->ob[SQ_VA_A] = oa;
        bf->tb[SQ_VA_A] = ta;
    }
}

void sq_cpu_adm_jobs(const CpuPriv *c, Worker *w, const Planes *cur, uint32_t present,
                     SqRawResult *out)
{
    for (int idx = 0; idx < c->p.njobs; idx++) {
        const SqJob *jb = &c->p.jobs[idx];
        const int d = idx / c->per;
        if (jb->kind != SQ_JOB_ADM || !(present >> (1 + d) & 1))
            continue;
        const SqPlan *plan = c->p.plans[jb->plan];
        va_frame(&c->dsp, &cur[jb->side[0].pic], jb->side[0].plane, &cur[jb->side[1].pic],
                 jb->side[1].plane, c->p.format.bpc, plan->d.w, plan->d.h, &plan->va, &w->va,
                 out->adm[d * SQ_MAX_ADM_JOBS + jb->slot]);
    }
}
