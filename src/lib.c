#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "core/log.h"
#include "core/picture.h"
#include "core/pool.h"
#include "core/backend.h"
#include "feature/feature.h"
#include "core/format.h"
#include "speedqa/speedqa.h"

struct SpeedqaContext {
    SpeedqaSettings s;
    int nfeat;
    SqFeature feat[SPEEDQA_MAX_FEATURES];
    int nscores;
    char names[SPEEDQA_MAX_SCORES][320];
    int njobs;
    SqJob jobs[SQ_MAX_JOBS];
    int ndis;                /* distorted streams: > 1 is a ladder */
    uint32_t ended;          /* ladder streams that have ended in this sequence */
    const SqBackend *be;
    void *be_priv;
    unsigned sent, received;
    /* sequence, index in it and the streams present (bit d) of each frame
     * in flight, by send index % ring_len */
    unsigned (*seq_ring)[3];
    unsigned ring_len, cur_seq, next_seq_frame;
    int new_seq;
    int flushing;
    int sticky;
    SqPicPool *pics;         /* speedqa_picture_alloc's, from the first call */
};

void speedqa_default_settings(SpeedqaSettings *s)
{
    memset(s, 0, sizeof(*s));
    s->n_threads = 1;
    s->backend = SPEEDQA_BACKEND_CPU;
    s->device = -1;
    s->cpu_mask = ~0u;
    s->log_level = SPEEDQA_LOG_WARNING;
}

static int check_format(const SpeedqaSettings *s, const SpeedqaFormat *f, const char *side)
{
    if (f->width < 1 || f->height < 1 || f->width > 65536 || f->height > 65536) {
        sq_log(s, SPEEDQA_LOG_ERROR, "%s size %dx%d is outside 1..65536", side, f->width, f->height);
        return SPEEDQA_ERR(EINVAL);
    }
    if ((unsigned)f->fmt > SPEEDQA_PIX_444) {
        sq_log(s, SPEEDQA_LOG_ERROR, "%s pixel format %d is unknown", side, (int)f->fmt);
        return SPEEDQA_ERR(EINVAL);
    }
    if (f->bpc < 8 || f->bpc > 16) {
        sq_log(s, SPEEDQA_LOG_ERROR, "%s bit depth %d is outside 8..16", side, f->bpc);
        return SPEEDQA_ERR(EINVAL);
    }
    return 0;
}

static int same_format(const SpeedqaFormat *a, const SpeedqaFormat *b)
{
    return a->width == b->width && a->height == b->height && a->fmt == b->fmt && a->bpc == b->bpc;
}

static const SqBackend *const backends[] = {
    [SPEEDQA_BACKEND_CPU] = &sq_backend_cpu,
    [SPEEDQA_BACKEND_CUDA] = &sq_backend_cuda,
    [SPEEDQA_BACKEND_HIP] = &sq_backend_hip,
    [SPEEDQA_BACKEND_OPENCL] = &sq_backend_opencl,
};

/* AUTO tries the GPU backends in this order and falls back to the CPU. */
static int open_backend(SpeedqaContext *c, const SqBackendParams *bp)
{
    static const SpeedqaBackend auto_order[] = { SPEEDQA_BACKEND_CUDA, SPEEDQA_BACKEND_HIP,
                                                 SPEEDQA_BACKEND_OPENCL, SPEEDQA_BACKEND_CPU };
    char err[400];
    int ret;
    if (c->s.backend != SPEEDQA_BACKEND_AUTO) {
        c->be = backends[c->s.backend];
        if ((ret = c->be->open(&c->be_priv, bp, err, sizeof(err))) < 0)
            sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s backend: %s", c->be->name, err);
        return ret;
    }
    /* AUTO wants a GPU: an OpenCL CPU device (PoCL) is no gain over our CPU backend. */
    SqBackendParams gp = *bp;
    if (gp.device < 0 && !(gp.device_name && gp.device_name[0]))
        gp.device = SQ_DEVICE_GPU_ONLY;
    for (size_t i = 0; i < sizeof(auto_order) / sizeof(auto_order[0]); i++) {
        c->be = backends[auto_order[i]];
        const SqBackendParams *use = c->be == &sq_backend_cpu ? bp : &gp;
        if ((ret = c->be->open(&c->be_priv, use, err, sizeof(err))) == 0)
            return 0;
        if (ret == -ENOMEM || c->be == &sq_backend_cpu) {
            sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s backend: %s", c->be->name, err);
            return ret;
        }
        sq_log(&c->s, SPEEDQA_LOG_INFO, "auto: %s backend unavailable: %s", c->be->name, err);
    }
    return -ENODEV;
}

