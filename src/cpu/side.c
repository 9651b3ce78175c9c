/*
 * A CPU side's buffers (cpu/cpu.h SqCpuSide): allocated once per plan at
 * open, sized from the plan's geometry, and its DSP table's level. The
 * loops that use them are cpu.c's.
 */
#include <errno.h>
#include <string.h>

#include "cpu/cpu.h"
#include "math/est.h"
#include "math/filter.h"
#include "math/prescale.h"

/* Columns of the full-resolution row that the decimated horizontal pass reads. */
static int plan_spans(const SqPlan *p, int32_t *spans, uint8_t *mark)
{
    const SqDims *d = &p->d;
    const int r = p->taps_a >> 1, w = d->scaled_w;
    memset(mark, 0, (size_t)w);
    for (int j = 0; j < d->op_w; j++)
        for (int k = -r; k <= r; k++)
            mark[sq_mirror((j << SQ_DECIM_SHIFT) + k, w)] = 1;
    int n = 0;
    for (int c = 0; c < w;) {
        if (!mark[c]) {
            c++;
            continue;
        }
        spans[2 * n] = c;
        while (c < w && mark[c])
            c++;
        spans[2 * n + 1] = c;
        n++;
    }
    return n;
}

int sq_cpu_side_alloc(SqCpuSide *s, const SqPlan *p, const SqAlloc *a)
{
    return sq_cpu_side_alloc_later(s, p, a, NULL);
}

int sq_cpu_side_alloc_later(SqCpuSide *s, const SqPlan *p, const SqAlloc *a, SqZeroLater *zl)
{
    const SqDims *d = &p->d;
    memset(s, 0, sizeof(*s));
    if (d->b != SQ_BLOCK || d->n > 32)
        return -EINVAL;
    sq_dsp_init(&s->dsp, ~0u);
    const size_t ops = (size_t)d->op_w * d->op_h, n = (size_t)d->n, nb = (size_t)d->nb;
    const size_t rows4 = (size_t)((d->trunc_h + 3) & ~3);
    /* spans: written below, here */
    s->spans = sq_calloc(a, 2 * (size_t)d->scaled_w + 2, sizeof(int32_t));
    s->vrow = sq_calloc_later(a, (size_t)d->scaled_w, sizeof(float), zl);
    s->op = sq_calloc_later(a, ops, sizeof(float), zl);
    s->dimg = sq_calloc_later(a, ops, sizeof(float), zl);
    s->mrow = sq_calloc_later(a, (size_t)d->op_w, sizeof(float), zl);
    s->dl = sq_calloc_later(a, rows4 * SQ_COV_LD, sizeof(double), zl);
    s->sums = sq_calloc_later(a, SQ_BLOCK * SQ_COV_LD, sizeof(double), zl);
    s->covws = sq_calloc_later(a, sq_cov_ws_doubles(d->trunc_w, d->trunc_h), sizeof(double), zl);
    /* k, lambda, eigen ws, solve ws (its last n x nb block is X), u, y, e, s */
    const size_t eig = (size_t)sq_eigen_ws_floats(d->n), sol = (size_t)sq_solve_ws_floats(d->n, d->nb);
    const size_t nf = n * n + n + eig + sol + n * nb + 3 * nb + 8 * 16;
    s->wsf = sq_calloc_later(a, nf, sizeof(float), zl);
    int ok = s->spans && s->vrow && s->op && s->dimg && s->mrow && s->dl && s->sums && s->covws &&
             s->wsf;
    if (ok) {
        /* 64-byte align each block. */
        float *f = s->wsf;
#define TAKE(ptr, cnt) (ptr = f, f += ((cnt) + 15) & ~(size_t)15)
        TAKE(s->k, n * n);
        TAKE(s->lambda, n);
        TAKE(s->eig, eig);
        TAKE(s->sol, sol);
        TAKE(s->y, n * nb);
        TAKE(s->e, nb);
        TAKE(s->s, nb);
        TAKE(s->terms, nb);
#undef TAKE
        s->x = s->sol + 5 * n * n;
        uint8_t *mark = sq_calloc(a, (size_t)d->scaled_w, 1);
        ok = mark != NULL;
        if (ok)
            s->nspans = plan_spans(p, s->spans, mark);
        sq_free(a, mark);
    }
    if (ok) {
        s->srcrows = sq_calloc(a, (size_t)d->h, 1);
        ok = s->srcrows && sq_plan_rows_read(p, s->srcrows, a) == 0;
    }
    if (ok && p->prescale >= 0) {
        s->conv = sq_calloc(a, (size_t)d->w * d->h, sizeof(float));
        s->scaled = sq_calloc(a, (size_t)d->scaled_w * d->scaled_h, sizeof(float));
        s->rows = sq_calloc(a, (size_t)d->scaled_h, 1);
        ok = s->conv && s->scaled && s->rows;
        if (ok)
            sq_plan_filter_rows(p, d->scaled_h, s->rows);
    }
    if (!ok) {
        sq_cpu_side_free(s, a);
        return -ENOMEM;
    }
    return 0;
}

void sq_cpu_side_free(SqCpuSide *s, const SqAlloc *a)
{
    sq_free(a, s->spans);
    sq_free(a, s->rows);
    sq_free(a, s->srcrows);
    sq_free(a, s->vrow);
    sq_free(a, s->op);
    sq_free(a, s->dimg);
    sq_free(a, s->mrow);
    sq_free(a, s->conv);
    sq_free(a, s->scaled);
    sq_free(a, s->dl);
    sq_free(a, s->sums);
    sq_free(a, s->covws);
    sq_free(a, s->wsf);
    sq_free(a, s->unpack[0]);
    sq_free(a, s->unpack[1]);
    memset(s, 0, sizeof(*s));
}

int sq_cpu_side_alloc_unpack(SqCpuSide *s, const SqPlan *p, int hbd, const SqAlloc *a)
{
    const size_t bytes = (size_t)p->d.w * (size_t)p->d.h * (hbd ? 2 : 1);
    for (int k = 0; k < 2; k++)
        if (!s->unpack[k] && !(s->unpack[k] = sq_malloc(a, bytes, 1)))
            return -ENOMEM;
    return 0;
}

void sq_cpu_side_set_cpu_mask(SqCpuSide *s, unsigned cpu_mask)
{
    sq_dsp_init(&s->dsp, cpu_mask);
}
