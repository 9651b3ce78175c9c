#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "core/log.h"
#include "lib_priv.h"

static int check_picture(const SpeedqaContext *c, const SpeedqaPicture *p, const char *side)
{
    if (!p) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s picture is NULL", side);
        return SPEEDQA_ERR(EINVAL);
    }
    const SpeedqaFormat *f = &c->s.format;
    if (!sq_same_format(&p->format, f)) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s picture %dx%d %s %d-bit does not match the opened %dx%d %s %d-bit",
               side, p->format.width, p->format.height, speedqa_pix_fmt_name(p->format.fmt), p->format.bpc,
               f->width, f->height, speedqa_pix_fmt_name(f->fmt), f->bpc);
        return SPEEDQA_ERR(EINVAL);
    }
    /* zero now, so that a later version can give these bytes a meaning */
    for (size_t i = 0; i < sizeof(p->reserved); i++)
        if (p->reserved[i]) {
            sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s picture: reserved byte %zu is %u, not 0", side, i,
                   (unsigned)p->reserved[i]);
            return SPEEDQA_ERR(EINVAL);
        }
    if (p->memory != SPEEDQA_MEM_HOST && (int)p->memory != c->be->device_mem) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s picture memory %d is not readable by the %s backend",
               side, (int)p->memory, c->be->name);
        return SPEEDQA_ERR(EINVAL);
    }
    if (p->layout != SPEEDQA_LAYOUT_PLANAR && p->layout != SPEEDQA_LAYOUT_SEMI_PLANAR) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s picture layout %d is not a SpeedqaLayout", side,
               (int)p->layout);
        return SPEEDQA_ERR(EINVAL);
    }
    if (p->msb_aligned != 0 && p->msb_aligned != 1) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s picture msb_aligned %d is not 0 or 1", side,
               p->msb_aligned);
        return SPEEDQA_ERR(EINVAL);
    }
    if (p->msb_aligned && (p->format.bpc <= 8 || p->format.bpc >= 16)) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR,
               "%s picture: msb_aligned needs a depth of 9..15 bits in 16-bit samples, not %d",
               side, p->format.bpc);
        return SPEEDQA_ERR(EINVAL);
    }
    const int semi = p->layout == SPEEDQA_LAYOUT_SEMI_PLANAR;
    /* semi-planar: plane 1 holds U and V interleaved, plane 2 is not read */
    const int planes = p->format.fmt == SPEEDQA_PIX_400 ? 1 : semi ? 2 : 3;
    for (int i = 0; i < planes; i++) {
        if (!p->data[i]) {
            sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s picture plane %d is NULL", side, i);
            return SPEEDQA_ERR(EINVAL);
        }
        int w, h;
        sq_plane_size(&p->format, i, &w, &h);
        const int64_t row = (int64_t)w * (p->format.bpc > 8 ? 2 : 1) * (semi && i ? 2 : 1);
        const int64_t st = (int64_t)p->stride[i];
        /* rows closer than a row apart overlap: no picture is laid out so */
        if ((st < 0 ? -st : st) < row) {
            sq_log(&c->s, SPEEDQA_LOG_ERROR,
                   "%s picture plane %d: stride %lld is smaller than a row (%lld bytes%s)", side,
                   i, (long long)st, (long long)row, semi && i ? ", U and V interleaved" : "");
            return SPEEDQA_ERR(EINVAL);
        }
        /* host rows may sit anywhere (sq_load_u16); device copies need even ones */
        if (p->memory != SPEEDQA_MEM_HOST && p->format.bpc > 8 &&
            (((uintptr_t)p->data[i] | (uintptr_t)p->stride[i]) & 1)) {
            sq_log(&c->s, SPEEDQA_LOG_ERROR,
                   "%s picture plane %d: 16-bit device samples need an even address and stride",
                   side, i);
            return SPEEDQA_ERR(EINVAL);
        }
    }
    return 0;
}

