/*
 * --batch (batch.h). Pairs are grouped by reference, features and models and each
 * group cut into chunks of at most a ladder (batch_plan.c); a chunk is one
 * job (a ladder on the CPU backend), chunks run on worker threads (CPU: up
 * to --threads at once, each with a share of the threads; a GPU backend:
 * one worker whose context is kept from pair to pair, so the device
 * start-up is paid once; with --hwaccel, HW_WORKERS per device, so that
 * that many pairs decode on NVDEC at once). A chunk's result lines are
 * written and flushed as soon as it ends (results.c), so an interrupted
 * batch keeps them and can be resumed; a chunk's reports are open only
 * while the job writes them.
 */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "batch_plan.h"
#include "batch_priv.h"
#include "job.h"
#include "manifest.h"
#include "output/outfile.h"
#include "results.h"

/* --hwaccel: pairs at once per GPU. A worker decodes its pair's two inputs
 * on read-ahead threads and scores on its own context (own streams, one
 * primary context): with one worker per GPU the decoders would wait for
 * each other's scoring, with four NVDEC's engines stay fed. */
#define HW_WORKERS 4

/* --read-only: read or decode the chunk's pairs on this worker, score nothing
 * (the floor of the same batch, workers and decoders scored). */
static void read_task(Batch *b, const SqTask *t, const CliSettings *cfg)
{
    for (int i = 0; i < t->n; i++) {
        const SqPair *p = &b->pairs[b->order[t->first + i]];
        long long n;
        double secs;
        unsigned sum;
        const int r = sq_job_read_pair(cfg, p->ref, p->dis, &n, &secs, &sum);
        pthread_mutex_lock(&b->mu);
        b->frames_read += n;
        if (r) {
            b->nfailed++;
            if (r > b->failed)
                b->failed = r;
        }
        pthread_mutex_unlock(&b->mu);
    }
}

/* Under mu: the chunk's lines, as soon as the chunk is done. */
static void finish_task(Batch *b, const SqTask *t, const SqJobStream *st)
{
    for (int i = 0; i < t->n; i++) {
        const SqPair *p = &b->pairs[b->order[t->first + i]];
        char *l = st ? sq_results_line(p, &st[i], b->settings, b->cfg->precision_max) : NULL;
        const int ex = st && l ? st[i].exit : SQ_EXIT_INTERNAL;
        sq_batch_take_line(b, b->order[t->first + i], l);
        if (ex) {
            b->nfailed++;
            if (ex > b->failed)
                b->failed = ex;
        } else {
            b->frames += st[i].frames;
        }
        b->done++;
    }
    sq_batch_progress(b);
}

/* The job opens a pair's report only once the pair is scored (open_out):
 * a batch holds few files at once, whatever the size of a group. */
static int open_report(SqJobStream *st, void *arg)
{
    SqOutFile *of = arg;
    char err[1200];
    if (sq_outfile_open(of, st->out_path, err, sizeof err) < 0) {
        snprintf(st->err, sizeof st->err, "%s", err);
        return SQ_EXIT_OUTPUT;
    }
    st->out = of->f;
    return 0;
}

/* A report whose folder cannot take a new file fails its pair alone,
 * before the chunk is scored (one access() instead of creating it). */
static int report_folder_ok(const char *path, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if ((size_t)(slash - path) + 2 > sizeof dir)
        return 1; /* too long to check here: the open says why */
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path) + 1, path);
    if (access(dir, W_OK | X_OK) == 0)
        return 1;
    const int e = errno;
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
        return 1; /* a device or FIFO: written in place */
    snprintf(err, errlen, "%s: cannot create the output file: %s", path, strerror(e));
    return 0;
}

static void open_reports(const SqTask *t, const Batch *b, SqJobStream *st, SqOutFile *of)
{
    for (int i = 0; i < t->n; i++) {
        const SqPair *p = &b->pairs[b->order[t->first + i]];
        st[i].path = p->dis;
        if (!p->output)
            continue;
        if (!report_folder_ok(p->output, st[i].err, sizeof st[i].err)) {
            st[i].exit = SQ_EXIT_OUTPUT;
            continue;
        }
        st[i].out_path = p->output;
        st[i].open_out = open_report;
        st[i].open_arg = &of[i];
    }
}

/* Score one chunk (at most a ladder's worth of one group): its reports are
 * open only while it runs, so a batch holds few files at once. */