int speedqa_open(SpeedqaContext **out, const SpeedqaSettings *s)
{
    char err[400];
    int ret;
    if (!out)
        return SPEEDQA_ERR(EINVAL);
    *out = NULL;
    if (!s)
        return SPEEDQA_ERR(EINVAL);
    if ((ret = check_format(s, &s->ref, "reference")) < 0 ||
        (ret = check_format(s, &s->dis, "distorted")) < 0)
        return ret;
    if (!same_format(&s->ref, &s->dis)) {
        sq_log(s, SPEEDQA_LOG_ERROR, "reference %dx%d %s %d-bit and distorted %dx%d %s %d-bit differ",
               s->ref.width, s->ref.height, speedqa_pix_fmt_name(s->ref.fmt), s->ref.bpc, s->dis.width,
               s->dis.height, speedqa_pix_fmt_name(s->dis.fmt), s->dis.bpc);
        return SPEEDQA_ERR(EINVAL);
    }
    if ((unsigned)s->backend > SPEEDQA_BACKEND_OPENCL) {
        sq_log(s, SPEEDQA_LOG_ERROR, "backend %d is unknown", (int)s->backend);
        return SPEEDQA_ERR(EINVAL);
    }
    if (s->n_threads < 0 || s->n_threads > SPEEDQA_MAX_THREADS) {
        sq_log(s, SPEEDQA_LOG_ERROR, "n_threads %d is outside 0..%d", s->n_threads,
               SPEEDQA_MAX_THREADS);
        return SPEEDQA_ERR(EINVAL);
    }
    if (s->n_distorted < 0 || s->n_distorted > SPEEDQA_MAX_DISTORTED) {
        sq_log(s, SPEEDQA_LOG_ERROR, "n_distorted %d is outside 0..%d", s->n_distorted,
               SPEEDQA_MAX_DISTORTED);
        return SPEEDQA_ERR(EINVAL);
    }
    if ((unsigned)s->keep_device > 1) {
        sq_log(s, SPEEDQA_LOG_ERROR, "keep_device %d is not 0 or 1", s->keep_device);
        return SPEEDQA_ERR(EINVAL);
    }
    if (s->gpu_batch < 0 || s->gpu_batch > SQ_MAX_GPU_BATCH) {
        sq_log(s, SPEEDQA_LOG_ERROR, "gpu_batch %d is outside 0..%d", s->gpu_batch,
               SQ_MAX_GPU_BATCH);
        return SPEEDQA_ERR(EINVAL);
    }
    if ((unsigned)s->opencl_soft_f64 > 1) {
        sq_log(s, SPEEDQA_LOG_ERROR, "opencl_soft_f64 %d is not 0 or 1", s->opencl_soft_f64);
        return SPEEDQA_ERR(EINVAL);
    }
    /* zero now, so that a later version can give these bytes a meaning */
    for (size_t i = 0; i < sizeof(s->reserved); i++)
        if (s->reserved[i]) {
            sq_log(s, SPEEDQA_LOG_ERROR, "reserved settings byte %zu is %u, not 0", i,
                   (unsigned)s->reserved[i]);
            return SPEEDQA_ERR(EINVAL);
        }

    const SqAlloc alloc = { s->alloc, s->free, s->alloc_opaque };
    if (!s->alloc != !s->free) {
        sq_log(s, SPEEDQA_LOG_ERROR, "alloc and free must be set together");
        return SPEEDQA_ERR(EINVAL);
    }
    SpeedqaContext *c = sq_calloc(&alloc, 1, sizeof(*c));
    if (!c) {
        sq_log(s, SPEEDQA_LOG_ERROR, "out of memory");
        return SPEEDQA_ERR(ENOMEM);
    }
    c->s = *s;
    c->s.features = NULL;
    const char *const *feats = s->features ? s->features : sq_features_default();
    for (int i = 0; feats[i]; i++) {
        if (c->nfeat == SPEEDQA_MAX_FEATURES) {
            sq_log(s, SPEEDQA_LOG_ERROR, "more than %d features", SPEEDQA_MAX_FEATURES);
            ret = SPEEDQA_ERR(EINVAL);
            goto fail;
        }
        SqFeature *f = &c->feat[c->nfeat];
        if ((ret = sq_feature_open(f, feats[i], &s->ref, &alloc, err, sizeof(err))) < 0) {
            sq_log(s, SPEEDQA_LOG_ERROR, "%s", err);
            goto fail;
        }
        c->nfeat++;
        for (int k = 0; k < f->nscores; k++) {
            char name[320];
            sq_feature_score_name(f, k, name, sizeof(name));
            for (int j = 0; j < c->nscores; j++)
                if (!strcmp(c->names[j], name)) {
                    sq_log(s, SPEEDQA_LOG_ERROR, "feature '%s' is requested twice", feats[i]);
                    ret = SPEEDQA_ERR(EINVAL);
                    goto fail;
                }
            memcpy(c->names[c->nscores++], name, sizeof(name));
        }
    }
    if (!c->nfeat) {
        sq_log(s, SPEEDQA_LOG_ERROR, "no feature requested");
        ret = SPEEDQA_ERR(EINVAL);
        goto fail;
    }
    SqBackendParams bp = { 0 };
    bp.format = s->ref;
    sq_features_jobs(c->feat, c->nfeat, &bp);
    c->ndis = s->n_distorted > 1 ? s->n_distorted : 1;
    sq_jobs_ladder(&bp, c->ndis);
    c->njobs = bp.njobs;
    if (c->ndis > 1 && c->s.backend == SPEEDQA_BACKEND_AUTO) {
        sq_log(s, SPEEDQA_LOG_INFO, "auto: a ladder runs on the cpu backend");
        c->s.backend = SPEEDQA_BACKEND_CPU;
    }
    if (c->ndis > 1 && !backends[c->s.backend]->ladder) {
        sq_log(s, SPEEDQA_LOG_ERROR, "%s backend: ladders (n_distorted > 1) run on the cpu "
               "backend only", backends[c->s.backend]->name);
        ret = SPEEDQA_ERR(ENOSYS);
        goto fail;
    }
    memcpy(c->jobs, bp.jobs, sizeof(c->jobs));
    bp.n_threads = s->n_threads ? s->n_threads : sq_auto_threads();
    bp.device = s->device;
    bp.device_name = s->device_name;
    bp.cpu_mask = s->cpu_mask;
    bp.gpu_batch = s->gpu_batch;
    bp.force_soft_f64 = s->opencl_soft_f64;
    bp.settings = &c->s;
    bp.alloc = alloc;
    if ((ret = open_backend(c, &bp)) < 0)
        goto fail;
    c->ring_len = (unsigned)c->be->capacity(c->be_priv);
    if (!(c->seq_ring = sq_calloc(&alloc, c->ring_len, sizeof(*c->seq_ring)))) {
        sq_log(s, SPEEDQA_LOG_ERROR, "out of memory");
        ret = SPEEDQA_ERR(ENOMEM);
        goto fail;
    }
    c->new_seq = 1;
    *out = c;
    return 0;
fail:
    speedqa_close(&c);
    return ret;
}

