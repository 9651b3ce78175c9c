#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "speedqa/speedqa.h"

#define QUEUE_CAP 16

struct SpeedqaContext {
    SpeedqaSettings s;
    int nfeat;
    SqFeature feat[SPEEDQA_MAX_FEATURES];
    int nscores;
    char names[SPEEDQA_MAX_SCORES][320];
    SpeedqaScores queue[QUEUE_CAP];
    int q_head, q_len;
    unsigned next_frame;
    int sticky;
};

static void logmsg(const SpeedqaSettings *s, SpeedqaLogLevel lvl, const char *fmt, ...)
{
    if (!s->logger || lvl > s->log_level)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    s->logger(s->log_cookie, lvl, buf);
}

const char *speedqa_version(void)
{
    return "0.1.0";
}

const char *speedqa_strerror(int err)
{
    switch (-err) {
    case 0: return "success";
    case EINVAL: return "invalid argument";
    case ENOMEM: return "out of memory";
    case EAGAIN: return "try again (receive or send first)";
    case ENOSYS: return "backend not built";
    case ENODEV: return "no usable device";
    case EIO: return "backend failure";
    default: return "unknown error";
    }
}

void speedqa_default_settings(SpeedqaSettings *s)
{
    memset(s, 0, sizeof(*s));
    s->n_threads = 1;
    s->backend = SPEEDQA_BACKEND_CPU;
    s->device = -1;
    s->cpu_mask = ~0u;
    s->log_level = SPEEDQA_LOG_WARNING;
}

static const char *fmt_name(SpeedqaPixelFormat f)
{
    static const char *const n[] = { "4:0:0", "4:2:0", "4:2:2", "4:4:4" };
    return (unsigned)f < 4 ? n[f] : "unknown";
}

static int check_format(const SpeedqaSettings *s, const SpeedqaFormat *f, const char *side)
{
    if (f->width < 1 || f->height < 1 || f->width > 65536 || f->height > 65536) {
        logmsg(s, SPEEDQA_LOG_ERROR, "%s size %dx%d is outside 1..65536", side, f->width, f->height);
        return SPEEDQA_ERR(EINVAL);
    }
    if ((unsigned)f->fmt > SPEEDQA_PIX_444) {
        logmsg(s, SPEEDQA_LOG_ERROR, "%s pixel format %d is unknown", side, (int)f->fmt);
        return SPEEDQA_ERR(EINVAL);
    }
    if (f->bpc < 8 || f->bpc > 16) {
        logmsg(s, SPEEDQA_LOG_ERROR, "%s bit depth %d is outside 8..16", side, f->bpc);
        return SPEEDQA_ERR(EINVAL);
    }
    return 0;
}

static int same_format(const SpeedqaFormat *a, const SpeedqaFormat *b)
{
    return a->width == b->width && a->height == b->height && a->fmt == b->fmt && a->bpc == b->bpc;
}

int speedqa_open(SpeedqaContext **out, const SpeedqaSettings *s)
{
    static const char *const defaults[] = { "speed_chroma", "speed_temporal", NULL };
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
        logmsg(s, SPEEDQA_LOG_ERROR, "reference %dx%d %s %d-bit and distorted %dx%d %s %d-bit differ",
               s->ref.width, s->ref.height, fmt_name(s->ref.fmt), s->ref.bpc, s->dis.width,
               s->dis.height, fmt_name(s->dis.fmt), s->dis.bpc);
        return SPEEDQA_ERR(EINVAL);
    }
    if (s->backend != SPEEDQA_BACKEND_CPU && s->backend != SPEEDQA_BACKEND_AUTO) {
        logmsg(s, SPEEDQA_LOG_ERROR, "backend %d is not built into this library", (int)s->backend);
        return SPEEDQA_ERR(ENOSYS);
    }
    if (s->n_threads < 0) {
        logmsg(s, SPEEDQA_LOG_ERROR, "n_threads %d is negative", s->n_threads);
        return SPEEDQA_ERR(EINVAL);
    }

    SpeedqaContext *c = calloc(1, sizeof(*c));
    if (!c) {
        logmsg(s, SPEEDQA_LOG_ERROR, "out of memory");
        return SPEEDQA_ERR(ENOMEM);
    }
    c->s = *s;
    c->s.features = NULL;
    const char *const *feats = s->features ? s->features : defaults;
    for (int i = 0; feats[i]; i++) {
        if (c->nfeat == SPEEDQA_MAX_FEATURES) {
            logmsg(s, SPEEDQA_LOG_ERROR, "more than %d features", SPEEDQA_MAX_FEATURES);
            ret = SPEEDQA_ERR(EINVAL);
            goto fail;
        }
        SqFeature *f = &c->feat[c->nfeat];
        if ((ret = sq_feature_open(f, feats[i], &s->ref, err, sizeof(err))) < 0) {
            logmsg(s, SPEEDQA_LOG_ERROR, "%s", err);
            goto fail;
        }
        c->nfeat++;
        for (int k = 0; k < f->nscores; k++) {
            char name[320];
            sq_feature_score_name(f, k, name, sizeof(name));
            for (int j = 0; j < c->nscores; j++)
                if (!strcmp(c->names[j], name)) {
                    logmsg(s, SPEEDQA_LOG_ERROR, "feature '%s' is requested twice", feats[i]);
                    ret = SPEEDQA_ERR(EINVAL);
                    goto fail;
                }
            memcpy(c->names[c->nscores++], name, sizeof(name));
        }
    }
    if (!c->nfeat) {
        logmsg(s, SPEEDQA_LOG_ERROR, "no feature requested");
        ret = SPEEDQA_ERR(EINVAL);
        goto fail;
    }
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

