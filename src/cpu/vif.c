/*
 * libvmaf's integer VIF on the CPU: its scratch, and a frame's SQ_JOB_VIF
 * jobs (every stream's: the distorted side differs) by the thread that
 * scores the frame, sq_vi_frame with its rows through the DSP table.
 */
#include <string.h>

#include "cpu/backend_priv.h"
#include "cpu/vif.h"

/* The row buffers of b in one order (the five statistics rows, then the decimation's). */
static void vi_rows(SqViBufs *b, uint32_t **all[6])
{
    all[0] = &b->t.m1;
    all[1] = &b->t.m2;
    all[2] = &b->t.xx;
    all[3] = &b->t.yy;
    all[4] = &b->t.xy;
    all[5] = &b->sub;
}

/* Scale s's size from the input's (each scale halves the one before, rounding down). */
static void vi_dims(int W, int H, int s, int *w, int *h)
{
    *w = W;
    *h = H;
    for (int k = 0; k < s; k++) {
        *w /= 2;
        *h /= 2;
    }
}

/* Elements of a pair-0 plane: scale 0's widened copy, then scale 2's and scale 3's planes
 * (the sweep writes them while scales 0 and 1 are still read). */
static size_t vi_pair0(int W, int H)
{
    size_t n = (size_t)W * (size_t)H;
    for (int s = 2; s < 4; s++) {
        int w, h;
        vi_dims(W, H, s, &w, &h);
        n += (size_t)w * (size_t)h;
    }
    return n;
}

int sq_cpu_vi_alloc(SqViBufs *b, int W, int H, const SqAlloc *a, SqZeroLater *zl)
{
    uint32_t **rows[6];
    memset(b, 0, sizeof(*b));
    vi_rows(b, rows);
    for (int k = 0; k < 2; k++) {
        b->p[0][k] = sq_calloc_later(a, vi_pair0(W, H), sizeof(uint16_t), zl);
        b->p[1][k] = sq_calloc_later(a, (size_t)(W / 2) * (size_t)(H / 2), sizeof(uint16_t), zl);
        if (!b->p[0][k] || !b->p[1][k])
            return -1;
    }
    for (int k = 0; k < 6; k++) {
        /* a vector's width past either padding: SIMD rows may read a tail */
        uint32_t *r = sq_calloc_later(a, (size_t)W + 2 * SQ_VI_PAD + 64, sizeof(uint32_t), zl);
        if (!r)
            return -1;
        *rows[k] = r + SQ_VI_PAD;
    }
    return 0;
}

void sq_cpu_vi_free(SqViBufs *b, const SqAlloc *a)
{
    uint32_t **rows[6];
    vi_rows(b, rows);
    for (int k = 0; k < 6; k++)
        sq_free(a, *rows[k] ? *rows[k] - SQ_VI_PAD : NULL);
    for (int k = 0; k < 2; k++) {
        sq_free(a, b->p[0][k]);
        sq_free(a, b->p[1][k]);
    }
    memset(b, 0, sizeof(*b));
}

/*
 * One scale of the sweep: its two planes, their size, how many of their
 * rows exist (written, or widened at scale 0) and how many statistics
 * rows are summed into acc.
 */
typedef struct ViLevel {
    const uint16_t *x, *y;
    ptrdiff_t xs, ys;
    int w, h, have, done;
    int64_t acc[4];
} ViLevel;

/* Scale 0's planes: planar 16-bit samples in place (every row there), anything else (bytes,
 * semi-planar or MSB-aligned containers) widened a row at a time into buf by vi_widen. */
static int vi_in_place(const Planes *p, int pl)
{
    return p->acc[pl] == SQ_ACC_16 && p->stride[pl] % 2 == 0;
}

static void vi_widen(const Planes *p, int pl, int w, int i, uint16_t *buf)
{
    const uint8_t *row = p->data[pl] + (int64_t)i * p->stride[pl];
    const int acc = p->acc[pl];
    uint16_t *o = buf + (size_t)i * (size_t)w;
    if (acc == 0)
        for (int j = 0; j < w; j++)
            o[j] = row[j];
    else
        for (int j = 0; j < w; j++)
            o[j] = (uint16_t)sq_sample(row, j, acc);
}

/*
 * Advances every scale as far as the rows that exist allow, scale by scale
 * (a scale's new rows may complete the next one's): statistics row i of
 * scale s reads rows up to i + R (mirrored: below i + R too), the
 * decimation's row k into scale s + 1 rows up to 2k + R'; with every row
 * of a scale there, whatever is left of it. The sums are integers, so the
 * order of the rows does not change them (spec 4.4).
 */
