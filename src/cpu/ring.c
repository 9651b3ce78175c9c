/*
 * The CPU backend's frame copies: of a picture without a release callback
 * only the rows some job reads are copied (sq_plan_rows_read), into the
 * frame's slot (threaded mode) in parts that the caller and idle workers
 * claim; and the unpack buffers of sides that read semi-planar or
 * MSB-aligned pictures in place.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cpu/backend_priv.h"

/* Some plane a job reads is not planar LSB-aligned as it lies. */
int sq_cpu_needs_unpack(const CpuPriv *c, const SpeedqaPicture *pic)
{
    const Planes pl = picture_planes(pic);
    for (int p = 0; p < 3; p++)
        if (c->need[p] && pl.acc[p] >= 2)
            return 1;
    return 0;
}

/* Before the first picture read in place with another access: every
 * worker's unpack buffers (no worker touches them before that frame). */
int sq_cpu_ensure_unpack(CpuPriv *c, char *err, size_t errlen)
{
    if (c->unpack_ready)
        return 0;
    for (int i = 0; i < c->nw; i++)
        for (int f = 0; f < c->p.nplans; f++)
            for (int k = 0; k < (c->p.ndis > 2 ? 3 : 2); k++)
                if (sq_cpu_side_alloc_unpack(&c->w[i].side[f][k], c->p.plans[f],
                                             c->p.format.bpc > 8, &c->p.alloc) < 0) {
                    snprintf(err, errlen, "out of memory for unpacking a semi-planar picture");
                    return -ENOMEM;
                }
    for (int i = 0; i < c->nw; i++)
        for (int j = 0; j < c->per; j++)
            for (int k = 0; c->own[j] && k < 2; k++)
                if (sq_cpu_side_alloc_unpack(&c->w[i].jside[j][k], c->p.plans[c->p.jobs[j].plan],
                                             c->p.format.bpc > 8, &c->p.alloc) < 0) {
                    snprintf(err, errlen, "out of memory for unpacking a semi-planar picture");
                    return -ENOMEM;
                }
    c->unpack_ready = 1;
    return 0;
}

/* The slot buffer buf as the needed planes of a copy (tight rows). */
void sq_cpu_copy_layout(const CpuPriv *c, uint8_t *buf, Planes *pl)
{
    const size_t bps = c->p.format.bpc > 8 ? 2 : 1;
    memset(pl, 0, sizeof(*pl));
    for (int p = 0; p < 3; p++) {
        if (!c->need[p])
            continue;
        int w, h;
        sq_plane_size(&c->p.format, p, &w, &h);
        pl->data[p] = buf;
        pl->stride[p] = (int64_t)((size_t)w * bps);
        pl->acc[p] = bps > 1;
        buf += (size_t)w * bps * (size_t)h;
    }
}

static void copy_part(void *ctx, int64_t arg, int thread)
{
    (void)arg;
    (void)thread;
    CopyJob *j = ctx;
    const CpuPriv *c = j->c;
    const int nparts = j->first[c->npics * 3];
    for (int i; (i = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < nparts;) {
        int kp = 0;
        while (j->first[kp + 1] <= i)
            kp++;
        const int k = kp / 3, p = kp % 3;
        int w, h;
        sq_plane_size(&c->p.format, p, &w, &h);
        const int y0 = (i - j->first[kp]) * COPY_ROWS, y1 = y0 + COPY_ROWS < h ? y0 + COPY_ROWS : h;
        uint8_t *dst = (uint8_t *)j->pl[k]->data[p];
        /* the rows no job reads stay as they are: never read */
        for (int y = y0; y < y1; y++)
            if (!c->rows[p] || c->rows[p][y])
                copy_row(j->pic[k], p, y, w, dst + (size_t)y * (size_t)j->pl[k]->stride[p]);
    }
}

void sq_cpu_run_copies(const CpuPriv *c, CopyJob *j)
{
    int n = 0;
    for (int k = 0; k < c->npics; k++)
        for (int p = 0; p < 3; p++) {
            j->first[3 * k + p] = n;
            if (j->pic[k] && c->need[p]) {
                int w, h;
                sq_plane_size(&c->p.format, p, &w, &h);
                n += (h + COPY_ROWS - 1) / COPY_ROWS;
            }
        }
    j->first[3 * c->npics] = n;
    atomic_init(&j->next, 0);
    if (n)
        sq_pool_help(c->pool, copy_part, j, sq_pool_threads(c->pool), n - 1);
}

/* *out: per row of plane pl, whether a job reads it (of the previous picture
 * only, with prev_only). */
int sq_cpu_mark_rows(const SqBackendParams *p, int pl, int prev_only, uint8_t **out)
{
    int w, h;
    sq_plane_size(&p->format, pl, &w, &h);
    if (!(*out = sq_calloc(&p->alloc, (size_t)h, 1)))
        return -1;
    for (int j = 0; j < p->njobs; j++)
        for (int k = 0; k < 2; k++) {
            const SqJobSide *sd = &p->jobs[j].side[k];
            if (sd->plane == pl && (!prev_only || sd->prev_pic >= 0) &&
                sq_plan_rows_read(p->plans[p->jobs[j].plan], *out, &p->alloc) < 0)
                return -1;
        }
    return 0;
}

size_t sq_cpu_copy_size(const CpuPriv *c)
{
    const size_t bps = c->p.format.bpc > 8 ? 2 : 1;
    size_t total = 0;
    for (int p = 0; p < 3; p++) {
        int w, h;
        sq_plane_size(&c->p.format, p, &w, &h);
        if (c->need[p])
            total += (size_t)w * h * bps;
    }
    return total;
}
