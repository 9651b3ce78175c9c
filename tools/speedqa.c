/*
 * speedqa: score a distorted video against its reference with the SpEED-QA
 * features, printing vmaf-style XML, JSON or CSV. A plain client of the
 * public API (speedqa.h) and of the readers in tools/input.
 */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_parse.h"
#include "input.h"
#include "prefetch.h"
#include "output/outfile.h"
#include "output/writer.h"
#include "speedqa/speedqa.h"

/* Library messages: errors are kept for our one-line report, warnings are
 * shown (a bounded number of them) unless --quiet. */
typedef struct LogState {
    char last_error[512];
    int quiet;
    int warnings;
} LogState;

#define MAX_WARNINGS 20

/* Progress line state; warnings clear the line before printing. */
typedef struct Progress {
    int on;
    int drawn;
    double t0, last;
    long long total;    /* -1: unknown */
} Progress;

static Progress progress;

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

static void log_cb(void *cookie, SpeedqaLogLevel level, const char *msg)
{
    LogState *l = cookie;
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
    int n;
    if (final) {
        n = snprintf(line, sizeof line, "%lld frames in %.1f s (%.1f fps)", done, el, fps);
    } else if (progress.total > 0) {
        long long total = progress.total > done ? progress.total : done;
        fmt_duration(eta, sizeof eta, fps > 0 ? (double)(total - done) / fps : 0.0);
        n = snprintf(line, sizeof line, "frame %lld/%lld (%.0f%%), %.1f fps, ETA %s", done,
                     total, 100.0 * (double)done / (double)total, fps, eta);
    } else {
        n = snprintf(line, sizeof line, "frame %lld, %.1f fps", done, fps);
    }
    (void)n;
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
    int r = sq_input_open(in, path, NULL, cfg->have_raw ? &cfg->raw : NULL, err, sizeof err);
    if (r < 0) {
        cli_error("%s", err);
        return exit_for_read(r);
    }
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
            cli_error("%s: %s %lld skips past the end (it has %lld frames)",
                      strcmp(path, "-") ? path : "<stdin>", flag, n, i);
            return SQ_EXIT_INPUT;
        }
    }
    return 0;
}

static int open_context(SpeedqaContext **ctx, SpeedqaSettings *s, const CliSettings *cfg,
                        LogState *log)
{
    static const char *const backend_names[] = { "auto", "cpu", "cuda", "hip", "opencl" };
    log->last_error[0] = '\0';
    int r = speedqa_open(ctx, s);
    if (r == 0)
        return 0;
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
        if (strcmp(cfg->ref_path, cfg->dis_path) == 0)
            cli_error("%s (%dx%d %s %d-bit): %s", shown(cfg->ref_path), s->ref.width,
                      s->ref.height, speedqa_pix_fmt_name(s->ref.fmt), s->ref.bpc, msg);
        else
            cli_error("%s and %s (%dx%d %s %d-bit): %s", shown(cfg->ref_path),
                      shown(cfg->dis_path), s->ref.width, s->ref.height, speedqa_pix_fmt_name(s->ref.fmt),
                      s->ref.bpc, msg);
        return SQ_EXIT_INPUT;
    }
    default:
        cli_error("cannot open the features: %s", msg);
        return SQ_EXIT_BACKEND;
    }
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
    unsigned long long undef_frame[SPEEDQA_MAX_SCORES][UNDEF_LISTED];
    long long undef_n[SPEEDQA_MAX_SCORES];
} Results;

static int results_add(Results *res, const SpeedqaScores *sc)
{
    if (sc->frame % (unsigned long long)res->subsample)
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
    res->frame_num[res->n++] = sc->frame;
    for (int k = 0; k < res->nscores; k++)
        if (sc->undefined >> k & 1) {
            if (res->undef_n[k] < UNDEF_LISTED)
                res->undef_frame[k][res->undef_n[k]] = sc->frame;
            res->undef_n[k]++;
        }
    return 0;
}

/*
 * One warning per feature whose scores libvmaf leaves undefined on some
 * frames (NaN before the clip): the published value is the clip, as in
 * libvmaf, but the user should know which frames carry it.
 */
static void warn_undefined(const Results *res, SpeedqaContext *ctx, const CliSettings *cfg)
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
            cli_warning("%s %s undefined on %lld frame%s (%s%s): NaN before the speed_max_val "
                        "clip; the clip value is reported, as libvmaf does", which,
                        strchr(which, ',') ? "are" : "is", n, n == 1 ? "" : "s", frames,
                        n > UNDEF_LISTED ? ", ..." : "");
        }
        k += group;
    }
}