const char *speedqa_score_name(const SpeedqaContext *c, int i)
{
    return c && i >= 0 && i < c->nscores ? c->names[i] : NULL;
}

const char *speedqa_backend_name(const SpeedqaContext *c)
{
    return c ? "cpu" : NULL;
}

static int check_picture(const SpeedqaContext *c, const SpeedqaPicture *p, const char *side)
{
    if (!p) {
        logmsg(&c->s, SPEEDQA_LOG_ERROR, "%s picture is NULL", side);
        return SPEEDQA_ERR(EINVAL);
    }
    if (!same_format(&p->format, &c->s.ref)) {
        logmsg(&c->s, SPEEDQA_LOG_ERROR, "%s picture %dx%d %s %d-bit does not match the opened %dx%d %s %d-bit",
               side, p->format.width, p->format.height, fmt_name(p->format.fmt), p->format.bpc,
               c->s.ref.width, c->s.ref.height, fmt_name(c->s.ref.fmt), c->s.ref.bpc);
        return SPEEDQA_ERR(EINVAL);
    }
    if (p->memory != SPEEDQA_MEM_HOST) {
        logmsg(&c->s, SPEEDQA_LOG_ERROR, "%s picture is in device memory; the cpu backend reads host memory", side);
        return SPEEDQA_ERR(EINVAL);
    }
    const int planes = p->format.fmt == SPEEDQA_PIX_400 ? 1 : 3;
    for (int i = 0; i < planes; i++)
        if (!p->data[i]) {
            logmsg(&c->s, SPEEDQA_LOG_ERROR, "%s picture plane %d is NULL", side, i);
            return SPEEDQA_ERR(EINVAL);
        }
    return 0;
}

int speedqa_send(SpeedqaContext *c, const SpeedqaPicture *ref, const SpeedqaPicture *dis)
{
    int ret;
    if (!c)
        return SPEEDQA_ERR(EINVAL);
    if (c->sticky)
        return c->sticky;
    if ((ret = check_picture(c, ref, "reference")) < 0 || (ret = check_picture(c, dis, "distorted")) < 0)
        return ret;
    if (c->q_len == QUEUE_CAP)
        return SPEEDQA_ERR(EAGAIN);
    SpeedqaScores *sc = &c->queue[(c->q_head + c->q_len) % QUEUE_CAP];
    sc->frame = c->next_frame++;
    sc->count = c->nscores;
    double *v = sc->values;
    for (int i = 0; i < c->nfeat; i++) {
        sq_feature_frame(&c->feat[i], ref, dis, v);
        v += c->feat[i].nscores;
    }
    c->q_len++;
    return 0;
}

int speedqa_receive(SpeedqaContext *c, SpeedqaScores *out)
{
    if (!c || !out)
        return SPEEDQA_ERR(EINVAL);
    if (!c->q_len)
        return c->sticky ? c->sticky : SPEEDQA_ERR(EAGAIN);
    *out = c->queue[c->q_head];
    c->q_head = (c->q_head + 1) % QUEUE_CAP;
    c->q_len--;
    return 0;
}

int speedqa_flush(SpeedqaContext *c)
{
    if (!c)
        return SPEEDQA_ERR(EINVAL);
    for (int i = 0; i < c->nfeat; i++)
        sq_feature_reset(&c->feat[i]);
    return c->sticky;
}

void speedqa_close(SpeedqaContext **pc)
{
    if (!pc || !*pc)
        return;
    SpeedqaContext *c = *pc;
    for (int i = 0; i < c->nfeat; i++)
        sq_feature_close(&c->feat[i]);
    free(c);
    *pc = NULL;
}
