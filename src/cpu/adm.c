/*
 * libvmaf's integer ADM on the CPU: its scratch, and a frame's SQ_JOB_ADM
 * jobs (every stream's: the distorted side differs) by the thread that
 * scores the frame.
 */
#include <string.h>

#include "cpu/adm.h"
#include "cpu/backend_priv.h"

/* The planes of b in one order: band-sized ones, the rings (r, e, A, F), then lo and hi (W each). */
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

/*
 * r, e, A and F keep VA_RING rows of a band, row i at row i % VA_RING:
 * va_scale reads a row at most 6 rows after the decouple wrote it (a DLM
 * masking row runs once its row below is written, the AIM pass's CSF of a
 * row 2 rows later, its masking row 2 rows after that, reading the row
 * above), for every band of 2 rows or more (adm opens 32 x 32 and up). As
 * whole planes (12 of 2 MB at 1080p) every row went out to memory and came
 * back; 8 rows stay in the cache.
 */
#define VA_RING 8

/*
 * The CPU keeps no F: F[0]'s ring holds S, the fine masks' sum over the
 * orientations at each position (u32), which the decouple and the AIM
 * pass's CSF write in its place and which is all that the masking rows
 * read of F (adm_cm_row); F[1] and F[2] go unused (SqVaBufs is the GPU's
 * layout too).
 */
static uint32_t *va_s(const SqVaBufs *b)
{
    return (uint32_t *)b->F[0];
}

/*
 * Unless whole, the bands h, v and d of each side are one row: a scale's
 * DWT writes a row of them just before the decouple and the denominator
 * read it (va_scale), so they never leave the cache; a stays a whole
 * plane, the next scale's input.
 */