int speedqa_score_count(const SpeedqaContext *c)
{
    return c ? c->nscores : 0;
}

int speedqa_rows_read(const SpeedqaContext *c, int plane, uint8_t *mark, int rows)
{
    int w, h;
    if (!c || !mark || plane < 0 || plane > 2)
        return SPEEDQA_ERR(EINVAL);
    sq_plane_size(&c->s.ref, plane, &w, &h);
    if (rows != h) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "rows_read: plane %d has %d rows, not %d", plane, h,
               rows);
        return SPEEDQA_ERR(EINVAL);
    }
    memset(mark, 0, (size_t)rows);
    const SqAlloc alloc = { c->s.alloc, c->s.free, c->s.alloc_opaque };
    const int ret = sq_features_rows_read(c->feat, c->nfeat, plane, mark, &alloc);
    if (ret < 0)
        return ret;
    int n = 0;
    for (int y = 0; y < rows; y++)
        n += mark[y] != 0;
    return n;
}

const char *speedqa_score_name(const SpeedqaContext *c, int i)
{
    return c && i >= 0 && i < c->nscores ? c->names[i] : NULL;
}

const char *speedqa_backend_name(const SpeedqaContext *c)
{
    return c ? c->be->name : NULL;
}

static int check_picture(const SpeedqaContext *c, const SpeedqaPicture *p, const char *side)
{
    if (!p) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s picture is NULL", side);
        return SPEEDQA_ERR(EINVAL);
    }
    if (!same_format(&p->format, &c->s.ref)) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s picture %dx%d %s %d-bit does not match the opened %dx%d %s %d-bit",
               side, p->format.width, p->format.height, speedqa_pix_fmt_name(p->format.fmt), p->format.bpc,
               c->s.ref.width, c->s.ref.height, speedqa_pix_fmt_name(c->s.ref.fmt), c->s.ref.bpc);
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
    if (sq_jobs_check_range(c->jobs, c->njobs, c->ndis, raw, c->s.ref.bpc, frame, msg,
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
 * block for it (speedqa_receive_wait). */
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

/* Stream d's named scores from a raw result (job block d). */
static int assemble(SpeedqaContext *c, const SqRawResult *raw, int d, const unsigned *ring,
                    SpeedqaScores *out)
{
    out->sequence = ring[0];
    out->sequence_frame = ring[1];
    out->frame = c->received;
    out->undefined = 0;
    if (!(ring[2] >> d & 1)) {
        out->count = 0;
        return 0;
    }
    out->count = c->nscores;
    double *v = out->values;
    const int base = d * (c->njobs / c->ndis);
    for (int i = 0, k = 0; i < c->nfeat; i++) {
        uint32_t undef;
        if (sq_feature_assemble_at(&c->feat[i], raw, base, v, &undef) < 0) {
            /* Nothing clips speed_temporal (libvmaf would publish NaN). */
            int j = 0;
            while (j + 1 < c->feat[i].nscores && isfinite(v[j]))
                j++;
            char who[32] = "";
            if (c->ndis > 1)
                snprintf(who, sizeof(who), "distorted %d, ", d + 1);
            sq_log(&c->s, SPEEDQA_LOG_ERROR, "%sframe %u: %s is %g (the SpEED model is undefined "
                   "on this frame)", who, out->frame, c->names[k + j], v[j]);
            c->sticky = SPEEDQA_ERR(EDOM);
            return c->sticky;
        }
        out->undefined |= undef << k;
        k += c->feat[i].nscores;
        v += c->feat[i].nscores;
    }
    return 0;
}

int speedqa_receive(SpeedqaContext *c, SpeedqaScores *out)
{
    if (!c)
        return SPEEDQA_ERR(EINVAL);
    if (!out) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "speedqa_receive: the scores pointer is NULL");
        return SPEEDQA_ERR(EINVAL);
    }
    if (c->ndis > 1) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "a ladder context of %d streams takes "
               "speedqa_receive_ladder()", c->ndis);
        return SPEEDQA_ERR(EINVAL);
    }
    return speedqa_receive_ladder(c, out, 1);
}

