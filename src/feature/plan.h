/*
 * Building a plan (core/job.h) from one plane geometry and one feature's
 * options: dimensions, taps, prescale tables, pooling inputs. Built once at
 * open; read-only afterwards, so any number of workers and any backend can
 * share it.
 */
#ifndef SQ_FEATURE_PLAN_H
#define SQ_FEATURE_PLAN_H

#include <stddef.h>

#include "core/job.h"
#include "core/mem.h"
#include "feature/options.h"

/*
 * Plan a w x h plane for options o. -EINVAL with a message when the plane is
 * too small after prescale; -ENOMEM. On failure nothing stays allocated.
 */
int sq_plan_init(SqPlan *p, int w, int h, const SqOptions *o, const SqAlloc *a,
                 const char *what, char *err, size_t errlen);

/* The plan of libvmaf's integer features: a w x h plane read whole
 * (SqPlan.rows_all), no prescale, every other field zero. */
void sq_plan_whole(SqPlan *p, int w, int h);

#endif