static void run_task(Batch *b, const SqTask *t, SqJobCache *cache, const CliSettings *cfg)
{
    if (cfg->read_only) {
        read_task(b, t, cfg);
        return;
    }
    SqJobStream *st = calloc((size_t)t->n, sizeof *st);
    SqJobStream *runst = calloc((size_t)t->n, sizeof *runst);
    SqOutFile *of = calloc((size_t)t->n, sizeof *of);
    int *run_idx = calloc((size_t)t->n, sizeof *run_idx), nrun = 0;
    if (!st || !runst || !of || !run_idx) {
        pthread_mutex_lock(&b->mu);
        finish_task(b, t, NULL);
        pthread_mutex_unlock(&b->mu);
        goto end;
    }
    open_reports(t, b, st, of);
    for (int i = 0; i < t->n; i++)
        if (!st[i].exit)
            runst[nrun] = st[i], run_idx[nrun++] = i;
    if (nrun) {
        const SqPair *p0 = &b->pairs[b->order[t->first]];
        SqJob job = { .cfg = cfg, .ref_path = p0->ref,
                      .features = p0->nfeat ? (const char *const *)p0->features : NULL,
                      .threads = b->threads_each, .batch = 1, .cache = cache };
        /* a chunk's pairs share their models (batch_plan.c groups by them) */
        job.models = sq_batch_models_of(&b->models, b->order[t->first], &job.n_models);
        sq_job_run(&job, runst, nrun);
        for (int k = 0; k < nrun; k++)
            st[run_idx[k]] = runst[k];
    }
    for (int i = 0; i < t->n; i++) {
        if (!of[i].f)
            continue;
        char err[1200];
        if (!st[i].written || (st[i].exit && of[i].existed)) {
            sq_outfile_abort(&of[i]); /* as outside --batch: a failed pair keeps an old report */
        } else if (sq_outfile_commit(&of[i], err, sizeof err) < 0) {
            if (!st[i].exit) {
                st[i].exit = SQ_EXIT_OUTPUT;
                snprintf(st[i].err, sizeof st[i].err, "%s", err);
            }
        }
    }
    pthread_mutex_lock(&b->mu);
    finish_task(b, t, st);
    pthread_mutex_unlock(&b->mu);
end:
    free(run_idx);
    free(runst);
    free(st);
    free(of);
}

static void *worker(void *arg)
{
    Batch *b = arg;
    SqJobCache *cache = sq_job_cache_new();
    pthread_mutex_lock(&b->mu);
    const CliSettings *cfg = b->dev_cfg ? &b->dev_cfg[b->next_worker % b->ndev] : b->cfg;
    b->next_worker++;
    pthread_mutex_unlock(&b->mu);
    for (;;) {
        pthread_mutex_lock(&b->mu);
        const int t = b->next_task < b->ntasks ? b->next_task++ : -1;
        pthread_mutex_unlock(&b->mu);
        if (t < 0)
            break;
        run_task(b, &b->task[t], cache, cfg);
    }
    sq_job_cache_free(&cache);
    return NULL;
}

/* Workers and threads each, for the backend and the tasks. */
static int plan_workers(Batch *b)
{
    const CliSettings *cfg = b->cfg;
    const int threads = sq_cli_threads(cfg) > 0 ? sq_cli_threads(cfg) : 1;
    const int gpu = cfg->backend != SPEEDQA_BACKEND_CPU && cfg->backend != SPEEDQA_BACKEND_AUTO;
    /* a GPU backend: one worker (one context) per device used */
    int ngpu = 1;
    if (gpu && cfg->device_all) {
        char list[8192];
        ngpu = speedqa_list_devices(cfg->backend, list, sizeof list);
        if (ngpu < 1)
            ngpu = 1; /* opening the first one says why there is none */
        if (ngpu > b->ntasks && b->ntasks > 0)
            ngpu = b->ntasks;
        if (!(b->dev_cfg = calloc((size_t)ngpu, sizeof *b->dev_cfg)))
            return -1;
        for (int g = 0; g < ngpu; g++) {
            b->dev_cfg[g] = *cfg;
            b->dev_cfg[g].device = g;
            b->dev_cfg[g].device_name = NULL;
        }
    }
    b->ndev = ngpu;
    b->workers = gpu ? ngpu : threads < b->ntasks ? threads : b->ntasks > 0 ? b->ntasks : 1;
    b->threads_each = gpu ? threads : threads / b->workers > 0 ? threads / b->workers : 1;
    if (gpu && cfg->hwaccel) {
        /* SPEEDQA_HW_WORKERS (1..64) overrides, for measuring */
        const char *env = getenv("SPEEDQA_HW_WORKERS");
        const int per = env && atoi(env) >= 1 && atoi(env) <= 64 ? atoi(env) : HW_WORKERS;
        const int want = ngpu * per;
        b->workers = want < b->ntasks ? want : b->ntasks > 0 ? b->ntasks : 1;
        b->threads_each = threads / per > 0 ? threads / per : 1;
    }
    return 0;
}

