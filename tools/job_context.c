/*
 * The library context of a scoring job: its settings and logger, the one
 * line that says why it did not open, and the context a batch keeps from
 * one job to the next of the same shape. Apart from the loop so that the
 * rules of opening and reusing a context read in one place.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_priv.h"

struct SqJobCache {
    SpeedqaContext *ctx;
    LogState log;
    SpeedqaSettings s;  /* what ctx was opened with (features compared by value) */
    char feat[SPEEDQA_MAX_FEATURES + 1][400];
};

/* SPEEDQA_TIMES=1: a stderr line at each stage of a job, with the
 * library's debug lines (a GPU backend's start-up and close split), for
 * finding where a short job's fixed time goes. */
static int times_on(void)
{
    const char *e = getenv("SPEEDQA_TIMES");
    return e && *e && strcmp(e, "0") != 0;
}

void sq_job_stage(const char *what)
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
        sq_job_stage(msg);
        return;
    }
    if (level == SPEEDQA_LOG_ERROR) {
        snprintf(l->last_error, sizeof l->last_error, "%s", msg);
        return;
    }
    if (l->quiet || level > SPEEDQA_LOG_WARNING)
        return;
    sq_job_progress_clear();
    if (l->warnings < MAX_WARNINGS)
        cli_warning("%s", msg);
    else if (l->warnings == MAX_WARNINGS)
        cli_warning("further library warnings are not shown");
    l->warnings++;
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
    case ENOTSUP:
    case EEXIST:
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
int sq_job_get_context(Run *run, const SpeedqaFormat *f, LogState *own_log, const char *dis_path)
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
void sq_job_put_context(Run *run, int failed)
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
