/*
 * The CPU backend: runs the plane jobs of each frame (core/backend.h). With
 * one thread, frames are scored inside send() (cpu/single.c). With N threads, each
 * frame takes a slot of a ring: a lent picture is read in place, of
 * others the rows the jobs read are copied into the slot (by the caller
 * and idle workers); workers score whole frames in parallel, frame
 * n reading slot n and, for jobs with a previous picture, slot n-1. A
 * slot's lent pictures go back when both frames that read them are done
 * (a count per slot). Which pictures a frame holds, and until when, is
 * core/frames.c's (CpuPriv.fr); this file scores what it holds. Results
 * leave in send order.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpu/backend_priv.h"

static void score_slot(void *ctx, int64_t frame, int thread)
{
    CpuPriv *c = ctx;
    const unsigned long long n = (unsigned long long)frame;
    const SqFrameSlot *fs = sq_frames_at(&c->fr, n);
    Slot *s = &c->slot[sq_frames_index(&c->fr, n)];
    const Slot *prev = fs->past > 0 ? &c->slot[sq_frames_index(&c->fr, n - 1)] : NULL;
    const Slot *prev2 = fs->past > 1 && c->keep > 1 ? &c->slot[sq_frames_index(&c->fr, n - 2)]
                                                    : NULL;
    sq_cpu_score_frame(c, &c->w[thread], c->pool, thread, s->pl, prev ? prev->pl : NULL,
                       prev2 ? prev2->pl : NULL, fs->past > 1,
                       fs->present, NULL, NULL, &s->res);
    sq_frames_done(&c->fr, n);
}

static void cpu_end_seq(void *priv)
{
    CpuPriv *c = priv;
    sq_frames_end_seq(&c->fr);
    c->have_prev = 0;
}

static void cpu_close(void **pp)
{
    CpuPriv *c = *pp;
    if (!c)
        return;
    /* queued frames never run once the pool stops: give back all that is lent */
    sq_pool_stop(&c->pool);
    sq_frames_close(&c->fr, &c->p.alloc);
    for (int i = 0; c->w && i < c->nw; i++) {
        for (int f = 0; f < c->p.nplans; f++)
            for (int k = 0; k < 3; k++)
                sq_cpu_side_free(&c->w[i].side[f][k], &c->p.alloc);
        for (int j = 0; j < SQ_MAX_STREAM_JOBS; j++)
            for (int k = 0; k < 2; k++)
                sq_cpu_side_free(&c->w[i].jside[j][k], &c->p.alloc);
        sq_free(&c->p.alloc, c->w[i].vrow);
        sq_free(&c->p.alloc, c->w[i].covws);
        sq_free(&c->p.alloc, c->w[i].vmrow);
        sq_cpu_va_free(&c->w[i].va, &c->p.alloc);
        sq_cpu_vc_free(&c->w[i].vc, &c->p.alloc);
        sq_cpu_vi_free(&c->w[i].vi, &c->p.alloc);
    }
    const SqAlloc a = c->p.alloc;
    sq_free(&a, c->w);
    for (int i = 0; c->slot && i < c->fr.nslots; i++)
        for (int k = 0; k < SQ_MAX_PICS; k++)
            sq_free(&a, c->slot[i].buf[k]);
    sq_free(&a, c->slot);
    for (int p = 0; p < 3; p++) {
        sq_free(&a, c->rows[p]);
        for (int k = 0; k < SQ_MAX_PICS; k++) {
            sq_free(&a, c->prev[k][p]);
            sq_free(&a, c->prev2[k][p]);
        }
    }
    sq_free(&a, c);
    *pp = NULL;
}