static int receive_n(SpeedqaContext *c, SpeedqaScores *out, int n, int wait, const char *fn)
{
    SqRawResult raw;
    const unsigned *ring = NULL;
    if (!c)
        return SPEEDQA_ERR(EINVAL);
    if (!out || n != c->ndis) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s: room for %d streams' scores in a context of %d", fn,
               out ? n : 0, c->ndis);
        return SPEEDQA_ERR(EINVAL);
    }
    int ret = receive_raw(c, &raw, &ring, wait);
    if (ret < 0)
        return ret;
    for (int d = 0; d < n; d++)
        if ((ret = assemble(c, &raw, d, ring, &out[d])) < 0)
            return ret;
    c->received++;
    return 0;
}

int speedqa_receive_ladder(SpeedqaContext *c, SpeedqaScores *out, int n)
{
    return receive_n(c, out, n, 0, "speedqa_receive_ladder");
}

int speedqa_receive_wait(SpeedqaContext *c, SpeedqaScores *out, int n)
{
    return receive_n(c, out, n, 1, "speedqa_receive_wait");
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

int speedqa_list_devices(SpeedqaBackend backend, char *buf, size_t len)
{
    if (buf && len)
        buf[0] = '\0';
    if (backend == SPEEDQA_BACKEND_AUTO || (unsigned)backend > SPEEDQA_BACKEND_OPENCL)
        return SPEEDQA_ERR(EINVAL);
    const SqBackend *be = backends[backend];
    if (be == &sq_backend_cpu) {
        if (buf && len)
            snprintf(buf, len, "0: cpu (%ld threads available)\n", sysconf(_SC_NPROCESSORS_ONLN));
        return 1;
    }
    if (!be->list_devices)
        return SPEEDQA_ERR(ENOSYS);
    return be->list_devices(buf, len);
}

int speedqa_picture_alloc(SpeedqaContext *ctx, SpeedqaPicture *pic)
{
    if (!ctx || !pic)
        return SPEEDQA_ERR(EINVAL);
    memset(pic, 0, sizeof(*pic));
    if (!ctx->be_priv)
        return SPEEDQA_ERR(EINVAL);
    if (!ctx->pics) {
        const SqAlloc alloc = { ctx->s.alloc, ctx->s.free, ctx->s.alloc_opaque };
        const int r = sq_picpool_new(&ctx->pics, &ctx->s.ref, ctx->be->pic_mem, ctx->be_priv,
                                     &alloc);
        if (r < 0)
            return r;
    }
    const int r = sq_picpool_get(ctx->pics, pic);
    if (r < 0)
        sq_log(&ctx->s, SPEEDQA_LOG_ERROR, "speedqa_picture_alloc: no memory for a picture");
    return r;
}

int speedqa_host_register(SpeedqaContext *ctx, const void *data, size_t size)
{
    if (!ctx || !ctx->be_priv || !data != !size)
        return SPEEDQA_ERR(EINVAL);
    return ctx->be->host_register ? ctx->be->host_register(ctx->be_priv, data, size)
                                  : SPEEDQA_ERR(ENOTSUP);
}

int speedqa_host_unregister(SpeedqaContext *ctx, const void *data)
{
    if (!ctx || !ctx->be_priv || !data)
        return SPEEDQA_ERR(EINVAL);
    return ctx->be->host_unregister ? ctx->be->host_unregister(ctx->be_priv, data)
                                    : SPEEDQA_ERR(ENOTSUP);
}

int speedqa_picture_ref(const SpeedqaPicture *pic)
{
    return sq_picture_addref(pic);
}

void speedqa_picture_unref(SpeedqaPicture *pic)
{
    if (!pic)
        return;
    if (pic->release)
        pic->release(pic->release_opaque, pic->data[0]);
    memset(pic, 0, sizeof(*pic));
}

void speedqa_close(SpeedqaContext **pc)
{
    if (!pc || !*pc)
        return;
    SpeedqaContext *c = *pc;
    if (c->be && c->be_priv)
        c->be->close(&c->be_priv);
    sq_picpool_close(&c->pics); /* after the backend: it gave every picture it held back */
    for (int i = 0; i < c->nfeat; i++)
        sq_feature_close(&c->feat[i]);
    const SqAlloc alloc = { c->s.alloc, c->s.free, c->s.alloc_opaque };
    sq_free(&alloc, c->seq_ring);
    sq_free(&alloc, c);
    *pc = NULL;
}
