/*
 * Everything about one plane geometry + one feature's options that is fixed
 * for the whole stream: dimensions, taps, prescale tables, pooling inputs.
 * Built once at open; read-only afterwards, so any number of workers and
 * any backend can share it.
 */
#ifndef SQ_FEATURE_PLAN_H
#define SQ_FEATURE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/mem.h"
#include "feature/options.h"
#include "feature/plan_core.h"
#include "math/dims.h"

typedef struct SqPlan {
    SQ_PLAN_CORE_MEMBERS   /* d, prescale, taps, sigma_nn, nn_floor (core/plan_core.h) */
    int32_t *ps_iy, *ps_ix; /* prescale tables (SQ_PS_TAPS per output), or NULL */
    float *ps_wy, *ps_wx;
    int wvm;
    SqAlloc alloc;
} SqPlan;

/*
 * Plan a w x h plane for options o. -EINVAL with a message when the plane is
 * too small after prescale; -ENOMEM. On failure nothing stays allocated.
 */
int sq_plan_init(SqPlan *p, int w, int h, const SqOptions *o, const SqAlloc *a,
                 const char *what, char *err, size_t errlen);
void sq_plan_free(SqPlan *p);

/* Marks the rows of a plane of height h within the anti-alias radius of
 * every 16th row: the rows the decimated vertical pass reads. */
void sq_plan_filter_rows(const SqPlan *p, int h, uint8_t *mark);

/*
 * Marks (sets to 1) the rows of the raw input plane (p->d.h rows) that the
 * feature reads; other rows may hold anything. Without prescale these are
 * sq_plan_filter_rows (about 9/16 of them at ks = 1); with prescale, the
 * rows the prescaler reads for those. Every backend reads (and range-checks)
 * exactly these rows, all columns of each. 0 or -ENOMEM.
 */
int sq_plan_rows_read(const SqPlan *p, uint8_t *mark, const SqAlloc *a);

#endif