/* Errors from send/receive/flush: messages come from the logger. */
static int lib_error(int r, const LogState *log, const CliSettings *cfg, const char *what)
{
    const char *msg = log->last_error[0] ? log->last_error : speedqa_strerror(r);
    if (r == -ERANGE) {
        /* "distorted frame 3, plane U: ..." names a picture: name its file */
        static const char *const side[2] = { "reference ", "distorted " };
        for (int i = 0; i < 2; i++)
            if (!strncmp(msg, side[i], strlen(side[i]))) {
                const char *rest = msg + strlen(side[i]);
                cli_error("%s: %s%s", shown(i ? cfg->dis_path : cfg->ref_path), rest,
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

/* Receives every score that is ready (all of them after a flush). */
static int drain(SpeedqaContext *ctx, Results *res, const LogState *log, const CliSettings *cfg,
                 long long *received)
{
    SpeedqaScores sc;
    int r;
    while ((r = speedqa_receive(ctx, &sc)) == 0) {
        if (results_add(res, &sc) < 0) {
            cli_error("out of memory storing the scores");
            return SQ_EXIT_INTERNAL;
        }
        (*received)++;
    }
    return r == -EAGAIN || r == SPEEDQA_EOF ? 0 : lib_error(r, log, cfg, "scoring");
}

typedef struct Run {
    const CliSettings *cfg;
    SqInput *ref, *dis;
    SqPrefetch *ahead[2];   /* read-ahead of ref, dis; NULL: read in this thread */
    SpeedqaContext *ctx;
    LogState *log;
    Results res;
    long long sent, received;
    unsigned touched;       /* --read-only: a sum that keeps the reads */
    /* A read that failed after some frames were scored: the report of the
     * complete frames is still written, then this error is printed. */
    int read_exit;
    char read_err[1100];
} Run;

/*
 * One input ended before the other: like vmaf, score the frames both have.
 * The longer one is never read on (it may not end at all: a pipe, a device).
 */
static void counts_differ(Run *run, int ref_ended)
{
    const CliSettings *cfg = run->cfg;
    if (cfg->quiet)
        return;
    SqInput *longer = ref_ended ? run->dis : run->ref;
    const char *lpath = ref_ended ? cfg->dis_path : cfg->ref_path;
    long long skip = ref_ended ? cfg->skip_dis : cfg->skip_ref;
    long long n = input_frames(longer, lpath);
    char more[64];
    if (n >= 0 && n - skip > run->sent)
        snprintf(more, sizeof more, "%lld frames%s", n - skip, skip ? " after skipping" : "");
    else
        snprintf(more, sizeof more, "more frames");
    progress_clear();
    cli_warning("frame counts differ: %s ends after %lld frames%s, %s has %s; "
                "scored the %lld frames both have", shown(ref_ended ? cfg->ref_path : cfg->dis_path),
                run->sent, (ref_ended ? cfg->skip_ref : cfg->skip_dis) ? " after skipping" : "",
                shown(lpath), more, run->sent);
}

/* A lent frame that will not be sent (or whose send failed) goes back; twice is harmless. */
static void give_back(int r, const SpeedqaPicture *pic)
{
    if (r == 1 && pic->release)
        pic->release(pic->release_opaque, pic->data[0]);
}

/* Frame of input i (0 ref, 1 dis): from its read-ahead thread when it has one. */
static int next_frame(Run *run, int i, SpeedqaPicture *pic, char *err, size_t errlen)
{
    if (run->ahead[i])
        return sq_prefetch_next(run->ahead[i], pic, err, errlen);
    return sq_input_read(i ? run->dis : run->ref, pic, err, errlen);
}

static int score(Run *run)
{
    char err[1100];
    const CliSettings *cfg = run->cfg;
    for (;;) {
        if (cfg->frame_cnt >= 0 && run->sent == cfg->frame_cnt)
            break;
        SpeedqaPicture pr, pd;
        int rr = next_frame(run, 0, &pr, err, sizeof err);
        /* the distorted side is only read while the reference has frames */
        int rd = rr == 1 ? next_frame(run, 1, &pd, err, sizeof err) : 0;
        if (rr < 0 || rd < 0) {
            run->read_exit = exit_for_read(rr < 0 ? rr : rd);
            snprintf(run->read_err, sizeof run->read_err, "%s", err);
            give_back(rr, &pr);
            give_back(rd, &pd);
            break;
        }
        if (rr == 0) {
            /* ref ended: does dis end here too? one read tells */
            rd = next_frame(run, 1, &pd, err, sizeof err);
            if (rd == 1)
                counts_differ(run, 1);
            give_back(rd, &pd);
            break;
        }
        if (rd == 0) {
            counts_differ(run, 0);
            give_back(rr, &pr);
            break;
        }

        int r;
        if (!run->ctx) {
            /* --read-only: what scoring would read, and nothing more */
            run->touched += sq_input_touch(&pr) + sq_input_touch(&pd);
            give_back(1, &pr);
            give_back(1, &pd);
            run->sent++;
            continue;
        }
        run->log->last_error[0] = '\0';
        while ((r = speedqa_send(run->ctx, &pr, &pd)) == -EAGAIN) {
            /* queue full: receive blocks until a frame is done */
            SpeedqaScores sc;
            r = speedqa_receive(run->ctx, &sc);
            if (r < 0 && r != -EAGAIN) {
                give_back(1, &pr);
                give_back(1, &pd);
                return lib_error(r, run->log, run->cfg, "scoring");
            }
            if (r == -EAGAIN) {
                /* receive should block when the queue is full; don't spin if not */
                const struct timespec ms = { 0, 1000000 };
                nanosleep(&ms, NULL);
            } else {
                if (results_add(&run->res, &sc) < 0) {
                    give_back(1, &pr);
                    give_back(1, &pd);
                    cli_error("out of memory storing the scores");
                    return SQ_EXIT_INTERNAL;
                }
                run->received++;
            }
        }
        if (r < 0) {
            /* not taken, or given back already: either way it is ours again */
            give_back(1, &pr);
            give_back(1, &pd);
            return lib_error(r, run->log, run->cfg, "scoring");
        }
        run->sent++;
        if ((r = drain(run->ctx, &run->res, run->log, run->cfg, &run->received)) != 0)
            return r;
        progress_update(run->received, 0);
    }
    if (!run->ctx)
        return 0;
    int r = speedqa_flush(run->ctx);
    if (r < 0)
        return lib_error(r, run->log, run->cfg, "scoring");
    if ((r = drain(run->ctx, &run->res, run->log, run->cfg, &run->received)) != 0)
        return r;
    if (run->received != run->sent) {
        cli_error("the library returned %lld of %lld frames", run->received, run->sent);
        return SQ_EXIT_INTERNAL;
    }
    if (run->sent == 0 && run->read_exit) {
        cli_error("%s", run->read_err);
        return run->read_exit;
    }
    if (run->sent == 0) {
        cli_error("%s: no frames to score%s", shown(cfg->ref_path),
                  cfg->skip_ref || cfg->skip_dis ? " after skipping" : "");
        return SQ_EXIT_INPUT;
    }
    if (cfg->frame_cnt > run->sent && !cfg->quiet && !run->read_exit) {
        progress_clear();
        cli_warning("--frame_cnt %lld: the inputs have only %lld frames", cfg->frame_cnt, run->sent);
    }
    return 0;
}

static const SqWriter *pick_writer(const CliSettings *cfg)
{
    if (cfg->format)
        return sq_writer_by_name(cfg->format);
    const SqWriter *w = cfg->output_path ? sq_writer_by_path(cfg->output_path) : NULL;
    return w ? w : &sq_writer_xml;
}

static int write_report(Run *run, FILE *out, double fps)
{
    const CliSettings *cfg = run->cfg;
    const int n = speedqa_score_count(run->ctx);
    const char *names[SPEEDQA_MAX_SCORES];
    SqPooled pooled[SPEEDQA_MAX_SCORES];
    for (int k = 0; k < n; k++) {
        names[k] = speedqa_score_name(run->ctx, k);
        pooled[k] = sq_report_pool(run->res.values, run->res.n, n, k);
    }
    const SpeedqaFormat *f = &sq_input_info(run->ref)->format;
    const SqReport rep = {
        .version = speedqa_version(),
        .width = f->width,
        .height = f->height,
        .fps = fps,
        .precision_max = cfg->precision_max,
        .nscores = n,
        .names = names,
        .nframes = run->res.n,
        .frame_num = run->res.frame_num,
        .values = run->res.values,
        .pooled = pooled,
    };
    const char *oname = cfg->output_path ? cfg->output_path : "<stdout>";
    errno = 0;
    int r = pick_writer(cfg)->write(out, &rep);
    if (r == 0 && fflush(out) != 0)
        r = -1;
    if (r < 0) {
        /* a reader that went away (| head) wanted no more: end quietly */
        if (errno != EPIPE)
            cli_error("%s: write failed: %s", oname, errno ? strerror(errno) : "I/O error");
        return SQ_EXIT_OUTPUT;
    }
    return 0;
}

/*
 * Full-range samples scored against limited-range ones (a yuvj source, a
 * TV-range encode) differ everywhere for reasons that are not coding loss;
 * the scores are still what libvmaf gives, so warn, not refuse.
 */
static void colour_check(const Run *run)
{
    static const char *const rn[] = { "unknown", "limited", "full" };
    const SqInputInfo *a = sq_input_info(run->ref), *b = sq_input_info(run->dis);
    if (run->cfg->quiet)
        return;
    if (a->range && b->range && a->range != b->range)
        cli_warning("colour ranges differ: %s is %s range, %s is %s range; the samples are "
                    "compared as they are", shown(run->cfg->ref_path), rn[a->range],
                    shown(run->cfg->dis_path), rn[b->range]);
    if (a->matrix != 2 && b->matrix != 2 && a->matrix != b->matrix)
        cli_warning("colour matrices differ: %s has matrix %d, %s has matrix %d (ISO/IEC "
                    "23091-2 codes); the samples are compared as they are",
                    shown(run->cfg->ref_path), a->matrix, shown(run->cfg->dis_path), b->matrix);
}

/*
 * A mapped input is lent to the library frame by frame, no thread needed;
 * any other is read on its own thread, a few frames ahead of the scoring.
 */
static int start_readers(Run *run, int threads)
{
    if (sq_input_mapped(run->ref) || sq_input_mapped(run->dis))
        sq_outfile_exit_on(SIGBUS, "speedqa: error: an input file shrank while it was being "
                           "read (SIGBUS); no report written\n", SQ_EXIT_INPUT);
    /* the pages of the next frames are mapped ahead on a core the workers leave free */
    const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 0; i < 2; i++) {
        char perr[200];
        if (sq_input_mapped(i ? run->dis : run->ref)) {
            sq_input_lend(i ? run->dis : run->ref);
            sq_input_prefault(i ? run->dis : run->ref, ncpu > threads);
            continue;
        }
        /* enough buffers for the frames the library holds and a few ahead */
        const int depth = 2 * threads + 6;
        const int pr = sq_prefetch_start(&run->ahead[i], i ? run->dis : run->ref, depth, perr,
                                         sizeof perr);
        if (pr < 0 && pr != -ENOTSUP) {
            cli_error("%s", perr);
            return SQ_EXIT_INTERNAL;
        }
    }
    return 0;
}

/* --read-only: the inputs read (lent frames given back at once), nothing scored. */
static int read_only(Run *run)
{
    int ret = start_readers(run, 1);
    if (ret)
        return ret;
    const double t0 = now_s();
    ret = score(run);
    const double t = now_s() - t0;
    if (!ret && run->read_exit) {
        cli_error("%s", run->read_err);
        return run->read_exit;
    }
    if (!ret)
        fprintf(stderr, "speedqa: --read-only: %lld frame pairs read in %.3f s: %.1f fps "
                "(checksum %u), nothing scored\n", run->sent, t,
                t > 0 ? (double)run->sent / t : 0.0, run->touched);
    return ret;
}

/* *written: the whole report went to out (even if a read error follows). */
static int run_all(const CliSettings *cfg, FILE *out, int *written)
{
    *written = 0;
    LogState log = { "", cfg->quiet, 0 };
    Run run = { .cfg = cfg, .log = &log };
    int ret = open_input(&run.ref, cfg->ref_path, cfg);
    if (!ret)
        ret = open_input(&run.dis, cfg->dis_path, cfg);
    if (!ret)
        ret = skip_input(run.ref, cfg->ref_path, "--frame_skip_ref", cfg->skip_ref);
    if (!ret)
        ret = skip_input(run.dis, cfg->dis_path, "--frame_skip_dist", cfg->skip_dis);
    if (ret)
        goto end;

    const SpeedqaFormat *fr = &sq_input_info(run.ref)->format;
    const SpeedqaFormat *fd = &sq_input_info(run.dis)->format;
    if (fr->width != fd->width || fr->height != fd->height || fr->fmt != fd->fmt ||
        fr->bpc != fd->bpc) {
        cli_error("%s is %dx%d %s %d-bit but %s is %dx%d %s %d-bit; they must match",
                  shown(cfg->ref_path), fr->width, fr->height, speedqa_pix_fmt_name(fr->fmt), fr->bpc,
                  shown(cfg->dis_path), fd->width, fd->height, speedqa_pix_fmt_name(fd->fmt), fd->bpc);
        ret = SQ_EXIT_INPUT;
        goto end;
    }

    colour_check(&run);

    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.ref = *fr;
    s.dis = *fd;
    s.features = cfg->n_features ? cfg->features : NULL;
    /* More workers than cores cannot help, and each keeps frame copies in flight. */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    s.n_threads = ncpu > 0 && (cfg->threads == 0 || cfg->threads > ncpu) ? (int)ncpu : cfg->threads;
    s.backend = cfg->backend;
    s.device = cfg->device;
    s.cpu_mask = cfg->cpu_mask;
    s.device_name = cfg->device_name;
    s.logger = log_cb;
    s.log_cookie = &log;
    if (cfg->read_only) {
        ret = read_only(&run);
        goto end;
    }
    if ((ret = open_context(&run.ctx, &s, cfg, &log)) != 0)
        goto end;
    if (cfg->backend == SPEEDQA_BACKEND_AUTO && !cfg->quiet)
        fprintf(stderr, "speedqa: --backend auto: using the %s backend\n",
                speedqa_backend_name(run.ctx));

    run.res.nscores = speedqa_score_count(run.ctx);
    run.res.subsample = cfg->subsample;
    progress.on = !cfg->quiet && isatty(STDERR_FILENO);
    progress.t0 = progress.last = now_s();
    long long tr = input_frames(run.ref, cfg->ref_path);
    long long td = input_frames(run.dis, cfg->dis_path);
    if (tr >= 0)
        tr = tr > cfg->skip_ref ? tr - cfg->skip_ref : 0;
    if (td >= 0)
        td = td > cfg->skip_dis ? td - cfg->skip_dis : 0;
    progress.total = tr < 0 ? td : td < 0 ? tr : tr < td ? tr : td;
    if (cfg->frame_cnt > 0 && (progress.total < 0 || progress.total > cfg->frame_cnt))
        progress.total = cfg->frame_cnt;

    if ((ret = start_readers(&run, s.n_threads)) != 0)
        goto end;
    const double t0 = now_s();
    ret = score(&run);
    const double elapsed = now_s() - t0;
    if (ret) {
        progress_clear();
        goto end;
    }
    progress_update(run.received, 1);
    warn_undefined(&run.res, run.ctx, cfg);
    ret = write_report(&run, out, elapsed > 0 ? (double)run.sent / elapsed : INFINITY);
    *written = ret == 0;
    if (ret == 0 && run.read_exit) {
        cli_error("%s", run.read_err);
        ret = run.read_exit;
    }

end:
    speedqa_close(&run.ctx);
    sq_prefetch_stop(&run.ahead[0]);
    sq_prefetch_stop(&run.ahead[1]);
    sq_input_close(&run.ref);
    sq_input_close(&run.dis);
    free(run.res.values);
    free(run.res.frame_num);
    return ret;
}

int main(int argc, char **argv)
{
    /* A closed stdout must give a write error (exit 5), not a signal. */
    signal(SIGPIPE, SIG_IGN);
    CliSettings cfg;
    int ret = cli_parse(&cfg, argc, argv);
    if (ret == SQ_EXIT_OK)
        return cli_finish_stdout();
    if (ret >= 0)
        return ret;

    /* Checked before anything is opened for writing: writing would
     * destroy the input before it is read. */
    const char *inputs[2] = { cfg.ref_path, cfg.dis_path };
    if (cfg.output_path && sq_outfile_is_input(cfg.output_path, inputs, 2)) {
        cli_error("%s: the output file is one of the inputs; refusing to overwrite it",
                  cfg.output_path);
        return SQ_EXIT_USAGE;
    }
    if (!cfg.output_path && sq_outfile_is_input("/dev/stdout", inputs, 2)) {
        cli_error("standard output is one of the inputs; refusing to write the report there");
        return SQ_EXIT_USAGE;
    }
    SqOutFile of = { 0 };
    FILE *out = stdout;
    char err[1200];
    if (cfg.output_path) {
        if (sq_outfile_open(&of, cfg.output_path, err, sizeof err) < 0) {
            cli_error("%s", err);
            return SQ_EXIT_OUTPUT;
        }
        out = of.f;
    }
    int written;
    ret = run_all(&cfg, out, &written);
    if (!cfg.output_path)
        return ret;
    /* a report of the complete frames before a read error is kept (exit 3) */
    if (written) {
        int c = sq_outfile_commit(&of, err, sizeof err);
        if (c < 0) {
            if (c != -EPIPE)
                cli_error("%s", err);
            if (ret == 0)
                ret = SQ_EXIT_OUTPUT;
        }
    } else {
        sq_outfile_abort(&of);
    }
    return ret;
}
