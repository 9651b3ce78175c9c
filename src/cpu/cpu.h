/*
 * CPU backend: the loops and buffers around the math core. One SqCpuSide
 * holds the scratch of one side (ref or dis) of one plane, allocated once.
 */
#ifndef SQ_CPU_CPU_H
#define SQ_CPU_CPU_H

#include <stdint.h>

#include "core/mem.h"
#include "core/plan.h"

/* Where the core's input samples come from (see sq_src_at). */
typedef struct SqSrc {
    const uint8_t *cur, *prev; /* prev != NULL: temporal difference prev - cur */
    int64_t cur_stride, prev_stride;
    int hbd;
    float scale;
} SqSrc;

typedef struct SqCpuSide {
    float *vrow;   /* one vertically filtered row, scaled_w */
    float *op;     /* operating image, op_w x op_h */
    float *dimg;   /* after local-mean removal */
    float *mrow;   /* local-mean vertical row, op_w */
    float *conv;   /* converted input, w x h (prescale only) */
    float *scaled; /* prescaled image (prescale only) */
    double *wsd;
    float *wsf;
    float *e, *s;  /* entropies and variances, nb each */
} SqCpuSide;

int sq_cpu_side_alloc(SqCpuSide *s, const SqPlan *p, const SqAlloc *a);
void sq_cpu_side_free(SqCpuSide *s, const SqAlloc *a);

/* Operating image after local-mean removal, into s->dimg. */
void sq_cpu_operating_image(const SqPlan *p, SqCpuSide *s, const SqSrc *src);

/* Full side: operating image, then est_params into s->e, s->s. Returns SQ_EST_* flags. */
int sq_cpu_side(const SqPlan *p, SqCpuSide *s, const SqSrc *src);

/* One plane pair's score; *err = either side singular. */
float sq_cpu_plane_score(const SqPlan *p, SqCpuSide *ref, SqCpuSide *dis,
                         const SqSrc *ref_src, const SqSrc *dis_src, int wvm, int *err);

#endif
