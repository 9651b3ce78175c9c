#include <errno.h>

#include "core/job.h"
#include "math/filter.h"
#include "math/prescale.h"

void sq_plan_free(SqPlan *p)
{
    sq_free(&p->alloc, p->ps_iy);
    sq_free(&p->alloc, p->ps_ix);
    sq_free(&p->alloc, p->ps_wy);
    sq_free(&p->alloc, p->ps_wx);
    sq_free(&p->alloc, p->vc_recip);
    p->vc_recip = NULL;
    sq_free(&p->alloc, p->vi_lt);
    p->vi_lt = NULL;
    p->ps_iy = p->ps_ix = NULL;
    p->ps_wy = p->ps_wx = NULL;
}

void sq_plan_filter_rows(const SqPlan *p, int h, uint8_t *mark)
{
    const int r = p->taps_a >> 1;
    for (int i = 0; i < p->d.op_h; i++)
        for (int k = -r; k <= r; k++)
            mark[sq_mirror((i << SQ_DECIM_SHIFT) + k, h)] = 1;
}

/* Unused prescale table slots hold row 0, which costs one row at most. */
static void prescale_rows(const SqPlan *p, const uint8_t *srows, uint8_t *mark)
{
    for (int y = 0; y < p->d.scaled_h; y++)
        for (int j = 0; j < SQ_PS_TAPS && srows[y]; j++)
            mark[p->ps_iy[y * SQ_PS_TAPS + j]] = 1;
}

int sq_plan_rows_read(const SqPlan *p, uint8_t *mark, const SqAlloc *a)
{
    if (p->rows_all) {
        for (int y = 0; y < p->d.h; y++)
            mark[y] = 1;
        return 0;
    }
    if (p->prescale < 0) {
        sq_plan_filter_rows(p, p->d.h, mark);
        return 0;
    }
    uint8_t *srows = sq_calloc(a, (size_t)p->d.scaled_h, 1);
    if (!srows)
        return -ENOMEM;
    sq_plan_filter_rows(p, p->d.scaled_h, srows);
    prescale_rows(p, srows, mark);
    sq_free(a, srows);
    return 0;
}