int sq_cpu_va_alloc(SqVaBufs *b, int W, int H, int whole, const SqAlloc *a, SqZeroLater *z)
{
    int32_t **all[24];
    const size_t w2 = (size_t)((W + 1) / 2), n = w2 * (size_t)((H + 1) / 2);
    memset(b, 0, sizeof(*b));
    va_planes(b, all);
    for (int i = 0; i < 24; i++) {
        const int band_row = i < 8 && i % 4 != SQ_VA_A, ring = i >= 10 && i < 22;
        const size_t sz = i >= 22 ? (size_t)W
                          : whole ? n
                          : band_row ? w2
                          : ring ? VA_RING * w2
                                 : n;
        if (!(*all[i] = sq_calloc_later(a, sz, sizeof(int32_t), z)))
            return -1;
    }
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

/* Pointers at position L of row i: the bands (4 each side: the DWT's last row), r, e, A (3 each) and S (rings). */
typedef struct VaRow {
    const int32_t *ob[4], *tb[4];
    int32_t *r[3], *e[3], *A[3];
    uint32_t *S;
} VaRow;

static void va_row(const SqVaBufs *bf, int w, int L, int i, VaRow *v)
{
    const int64_t y = (int64_t)(i % VA_RING) * w + L;
    for (int b = 0; b < 4; b++) {
        v->ob[b] = bf->ob[b] + L; /* a, not read, at its row 0 */
        v->tb[b] = bf->tb[b] + L;
    }
    for (int o = 0; o < 3; o++) {
        v->r[o] = bf->r[o] + y;
        v->e[o] = bf->e[o] + y;
        v->A[o] = bf->A[o] + y;
    }
    v->S = va_s(bf) + y;
}

/* Masking row i of a w x h band over the rings: X, A and S at rows i - 1, i, i + 1 mirrored. */
static void va_cm(const SqDsp *dsp, int s, const uint32_t *ir, int32_t *const *X,
                  const SqVaBufs *bf, const uint32_t *S, int w, int h, int i, int64_t *acc,
                  uint32_t *vs)
{
    const int64_t up = (int64_t)(sq_va_mirror(i - 1, h) % VA_RING) * w,
                  mid = (int64_t)(i % VA_RING) * w,
                  dn = (int64_t)(sq_va_mirror(i + 1, h) % VA_RING) * w;
    dsp->adm_cm_row(s, ir, (const int32_t *const *)X, (const int32_t *const *)bf->A, S, w,
                    h, up, mid, dn, acc, vs);
}

/* The last row a masking row i reads (its neighbours mirrored as sq_va_cm_row's). */
static int va_need(int i, int h)
{
    return sq_imax(i, sq_imax(sq_va_mirror(i - 1, h), sq_va_mirror(i + 1, h)));
}

/* A frame's luma planes, the DWT's input at scale 0. */
typedef struct VaIn {
    const Planes *pl[2];
    int plane[2], bpc;
} VaIn;

/* Rows [i, i + n) of scale s's DWT (input w x h) on both sides: a into its plane, the other bands into their row. */
static void va_dwt(const SqDsp *dsp, const VaIn *in, int s, int w, int h, int only_a, int i, int n,
                   SqVaBufs *bf)
{
    const int64_t at = (int64_t)i * ((w + 1) / 2);
    int32_t *const ob[4] = { bf->ob[SQ_VA_A] + at, bf->ob[1], bf->ob[2], bf->ob[3] };
    int32_t *const tb[4] = { bf->tb[SQ_VA_A] + at, bf->tb[1], bf->tb[2], bf->tb[3] };
    const Planes *r = in->pl[0], *t = in->pl[1];
    const int pr = in->plane[0], pt = in->plane[1];
    dsp->adm_dwt(r->data[pr], r->stride[pr], r->acc[pr], in->bpc, bf->oa, w, h, s, only_a, i, i + n,
                 bf->lo, bf->hi, ob);
    dsp->adm_dwt(t->data[pt], t->stride[pt], t->acc[pt], in->bpc, bf->ta, w, h, s, only_a, i, i + n,
                 bf->lo, bf->hi, tb);
}

/*
 * A scored scale s (input W x H, bands w x h): sq_va_scale_dwt, then
 * sq_va_decouple_csf and sq_va_scale_score, reordered by rows so that each
 * row is used while it is in cache: a band row of the DWT as the decouple
 * reaches it (with its row of the denominator), a masking row of the DLM
 * pass as soon as the decouple has written the rows it reads, the AIM
 * pass's CSF of a row (over the decouple's A and S) once no DLM row left
 * reads that row, an AIM masking row once its rows have their CSF. Every
 * row sees the values the plane-by-plane order gives it, and the masking
 * and denominator sums are integers (any order).
 */
static void va_scale(const SqDsp *dsp, const VaIn *in, int s, int W, int H, const SqVaParams *p,
                     SqVaBufs *bf, SqVaRaw *raw)
{
    const int w = (W + 1) / 2, h = (H + 1) / 2;
    const uint32_t *S = va_s(bf);
    const SqVaScale *sc = &p->s[s];
    const int L = sq_va_ext_lo(w), R = sq_va_ext_hi(w), T = sq_va_ext_lo(h), B = sq_va_ext_hi(h);
    const int t = sq_va_pool_lo(h), b = sq_va_pool_hi(h), l = sq_va_pool_lo(w), r = sq_va_pool_hi(w);
    const int aim = !p->skip_aim;
    uint32_t *vs = (uint32_t *)bf->lo;
    int64_t dlm[3] = { 0, 0, 0 }, am[3] = { 0, 0, 0 };
    uint64_t den[3] = { 0, 0, 0 };
    int c, rho;
    sq_va_den_shifts(s, w, h, &c, &rho);
    int nt = 0, nd = t, nc = T, na = t; /* the next DWT row, DLM row, AIM CSF row, AIM masking row */
    for (int k = T; k <= B; k++) {
        VaRow v;
        /* rows outside the decouple's and the denominator's are a's alone (only_a holds at
         * scale 0: the others write their row of h, v and d) */
        for (; nt <= sq_imin(k, h - 1); nt++) {
            const int used = (nt >= T && nt < B) || (nt >= t && nt < b);
            va_dwt(dsp, in, s, W, H, !used, nt, 1, bf);
            if (nt >= t && nt < b)
                dsp->adm_den_row(s, (const int32_t *const *)bf->ob, l, r, c, rho, den);
        }
        if (k < B) {
            va_row(bf, w, L, k, &v);
            (s ? dsp->adm_decs : dsp->adm_dec0)(v.ob, v.tb, R - L, p->egl, sc->ir, v.r, v.e, v.A, v.S);
        }
        for (; nd < b && va_need(nd, h) <= k; nd++)
            va_cm(dsp, s, sc->ir, bf->r, bf, S, w, h, nd, dlm, vs);
        /* row nc is free once no DLM row left reads it: those are nc - 1 .. nc + 1 */
        for (; aim && nc < sq_imin(k + 1, B) && (nd >= b || nd > nc + 1); nc++) {
            va_row(bf, w, L, nc, &v);
            dsp->adm_csf_row(s, sc->ir, (const int32_t *const *)v.r, R - L, v.A, v.S);
        }
        for (; aim && na < b && va_need(na, h) < nc; na++)
            va_cm(dsp, s, sc->ir, bf->e, bf, S, w, h, na, am, vs);
    }
    for (; nt < h; nt++)
        va_dwt(dsp, in, s, W, H, 1, nt, 1, bf);
    for (int th = 0; th < 3; th++) {
        raw->den[th] = sq_va_den_norm(s, sc->rf3[th], den[th], c, rho);
        raw->num[th] = sq_va_num_norm(s, th, dlm[th], w, h);
        if (aim)
            raw->aim[th] = sq_va_num_norm(s, th, am[th], w, h);
    }
}

/*
 * sq_va_frame2 through the DSP table, by rows (va_scale); the band a a
 * scale keeps for the next is its plane itself (bf's pointers move;
 * sq_cpu_va_free frees whichever planes they hold).
 */
static void va_frame(const SqDsp *dsp, const VaIn *in, int W, int H, const SqVaParams *p,
                     SqVaBufs *bf, SqVaRaw *raw)
{
    int w = W, h = H;
    for (int s = 0; s < 4; s++) {
        sq_va_scale_raw((w + 1) / 2, (h + 1) / 2, &raw[s]);
        if (s == 0 && p->skip_scale0)
            va_dwt(dsp, in, s, w, h, 1, 0, (h + 1) / 2, bf);
        else
            va_scale(dsp, in, s, w, h, p, bf, &raw[s]);
        w = (w + 1) / 2;
        h = (h + 1) / 2;
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
        const VaIn in = { { &cur[jb->side[0].pic], &cur[jb->side[1].pic] },
                          { jb->side[0].plane, jb->side[1].plane },
                          c->p.format.bpc };
        va_frame(&c->dsp, &in, plan->d.w, plan->d.h, &plan->va, &w->va,
                 out->adm[d * SQ_MAX_ADM_JOBS + jb->slot]);
    }
}