/* Every worker's sides (each at the cpu_mask level) and, threaded, its band scratch. -1: no memory. */
static int open_workers(CpuPriv *c, const SqBackendParams *p)
{
    for (int i = 0; i < c->nw; i++) {
        /* the integer jobs' scratch: SQ_JOB_SAD's row, SQ_JOB_ADM's bands, SQ_JOB_CAMBI's,
         * SQ_JOB_VIF's */
        int vw = 0, aw = 0, ah = 0, cw = 0, ch = 0, cw0 = 0, ch0 = 0, cnd = 0, iw = 0, ih = 0;
        for (int j = 0; j < p->njobs; j++) {
            const SqDims *d = &p->plans[p->jobs[j].plan]->d;
            if (p->jobs[j].kind == SQ_JOB_SAD)
                vw = d->w > vw ? d->w : vw;
            if (p->jobs[j].kind == SQ_JOB_ADM) {
                aw = d->w > aw ? d->w : aw;
                ah = d->h > ah ? d->h : ah;
            }
            if (p->jobs[j].kind == SQ_JOB_VIF) {
                iw = d->w > iw ? d->w : iw;
                ih = d->h > ih ? d->h : ih;
            }
            if (p->jobs[j].kind == SQ_JOB_CAMBI) {
                const int nd = p->plans[p->jobs[j].plan]->vc.nd;
                int w0, h0;
                sq_vc_scale_dims(&p->plans[p->jobs[j].plan]->vc, 0, &w0, &h0);
                cw = d->w > cw ? d->w : cw;
                ch = d->h > ch ? d->h : ch;
                cw0 = w0 > cw0 ? w0 : cw0;
                ch0 = h0 > ch0 ? h0 : ch0;
                cnd = nd > cnd ? nd : cnd;
            }
        }
        if (vw && !(c->w[i].vmrow = sq_calloc(&p->alloc, SQ_MOTION_WS(vw), sizeof(int32_t))))
            return -1;
        if (aw && sq_cpu_va_alloc(&c->w[i].va, aw, ah, 0, &p->alloc, &c->w[i].zl) < 0)
            return -1;
        if (cw && sq_cpu_vc_alloc(&c->w[i].vc, cw, ch, cw0, ch0, cnd, &p->alloc, &c->w[i].zl) < 0)
            return -1;
        if (iw && sq_cpu_vi_alloc(&c->w[i].vi, iw, ih, &p->alloc, &c->w[i].zl) < 0)
            return -1;
        for (int f = 0; f < p->nplans; f++) {
            if (p->plans[f]->rows_all)
                continue; /* an SQ_JOB_SAD or SQ_JOB_ADM plan: no SpEED side */
            /* the third side only for a ladder of more than two streams */
            for (int k = 0; k < (c->p.ndis > 2 ? 3 : 2); k++) {
                if (sq_cpu_side_alloc_later(&c->w[i].side[f][k], p->plans[f], &p->alloc, &c->w[i].zl) < 0)
                    return -1;
                sq_cpu_side_set_cpu_mask(&c->w[i].side[f][k], p->cpu_mask);
            }
        }
        for (int j = 0; j < c->per; j++)
            for (int k = 0; c->own[j] && p->jobs[j].kind == SQ_JOB_SPEED && k < 2; k++) {
                if (sq_cpu_side_alloc_later(&c->w[i].jside[j][k], p->plans[p->jobs[j].plan], &p->alloc,
                                            &c->w[i].zl) < 0)
                    return -1;
                sq_cpu_side_set_cpu_mask(&c->w[i].jside[j][k], p->cpu_mask);
            }
        int sw = 0;
        size_t cws = 0;
        for (int f = 0; f < p->nplans; f++) {
            const SqDims *d = &p->plans[f]->d;
            const size_t n = sq_cov_ws_doubles(d->trunc_w, d->trunc_h);
            sw = d->scaled_w > sw ? d->scaled_w : sw;
            cws = n > cws ? n : cws;
        }
        if (c->nworkers > 1 && (!(c->w[i].vrow = sq_calloc(&p->alloc, (size_t)sw, sizeof(float))) ||
                                !(c->w[i].covws = sq_calloc(&p->alloc, cws, sizeof(double)))))
            return -1;
    }
    return 0;
}

static int open_oom(void **pp, char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory for the CPU backend");
    cpu_close(pp);
    return -ENOMEM;
}

