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

int sq_cpu_vi_alloc(SqViBufs *b, int W, int H, const SqAlloc *a, SqZeroLater *zl)
{
    uint32_t **rows[6];
    memset(b, 0, sizeof(*b));
    vi_rows(b, rows);
    for (int k = 0; k < 2; k++) {
        b->p[0][k] = sq_calloc_later(a, (size_t)W * (size_t)H, sizeof(uint16_t), zl);
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
 * Scale 0 as a u16 plane: planar 16-bit samples in place, anything else
 * (bytes, semi-planar or MSB-aligned containers) widened into buf.
 */
static const uint16_t *plane16(const Planes *p, int pl, int w, int h, uint16_t *buf,
                               ptrdiff_t *stride)
{
    const uint8_t *src = p->data[pl];
    const int64_t st = p->stride[pl];
    const int acc = p->acc[pl];
    if (acc == SQ_ACC_16 && st % 2 == 0) {
        *stride = (ptrdiff_t)(st / 2);
        return (const uint16_t *)src;
    }
    for (int i = 0; i < h; i++) {
        const uint8_t *row = src + (int64_t)i * st;
        uint16_t *o = buf + (size_t)i * (size_t)w;
        if (acc == 0)
            for (int j = 0; j < w; j++)
                o[j] = row[j];
        else
            for (int j = 0; j < w; j++)
                o[j] = (uint16_t)sq_sample(row, j, acc);
    }
    *stride = w;
    return buf;
}

/* One scale's statistics through the DSP rows. */
static void vi_scale(const SqDsp *dsp, const uint16_t *x, ptrdiff_t xs, const uint16_t *y,
                     ptrdiff_t ys, int w, int h, int s, int bpc, const SqPlan *p,
                     const SqViBufs *bf, float *num, float *den)
{
    uint32_t *const t[5] = { bf->t.m1, bf->t.m2, bf->t.xx, bf->t.yy, bf->t.xy };
    int64_t acc[4] = { 0, 0, 0, 0 };
    const int r = sq_vi_half(s);
    for (int i = 0; i < h; i++) {
        dsp->vif_vrow(x, xs, y, ys, w, h, s, bpc, i, t);
        for (int k = 0; k < 5; k++)
            sq_vi_pad(t[k], w, r);
        dsp->vif_hrow((const uint32_t *const *)t, w, s, p->vi_egl, p->vi_lt, acc);
    }
    const SqViAcc a = { acc[0], acc[1], acc[2], acc[3] };
    sq_vi_scale_nd(&a, num, den);
}

/* sq_vi_frame with the rows of the DSP table; ref and dis read through their planes. */
static void vi_frame(const SqDsp *dsp, const Planes *r, int pr, const Planes *d, int pd, int bpc,
                     const SqPlan *p, const SqViBufs *bf, SqViRaw *raw)
{
    int w = p->d.w, h = p->d.h;
    ptrdiff_t xs, ys;
    const uint16_t *x = plane16(r, pr, w, h, bf->p[0][0], &xs);
    const uint16_t *y = plane16(d, pd, w, h, bf->p[0][1], &ys);
    for (int s = 0; s < 4; s++) {
        if (s > 0) {
            /* scales 1 and 3 into pair 1, 2 into pair 0 (as sq_vi_frame) */
            uint16_t *const *o = bf->p[s & 1];
            for (int i = 0; i < h / 2; i++) {
                dsp->vif_sub_row(x, xs, w, h, s, bpc, i, bf->sub, o[0] + (size_t)i * (size_t)(w / 2));
                dsp->vif_sub_row(y, ys, w, h, s, bpc, i, bf->sub, o[1] + (size_t)i * (size_t)(w / 2));
            }
            w /= 2;
            h /= 2;
            x = o[0];
            y = o[1];
            xs = ys = w;
        }
        if (s == 0 && p->vi_skip0) {
            raw->num[0] = 0.0f;
            raw->den[0] = -1.0f;
            continue;
        }
        vi_scale(dsp, x, xs, y, ys, w, h, s, bpc, p, bf, &raw->num[s], &raw->den[s]);
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