/*
 * Where the lines go. A new file (or one resumed whose every line is kept)
 * is written line by line, so an interrupted batch keeps what it did; an
 * existing file is replaced only once the batch is done (temp + rename).
 * The file is locked first: a second batch on it is refused.
 */
static int open_results(Batch *b, SqOutFile *of, int *direct, int *lockfd)
{
    const CliSettings *cfg = b->cfg;
    const char *path = cfg->output_path;
    char err[1200];
    *direct = 0;
    if (cfg->batch_only) /* a subset's lines go to batch_lines at the end, in its order */
        return 0;
    if (!path) {
        b->out = stdout;
        return 0;
    }
    struct stat sb;
    const int exists = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
    if ((*lockfd = sq_results_lock(path)) == -1) {
        if (errno == EWOULDBLOCK)
            cli_error("%s: another batch is writing these results; refusing to write them too",
                      path);
        else
            cli_error("%s: cannot write the results: %s", path, strerror(errno));
        return SQ_EXIT_OUTPUT;
    }
    int all_kept = 1;
    long long keep_bytes = 0;
    if (cfg->resume) {
        const int r = sq_results_resume(path, b->pairs, b->npairs, b->settings, b->kept,
                                        &all_kept, &keep_bytes);
        if (r < 0) {
            cli_error("%s: cannot read the results to resume: %s", path, strerror(-r));
            return r == -ENOMEM ? SQ_EXIT_INTERNAL : SQ_EXIT_OUTPUT;
        }
    }
    *direct = !exists || (cfg->resume && all_kept);
    if (*direct) {
        if (exists && truncate(path, (off_t)keep_bytes) != 0) {
            cli_error("%s: cannot resume: %s", path, strerror(errno));
            return SQ_EXIT_OUTPUT;
        }
        if (!(b->out = fopen(path, "a"))) {
            cli_error("%s: cannot write the results: %s", path, strerror(errno));
            return SQ_EXIT_OUTPUT;
        }
        return 0;
    }
    if (sq_outfile_open(of, path, err, sizeof err) < 0) {
        cli_error("%s", err);
        return SQ_EXIT_OUTPUT;
    }
    b->out = of->f;
    for (int i = 0; i < b->npairs; i++) /* a rebuilt file starts with the kept lines */
        if (b->kept[i])
            sq_batch_write_line(b, b->kept[i]);
    return 0;
}

/* Flushes and closes the results; 0 or SQ_EXIT_OUTPUT (its line printed). */
static int close_results(Batch *b, SqOutFile *of, int direct)
{
    const CliSettings *cfg = b->cfg;
    char err[1200];
    int ret = 0;
    if (cfg->batch_only) /* no results file: the lines go to batch_lines */
        return 0;
    if (b->out == stdout) {
        if (fflush(stdout) != 0 && !b->write_failed)
            b->write_failed = errno ? errno : EIO;
    } else if (direct) {
        if ((fflush(b->out) != 0 || fsync(fileno(b->out)) != 0) && errno != EINVAL &&
            !b->write_failed)
            b->write_failed = errno ? errno : EIO;
        if (fclose(b->out) != 0 && !b->write_failed)
            b->write_failed = errno ? errno : EIO;
    } else if (b->write_failed) {
        sq_outfile_abort(of);
    } else if (sq_outfile_commit(of, err, sizeof err) < 0) {
        cli_error("%s", err);
        ret = SQ_EXIT_OUTPUT;
    }
    b->out = NULL;
    struct stat sb;
    if (!ret && !b->write_failed && cfg->output_path && stat(cfg->output_path, &sb) == 0 &&
        S_ISREG(sb.st_mode) &&
        sq_results_order(cfg->output_path, b->kept, b->line, b->npairs, err, sizeof err) < 0) {
        cli_error("%s", err);
        ret = SQ_EXIT_OUTPUT;
    }
    if (b->write_failed) {
        if (b->write_failed != EPIPE)
            cli_error("%s: write failed: %s", cfg->output_path ? cfg->output_path : "<stdout>",
                      strerror(b->write_failed));
        ret = SQ_EXIT_OUTPUT;
    }
    return ret;
}

static void run_workers(Batch *b)
{
    enum { MAX_WORKERS = 1024 };
    pthread_t *tid = calloc(MAX_WORKERS, sizeof *tid);
    int started = 0;
    for (int w = 1; tid && w < b->workers && w < MAX_WORKERS; w++)
        if (pthread_create(&tid[started], NULL, worker, b) == 0)
            started++;
    worker(b);
    for (int w = 0; w < started; w++)
        pthread_join(tid[w], NULL);
    free(tid);
}

