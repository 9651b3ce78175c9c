#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "math/est.h"
#include "math/filter.h"
#include "math/prescale.h"

int sq_cpu_side_alloc(SqCpuSide *s, const SqPlan *p, const SqAlloc *a)
{
    const SqDims *d = &p->d;
    memset(s, 0, sizeof(*s));
    const size_t ops = (size_t)d->op_w * d->op_h;
    s->vrow = sq_calloc(a, (size_t)d->scaled_w, sizeof(float));
    s->op = sq_calloc(a, ops, sizeof(float));
    s->dimg = sq_calloc(a, ops, sizeof(float));
    s->mrow = sq_calloc(a, (size_t)d->op_w, sizeof(float));
    s->wsd = sq_calloc(a, (size_t)sq_est_ws_doubles(d), sizeof(double));
    s->wsf = sq_calloc(a, (size_t)sq_est_ws_floats(d), sizeof(float));
    s->e = sq_calloc(a, (size_t)d->nb, sizeof(float));
    s->s = sq_calloc(a, (size_t)d->nb, sizeof(float));
    int ok = s->vrow && s->op && s->dimg && s->mrow && s->wsd && s->wsf && s->e && s->s;
    if (ok && p->prescale >= 0) {
        s->conv = sq_calloc(a, (size_t)d->w * d->h, sizeof(float));
        s->scaled = sq_calloc(a, (size_t)d->scaled_w * d->scaled_h, sizeof(float));
        ok = s->conv && s->scaled;
    }
    if (!ok) {
        sq_cpu_side_free(s, a);
        return -ENOMEM;
    }
    return 0;
}

void sq_cpu_side_free(SqCpuSide *s, const SqAlloc *a)
{
    sq_free(a, s->vrow);
    sq_free(a, s->op);
    sq_free(a, s->dimg);
    sq_free(a, s->mrow);
    sq_free(a, s->conv);
    sq_free(a, s->scaled);
    sq_free(a, s->wsd);
    sq_free(a, s->wsf);
    sq_free(a, s->e);
    sq_free(a, s->s);
    memset(s, 0, sizeof(*s));
}

static void prescale_plane(const SqPlan *p, SqCpuSide *s, const SqSrc *src)
{
    const SqDims *d = &p->d;
    for (int y = 0; y < d->h; y++)
        for (int x = 0; x < d->w; x++)
            s->conv[(size_t)y * d->w + x] = sq_src_at(src->cur, src->cur_stride, src->prev,
                                                      src->prev_stride, src->hbd, src->scale, y, x);
    for (int y = 0; y < d->scaled_h; y++)
        for (int x = 0; x < d->scaled_w; x++)
            s->scaled[(size_t)y * d->scaled_w + x] =
                sq_prescale_at(s->conv, d->w, p->prescale, p->ps_iy + y * SQ_PS_TAPS,
                               p->ps_wy + y * SQ_PS_TAPS, p->ps_ix + x * SQ_PS_TAPS,
                               p->ps_wx + x * SQ_PS_TAPS);
}

void sq_cpu_operating_image(const SqPlan *p, SqCpuSide *s, const SqSrc *src)
{
    const SqDims *d = &p->d;
    const int sw = d->scaled_w, sh = d->scaled_h;
    if (p->prescale >= 0)
        prescale_plane(p, s, src);
    for (int i = 0; i < d->op_h; i++) {
        const int row = i << SQ_DECIM_SHIFT;
        if (p->prescale >= 0) {
            for (int c = 0; c < sw; c++)
                s->vrow[c] = sq_vfilter_f32(s->scaled, sw, sh, p->ga, p->taps_a, row, c);
        } else {
            for (int c = 0; c < sw; c++)
                s->vrow[c] = sq_vfilter_raw(src->cur, src->cur_stride, src->prev, src->prev_stride,
                                            src->hbd, src->scale, sh, p->ga, p->taps_a, row, c);
        }
        for (int j = 0; j < d->op_w; j++)
            s->op[i * d->op_w + j] = sq_hfilter_f32(s->vrow, sw, p->ga, p->taps_a, j << SQ_DECIM_SHIFT);
    }
    for (int i = 0; i < d->op_h; i++) {
        for (int j = 0; j < d->op_w; j++)
            s->mrow[j] = sq_vfilter_f32(s->op, d->op_w, d->op_h, p->gm, p->taps_m, i, j);
        for (int j = 0; j < d->op_w; j++)
            s->dimg[i * d->op_w + j] =
                sq_local_mean_at(s->mrow, d->op_w, s->op + i * d->op_w, p->gm, p->taps_m, j);
    }
}

int sq_cpu_side(const SqPlan *p, SqCpuSide *s, const SqSrc *src)
{
    sq_cpu_operating_image(p, s, src);
    return sq_est_params(s->dimg, p->d.op_w, &p->d, p->sigma_nn, s->wsd, s->wsf, s->e, s->s);
}

float sq_cpu_plane_score(const SqPlan *p, SqCpuSide *ref, SqCpuSide *dis,
                         const SqSrc *ref_src, const SqSrc *dis_src, int wvm, int *err)
{
    const int fr = sq_cpu_side(p, ref, ref_src) & SQ_EST_SINGULAR;
    const int fd = sq_cpu_side(p, dis, dis_src) & SQ_EST_SINGULAR;
    const float pooled = sq_pool(ref->e, ref->s, dis->e, dis->s, p->d.n, p->d.nb,
                                 p->sigma_nn, p->nn_floor, wvm);
    *err = fr || fd;
    return sq_side_score(fr, fd, pooled);
}
