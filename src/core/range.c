#include "core/backend.h"

/* A side whose current picture the integer features' range check covers. */
static int checked(const SqJob *jb, int k)
{
    return jb->kind != SQ_JOB_SPEED && jb->side[k].check_cur;
}

static int key_of(const SqJobSide *sd)
{
    return 3 * sd->pic + sd->plane;
}

void sq_range_keys(const SqJob *jobs, int njobs, int bpc, SqRangeKeys *rk)
{
    rk->n = 0;
    for (int j = 0; bpc > 8 && bpc < 16 && j < njobs; j++)
        for (int k = 0; k < 2; k++) {
            const int key = key_of(&jobs[j].side[k]);
            int seen = !checked(&jobs[j], k);
            for (int i = 0; i < rk->n; i++)
                seen |= rk->key[i] == key;
            if (!seen) {
                rk->key[rk->n] = key;
                rk->plan[rk->n++] = jobs[j].plan;
            }
        }
}

void sq_range_put(const SqJob *jobs, int njobs, int key, uint32_t mx, uint32_t bits, SqRawResult *r)
{
    for (int j = 0; j < njobs; j++)
        for (int k = 0; k < 2; k++)
            if (checked(&jobs[j], k) && key_of(&jobs[j].side[k]) == key) {
                r->range[j][k][SQ_RANGE_CUR_MAX] = mx;
                r->range[j][k][SQ_RANGE_CUR_OR] = bits;
            }
}