int sq_batch_run(const CliSettings *cfg)
{
    char err[1200];
    Batch b = { .cfg = cfg };
    SqOutFile of = { 0 };
    int direct = 0, lockfd = -2;
    pthread_mutex_init(&b.mu, NULL);
    int ret = 0;
    if (sq_manifest_load(cfg->batch_path, &b.pairs, &b.npairs, err, sizeof err) < 0) {
        cli_error("%s", err);
        pthread_mutex_destroy(&b.mu);
        return SQ_EXIT_USAGE;
    }
    if (cfg->batch_only &&
        sq_manifest_select(&b.pairs, &b.npairs, cfg->batch_only, cfg->batch_nonly, err,
                           sizeof err) < 0) {
        cli_error("%s", err);
        ret = SQ_EXIT_USAGE;
        goto end;
    }
    if ((ret = sq_batch_check(cfg, b.pairs, b.npairs)) != 0 ||
        (ret = sq_batch_models_load(cfg, b.pairs, b.npairs, &b.models)) != 0)
        goto end;
    b.kept = calloc((size_t)b.npairs + 1, sizeof *b.kept);
    b.line = calloc((size_t)b.npairs + 1, sizeof *b.line);
    b.settings = sq_results_settings(cfg);
    if (!b.kept || !b.line || !b.settings) {
        cli_error("out of memory");
        ret = SQ_EXIT_INTERNAL;
        goto end;
    }
    if (!cfg->read_only && (ret = open_results(&b, &of, &direct, &lockfd)) != 0)
        goto end;
    int kept = 0;
    for (int i = 0; i < b.npairs; i++)
        kept += b.kept[i] != NULL;
    /* GPU backends score a chunk's pairs one by one (a GPU ladder shares no
     * reference side); with --hwaccel each pair alone keeps HW_WORKERS
     * decoders busy at once */
    const int gpu = cfg->backend != SPEEDQA_BACKEND_CPU && cfg->backend != SPEEDQA_BACKEND_AUTO;
    if (sq_batch_plan(b.pairs, b.npairs, b.kept, cfg->hwaccel || gpu ? 1 : SPEEDQA_MAX_DISTORTED,
                      &b.order, &b.task, &b.ntasks) < 0 ||
        plan_workers(&b) < 0) {
        cli_error("out of memory");
        ret = SQ_EXIT_INTERNAL;
        goto end;
    }
    b.todo = b.npairs - kept;
    b.progress = !cfg->quiet && !cfg->read_only && isatty(STDERR_FILENO);
    const double t0 = b.t0 = sq_batch_now();
    if (cfg->batch_exec)
        sq_batch_exec(&b);
    else
        run_workers(&b);
    if (b.progress)
        fputs("\r\033[K", stderr);
    if (!cfg->read_only)
        ret = close_results(&b, &of, direct);
    /* a binding's copy of this run's lines, in manifest order (a subset's: in its order) */
    for (int i = 0; cfg->batch_lines && i < b.npairs; i++)
        if (b.line[i] && fprintf(cfg->batch_lines, "%s\n", b.line[i]) < 0 && !ret)
            ret = SQ_EXIT_OUTPUT;
    if (cfg->read_only) {
        const double secs = sq_batch_now() - t0;
        fprintf(stderr, "speedqa: batch --read-only: %d pairs (%d failed), %lld frame pairs read "
                "in %.2f s: %.1f fps (%d worker%s), nothing scored\n", b.npairs, b.nfailed,
                b.frames_read, secs, secs > 0 ? (double)b.frames_read / secs : 0.0, b.workers,
                b.workers == 1 ? "" : "s");
    } else if (!cfg->quiet && !cfg->batch_only)
        fprintf(stderr, "speedqa: batch: %d pairs: %d scored, %d failed, %d kept from %s; "
                "%.2f s (%d worker%s%s)\n", b.npairs, b.npairs - kept - b.nfailed, b.nfailed, kept,
                cfg->output_path ? cfg->output_path : "-", sq_batch_now() - t0, b.workers,
                b.workers == 1 ? "" : "s",
                b.dev_cfg ? (cfg->hwaccel ? ", spread over the devices" : ", one per device") : "");
    if (!ret)
        ret = b.failed;
end:
    if (b.out && b.out != stdout) {
        if (direct)
            fclose(b.out);
        else
            sq_outfile_abort(&of);
    }
    if (lockfd >= 0)
        close(lockfd);
    for (int i = 0; b.kept && i < b.npairs; i++)
        free(b.kept[i]);
    for (int i = 0; b.line && i < b.npairs; i++)
        free(b.line[i]);
    free(b.kept);
    free(b.line);
    free(b.settings);
    free(b.order);
    free(b.task);
    free(b.dev_cfg);
    sq_batch_models_free(&b.models);
    sq_manifest_free(&b.pairs, b.npairs);
    pthread_mutex_destroy(&b.mu);
    return ret;
}