static int backend_failed(SpeedqaContext *c, int ret, const char *err)
{
    sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s backend: %s", c->be->name, err[0] ? err : "failure");
    c->sticky = ret == -ENOMEM ? SPEEDQA_ERR(ENOMEM) : SPEEDQA_ERR(EIO);
    return c->sticky;
}

/* Every failing call logs its line, a repeated sticky failure too. */
static int sticky_error(const SpeedqaContext *c)
{
    sq_log(&c->s, SPEEDQA_LOG_ERROR, "an earlier call failed (%s); only speedqa_close() is left",
           speedqa_strerror(c->sticky));
    return c->sticky;
}

/* Bad samples in a frame's raw result: one error line, and the context stops (sticky). */
static int check_range(SpeedqaContext *c, const SqRawResult *raw, unsigned frame)
{
    char msg[400];
    if (sq_jobs_check_range(c->jobs, c->njobs, c->ndis, raw, c->s.format.bpc, frame, msg,
                            sizeof(msg)) == 0)
        return 0;
    sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s", msg);
    c->sticky = SPEEDQA_ERR(ERANGE);
    return c->sticky;
}

/* Hand a checked frame to the backend. pics: the reference, then each stream's picture or NULL. */
static int send_frame(SpeedqaContext *c, const SpeedqaPicture *const *pics)
{
    char err[256] = "";
    int ret;
    if (c->sent - c->received >= (unsigned)c->be->capacity(c->be_priv))
        return SPEEDQA_ERR(EAGAIN);
    if ((ret = c->be->send(c->be_priv, pics, c->new_seq, err, sizeof(err))) < 0)
        return backend_failed(c, ret, err);
    const SqRawResult *done = c->be->scored ? c->be->scored(c->be_priv) : NULL;
    if (done && (ret = check_range(c, done, c->sent)) < 0) {
        /* the frame was scored: its pictures go back before send fails */
        if (c->be->end_seq)
            c->be->end_seq(c->be_priv);
        return ret;
    }
    if (c->new_seq) {
        c->cur_seq += c->sent > 0;
        c->next_seq_frame = 0;
        c->ended = 0;
    }
    unsigned present = 0;
    for (int d = 0; d < c->ndis; d++)
        present |= (unsigned)(pics[1 + d] != NULL) << d;
    c->ended |= ~present & ((1u << c->ndis) - 1);
    unsigned *ring = c->seq_ring[c->sent % c->ring_len];
    ring[0] = c->cur_seq;
    ring[1] = c->next_seq_frame++;
    ring[2] = present;
    c->new_seq = 0;
    c->flushing = 0;
    c->sent++;
    return 0;
}

int speedqa_send(SpeedqaContext *c, const SpeedqaPicture *ref, const SpeedqaPicture *dis)
{
    int ret;
    if (!c)
        return SPEEDQA_ERR(EINVAL);
    if (c->sticky)
        return sticky_error(c);
    if (c->ndis > 1) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "a ladder context of %d streams takes speedqa_send_ladder()",
               c->ndis);
        return SPEEDQA_ERR(EINVAL);
    }
    if ((ret = check_picture(c, ref, "reference")) < 0 || (ret = check_picture(c, dis, "distorted")) < 0)
        return ret;
    const SpeedqaPicture *const pics[2] = { ref, dis };
    return send_frame(c, pics);
}

int speedqa_send_ladder(SpeedqaContext *c, const SpeedqaPicture *ref,
                        const SpeedqaPicture *const *dis, int n)
{
    const SpeedqaPicture *pics[SQ_MAX_PICS];
    int ret, any = 0;
    if (!c)
        return SPEEDQA_ERR(EINVAL);
    if (c->sticky)
        return sticky_error(c);
    if (n != c->ndis || !dis) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "speedqa_send_ladder: %d distorted pictures for a context "
               "of %d streams", dis ? n : 0, c->ndis);
        return SPEEDQA_ERR(EINVAL);
    }
    if ((ret = check_picture(c, ref, "reference")) < 0)
        return ret;
    pics[0] = ref;
    for (int d = 0; d < n; d++) {
        char side[32];
        snprintf(side, sizeof(side), n > 1 ? "distorted %d" : "distorted", d + 1);
        pics[1 + d] = dis[d];
        if (!dis[d])
            continue;
        if (!c->new_seq && (c->ended >> d & 1)) {
            sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s stream has ended in this sequence (a NULL "
                   "picture); flush to start a new one", side);
            return SPEEDQA_ERR(EINVAL);
        }
        if ((ret = check_picture(c, dis[d], side)) < 0)
            return ret;
        any = 1;
    }
    if (!any) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "speedqa_send_ladder: every distorted picture is NULL");
        return SPEEDQA_ERR(EINVAL);
    }
    return send_frame(c, pics);
}