static int cpu_open(void **pp, const SqBackendParams *p, char *err, size_t errlen)
{
    CpuPriv *c = sq_calloc(&p->alloc, 1, sizeof(*c));
    *pp = NULL;
    if (!c)
        goto oom;
    *pp = c;
    c->p = *p;
    if (c->p.ndis < 1)
        c->p.ndis = 1;
    c->npics = 1 + c->p.ndis;
    sq_dsp_init(&c->dsp, p->cpu_mask);
    c->per = p->njobs / c->p.ndis;
    sq_range_keys(p->jobs, p->njobs, p->format.bpc, &c->rk);
    for (int j = 0; j < c->per; j++) {
        c->share[j] = 1;
        for (int d = 1; d < c->p.ndis; d++) {
            const SqJobSide *a0 = &p->jobs[j].side[0], *b0 = &p->jobs[d * c->per + j].side[0];
            c->share[j] &= a0->pic == b0->pic && a0->plane == b0->plane &&
                           a0->prev_pic == b0->prev_pic && a0->pic == 0 &&
                           (a0->prev_pic < 0 || a0->prev_pic == 0);
        }
    }
    for (int j = 0; j < p->njobs; j++)
        for (int k = 0; k < 2; k++) {
            c->need[p->jobs[j].side[k].plane] = 1;
            if (p->jobs[j].side[k].prev_pic >= 0) {
                /* keep: the farthest frame back a job reads */
                const int back = p->jobs[j].needs_prev > 1 ? 2 : 1;
                c->need_prev[p->jobs[j].side[k].plane] = 1;
                c->keep = back > c->keep ? back : c->keep;
            }
        }
    for (int j = 0; c->p.ndis == 1 && j < c->per; j++)
        for (int i = 0; i < j; i++)
            c->own[j] |= p->jobs[i].plan == p->jobs[j].plan;
    c->nworkers = p->n_threads < 1 ? 1 : p->n_threads;
    /* Frames in flight are copies: bound their memory, and score huge
     * frames synchronously rather than commit gigabytes of copies. */
    const size_t bytes = sq_cpu_copy_size(c);
    if (c->nworkers > 1) {
        const size_t fit = RING_BUDGET / ((size_t)c->npics * (bytes ? bytes : 1));
        const size_t want = 2 * (size_t)c->nworkers + 2;
        c->cap = (int)(fit > want + 2 ? want : fit > 4 ? fit - 2 : 0);
        if (c->cap < 2)
            c->nworkers = 1;
    }
    /* with threads, one more for the caller, who scores a lone frame it
     * waits for itself (sq_pool_collect_run) */
    c->nw = c->nworkers > 1 ? c->nworkers + 1 : 1;
    c->w = sq_calloc(&p->alloc, (size_t)c->nw, sizeof(*c->w));
    if (!c->w)
        goto oom;
    if (open_workers(c, p) < 0)
        goto oom;
    if (c->nworkers == 1)
        return sq_cpu_open_single(c, p) < 0 ? open_oom(pp, err, errlen) : 0;
    for (int pl = 0; pl < 3; pl++)
        if (c->need[pl] && sq_cpu_mark_rows(p, pl, 0, &c->rows[pl]) < 0)
            goto oom;
    /* frame n's slot is free once frame n - cap was received: frames n -
     * cap - 1 and n - cap - 2, which the farthest job back reads, are done */
    if (sq_frames_open(&c->fr, c->cap + 2, c->npics, c->keep, &p->alloc) < 0)
        goto oom;
    c->slot = sq_calloc(&p->alloc, (size_t)c->fr.nslots, sizeof(*c->slot));
    if (!c->slot)
        goto oom;
    for (int i = 0; i < c->fr.nslots; i++)
        for (int k = 0; k < c->npics; k++)
            if (!(c->slot[i].buf[k] = sq_malloc(&p->alloc, bytes, 1)))
                goto oom;
    /* Workers share one job queue, so fewer than asked (a thread limit, an
     * address-space limit) only costs speed; none at all cannot score. */
    const int ret = sq_pool_start(&c->pool, c->nworkers, c->cap, &p->alloc);
    if (ret == -ENOMEM)
        goto oom;
    if (ret < 0) {
        snprintf(err, errlen, "cannot start a CPU worker thread: %s", strerror(-ret));
        cpu_close(pp);
        return -ENOMEM;
    }
    return 0;
oom:
    return open_oom(pp, err, errlen);
}