static void vi_pump(const SqDsp *dsp, ViLevel *L, int bpc, int skip0, const SqPlan *p,
                    const SqViBufs *bf)
{
    uint32_t *const t[5] = { bf->t.m1, bf->t.m2, bf->t.xx, bf->t.yy, bf->t.xy };
    for (int s = 0; s < 4; s++) {
        ViLevel *v = &L[s];
        const int r = sq_vi_half(s), all = v->have == v->h;
        for (; v->done < v->h && (all || v->done + r < v->have); v->done++) {
            if (s == 0 && skip0)
                continue;
            dsp->vif_vrow(v->x, v->xs, v->y, v->ys, v->w, v->h, s, bpc, v->done, t);
            for (int k = 0; k < 5; k++)
                sq_vi_pad(t[k], v->w, r);
            dsp->vif_hrow((const uint32_t *const *)t, v->w, s, p->vi_egl, p->vi_lt, v->acc);
        }
        if (s == 3)
            break;
        ViLevel *n = &L[s + 1];
        const int rn = sq_vi_half(s + 1);
        uint16_t *const nx = (uint16_t *)n->x, *const ny = (uint16_t *)n->y;
        for (; n->have < n->h && (all || 2 * n->have + rn < v->have); n->have++) {
            const size_t o = (size_t)n->have * (size_t)n->w;
            dsp->vif_sub_row(v->x, v->xs, v->w, v->h, s + 1, bpc, n->have, bf->sub, nx + o);
            dsp->vif_sub_row(v->y, v->ys, v->w, v->h, s + 1, bpc, n->have, bf->sub, ny + o);
        }
    }
}

/*
 * sq_vi_frame with the rows of the DSP table, in one sweep down scale 0:
 * each widened row, and each decimated row of the scales after it, is
 * summed and decimated while it is in cache, instead of whole planes
 * written and then read back scale by scale.
 */
static void vi_frame(const SqDsp *dsp, const Planes *r, int pr, const Planes *d, int pd, int bpc,
                     const SqPlan *p, const SqViBufs *bf, SqViRaw *raw)
{
    const int W = p->d.w, H = p->d.h;
    ViLevel L[4];
    memset(L, 0, sizeof(L));
    for (int s = 0; s < 4; s++) {
        vi_dims(W, H, s, &L[s].w, &L[s].h);
        L[s].xs = L[s].ys = L[s].w;
    }
    /* scale 1 in pair 1; scales 2 and 3 in pair 0 after scale 0's copy */
    L[1].x = bf->p[1][0];
    L[1].y = bf->p[1][1];
    L[2].x = bf->p[0][0] + (size_t)W * (size_t)H;
    L[2].y = bf->p[0][1] + (size_t)W * (size_t)H;
    L[3].x = L[2].x + (size_t)L[2].w * (size_t)L[2].h;
    L[3].y = L[2].y + (size_t)L[2].w * (size_t)L[2].h;
    const int wx = !vi_in_place(r, pr), wy = !vi_in_place(d, pd);
    L[0].x = wx ? bf->p[0][0] : (const uint16_t *)r->data[pr];
    L[0].xs = wx ? W : (ptrdiff_t)(r->stride[pr] / 2);
    L[0].y = wy ? bf->p[0][1] : (const uint16_t *)d->data[pd];
    L[0].ys = wy ? W : (ptrdiff_t)(d->stride[pd] / 2);
    if (!wx && !wy)
        L[0].have = H;
    for (; L[0].have < H; L[0].have++) {
        if (wx)
            vi_widen(r, pr, W, L[0].have, bf->p[0][0]);
        if (wy)
            vi_widen(d, pd, W, L[0].have, bf->p[0][1]);
        vi_pump(dsp, L, bpc, p->vi_skip0, p, bf);
    }
    vi_pump(dsp, L, bpc, p->vi_skip0, p, bf);
    for (int s = 0; s < 4; s++) {
        if (s == 0 && p->vi_skip0) {
            raw->num[0] = 0.0f;
            raw->den[0] = -1.0f;
            continue;
        }
        const SqViAcc a = { L[s].acc[0], L[s].acc[1], L[s].acc[2], L[s].acc[3] };
        sq_vi_scale_nd(&a, &raw->num[s], &raw->den[s]);
    }
}

void sq_cpu_vif_jobs(const CpuPriv *c, Worker *w, const Planes *cur, uint32_t present,
                     SqRawResult *out)
{
    for (int idx = 0; idx < c->p.njobs; idx++) {
        const SqJob *jb = &c->p.jobs[idx];
        const int d = idx / c->per;
        if (jb->kind != SQ_JOB_VIF || !(present >> (1 + d) & 1))
            continue;
        vi_frame(&c->dsp, &cur[jb->side[0].pic], jb->side[0].plane, &cur[jb->side[1].pic],
                 jb->side[1].plane, c->p.format.bpc, c->p.plans[jb->plan], &w->vi,
                 &out->vif[d * SQ_MAX_VIF_JOBS + jb->slot]);
    }
}