/* The oldest frame's raw result, range-checked, and its ring entry; wait:
 * block for it (SPEEDQA_RECEIVE_WAIT). */
static int receive_raw(SpeedqaContext *c, SqRawResult *raw, const unsigned **ring, int wait)
{
    char err[256] = "";
    if (c->sticky)
        return sticky_error(c);
    if (c->sent == c->received)
        return c->flushing ? SPEEDQA_EOF : SPEEDQA_ERR(EAGAIN);
    /* Block when the caller cannot make progress otherwise. */
    const int full = c->sent - c->received >= (unsigned)c->be->capacity(c->be_priv);
    int ret = c->be->receive(c->be_priv, raw, full || c->flushing || wait, err, sizeof(err));
    if (ret == -EAGAIN)
        return SPEEDQA_ERR(EAGAIN);
    if (ret < 0)
        return backend_failed(c, ret, err);
    if ((ret = check_range(c, raw, c->received)) < 0)
        return ret;
    *ring = c->seq_ring[c->received % c->ring_len];
    return 0;
}

/* Stream d's named scores from a raw result (job block d) of send index
 * frame, into the context's values of stream d, which out points at; next:
 * the sequence's next frames' raw results, NULL past its end (look-ahead
 * features). */
static int assemble(SpeedqaContext *c, const SqRawResult *raw, const SqRawResult *const *next,
                    int d, const unsigned *ring, unsigned frame, SpeedqaScores *out)
{
    memset(out, 0, sizeof(*out));
    out->sequence = ring[0];
    out->sequence_frame = ring[1];
    out->frame = frame;
    if (!(ring[2] >> d & 1))
        return 0;
    out->count = c->nscores;
    out->values = c->values[d];
    out->undefined = c->undefined[d];
    double *v = c->values[d];
    const int base = d * (c->njobs / c->ndis);
    for (int i = 0, k = 0; i < c->nfeat; i++) {
        uint32_t undef;
        if (sq_feature_assemble_at(&c->feat[i], raw, next, d, base, ring[1], c->fstate[d][i], v,
                                   &undef) < 0) {
            /* Nothing clips speed_temporal or adm's scales (libvmaf would publish NaN). */
            int j = 0;
            while (j + 1 < c->feat[i].nscores && isfinite(v[j]))
                j++;
            char who[32] = "";
            if (c->ndis > 1)
                snprintf(who, sizeof(who), "distorted %d, ", d + 1);
            sq_log(&c->s, SPEEDQA_LOG_ERROR, "%sframe %u: %s is %g (the %s model is undefined "
                   "on this frame)", who, out->frame, c->names[k + j], v[j],
                   c->feat[i].spec.kind == SQ_FEATURE_ADM ? "ADM" : "SpEED");
            c->sticky = SPEEDQA_ERR(EDOM);
            return c->sticky;
        }
        for (int j = 0; j < c->feat[i].nscores; j++)
            c->undefined[d][k + j] = undef >> j & 1;
        k += c->feat[i].nscores;
        v += c->feat[i].nscores;
    }
    return 0;
}

/* Every stream's scores of the oldest held frame (held[0]), with the held
 * frames after it as its look-ahead (streams present in them only). */
