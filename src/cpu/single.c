/*
 * The CPU backend's one-thread mode: a frame is scored inside send() from
 * the caller's planes. The previous frame that jobs read is the lent
 * picture itself (its frame's slot of CpuPriv.fr holds it for the next
 * frame), or, for a picture without a release callback, a copy of the rows
 * they read (CpuPriv.prev), which the side reading it may refill with the
 * current rows as it goes (SqSrc.save).
 */
#include "cpu/backend_priv.h"

/*
 * The single-thread mode's previous frame: per plane that a job reads of
 * it, the rows read and a copy buffer per picture; and which side keeps
 * those rows itself while it reads them (saver). Negative: no memory.
 */
int sq_cpu_open_single(CpuPriv *c, const SqBackendParams *p)
{
    for (int pl = 0; pl < 3; pl++) {
        if (!c->need_prev[pl])
            continue;
        int w, h;
        sq_plane_size(&p->format, pl, &w, &h);
        const size_t row = (size_t)w * (p->format.bpc > 8 ? 2 : 1);
        if (sq_cpu_mark_rows(p, pl, 1, &c->rows[pl]) < 0)
            return -1;
        for (int s = 0; s < c->npics; s++) {
            /* zeroed: its pages are faulted in here, not by the first frames */
            if (!(c->prev[s][pl] = sq_calloc(&p->alloc, row, (size_t)h)))
                return -1;
            if (c->keep > 1 && !(c->prev2[s][pl] = sq_calloc(&p->alloc, row, (size_t)h)))
                return -1;
        }
    }
    for (int j = 0; j < p->njobs; j++)
        for (int k = 0; k < 2; k++) {
            const SqJobSide *sd = &p->jobs[j].side[k];
            if (sd->prev_pic < 0)
                continue;
            int *sv = &c->saver[sd->prev_pic][sd->plane];
            /* a second reader: nobody saves (the copy after the frame); nor
             * with keep 2, where the copy read lives on as the next frame's
             * prev2 */
            *sv = *sv == 0 && sd->pic == sd->prev_pic && c->keep < 2 ? j * 2 + k + 1 : -1;
        }
    /* a frame, and its predecessors while they are held for it */
    return sq_frames_open(&c->fr, c->keep + 1 > 2 ? c->keep + 1 : 2, c->npics, c->keep, &p->alloc);
}

/*
 * Keep what the next frame's jobs read of pic as its previous picture: a
 * lent picture itself (its frame's slot holds it for the next frame), else
 * a copy of the rows they read.
 */
static void store_prev(CpuPriv *c, const SpeedqaPicture *pic, int side, uint32_t saved)
{
    if (c->keep > 1) {
        /* the previous picture becomes prev2; its copy buffers with it, and
         * prev2's, free now, take the new copy */
        c->prev2_pl[side] = c->prev_pl[side];
        for (int p = 0; p < 3; p++) {
            uint8_t *t = c->prev[side][p];
            c->prev[side][p] = c->prev2[side][p];
            c->prev2[side][p] = t;
        }
    }
    if (pic->release) {
        c->prev_pl[side] = picture_planes(pic);
        return;
    }
    const size_t bps = c->p.format.bpc > 8 ? 2 : 1;
    for (int p = 0; p < 3; p++) {
        if (!c->need_prev[p])
            continue;
        int w, h;
        sq_plane_size(&c->p.format, p, &w, &h);
        const size_t row = (size_t)w * bps;
        c->prev_pl[side].data[p] = c->prev[side][p];
        c->prev_pl[side].stride[p] = (int64_t)row;
        c->prev_pl[side].acc[p] = bps > 1;
        for (int y = 0; y < h && !(saved >> p & 1); y++)
            if (c->rows[p][y])
                copy_row(pic, p, y, w, c->prev[side][p] + (size_t)y * row);
    }
}

void sq_cpu_send_single(CpuPriv *c, const SpeedqaPicture *const *pics, SqFrameSlot *fs,
                        int new_seq)
{
    const uint32_t present = fs->present;
    Planes cur[SQ_MAX_PICS] = { 0 };
    for (int k = 0; k < c->npics; k++)
        if (pics[k])
            cur[k] = picture_planes(pics[k]);
    const int use_prev = c->keep && c->have_prev && !new_seq;
    /* planes whose next copy the scoring side may write into the copy
     * it reads: the previous picture is that copy, the current one is
     * not lent (it would be held, not copied) */
    uint32_t save[SQ_MAX_PICS] = { 0 }, saved[SQ_MAX_PICS] = { 0 };
    for (int k = 0; use_prev && k < c->npics; k++)
        for (int p = 0; p < 3; p++)
            if (c->saver[k][p] > 0 && pics[k] && !pics[k]->release &&
                c->prev_pl[k].data[p] == c->prev[k][p])
                save[k] |= 1u << p;
    /* the frame two back is of this sequence when the previous frame had a predecessor */
    const int use_prev2 = c->keep > 1 && use_prev && c->prev_had_prev;
    sq_cpu_score_frame(c, &c->w[0], NULL, 0, cur, use_prev ? c->prev_pl : NULL,
                       use_prev2 ? c->prev2_pl : NULL, c->prev_had_prev, present, save, saved,
                       &c->sync_res);
    c->prev_had_prev = use_prev;
    for (int k = 0; c->keep && k < c->npics; k++)
        if (pics[k])
            store_prev(c, pics[k], k, saved[k]);
    /* lent pictures stay held for the next frame (keep), or go back now;
     * so does the last picture of a stream that has ended */
    sq_frames_hold_all(&c->fr, fs, pics);
    const unsigned long long n = c->fr.sent;
    sq_frames_commit(&c->fr);
    sq_frames_done(&c->fr, n);
    c->have_prev = c->keep;
    c->sync_ready = 1;
}
