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

void sq_cpu_adm_jobs(const CpuPriv *c, Worker *w, const Planes *cur, uint32_t present,
                     SqRawResult *out)
{
    for (int idx = 0; idx < c->p.njobs; idx++) {
        const SqJob *jb = &c->p.jobs[idx];
        const int d = idx / c->per;
        if (jb->kind != SQ_JOB_ADM || !(present >> (1 + d) & 1))
            continue;
        const Planes *r = &cur[jb->side[0].pic], *t = &cur[jb->side[1].pic];
        const int pr = jb->side[0].plane, pt = jb->side[1].plane;
        const SqPlan *plan = c->p.plans[jb->plan];
        sq_va_frame2(r->data[pr], r->stride[pr], r->acc[pr], t->data[pt], t->stride[pt],
                     t->acc[pt], c->p.format.bpc, plan->d.w, plan->d.h, &plan->va, &w->va,
                     out->adm[d * SQ_MAX_ADM_JOBS + jb->slot]);
    }
}
