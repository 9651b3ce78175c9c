/*
 * The loop of a scoring job: frames read, sent to the library and their
 * scores received and kept, with the progress line it draws. Its own file
 * because it is what changes with the library's send and receive calls.
 */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "job_priv.h"

/* Progress line of a single job on a terminal (never in a batch). */
typedef struct Progress {
    int on;
    int drawn;
    double t0, last;
    long long total;    /* -1: unknown */
} Progress;

static Progress progress;

void sq_job_progress_clear(void)
{
    if (progress.drawn) {
        fputs("\r\033[K", stderr);
        progress.drawn = 0;
    }
}

static void fmt_duration(char *buf, size_t len, double s)
{
    long long t = (long long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%lld:%02lld", t / 60, t % 60);
}

void sq_job_progress_update(long long done, int final)
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

/* The job that drew it is done: a later job in this process (a batch's
 * threads) finds the line off. */
void sq_job_progress_stop(void)
{
    if (progress.on) /* (a batch's threads only read it) */
        progress.on = 0;
}

/* The progress line's total: the frames both inputs have, as far as known. */
void sq_job_progress_start(const Run *run)
{
    const SqJob *job = run->job;
    const CliSettings *cfg = run->cfg;
    const Stream *s = run->s;
    /* One line on the one terminal, drawn by a single job's thread only: a
     * batch's jobs (threads of their own) never write this state. */
    if (cfg->quiet || job->batch || !isatty(STDERR_FILENO))
        return;
    progress.on = 1;
    progress.t0 = progress.last = now_s();
    {
        long long tr = sq_job_input_frames(run->ref, job->ref_path);
        long long td = sq_job_input_frames(s[0].in, s[0].st->path);
        if (tr >= 0)
            tr = tr > cfg->skip_ref ? tr - cfg->skip_ref : 0;
        if (td >= 0)
            td = td > cfg->skip_dis ? td - cfg->skip_dis : 0;
        progress.total = tr < 0 ? td : td < 0 ? tr : tr < td ? tr : td;
        if (cfg->frame_cnt > 0 && (progress.total < 0 || progress.total > cfg->frame_cnt))
            progress.total = cfg->frame_cnt;
    }
}

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
            sq_job_stage("first frame scored");
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
static void counts_differ(const Run *run, Stream *s, int ref_ended)
{
    const CliSettings *cfg = run->cfg;
    if (s->sent == 0) {
        /* nothing scored: the report's one error line names the empty input */
        s->empty = ref_ended ? run->job->ref_path : s->st->path;
        return;
    }
    if (cfg->quiet)
        return;
    SqInput *longer = ref_ended ? s->in : run->ref;
    const char *lpath = ref_ended ? s->st->path : run->job->ref_path;
    long long skip = ref_ended ? cfg->skip_dis : cfg->skip_ref;
    long long n = sq_job_input_frames(longer, lpath);
    char more[64];
    if (n >= 0 && n - skip > s->sent)
        snprintf(more, sizeof more, "%lld frames%s", n - skip, skip ? " after skipping" : "");
    else
        snprintf(more, sizeof more, "more frames");
    sq_job_progress_clear();
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

/* --model: libvmaf reads host memory; a frame NVDEC decoded goes to it
 * through a host copy (the reference's once per frame: the copy stays
 * valid until the reference's next one). */
static int model_send(Run *run, Stream *s, const SpeedqaPicture *pr, const SpeedqaPicture *pd)
{
    SpeedqaPicture hr, hd;
    char err[1024];
    if (pr->memory != SPEEDQA_MEM_HOST && run->ref_host_sent != run->sent + 1) {
        if (sq_input_host_copy(run->ref, pr, &run->ref_host, err, sizeof err) < 0) {
            cli_error("%s", err);
            return SQ_EXIT_INPUT;
        }
        run->ref_host_sent = run->sent + 1;
    }
    hr = pr->memory != SPEEDQA_MEM_HOST ? run->ref_host : *pr;
    if (sq_input_host_copy(s->in, pd, &hd, err, sizeof err) < 0) {
        cli_error("%s", err);
        return SQ_EXIT_INPUT;
    }
    return sq_model_run_send(s->vm, &hr, &hd, s->sent);
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
    sq_job_progress_clear();
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

/*
 * The distorted frames that go with the reference's (rr: its read's
 * result; with dis_first, stream 0's is read already): a stream that ends,
 * fails or outlives the reference stops. Returns the streams with a frame.
 */
static int read_distorted(Run *run, int rr, int dis_first, int *rd, SpeedqaPicture *pd)
{
    int live = 0;
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
    return live;
}

int sq_job_score(Run *run)
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
        live = read_distorted(run, rr, dis_first, rd, pd);
        if (!live) {
            give_back_all(run, rr, &pr, rd, pd);
            break;
        }
        for (int d = 0; d < run->n; d++) {
            const int take = rd[d] == 1 && sq_model_run_pictures(run->s[d].vm);
            int r = take ? model_send(run, &run->s[d], &pr, &pd[d]) : 0;
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
                sq_job_progress_update(run->s[0].received, 0);
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
        sq_job_progress_update(run->s[0].received, 0);
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