static int cpu_capacity(void *priv)
{
    const CpuPriv *c = priv;
    return c->nworkers == 1 ? 1 : c->cap;
}

static int cpu_send(void *priv, const SpeedqaPicture *const *pics, int new_seq, char *err,
                    size_t errlen)
{
    CpuPriv *c = priv;
    /* pictures read in place: the current ones on one thread, lent ones otherwise */
    for (int k = 0; k < c->npics; k++) {
        const SpeedqaPicture *pic = pics[k];
        int ret;
        if (pic && (c->nworkers == 1 || pic->release) && sq_cpu_needs_unpack(c, pic) &&
            (ret = sq_cpu_ensure_unpack(c, err, errlen)) < 0)
            return ret;
    }
    SqFrameSlot *fs = sq_frames_next(&c->fr, pics, new_seq);
    if (c->nworkers == 1) {
        sq_cpu_send_single(c, pics, fs, new_seq);
        return 0;
    }
    Slot *s = &c->slot[sq_frames_index(&c->fr, c->fr.sent)];
    /* The slot is not read by any worker, and what it held went back: see nslots. */
    CopyJob cj = { .c = c };
    for (int k = 0; k < c->npics; k++) {
        memset(&s->pl[k], 0, sizeof(s->pl[k]));
        if (pics[k] && pics[k]->release) {
            s->pl[k] = picture_planes(pics[k]);
        } else if (pics[k]) {
            sq_cpu_copy_layout(c, s->buf[k], &s->pl[k]);
            cj.pic[k] = pics[k];
            cj.pl[k] = &s->pl[k];
        }
    }
    sq_cpu_run_copies(c, &cj);
    /* lent pictures are read in place: held until both frames that read them are done */
    sq_frames_hold_all(&c->fr, fs, pics);
    if (sq_pool_submit(c->pool, score_slot, c, (int64_t)c->fr.sent) < 0) {
        sq_frames_drop(&c->fr, fs); /* nothing taken */
        snprintf(err, errlen, "cpu: queue full");
        return -EAGAIN;
    }
    sq_frames_commit(&c->fr);
    return 0;
}

static int cpu_receive(void *priv, SqRawResult *out, int block, char *err, size_t errlen)
{
    CpuPriv *c = priv;
    (void)err;
    (void)errlen;
    if (c->nworkers == 1) {
        if (!c->sync_ready)
            return -EAGAIN;
        *out = c->sync_res;
        c->sync_ready = 0;
        return 0;
    }
    if ((block ? sq_pool_collect_run(c->pool) : sq_pool_collect(c->pool, 0)) < 0)
        return -EAGAIN;
    *out = c->slot[sq_frames_index(&c->fr, c->fr.received++)].res;
    return 0;
}

static const SqRawResult *cpu_scored(void *priv)
{
    const CpuPriv *c = priv;
    return c->nworkers == 1 && c->sync_ready ? &c->sync_res : NULL;
}

static int cpu_list_devices(char *buf, size_t len)
{
    if (buf && len)
        snprintf(buf, len, "0: cpu (%ld threads available)\n", sysconf(_SC_NPROCESSORS_ONLN));
    return 1;
}

const SqBackend sq_backend_cpu = {
    .name = "cpu",
    .ladder = 1,
    .sad = 1,
    .adm = 1,
    .cambi = 1,
    .vif = 1,
    .open = cpu_open,
    .capacity = cpu_capacity,
    .send = cpu_send,
    .receive = cpu_receive,
    .scored = cpu_scored,
    .end_seq = cpu_end_seq,
    .close = cpu_close,
    .list_devices = cpu_list_devices,
};
