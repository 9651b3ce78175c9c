/*
 * A scoring job (job.h): inputs opened and skipped, frames read (mapped
 * files lent in place, others on read-ahead threads), sent to one library
 * context (a ladder for several distorted inputs), scores kept per stream,
 * one report per stream.
 */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "job.h"
#include "input.h"
#include "prefetch.h"
#include "scale.h"
#include "output/outfile.h"
#include "vmaf/hooks.h"

/* Library messages: errors are kept for our one-line report, warnings are
 * shown (a bounded number of them) unless --quiet. */
typedef struct LogState {
    char last_error[512];
    int quiet;
    int warnings;
} LogState;

#define MAX_WARNINGS 20
#define LADDER_MAX SPEEDQA_MAX_DISTORTED

/* Progress line of a single job on a terminal (never in a batch). */
typedef struct Progress {
    int on;
    int drawn;
    double t0, last;
    long long total;    /* -1: unknown */
} Progress;

static Progress progress;

struct SqJobCache {
    SpeedqaContext *ctx;
    LogState log;
    SpeedqaSettings s;  /* what ctx was opened with (features compared by value) */
    char feat[SPEEDQA_MAX_FEATURES + 1][400];
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress_clear(void)
{
    if (progress.drawn) {
        fputs("\r\033[K", stderr);
        progress.drawn = 0;
    }
}

/* SPEEDQA_TIMES=1: a stderr line at each stage of a job, with the
 * library's debug lines (a GPU backend's start-up and close split), for
 * finding where a short job's fixed time goes. */
static int times_on(void)
{
    const char *e = getenv("SPEEDQA_TIMES");
    return e && *e && strcmp(e, "0") != 0;
}

static void stage(const char *what)
{
    /* the first stage's time, in ns; jobs of several devices run on threads */
    static atomic_llong t0;
    if (!times_on())
        return;
    const long long t = (long long)(now_s() * 1e9);
    long long zero = 0;
    atomic_compare_exchange_strong(&t0, &zero, t);
    fprintf(stderr, "speedqa: time %8.1f ms: %s\n", 1e-6 * (double)(t - atomic_load(&t0)), what);
}

static void log_cb(void *cookie, SpeedqaLogLevel level, const char *msg)
{
    LogState *l = cookie;
    if (level == SPEEDQA_LOG_DEBUG) {
        stage(msg);
        return;
    }
    if (level == SPEEDQA_LOG_ERROR) {
        snprintf(l->last_error, sizeof l->last_error, "%s", msg);
        return;
    }
    if (l->quiet || level > SPEEDQA_LOG_WARNING)
        return;
    progress_clear();
    if (l->warnings < MAX_WARNINGS)
        cli_warning("%s", msg);
    else if (l->warnings == MAX_WARNINGS)
        cli_warning("further library warnings are not shown");
    l->warnings++;
}

static void fmt_duration(char *buf, size_t len, double s)
{
    long long t = (long long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%lld:%02lld", t / 60, t % 60);
}

static void progress_update(long long done, int final)
{
    if (!progress.on)
        return;
    double t = now_s();
    if (!final && t - progress.last < 0.25)
        return;
    progress.last = t;
    double el = t - progress.t0;
    double fps = el > 0 ? (double)done / el : 0.0;
    char line[160], eta[32];
    if (final) {
        snprintf(line, sizeof line, "%lld frames in %.1f s (%.1f fps)", done, el, fps);
    } else if (progress.total > 0) {
        long long total = progress.total > done ? progress.total : done;
        fmt_duration(eta, sizeof eta, fps > 0 ? (double)(total - done) / fps : 0.0);
        snprintf(line, sizeof line, "frame %lld/%lld (%.0f%%), %.1f fps, ETA %s", done,
                 total, 100.0 * (double)done / (double)total, fps, eta);
    } else {
        snprintf(line, sizeof line, "frame %lld, %.1f fps", done, fps);
    }
    fprintf(stderr, "\r\033[Kspeedqa: %s%s", line, final ? "\n" : "");
    progress.drawn = !final;
}

static size_t frame_bytes(const SpeedqaFormat *f)
{
    size_t w = (size_t)f->width, h = (size_t)f->height, cw = 0, ch = 0;
    switch (f->fmt) {
    case SPEEDQA_PIX_400: break;
    case SPEEDQA_PIX_420: cw = (w + 1) / 2; ch = (h + 1) / 2; break;
    case SPEEDQA_PIX_422: cw = (w + 1) / 2; ch = h; break;
    case SPEEDQA_PIX_444: cw = w; ch = h; break;
    }
    return (w * h + 2 * cw * ch) * (f->bpc > 8 ? 2 : 1);
}

/* Frames an input holds: the reader's count, else an estimate for a
 * regular Y4M file (size / (FRAME line + payload)); -1 when unknown. */
static long long input_frames(const SqInput *in, const char *path)
{
    const SqInputInfo *info = sq_input_info(in);
    if (info->frames >= 0)
        return info->frames;
    struct stat st;
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    return (long long)st.st_size / (long long)(frame_bytes(&info->format) + 6);
}

static int exit_for_read(int r)
{
    return r == -ENOMEM ? SQ_EXIT_INTERNAL : SQ_EXIT_INPUT;
}

static const char *shown(const char *path)
{
    return strcmp(path, "-") ? path : "<stdin>";
}

static int open_input(SqInput **in, const char *path, const CliSettings *cfg)
{
    char err[1100];
    int r = sq_input_open_ex(in, path, NULL, cfg->have_raw ? &cfg->raw : NULL,
                             cfg->hwaccel ? (cfg->device < 0 ? 0 : cfg->device) : -1,
                             cfg->decode_threads, cfg->io_read, err, sizeof err);
    if (r < 0) {
        cli_error("%s", err);
        return r == -ENODEV ? SQ_EXIT_BACKEND : exit_for_read(r);
    }
    if (sq_input_info(*in)->note && !cfg->quiet)
        cli_warning("%s", sq_input_info(*in)->note); /* --hwaccel: decoded in software */
    const char il = sq_input_info(*in)->interlace;
    if (il && !cfg->quiet)
        cli_warning("%s: the Y4M header says interlaced (I%c); its fields are scored as one "
                    "progressive frame, as libvmaf does", shown(path), il);
    return 0;
}

/* Skips n frames, counting them so that running off the end can say so. */
static int skip_input(SqInput *in, const char *path, const char *flag, long long n)
{
    char err[1100];
    for (long long i = 0; i < n; i++) {
        int r = sq_input_skip(in, 1, err, sizeof err);
        if (r < 0) {
            cli_error("%s", err);
            return exit_for_read(r);
        }
        if (r == 0) {
            cli_error("%s: %s %lld skips past the end (it has %lld frames)", shown(path), flag, n, i);
            return SQ_EXIT_INPUT;
        }
    }
    return 0;
}

/* Results of the frames we report (every subsample-th). */
#define UNDEF_LISTED 8

typedef struct Results {
    int nscores;
    long long subsample;
    size_t n, cap;
    double *values;
    unsigned long long *frame_num;
    /* Frames whose score was NaN before the speed_max_val clip
     * (SpeedqaScores.undefined), per score: the first few, and how many. */
    unsigned long long undef_frame[SQ_JOB_MAX_SCORES][UNDEF_LISTED];
    long long undef_n[SQ_JOB_MAX_SCORES];
} Results;

/* Frames are numbered within their sequence: a context a batch reuses has
 * scored other pairs before (SpeedqaScores.frame counts those too). */
static int results_add(Results *res, const SpeedqaScores *sc)
{
    if (sc->sequence_frame % (unsigned long long)res->subsample)
        return 0;
    if (res->n == res->cap) {
        size_t cap = res->cap ? 2 * res->cap : 256;
        double *v = realloc(res->values, cap * (size_t)res->nscores * sizeof *v);
        if (!v)
            return -1;
        res->values = v;
        unsigned long long *fn = realloc(res->frame_num, cap * sizeof *fn);
        if (!fn)
            return -1;
        res->frame_num = fn;
        res->cap = cap;
    }
    memcpy(res->values + res->n * (size_t)res->nscores, sc->values,
           (size_t)res->nscores * sizeof *res->values);
    res->frame_num[res->n++] = sc->sequence_frame;
    for (int k = 0; k < res->nscores; k++)
        if (sc->undefined[k]) {
            if (res->undef_n[k] < UNDEF_LISTED)
                res->undef_frame[k][res->undef_n[k]] = sc->sequence_frame;
            res->undef_n[k]++;
        }
    return 0;
}

/* One distorted input while it is scored. */
typedef struct Stream {
    SqJobStream *st;
    SqInput *in;
    SqPrefetch *ahead;
    SqScaler *scaler;   /* --scale and another size: frames are scaled into sbuf */
    uint8_t *sbuf;
    SpeedqaPicture scaled;
    Results res;
    SqModelRun *vm;     /* --model: this stream's libvmaf session; NULL: none */
    int active;         /* still has frames to send */
    long long sent, received;
    /* A read that failed after some frames were scored: the report of the
     * complete frames is still written, then this error is printed. */
    int read_exit;
    char read_err[1100];
} Stream;

typedef struct Run {
    const SqJob *job;
    const CliSettings *cfg;
    SqInput *ref;
    SqPrefetch *ref_ahead;
    int n;
    Stream *s;          /* n */
    SpeedqaContext *ctx;
    LogState *log;
    int vmaf_only;      /* --model whose features are all libvmaf's: no speedqa context */
    long long sent;     /* reference frames sent */
    unsigned touched;   /* --read-only: a sum that keeps the reads */
    int ref_read_exit;
    char ref_read_err[1100];
} Run;

/*
 * One feature whose scores libvmaf leaves undefined on some frames (NaN
 * before the clip) gets one warning: the published value is the clip, as in
 * libvmaf, but the user should know which frames carry it.
 */
static void warn_undefined(const Results *res, SpeedqaContext *ctx, const CliSettings *cfg,
                           const char *path, int named)
{
    if (cfg->quiet)
        return;
    for (int k = 0; k < res->nscores;) {
        const char *name = speedqa_score_name(ctx, k);
        /* speed_chroma's u, v, uv come together: one feature, one warning */
        const int group = !strncmp(name, "speed_chroma_u", 14) && k + 2 < res->nscores ? 3 : 1;
        int worst = k;
        char which[400] = "";
        size_t len = 0;
        for (int j = k; j < k + group; j++) {
            if (!res->undef_n[j])
                continue;
            if (res->undef_n[j] > res->undef_n[worst] || !res->undef_n[worst])
                worst = j;
            len += (size_t)snprintf(which + len, len < sizeof which ? sizeof which - len : 0, "%s%s",
                                    len ? ", " : "", speedqa_score_name(ctx, j));
        }
        if (res->undef_n[worst]) {
            char frames[200] = "";
            size_t fl = 0;
            const long long n = res->undef_n[worst];
            for (long long i = 0; i < n && i < UNDEF_LISTED; i++)
                fl += (size_t)snprintf(frames + fl, fl < sizeof frames ? sizeof frames - fl : 0,
                                       "%s%llu", i ? ", " : "", res->undef_frame[worst][i]);
            progress_clear();
            cli_warning("%s%s%s %s undefined on %lld frame%s (%s%s): NaN before the speed_max_val "
                        "clip; the clip value is reported, as libvmaf does", named ? shown(path) : "",
                        named ? ": " : "", which, strchr(which, ',') ? "are" : "is", n,
                        n == 1 ? "" : "s", frames, n > UNDEF_LISTED ? ", ..." : "");
        }
        k += group;
    }
}

/* Errors from send/receive/flush: messages come from the logger. */
static int lib_error(int r, const Run *run, const char *what)
{
    const char *msg = run->log->last_error[0] ? run->log->last_error : speedqa_strerror(r);
    if (r == -ERANGE) {
        /* "distorted frame 3, plane U: ..." names a picture: name its file */
        static const char *const side[2] = { "reference ", "distorted " };
        for (int i = 0; i < 2; i++)
            if (!strncmp(msg, side[i], strlen(side[i]))) {
                const char *rest = msg + strlen(side[i]);
                const char *path = i ? run->s[0].st->path : run->job->ref_path;
                if (i && run->n > 1) { /* "distorted 2 frame ...": stream 2 */
                    char *end;
                    long d = strtol(rest, &end, 10);
                    if (end != rest && d >= 1 && d <= run->n) {
                        path = run->s[d - 1].st->path;
                        rest = end + (*end == ' ');
                    }
                }
                cli_error("%s: %s%s", shown(path), rest,
                          strstr(rest, "MSB") ? "" : " (is the declared bit depth right?)");
                return SQ_EXIT_INPUT;
            }
        cli_error("%s", msg);
        return SQ_EXIT_INPUT;
    }
    cli_error("%s: %s", what, msg);
    if (r == -EDOM)
        return SQ_EXIT_INPUT;
    if (r == -ENOMEM)
        return SQ_EXIT_INTERNAL;
    return r == -EIO ? SQ_EXIT_BACKEND : SQ_EXIT_INTERNAL;
}

/* Scores of one frame, into each stream that had a picture. */
static int keep_scores(Run *run, const SpeedqaScores *sc)
{
    for (int d = 0; d < run->n; d++) {
        if (!sc[d].count)
            continue;
        if (results_add(&run->s[d].res, &sc[d]) < 0) {
            cli_error("out of memory storing the scores");
            return SQ_EXIT_INTERNAL;
        }
        if (++run->s[d].received == 1 && d == 0)
            stage("first frame scored");
    }
    return 0;
}

static int receive(Run *run, SpeedqaScores *sc)
{
    return speedqa_receive(run->ctx, sc, run->n, 0);
}

/* Receives every score that is ready (all of them after a flush). */
static int drain(Run *run)
{
    SpeedqaScores sc[LADDER_MAX];
    int r;
    while ((r = receive(run, sc)) == 0)
        if ((r = keep_scores(run, sc)) != 0)
            return r;
    return r == -EAGAIN || r == SPEEDQA_EOF ? 0 : lib_error(r, run, "scoring");
}

/*
 * One input ended before the other: like vmaf, score the frames both have.
 * The longer one is never read on (it may not end at all: a pipe, a device).
 */
static void counts_differ(const Run *run, const Stream *s, int ref_ended)
{
    const CliSettings *cfg = run->cfg;
    if (cfg->quiet)
        return;
    SqInput *longer = ref_ended ? s->in : run->ref;
    const char *lpath = ref_ended ? s->st->path : run->job->ref_path;
    long long skip = ref_ended ? cfg->skip_dis : cfg->skip_ref;
    long long n = input_frames(longer, lpath);
    char more[64];
    if (n >= 0 && n - skip > s->sent)
        snprintf(more, sizeof more, "%lld frames%s", n - skip, skip ? " after skipping" : "");
    else
        snprintf(more, sizeof more, "more frames");
    progress_clear();
    cli_warning("frame counts differ: %s ends after %lld frames%s, %s has %s; "
                "scored the %lld frames both have",
                shown(ref_ended ? run->job->ref_path : s->st->path), s->sent,
                (ref_ended ? cfg->skip_ref : cfg->skip_dis) ? " after skipping" : "",
                shown(lpath), more, s->sent);
}

/* A lent frame that will not be sent (or whose send failed) goes back; twice is harmless. */
static void give_back(int r, const SpeedqaPicture *pic)
{
    if (r == 1 && pic->release)
        pic->release(pic->release_opaque, pic->data[0]);
}

static int next_frame(SqInput *in, SqPrefetch *ahead, SpeedqaPicture *pic, char *err, size_t errlen)
{
    if (ahead)
        return sq_prefetch_next(ahead, pic, err, errlen);
    return sq_input_read(in, pic, err, errlen);
}

/*
 * The read that tells whether an input goes on after its partner ended.
 * A pipe gets a moment: a live source left open may never send another
 * frame, and every frame both inputs have is scored already.
 * -ETIMEDOUT: it has neither sent a frame nor ended.
 */
static int one_more(SqInput *in, SqPrefetch *ahead, SpeedqaPicture *pic, char *err, size_t errlen)
{
    if (ahead && sq_input_info(in)->stream)
        return sq_prefetch_next_within(ahead, pic, err, errlen, 500);
    return next_frame(in, ahead, pic, err, errlen);
}

static void still_open(const Run *run, const char *ended, const char *open, long long n)
{
    if (run->cfg->quiet)
        return;
    progress_clear();
    cli_warning("%s ended after %lld frames; %s, a pipe, neither ended nor sent another "
                "within 0.5 s: scored the %lld frames both have", shown(ended), n, shown(open), n);
}

static void give_back_all(const Run *run, int rr, const SpeedqaPicture *pr, const int *rd,
                          const SpeedqaPicture *pd)
{
    give_back(rr, pr);
    for (int d = 0; d < run->n; d++)
        give_back(rd[d], &pd[d]);
}

/* Send one frame; a full queue is drained first (receive blocks then). */
static int send_frame(Run *run, const SpeedqaPicture *pr, const SpeedqaPicture *pd, const int *rd)
{
    const SpeedqaPicture *dp[LADDER_MAX];
    for (int d = 0; d < run->n; d++)
        dp[d] = rd[d] == 1 ? &pd[d] : NULL;
    int r;
    run->log->last_error[0] = '\0';
    for (;;) {
        r = run->n == 1 ? speedqa_send(run->ctx, pr, &pd[0]) : speedqa_send_ladder(run->ctx, pr, dp, run->n);
        if (r != -EAGAIN)
            break;
        SpeedqaScores sc[LADDER_MAX];
        r = receive(run, sc);
        if (r < 0 && r != -EAGAIN)
            return lib_error(r, run, "scoring");
        if (r == -EAGAIN) {
            /* receive should block when the queue is full; don't spin if not */
            const struct timespec ms = { 0, 1000000 };
            nanosleep(&ms, NULL);
        } else if ((r = keep_scores(run, sc)) != 0) {
            return r;
        }
    }
    return r < 0 ? lib_error(r, run, "scoring") : 0;
}

/* The frame scaled into the stream's buffer (copied at send: no release); the read one goes back. */
static int scale_frame(Stream *s, SpeedqaPicture *pic)
{
    int r = sq_scaler_run(s->scaler, pic, (uint8_t *const *)s->scaled.data, s->scaled.stride,
                          s->read_err, sizeof s->read_err);
    give_back(1, pic);
    *pic = s->scaled;
    return r;
}

/* --scale: a scaler for a stream whose size differs, and the buffer it scales into. */
static int setup_scaler(Stream *s, const SpeedqaFormat *ref, const CliSettings *cfg)
{
    const SpeedqaFormat *f = &sq_input_info(s->in)->format;
    char err[600];
    int r = sq_scaler_open(&s->scaler, f, ref->width, ref->height, err, sizeof err);
    if (r < 0) {
        cli_error("%s: --scale: %s", shown(s->st->path), err);
        return r == -ENOMEM ? SQ_EXIT_INTERNAL : SQ_EXIT_INPUT;
    }
    SpeedqaFormat to = *ref;
    const size_t bps = to.bpc > 8 ? 2 : 1;
    const size_t row = (size_t)to.width * bps;
    const int cw = to.fmt == SPEEDQA_PIX_444 ? to.width : (to.width + 1) / 2;
    const int ch = to.fmt == SPEEDQA_PIX_420 ? (to.height + 1) / 2 : to.height;
    const size_t crow = (size_t)cw * bps;
    const size_t total = row * (size_t)to.height + (to.fmt ? 2 * crow * (size_t)ch : 0);
    if (!(s->sbuf = malloc(total))) {
        cli_error("out of memory for --scale");
        return SQ_EXIT_INTERNAL;
    }
    s->scaled = (SpeedqaPicture){ .format = to };
    s->scaled.data[0] = s->sbuf;
    s->scaled.stride[0] = (ptrdiff_t)row;
    for (int p = 1; to.fmt && p < 3; p++) {
        s->scaled.data[p] = s->sbuf + row * (size_t)to.height + (size_t)(p - 1) * crow * (size_t)ch;
        s->scaled.stride[p] = (ptrdiff_t)crow;
    }
    if (sq_input_info(s->in)->range == 2 && !cfg->quiet)
        cli_warning("%s is tagged full range: ffmpeg's scale filter would convert it to limited "
                    "range, --scale scales the samples as they are", shown(s->st->path));
    return 0;
}

static int score(Run *run)
{
    const CliSettings *cfg = run->cfg;
    for (;;) {
        if (cfg->frame_cnt >= 0 && run->sent == cfg->frame_cnt)
            break;
        SpeedqaPicture pr, pd[LADDER_MAX];
        int rd[LADDER_MAX] = { 0 }, live = 0;
        /* A reference pipe is read after a distorted file that may have ended
         * (one stream, not scaled): then one bounded read of the pipe is enough. */
        const int dis_first = run->n == 1 && run->s[0].active && !run->s[0].scaler &&
                              sq_input_info(run->ref)->stream &&
                              !sq_input_info(run->s[0].in)->stream;
        if (dis_first) {
            Stream *s = &run->s[0];
            rd[0] = next_frame(s->in, s->ahead, &pd[0], s->read_err, sizeof s->read_err);
            if (rd[0] < 0) {
                s->read_exit = exit_for_read(rd[0]);
                break;
            }
            if (rd[0] == 0) {
                SpeedqaPicture extra;
                const int rr = one_more(run->ref, run->ref_ahead, &extra, run->ref_read_err,
                                        sizeof run->ref_read_err);
                if (rr == -ETIMEDOUT) {
                    still_open(run, s->st->path, run->job->ref_path, s->sent);
                } else if (rr < 0) {
                    run->ref_read_exit = exit_for_read(rr);
                } else if (rr == 1) {
                    give_back(1, &extra);
                    counts_differ(run, s, 0);
                }
                break;
            }
        }
        int rr = next_frame(run->ref, run->ref_ahead, &pr, run->ref_read_err, sizeof run->ref_read_err);
        if (rr < 0) {
            give_back(rd[0], &pd[0]);
            run->ref_read_exit = exit_for_read(rr);
            break;
        }
        for (int d = 0; d < run->n; d++) {
            Stream *s = &run->s[d];
            if (!s->active || (dis_first && rr == 0)) {
                if (dis_first && rr == 0) {
                    counts_differ(run, s, 1); /* it sent one more frame */
                    give_back(rd[0], &pd[0]);
                    rd[0] = 0;
                    s->active = 0;
                }
                continue;
            }
            /* the distorted side is only read while the reference has frames;
             * when the reference ended, one read tells whether this one does */
            if (!dis_first)
                rd[d] = rr == 0 ? one_more(s->in, s->ahead, &pd[d], s->read_err, sizeof s->read_err)
                                : next_frame(s->in, s->ahead, &pd[d], s->read_err, sizeof s->read_err);
            if (rd[d] == -ETIMEDOUT) {
                rd[d] = 0;
                still_open(run, run->job->ref_path, s->st->path, s->sent);
                s->active = 0;
            } else if (rd[d] < 0) {
                s->read_exit = exit_for_read(rd[d]);
                s->active = 0;
            } else if (rr == 0) {
                if (rd[d] == 1)
                    counts_differ(run, s, 1);
                s->active = 0;
            } else if (rd[d] == 0) {
                counts_differ(run, s, 0);
                s->active = 0;
            } else if (s->scaler && scale_frame(s, &pd[d]) < 0) {
                rd[d] = 0;
                s->read_exit = SQ_EXIT_INPUT;
                s->active = 0;
            } else {
                live++;
            }
        }
        if (!live) {
            give_back_all(run, rr, &pr, rd, pd);
            break;
        }
        for (int d = 0; d < run->n; d++) {
            int r = rd[d] == 1 && run->s[d].vm
                        ? sq_model_run_send(run->s[d].vm, &pr, &pd[d], run->s[d].sent) : 0;
            if (r) {
                give_back_all(run, 1, &pr, rd, pd);
                return r;
            }
        }
        if (!run->ctx) {
            /* --read-only: what scoring would read, and nothing more;
             * a model of libvmaf's features alone: libvmaf has its copies */
            if (run->vmaf_only) {
                give_back_all(run, 1, &pr, rd, pd);
                run->sent++;
                for (int d = 0; d < run->n; d++)
                    run->s[d].received = run->s[d].sent += rd[d] == 1;
                progress_update(run->s[0].received, 0);
                continue;
            }
            run->touched += sq_input_touch(&pr) + sq_input_touch(&pd[0]);
            give_back_all(run, 1, &pr, rd, pd);
            run->sent++;
            run->s[0].sent++;
            continue;
        }
        int r = send_frame(run, &pr, pd, rd);
        if (r) {
            /* not taken, or given back already: either way it is ours again */
            give_back_all(run, 1, &pr, rd, pd);
            return r;
        }
        run->sent++;
        for (int d = 0; d < run->n; d++)
            run->s[d].sent += rd[d] == 1;
        if ((r = drain(run)) != 0)
            return r;
        progress_update(run->s[0].received, 0);
    }
    if (!run->ctx) {
        for (int d = 0; d < run->n; d++)
            run->s[d].received = run->s[d].sent;
        return 0;
    }
    int r = speedqa_flush(run->ctx);
    if (r < 0)
        return lib_error(r, run, "scoring");
    if ((r = drain(run)) != 0)
        return r;
    for (int d = 0; d < run->n; d++)
        if (run->s[d].received != run->s[d].sent) {
            cli_error("the library returned %lld of %lld frames", run->s[d].received, run->s[d].sent);
            return SQ_EXIT_INTERNAL;
        }
    return 0;
}

static const SqWriter *pick_writer(const CliSettings *cfg, const char *path)
{
    if (cfg->format)
        return sq_writer_by_name(cfg->format);
    const SqWriter *w = path ? sq_writer_by_path(path) : NULL;
    return w ? w : &sq_writer_xml;
}

/* Its scores: speedqa's, or with --model libvmaf's collector (mr). */
static int write_report(const Run *run, const Stream *s, const char *oname, double fps,
                        const SqModelReport *mr)
{
    const CliSettings *cfg = run->cfg;
    const int n = mr ? mr->n : speedqa_score_count(run->ctx);
    const char *names[SQ_JOB_MAX_SCORES];
    for (int k = 0; !mr && k < n; k++)
        names[k] = speedqa_score_name(run->ctx, k);
    const SpeedqaFormat *f = &sq_input_info(run->ref)->format;
    const SqReport rep = {
        .version = speedqa_version(),
        .width = f->width,
        .height = f->height,
        .fps = fps,
        .precision_max = cfg->precision_max,
        .nscores = n,
        .names = mr ? mr->names : names,
        .nframes = mr ? mr->nframes : s->res.n,
        .frame_num = mr ? mr->frame_num : s->res.frame_num,
        .values = mr ? mr->values : s->res.values,
        .pooled = mr ? mr->pooled : s->st->pooled,
    };
    errno = 0;
    FILE *out = s->st->out;
    int r = pick_writer(cfg, oname)->write(out, &rep);
    if (r == 0 && fflush(out) != 0)
        r = -1;
    if (r < 0) {
        /* a reader that went away (| head) wanted no more: end quietly */
        if (errno != EPIPE)
            cli_error("%s: write failed: %s", oname ? oname : "<stdout>",
                      errno ? strerror(errno) : "I/O error");
        return SQ_EXIT_OUTPUT;
    }
    return 0;
}

/*
 * Full-range samples scored against limited-range ones (a yuvj source, a
 * TV-range encode) differ everywhere for reasons that are not coding loss;
 * the scores are still what libvmaf gives, so warn, not refuse.
 */
static void colour_check(const Run *run, const Stream *s)
{
    static const char *const rn[] = { "unknown", "limited", "full" };
    const SqInputInfo *a = sq_input_info(run->ref), *b = sq_input_info(s->in);
    const char *rp = shown(run->job->ref_path), *dp = shown(s->st->path);
    if (run->cfg->quiet)
        return;
    if (a->range && b->range && a->range != b->range)
        cli_warning("colour ranges differ: %s is %s range, %s is %s range; the samples are "
                    "compared as they are", rp, rn[a->range], dp, rn[b->range]);
    if (a->matrix != 2 && b->matrix != 2 && a->matrix != b->matrix)
        cli_warning("colour matrices differ: %s has matrix %d, %s has matrix %d (ISO/IEC "
                    "23091-2 codes); the samples are compared as they are", rp, a->matrix, dp,
                    b->matrix);
}

/*
 * A mapped input is lent to the library frame by frame, no thread needed;
 * any other is read on its own thread, a few frames ahead of the scoring.
 */
static int start_reader(SqInput *in, SqPrefetch **ahead, int threads, SqPrefault prefault)
{
    char perr[200];
    if (sq_input_mapped(in)) {
        sq_outfile_exit_on(SIGBUS, "speedqa: error: an input file shrank while it was being "
                           "read (SIGBUS); no report written\n", SQ_EXIT_INPUT);
        sq_input_lend(in);
        sq_input_prefault(in, prefault);
        return 0;
    }
    /* decoded frames are lent from the decoder's buffers, not packed */
    sq_input_lend(in);
    /* enough buffers for the frames the library holds and a few ahead */
    const int pr = sq_prefetch_start(ahead, in, 2 * threads + 6, perr, sizeof perr);
    if (pr < 0 && pr != -ENOTSUP) {
        cli_error("%s", perr);
        return SQ_EXIT_INTERNAL;
    }
    return 0;
}

/*
 * Whether a thread maps mapped inputs' pages ahead of the scoring. With a
 * core to spare it pays: a GPU's staging threads copy faster from mapped
 * pages (H200, 1080p: 3,800 instead of 3,450 fps), and on 2 cores
 * --threads 1 runs 1.22x as fast from tmpfs (1080p, 6 interleaved rounds).
 * With every core scoring it pays only from tmpfs (sq_input_prefault):
 * from ext4, --threads 2 on 2 cores runs 1.05x as fast without it, and
 * --threads 16 on the H200 machine 1.12x (one call; equal in another).
 */
static SqPrefault prefault_for(const Run *run, const SqJob *job)
{
    if (job->batch)
        return SQ_PREFAULT_OFF; /* every core is busy with pairs already */
    if (run->ctx && strcmp(speedqa_backend_name(run->ctx), "cpu") != 0)
        return SQ_PREFAULT_SPARE;
    const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    return ncpu > 0 && job->threads >= ncpu ? SQ_PREFAULT_BUSY : SQ_PREFAULT_SPARE;
}

static int pin_reg(void *ctx, const void *p, size_t bytes)
{
    return speedqa_cuda_host_register(ctx, p, bytes);
}

static int pin_unreg(void *ctx, const void *p)
{
    return speedqa_cuda_host_unregister(ctx, p);
}

/* The rows the features read, so that a mapped input maps only theirs ahead. */
static void tell_rows_read(SpeedqaContext *ctx, const SpeedqaFormat *f, SqInput *const *in, int n)
{
    uint8_t *mark[3] = { NULL, NULL, NULL };
    int rows[3];
    for (int c = 0; c < 3; c++) {
        rows[c] = c && f->fmt == SPEEDQA_PIX_420 ? f->height >> 1 : f->height;
        if (!(mark[c] = malloc((size_t)rows[c] + 1)) ||
            speedqa_rows_read(ctx, c, mark[c], rows[c]) < 0)
            goto end; /* the pages are mapped whole, as without it */
    }
    for (int i = 0; i < n; i++)
        sq_input_rows_read(in[i], (const uint8_t *const *)mark, rows);
end:
    for (int c = 0; c < 3; c++)
        free(mark[c]);
}

static int same_format(const SpeedqaFormat *a, const SpeedqaFormat *b)
{
    return a->width == b->width && a->height == b->height && a->fmt == b->fmt && a->bpc == b->bpc;
}

static void settings_for(SpeedqaSettings *s, const SqJob *job, const SpeedqaFormat *f, int n,
                         LogState *log)
{
    const CliSettings *cfg = job->cfg;
    speedqa_default_settings(s);
    s->format = *f;
    s->features = job->features;
    s->n_threads = job->threads;
    s->n_distorted = n;
    s->backend = cfg->backend;
    s->device = cfg->device;
    s->cpu_mask = cfg->cpu_mask;
    s->device_name = cfg->device_name;
    s->logger = log_cb;
    s->log_cookie = log;
    /* the process ends after its jobs: a batch or ladder that opens another
     * context (another shape, a stream failing alone) finds the device's */
    s->cuda.keep_device = 1;
    if (times_on())
        s->log_level = SPEEDQA_LOG_DEBUG;
}

static int open_failed(int r, const SqJob *job, const SpeedqaSettings *s, const LogState *log,
                       const char *dis_path)
{
    static const char *const backend_names[] = { "auto", "cpu", "cuda", "hip", "opencl" };
    const CliSettings *cfg = job->cfg;
    const char *msg = log->last_error[0] ? log->last_error : speedqa_strerror(r);
    const char *bname = (unsigned)cfg->backend < 5 ? backend_names[cfg->backend] : "?";
    switch (-r) {
    case ENOSYS:
        if (log->last_error[0])
            cli_error("--backend %s: %s", bname, msg);
        else
            cli_error("--backend %s: this build of the library has no %s backend", bname, bname);
        return SQ_EXIT_BACKEND;
    case ENODEV:
        cli_error("--backend %s: no usable device (%s)", bname, msg);
        return SQ_EXIT_BACKEND;
    case ENOMEM:
        cli_error("out of memory opening the features (%s)", msg);
        return SQ_EXIT_INTERNAL;
    case EINVAL: {
        /* the features themselves, or this input for them? */
        char ferr[400];
        if (speedqa_check_features(s->features, ferr, sizeof ferr) < 0) {
            cli_error("--feature: %s", ferr);
            return SQ_EXIT_USAGE;
        }
        if (strcmp(job->ref_path, dis_path) == 0)
            cli_error("%s (%dx%d %s %d-bit): %s", shown(job->ref_path), s->format.width,
                      s->format.height, speedqa_pix_fmt_name(s->format.fmt), s->format.bpc, msg);
        else
            cli_error("%s and %s (%dx%d %s %d-bit): %s", shown(job->ref_path), shown(dis_path),
                      s->format.width, s->format.height, speedqa_pix_fmt_name(s->format.fmt),
                      s->format.bpc, msg);
        return SQ_EXIT_INPUT;
    }
    default:
        cli_error("cannot open the features: %s", msg);
        return SQ_EXIT_BACKEND;
    }
}

static int same_features(const SqJobCache *c, const char *const *f)
{
    int i = 0;
    for (; f && f[i]; i++)
        if (i == SPEEDQA_MAX_FEATURES || !c->s.features || strcmp(c->feat[i], f[i]))
            return 0;
    return (!f && !c->s.features) || (f && c->s.features && !c->feat[i][0]);
}

/* A context for this job: the cached one when it has the same shape, else a new one. */
static int get_context(Run *run, const SpeedqaFormat *f, LogState *own_log, const char *dis_path)
{
    const SqJob *job = run->job;
    SqJobCache *c = job->cache;
    SpeedqaSettings s;
    if (c && c->ctx && same_format(&c->s.format, f) && c->s.n_distorted == run->n &&
        c->s.n_threads == job->threads && same_features(c, job->features)) {
        run->ctx = c->ctx;
        run->log = &c->log;
        return 0;
    }
    if (c)
        speedqa_close(&c->ctx);
    run->log = c ? &c->log : own_log;
    *run->log = (LogState){ "", run->cfg->quiet || job->batch, 0 };
    settings_for(&s, job, f, run->n, run->log);
    int r = speedqa_open(&run->ctx, &s);
    if (r < 0)
        return open_failed(r, job, &s, run->log, dis_path);
    if (speedqa_score_count(run->ctx) > SQ_JOB_MAX_SCORES) {
        cli_error("%d scores per frame: this tool keeps at most %d", speedqa_score_count(run->ctx),
                  SQ_JOB_MAX_SCORES);
        speedqa_close(&run->ctx);
        return SQ_EXIT_USAGE;
    }
    if (run->cfg->backend_auto && !run->cfg->quiet && !job->batch)
        fprintf(stderr, "speedqa: --backend auto: using the %s backend (%s)\n",
                speedqa_backend_name(run->ctx),
                run->cfg->hwaccel ? "frames decoded on the GPU"
                : run->cfg->backend == SPEEDQA_BACKEND_CPU ? "host frames, enough cores"
                : "host frames, few cores: a GPU if one opens");
    if (c) {
        c->ctx = run->ctx;
        c->s = s;
        memset(c->feat, 0, sizeof c->feat);
        for (int i = 0; s.features && s.features[i] && i < SPEEDQA_MAX_FEATURES; i++)
            snprintf(c->feat[i], sizeof c->feat[i], "%s", s.features[i]);
    }
    return 0;
}

/* After the job: a cached context that failed is not reused. */
static void put_context(Run *run, int failed)
{
    SqJobCache *c = run->job->cache;
    if (c && c->ctx == run->ctx) {
        if (failed)
            speedqa_close(&c->ctx);
        run->ctx = NULL;
        return;
    }
    speedqa_close(&run->ctx);
}

SqJobCache *sq_job_cache_new(void)
{
    return calloc(1, sizeof(SqJobCache));
}

void sq_job_cache_free(SqJobCache **c)
{
    if (!c || !*c)
        return;
    speedqa_close(&(*c)->ctx);
    free(*c);
    *c = NULL;
}

/* Record the thread's captured error line for stream d. */
static void stream_fail(SqJobStream *st, int code, const char *line)
{
    st->exit = code;
    if (!st->err[0])
        snprintf(st->err, sizeof st->err, "%s", line);
}

/*
 * Score n (<= LADDER_MAX) streams in one context. Returns 0, or an exit
 * code of a failure of the whole ladder (the context, a library error):
 * those leave every stream without a report; the caller decides.
 */
static int run_ladder(const SqJob *job_in, SqJobStream *const *st, int n, char *line)
{
    const CliSettings *cfg = job_in->cfg;
    LogState own_log;
    Stream s[LADDER_MAX];
    memset(s, 0, sizeof s);
    /* --model: speedqa computes the models' own features (and --feature's) */
    SqJob mjob = *job_in;
    const SqJob *job = &mjob;
    const char *mfeat[SPEEDQA_MAX_FEATURES + 1];
    char mbuf[SPEEDQA_MAX_FEATURES][400];
    Run run = { .job = job, .cfg = cfg, .n = 0, .s = s };
    const SqModel *models = job_in->models ? job_in->models : cfg->models;
    const int n_models = job_in->models ? job_in->n_models : cfg->n_models;
    const int use_vmaf = n_models || cfg->n_vmaf_features;
    if (use_vmaf) {
        const int nf = sq_model_job_features(job_in->features, models, n_models, mfeat, mbuf,
                                             SPEEDQA_MAX_FEATURES);
        if (nf < 0)
            return SQ_EXIT_USAGE;
        mjob.features = mfeat;
        run.vmaf_only = nf == 0;
    }
    stage("job start");
    int ret = open_input(&run.ref, job->ref_path, cfg);
    if (!ret)
        ret = skip_input(run.ref, job->ref_path, "--frame_skip_ref", cfg->skip_ref);
    if (ret)
        goto end;
    const SpeedqaFormat *fr = &sq_input_info(run.ref)->format;
    /* a distorted input that cannot be used fails alone */
    for (int d = 0; d < n; d++) {
        Stream *sd = &s[run.n];
        *sd = (Stream){ .st = st[d], .active = 1 };
        line[0] = '\0';
        int r = open_input(&sd->in, st[d]->path, cfg);
        if (!r)
            r = skip_input(sd->in, st[d]->path, "--frame_skip_dist", cfg->skip_dis);
        const SpeedqaFormat *fd = r ? NULL : &sq_input_info(sd->in)->format;
        if (fd && cfg->scale && fd->fmt == fr->fmt && fd->bpc == fr->bpc &&
            (fd->width != fr->width || fd->height != fr->height)) {
            r = setup_scaler(sd, fr, cfg);
            fd = r ? NULL : fr;
        }
        if (fd && !same_format(fr, fd)) {
            cli_error("%s is %dx%d %s %d-bit but %s is %dx%d %s %d-bit; they must match%s",
                      shown(job->ref_path), fr->width, fr->height, speedqa_pix_fmt_name(fr->fmt),
                      fr->bpc, shown(st[d]->path), fd->width, fd->height,
                      speedqa_pix_fmt_name(fd->fmt), fd->bpc,
                      fd->fmt == fr->fmt && fd->bpc == fr->bpc && !cfg->scale
                          ? " (--scale scales a rendition to the reference size)" : "");
            r = SQ_EXIT_INPUT;
        }
        if (r) {
            stream_fail(st[d], r, line);
            sq_input_close(&sd->in);
            sq_scaler_close(&sd->scaler);
            free(sd->sbuf);
            sd->sbuf = NULL;
            continue;
        }
        colour_check(&run, sd);
        run.n++;
    }
    line[0] = '\0';
    if (!run.n)
        goto end;
    stage("inputs open");
    if (!run.vmaf_only && (ret = get_context(&run, fr, &own_log, s[0].st->path)) != 0)
        goto end;
    stage("context open");
    for (int d = 0; use_vmaf && d < run.n; d++)
        if ((ret = sq_model_run_open(&s[d].vm, cfg, models, n_models, fr, job->threads)) != 0)
            goto end;
    const int nscores = run.ctx ? speedqa_score_count(run.ctx) : 0;
    for (int d = 0; d < run.n; d++) {
        s[d].res.nscores = nscores;
        s[d].res.subsample = cfg->subsample;
    }
    progress.on = !cfg->quiet && !job->batch && isatty(STDERR_FILENO);
    progress.t0 = progress.last = now_s();
    if (progress.on) {
        long long tr = input_frames(run.ref, job->ref_path);
        long long td = input_frames(s[0].in, s[0].st->path);
        if (tr >= 0)
            tr = tr > cfg->skip_ref ? tr - cfg->skip_ref : 0;
        if (td >= 0)
            td = td > cfg->skip_dis ? td - cfg->skip_dis : 0;
        progress.total = tr < 0 ? td : td < 0 ? tr : tr < td ? tr : td;
        if (cfg->frame_cnt > 0 && (progress.total < 0 || progress.total > cfg->frame_cnt))
            progress.total = cfg->frame_cnt;
    }
    {
        SqInput *ins[LADDER_MAX + 1];
        ins[0] = run.ref;
        for (int d = 0; d < run.n; d++)
            ins[1 + d] = s[d].scaler ? NULL : s[d].in;
        if (run.ctx && !use_vmaf) /* libvmaf reads every row */
            tell_rows_read(run.ctx, fr, ins, 1 + run.n);
        /* SPEEDQA_PIN=1: a GPU uploads mapped frames straight from the page
         * cache. Not by default: on the H200 registering the pages cost more
         * than the staging copy it saves (0.76x at 1080p, stop 30) */
        const char *pin = getenv("SPEEDQA_PIN");
        const SqPinOps ops = { pin_reg, pin_unreg, run.ctx, 0 };
        for (int i = 0; run.ctx && pin && !strcmp(pin, "1") && i < 1 + run.n; i++)
            sq_input_pin(ins[i], &ops);
    }
    const SqPrefault pf = prefault_for(&run, job);
    ret = start_reader(run.ref, &run.ref_ahead, job->threads, pf);
    for (int d = 0; !ret && d < run.n; d++)
        ret = start_reader(s[d].in, &s[d].ahead, job->threads, pf);
    if (ret)
        goto end;
    const double t0 = now_s();
    ret = score(&run);
    const double elapsed = now_s() - t0;
    stage("scored");
    if (ret) {
        progress_clear();
        goto end;
    }
    progress_update(s[0].received, 1);
    for (int d = 0; d < run.n; d++) {
        Stream *sd = &s[d];
        SqJobStream *o = sd->st;
        line[0] = '\0';
        const int read_exit = sd->read_exit ? sd->read_exit : run.ref_read_exit;
        const char *read_err = sd->read_exit ? sd->read_err : run.ref_read_err;
        if (sd->sent == 0) {
            if (read_exit)
                cli_error("%s", read_err);
            else
                cli_error("%s: no frames to score%s", shown(job->ref_path),
                          cfg->skip_ref || cfg->skip_dis ? " after skipping" : "");
            stream_fail(o, read_exit ? read_exit : SQ_EXIT_INPUT, line);
            continue;
        }
        if (cfg->frame_cnt > sd->sent && !cfg->quiet && !read_exit) {
            progress_clear();
            cli_warning("--frame_cnt %lld: the inputs have only %lld frames%s%s", cfg->frame_cnt,
                        sd->sent, run.n > 1 ? " in " : "", run.n > 1 ? shown(o->path) : "");
        }
        if (run.ctx)
            warn_undefined(&sd->res, run.ctx, cfg, o->path, run.n > 1 || job->batch);
        SqModelReport mr;
        int r = 0;
        /* speedqa's scores go to libvmaf at the end, all at once: its
         * collector then lists them after its own features on every run */
        for (size_t i = 0; sd->vm && !r && i < sd->res.n; i++)
            r = sq_model_run_import(sd->vm, run.ctx, sd->res.frame_num[i],
                                    sd->res.values + i * (size_t)nscores, nscores);
        if (sd->vm && !r)
            r = sq_model_run_report(sd->vm, sd->sent, cfg->subsample, &mr);
        if (r) {
            stream_fail(o, r, line);
            continue;
        }
        /* a stream's summary keeps the first SQ_JOB_MAX_SCORES (a model's report has more) */
        o->nscores = sd->vm ? (mr.n < SQ_JOB_MAX_SCORES ? mr.n : SQ_JOB_MAX_SCORES) : nscores;
        o->frames = sd->vm ? (long long)mr.nframes : (long long)sd->res.n;
        for (int k = 0; k < o->nscores; k++) {
            snprintf(o->names[k], sizeof o->names[k], "%s",
                     sd->vm ? mr.names[k] : speedqa_score_name(run.ctx, k));
            o->pooled[k] = sd->vm ? mr.pooled[k]
                                  : sq_report_pool(sd->res.values, sd->res.n, nscores, k);
        }
        if (!o->out && o->open_out)
            r = o->open_out(o, o->open_arg);
        if (!r && o->out)
            r = write_report(&run, sd, o->out_path,
                             elapsed > 0 ? (double)sd->sent / elapsed : INFINITY,
                             sd->vm ? &mr : NULL);
        o->written = o->out && r == 0;
        if (r == 0 && read_exit) {
            cli_error("%s", read_err);
            r = read_exit;
        }
        if (r)
            stream_fail(o, r, line);
    }
    line[0] = '\0';
    stage("reports written");
end:
    /* while the context lives: it unregisters the windows it still has */
    sq_input_unpin(run.ref);
    for (int d = 0; d < LADDER_MAX; d++)
        sq_input_unpin(s[d].in);
    put_context(&run, ret != 0);
    stage("context closed");
    sq_prefetch_stop(&run.ref_ahead);
    sq_input_close(&run.ref);
    for (int d = 0; d < LADDER_MAX; d++) {
        sq_prefetch_stop(&s[d].ahead);
        sq_input_close(&s[d].in);
        sq_scaler_close(&s[d].scaler);
        sq_model_run_close(&s[d].vm);
        free(s[d].sbuf);
        free(s[d].res.values);
        free(s[d].res.frame_num);
    }
    stage("inputs closed");
    return ret;
}

int sq_job_run(const SqJob *job, SqJobStream *st, int n)
{
    char line[1200];
    cli_capture(line, sizeof line, 0);
    for (int d = 0; d < n; d++) {
        st[d].exit = st[d].written = 0;
        st[d].err[0] = '\0';
        st[d].frames = 0;
    }
    /* GPU backends score one stream at a time; the CPU backend a ladder */
    const int lmax = job->cfg->backend == SPEEDQA_BACKEND_CPU ||
                     job->cfg->backend == SPEEDQA_BACKEND_AUTO ? LADDER_MAX : 1;
    for (int at = 0; at < n; at += lmax) {
        const int m = n - at < lmax ? n - at : lmax;
        SqJobStream *group[LADDER_MAX];
        for (int d = 0; d < m; d++)
            group[d] = &st[at + d];
        line[0] = '\0';
        int r = run_ladder(job, group, m, line);
        if (!r)
            continue;
        if (m == 1 || r == SQ_EXIT_USAGE || r == SQ_EXIT_BACKEND) {
            /* the whole job (its reference, the features, the backend) failed */
            for (int d = 0; d < m; d++)
                if (!group[d]->exit)
                    stream_fail(group[d], r, line);
            continue;
        }
        /* a failure inside the ladder: each stream on its own finds the one at fault */
        for (int d = 0; d < m; d++) {
            if (group[d]->exit)
                continue;
            line[0] = '\0';
            if ((r = run_ladder(job, &group[d], 1, line)) != 0)
                stream_fail(group[d], r, line);
        }
    }
    cli_capture(NULL, 0, 0);
    int worst = 0;
    for (int d = 0; d < n; d++) {
        if (st[d].exit > worst)
            worst = st[d].exit;
        if (st[d].exit && st[d].err[0] && !job->batch)
            cli_error("%s", st[d].err);
    }
    return worst;
}

int sq_job_read_pair(const CliSettings *cfg, const char *ref_path, const char *dis_path,
                     long long *frames, double *secs, unsigned *checksum)
{
    Stream s = { 0 };
    SqJobStream st = { .path = dis_path };
    const SqJob job = { .cfg = cfg, .ref_path = ref_path, .threads = 1 };
    Run run = { .job = &job, .cfg = cfg, .n = 1, .s = &s };
    s.st = &st;
    s.active = 1;
    *frames = 0;
    *secs = 0.0;
    int ret = open_input(&run.ref, ref_path, cfg);
    if (!ret)
        ret = open_input(&s.in, dis_path, cfg);
    if (!ret)
        ret = skip_input(run.ref, ref_path, "--frame_skip_ref", cfg->skip_ref);
    if (!ret)
        ret = skip_input(s.in, dis_path, "--frame_skip_dist", cfg->skip_dis);
    if (!ret)
        ret = start_reader(run.ref, &run.ref_ahead, 1, SQ_PREFAULT_SPARE);
    if (!ret)
        ret = start_reader(s.in, &s.ahead, 1, SQ_PREFAULT_SPARE);
    if (!ret) {
        const double t0 = now_s();
        ret = score(&run);
        *secs = now_s() - t0;
        const int rexit = s.read_exit ? s.read_exit : run.ref_read_exit;
        if (!ret && rexit) {
            cli_error("%s", s.read_exit ? s.read_err : run.ref_read_err);
            ret = rexit;
        }
        *frames = run.sent;
        *checksum = run.touched;
    }
    sq_prefetch_stop(&run.ref_ahead);
    sq_prefetch_stop(&s.ahead);
    sq_input_close(&run.ref);
    sq_input_close(&s.in);
    return ret;
}

int sq_job_read_only(const CliSettings *cfg)
{
    long long n;
    double t;
    unsigned sum = 0;
    const int ret = sq_job_read_pair(cfg, cfg->ref_path, cfg->dis_path, &n, &t, &sum);
    if (!ret)
        fprintf(stderr, "speedqa: --read-only: %lld frame pairs read in %.3f s: %.1f fps "
                "(checksum %u), nothing scored\n", n, t, t > 0 ? (double)n / t : 0.0, sum);
    return ret;
}