static int publish(SpeedqaContext *c, const SqRawResult *raw, const unsigned *ring, unsigned frame,
                   const SqHeld *ahead, int nahead, SpeedqaScores *out, int n)
{
    int ret;
    for (int d = 0; d < n; d++) {
        const SqRawResult *next[SQ_LOOK_AHEAD_MAX] = { NULL };
        for (int k = 0; k < nahead && (ahead[k].ring[2] >> d & 1); k++)
            next[k] = &c->raw[ahead[k].at];
        if ((ret = assemble(c, raw, next, d, ring, frame, &out[d])) < 0)
            return ret;
    }
    return 0;
}

/* Whether a held frame's raw result is c->raw[at]. */
static int raw_used(const SpeedqaContext *c, int at)
{
    for (int k = 0; k < c->nheld; k++)
        if (c->held[k].at == at)
            return 1;
    return 0;
}

/*
 * With look-ahead features (motion2 is min(S[n], S[n + 1]); the five-frame
 * window's motion3 of frames 0 and 1 is S[2]'s): frame n is published once
 * frames n + 1 .. n + look_ahead have their raw results in, or once nothing
 * more of n's sequence can come (a flush, or a frame of the next sequence
 * sent after it); until then -EAGAIN. Held frames have left the backend, so
 * they take none of its capacity, and nothing is allocated per frame.
 */
static int receive_ahead(SpeedqaContext *c, SpeedqaScores *out, int n, int wait)
{
    const unsigned *ring;
    int ret;
    while (c->nheld <= c->look_ahead) {
        SqHeld *h = &c->held[c->nheld];
        if (c->nheld && !(c->received < c->sent &&
                          c->seq_ring[c->received % c->ring_len][0] == c->held[0].ring[0])) {
            if (c->received == c->sent && !c->new_seq)
                /* the sequence goes on: its next frame is not sent yet */
                return c->sticky ? sticky_error(c) : SPEEDQA_ERR(EAGAIN);
            break; /* the sequence has ended */
        }
        int at = 0;
        while (raw_used(c, at))
            at++;
        if ((ret = receive_raw(c, &c->raw[at], &ring, wait)) < 0)
            return ret;
        memcpy(h->ring, ring, sizeof(h->ring));
        h->at = at;
        h->frame = c->received++;
        c->nheld++;
    }
    const SqHeld *h0 = &c->held[0];
    if ((ret = publish(c, &c->raw[h0->at], h0->ring, h0->frame, c->held + 1, c->nheld - 1, out,
                       n)) < 0)
        return ret;
    memmove(c->held, c->held + 1, (size_t)(c->nheld - 1) * sizeof(c->held[0]));
    c->nheld--;
    return 0;
}

int speedqa_receive(SpeedqaContext *c, SpeedqaScores *out, int n, unsigned flags)
{
    const unsigned *ring = NULL;
    if (!c)
        return SPEEDQA_ERR(EINVAL);
    if (!out) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "speedqa_receive: the scores pointer is NULL");
        return SPEEDQA_ERR(EINVAL);
    }
    if (n != c->ndis) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "speedqa_receive: room for %d streams' scores in a "
               "context of %d", n, c->ndis);
        return SPEEDQA_ERR(EINVAL);
    }
    if (flags & ~SPEEDQA_RECEIVE_WAIT) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "speedqa_receive: unknown flags 0x%x",
               flags & ~SPEEDQA_RECEIVE_WAIT);
        return SPEEDQA_ERR(EINVAL);
    }
    const int wait = !!(flags & SPEEDQA_RECEIVE_WAIT);
    if (c->look_ahead)
        return receive_ahead(c, out, n, wait);
    int ret = receive_raw(c, &c->raw[0], &ring, wait);
    if (ret < 0)
        return ret;
    if ((ret = publish(c, &c->raw[0], ring, c->received, NULL, 0, out, n)) < 0)
        return ret;
    c->received++;
    return 0;
}

int speedqa_flush(SpeedqaContext *c)
{
    if (!c)
        return SPEEDQA_ERR(EINVAL);
    c->new_seq = 1;
    c->flushing = 1;
    if (c->be->end_seq)
        c->be->end_seq(c->be_priv);
    return c->sticky ? sticky_error(c) : 0;
}
