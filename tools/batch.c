/*
 * --batch (batch.h). Pairs are grouped by reference and features; a group
 * is one job (a ladder on the CPU backend), groups run on worker threads
 * (CPU: up to --threads at once, each with a share of the threads; a GPU
 * backend: one worker whose context is kept from pair to pair, so the
 * device start-up is paid once; with --hwaccel, HW_WORKERS per device, so
 * that that many pairs decode on NVDEC at once). Result lines are written in manifest
 * order as soon as every earlier pair is done, and flushed, so that an
 * interrupted batch can be resumed.
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
#include "job.h"
#include "manifest.h"
#include "output/outfile.h"
#include "output/writer.h"

/* --hwaccel: pairs at once per GPU. A worker decodes its pair's two inputs
 * on read-ahead threads and scores on its own context (own streams, one
 * primary context): with one worker per GPU the decoders would wait for
 * each other's scoring, with four NVDEC's engines stay fed. */
#define HW_WORKERS 4

typedef struct Task {
    int *pair;          /* indices into the manifest */
    int n;
} Task;

typedef struct Batch {
    const CliSettings *cfg;
    CliSettings *dev_cfg;   /* --device all: worker w's settings name device w % ndev */
    int ndev;
    int next_worker;
    SqPair *pairs;
    int npairs;
    char **line;        /* result line of each pair (no newline), NULL until done */
    int *kept;          /* the line comes from the results being resumed */
    Task *task;
    int ntasks, next_task;
    int workers, threads_each;
    int next_write;     /* pairs before it are written */
    FILE *out;
    int write_failed;
    int failed;         /* worst exit of a pair */
    int nfailed;
    long long frames_read; /* --read-only */
    pthread_mutex_t mu;
} Batch;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static int same_group(const SqPair *a, const SqPair *b)
{
    if (strcmp(a->ref, b->ref) || a->nfeat != b->nfeat)
        return 0;
    for (int k = 0; k < a->nfeat; k++)
        if (strcmp(a->features[k], b->features[k]))
            return 0;
    return 1;
}

/* The result line of one pair. */
static char *result_line(const Batch *b, const SqPair *p, const SqJobStream *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fputs("{\"ref\": ", f);
    sq_json_string(f, p->ref);
    fputs(", \"dis\": ", f);
    sq_json_string(f, p->dis);
    if (p->output) {
        fputs(", \"output\": ", f);
        sq_json_string(f, p->output);
    }
    if (p->nfeat) {
        /* --resume keeps a line only for a pair with these features */
        char *fs = sq_pair_features(p);
        if (!fs) {
            fclose(f);
            free(buf);
            return NULL;
        }
        fputs(", \"features\": ", f);
        sq_json_string(f, fs);
        free(fs);
    }
    if (st->exit) {
        fputs(", \"error\": ", f);
        sq_json_string(f, st->err[0] ? st->err : "failed");
    } else {
        static const char *const pool_names[4] = { "min", "max", "mean", "harmonic_mean" };
        fprintf(f, ", \"frames\": %lld, \"pooled_metrics\": {", st->frames);
        for (int k = 0; k < st->nscores; k++) {
            const SqPooled *q = &st->pooled[k];
            const double v[4] = { q->min, q->max, q->mean, q->harmonic_mean };
            fprintf(f, "%s", k ? ", " : "");
            sq_json_string(f, st->names[k]);
            fputs(": {", f);
            for (int j = 0; j < 4; j++) {
                char num[40];
                fprintf(f, "%s\"%s\": %s", j ? ", " : "", pool_names[j],
                        sq_fmt_value(num, sizeof num, v[j], b->cfg->precision_max));
            }
            fputc('}', f);
        }
        fputc('}', f);
    }
    fputc('}', f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Under mu: write every line whose predecessors are all written. */
static void write_ready(Batch *b)
{
    while (b->next_write < b->npairs && b->line[b->next_write]) {
        if (!b->write_failed &&
            (fprintf(b->out, "%s\n", b->line[b->next_write]) < 0 || fflush(b->out) != 0))
            b->write_failed = errno ? errno : EIO;
        if (b->cfg->batch_lines && b->out != b->cfg->batch_lines)
            fprintf(b->cfg->batch_lines, "%s\n", b->line[b->next_write]);
        b->next_write++;
    }
}

/* --read-only: read or decode the group's pairs on this worker, score nothing
 * (the floor of the same batch, workers and decoders scored). */
static void read_task(Batch *b, const Task *t, const CliSettings *cfg)
{
    for (int i = 0; i < t->n; i++) {
        const SqPair *p = &b->pairs[t->pair[i]];
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

/* Score one group: per-pair reports go through the temp-file protocol. */
static void run_task(Batch *b, const Task *t, SqJobCache *cache, const CliSettings *cfg)
{
    if (cfg->read_only) {
        read_task(b, t, cfg);
        return;
    }
    SqJobStream *st = calloc((size_t)t->n, sizeof *st);
    SqOutFile *of = calloc((size_t)t->n, sizeof *of);
    const SqPair *p0 = &b->pairs[t->pair[0]];
    if (!st || !of) {
        pthread_mutex_lock(&b->mu);
        for (int i = 0; i < t->n; i++) {
            b->line[t->pair[i]] = strdup("{\"error\": \"out of memory\"}");
            b->failed = SQ_EXIT_INTERNAL;
        }
        write_ready(b);
        pthread_mutex_unlock(&b->mu);
        free(st);
        free(of);
        return;
    }
    /* pairs whose report cannot be created fail alone, before scoring */
    int *run_idx = calloc((size_t)t->n, sizeof *run_idx), nrun = 0;
    SqJobStream *runst = calloc((size_t)t->n, sizeof *runst);
    for (int i = 0; run_idx && runst && i < t->n; i++) {
        const SqPair *p = &b->pairs[t->pair[i]];
        st[i].path = p->dis;
        if (p->output) {
            const char *inputs[3] = { p->ref, p->dis, b->cfg->batch_path };
            char err[1200];
            if (sq_outfile_is_input(p->output, inputs, 3)) {
                st[i].exit = SQ_EXIT_USAGE;
                snprintf(st[i].err, sizeof st[i].err, "%s: the output file is one of the inputs "
                         "or the manifest; refusing to overwrite it", p->output);
                continue;
            }
            if (sq_outfile_open(&of[i], p->output, err, sizeof err) < 0) {
                st[i].exit = SQ_EXIT_OUTPUT;
                snprintf(st[i].err, sizeof st[i].err, "%s", err);
                continue;
            }
            st[i].out = of[i].f;
            st[i].out_path = p->output;
        }
        run_idx[nrun++] = i;
    }
    if (run_idx && runst && nrun) {
        for (int k = 0; k < nrun; k++)
            runst[k] = st[run_idx[k]];
        const SqJob job = { .cfg = cfg, .ref_path = p0->ref,
                            .features = p0->nfeat ? (const char *const *)p0->features : NULL,
                            .threads = b->threads_each, .batch = 1, .cache = cache };
        sq_job_run(&job, runst, nrun);
        for (int k = 0; k < nrun; k++)
            st[run_idx[k]] = runst[k];
    } else if (!run_idx || !runst) {
        for (int i = 0; i < t->n; i++) {
            st[i].exit = SQ_EXIT_INTERNAL;
            snprintf(st[i].err, sizeof st[i].err, "out of memory");
        }
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
    for (int i = 0; i < t->n; i++) {
        char *l = result_line(b, &b->pairs[t->pair[i]], &st[i]);
        b->line[t->pair[i]] = l ? l : strdup("{\"error\": \"out of memory\"}");
        if (st[i].exit) {
            b->nfailed++;
            if (st[i].exit > b->failed)
                b->failed = st[i].exit;
        }
    }
    write_ready(b);
    pthread_mutex_unlock(&b->mu);
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

/*
 * cfg->batch_exec: the pairs still to score go to the executor (the Dask
 * runner: chunks of them through sq_batch_run with batch_only elsewhere),
 * which hands their lines back through sq_batch_deliver; the results file,
 * --resume, the order and the exit code stay this function's. A pair the
 * executor never delivered fails (exit 1).
 */
static void run_exec(Batch *b)
{
    int *todo = malloc(sizeof(int) * (size_t)(b->npairs ? b->npairs : 1)), n = 0;
    for (int i = 0; todo && i < b->npairs; i++)
        if (!b->line[i])
            todo[n++] = i;
    if (todo && n)
        b->cfg->batch_exec(b->cfg->batch_exec_opaque, b, todo, n);
    pthread_mutex_lock(&b->mu);
    for (int i = 0; i < b->npairs; i++) {
        if (b->line[i])
            continue;
        SqJobStream st = { .exit = SQ_EXIT_INTERNAL };
        snprintf(st.err, sizeof st.err, "not scored: the executor failed");
        char *l = result_line(b, &b->pairs[i], &st);
        b->line[i] = l ? l : strdup("{\"error\": \"out of memory\"}");
        b->nfailed++;
        b->failed = SQ_EXIT_INTERNAL > b->failed ? SQ_EXIT_INTERNAL : b->failed;
    }
    write_ready(b);
    pthread_mutex_unlock(&b->mu);
    free(todo);
}

int sq_batch_deliver(void *sink, const int *pairs, int n, const char *lines, int exit_code)
{
    Batch *b = sink;
    int bad = 0;
    pthread_mutex_lock(&b->mu);
    for (int i = 0; i < n; i++) {
        const char *e = lines ? strchr(lines, '\n') : NULL;
        if (!e || pairs[i] < 0 || pairs[i] >= b->npairs || b->line[pairs[i]]) {
            bad = -EINVAL;
            break;
        }
        char *l = strndup(lines, (size_t)(e - lines));
        if (!l) {
            bad = -ENOMEM;
            break;
        }
        b->line[pairs[i]] = l;
        /* the line's own "error" key: strings escape their quotes, so only it matches */
        b->nfailed += strstr(l, ", \"error\": \"") != NULL;
        lines = e + 1;
    }
    if (exit_code > b->failed)
        b->failed = exit_code;
    write_ready(b);
    pthread_mutex_unlock(&b->mu);
    return bad;
}

/* Group the pairs still to score: by reference and features, in first-seen
 * order. With --hwaccel every pair is its own task: a GPU ladder shares no
 * reference side, and separate tasks keep HW_WORKERS decoders busy at once. */
static int make_tasks(Batch *b, int group)
{
    int *taken = calloc((size_t)b->npairs, sizeof *taken);
    b->task = calloc((size_t)b->npairs, sizeof *b->task);
    if (!taken || !b->task) {
        free(taken);
        return -1;
    }
    for (int i = 0; i < b->npairs; i++) {
        if (taken[i] || b->line[i])
            continue;
        Task *t = &b->task[b->ntasks++];
        if (!(t->pair = malloc(sizeof(int) * (size_t)(b->npairs - i)))) {
            free(taken);
            return -1;
        }
        for (int j = i; j < b->npairs; j++)
            if (!taken[j] && !b->line[j] && (j == i || group) &&
                same_group(&b->pairs[i], &b->pairs[j])) {
                taken[j] = 1;
                t->pair[t->n++] = j;
            }
    }
    free(taken);
    return 0;
}

/*
 * --resume: the lines of the results file that scored a pair of this
 * manifest are kept (a failed pair is scored again). *prefix: the kept
 * lines are the file's whole content and the results of the first pairs,
 * in order, so new lines can simply be appended (after *keep_bytes).
 */
static int load_resume(Batch *b, const char *path, int *prefix, long long *keep_bytes)
{
    *prefix = 1;
    *keep_bytes = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 0 : -errno;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int order = 0;
    long long pos = 0;
    char *ref = malloc(8192), *dis = malloc(8192), *out = malloc(8192), *feat = malloc(8192);
    char **want = calloc((size_t)b->npairs + 1, sizeof *want);
    int ret = ref && dis && out && feat && want ? 0 : -ENOMEM;
    for (int i = 0; !ret && i < b->npairs; i++)
        if (!(want[i] = sq_pair_features(&b->pairs[i])))
            ret = -ENOMEM;
    if (ret) {
        fclose(f);
        goto end;
    }
    while ((len = getline(&line, &cap, f)) > 0) {
        const int complete = line[len - 1] == '\n';
        if (complete)
            line[len - 1] = '\0';
        int failed = 1, match = -1;
        if (complete && sq_result_line_parse(line, ref, dis, out, feat, 8192, &failed) == 0 &&
            !failed)
            for (int i = 0; i < b->npairs && match < 0; i++)
                if (!b->line[i] && !strcmp(b->pairs[i].ref, ref) && !strcmp(b->pairs[i].dis, dis) &&
                    same_str(b->pairs[i].output ? b->pairs[i].output : "", out) &&
                    !strcmp(want[i], feat))
                    match = i;
        if (match >= 0) {
            b->line[match] = strdup(line);
            b->kept[match] = 1;
            if (match != order)
                *prefix = 0;
            order++;
            pos += len;
            if (*prefix)
                *keep_bytes = pos;
        } else if (complete) {
            *prefix = 0; /* a failed pair or another manifest's: the file is rebuilt */
            pos += len;
        }
        /* an incomplete last line is a torn write: dropped */
    }
    free(line);
    fclose(f);
end:
    for (int i = 0; want && i < b->npairs; i++)
        free(want[i]);
    free(want);
    free(ref);
    free(dis);
    free(out);
    free(feat);
    return ret;
}

typedef struct Named {
    const char *path;
    int line;
} Named;

static int named_cmp(const void *a, const void *b)
{
    const Named *x = a, *y = b;
    const int c = strcmp(x->path, y->path);
    return c ? c : x->line - y->line;
}

typedef struct FileId {
    dev_t dev;
    ino_t ino;
    int line; /* the manifest line of a pair's output; 0 for an input */
} FileId;

static int id_cmp(const void *a, const void *b)
{
    const FileId *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return x->line - y->line; /* inputs (0) first */
}

/*
 * No pair's report may overwrite the manifest, an input of any pair, or
 * another pair's report: every file is stat()ed once and the ids sorted
 * (a catalog has thousands of pairs). A report that does not exist yet is
 * no input; two such reports of one path are caught by the path.
 */
static int check_outputs(const Batch *b)
{
    const CliSettings *cfg = b->cfg;
    FileId *id = malloc(sizeof *id * (size_t)(3 * b->npairs + 1));
    int n = 0, ret = 0;
    if (!id) {
        cli_error("out of memory");
        return SQ_EXIT_INTERNAL;
    }
    struct stat st;
    if (stat(cfg->batch_path, &st) == 0)
        id[n++] = (FileId){ st.st_dev, st.st_ino, 0 };
    for (int i = 0; i < b->npairs; i++) {
        const SqPair *p = &b->pairs[i];
        const char *in[2] = { p->ref, p->dis };
        for (int k = 0; k < 2; k++)
            if ((strcmp(in[k], "-") ? stat(in[k], &st) : fstat(STDIN_FILENO, &st)) == 0)
                id[n++] = (FileId){ st.st_dev, st.st_ino, 0 };
        if (p->output && stat(p->output, &st) == 0)
            id[n++] = (FileId){ st.st_dev, st.st_ino, p->line };
    }
    qsort(id, (size_t)n, sizeof *id, id_cmp);
    for (int i = 1; i < n && !ret; i++)
        if (id[i].line && id[i - 1].dev == id[i].dev && id[i - 1].ino == id[i].ino) {
            if (id[i - 1].line)
                cli_error("%s:%d: the pair's output is also line %d's output", cfg->batch_path,
                          id[i].line, id[i - 1].line);
            else
                cli_error("%s:%d: the pair's output is the manifest or an input of the batch; "
                          "refusing to overwrite it", cfg->batch_path, id[i].line);
            ret = SQ_EXIT_USAGE;
        }
    free(id);
    Named *out = malloc(sizeof *out * (size_t)(b->npairs + 1));
    if (!out) {
        cli_error("out of memory");
        return SQ_EXIT_INTERNAL;
    }
    n = 0;
    for (int i = 0; i < b->npairs; i++)
        if (b->pairs[i].output)
            out[n++] = (Named){ b->pairs[i].output, b->pairs[i].line };
    qsort(out, (size_t)n, sizeof *out, named_cmp);
    for (int i = 1; i < n && !ret; i++)
        if (!strcmp(out[i - 1].path, out[i].path)) {
            cli_error("%s:%d: the pair's output is also line %d's output", cfg->batch_path,
                      out[i].line, out[i - 1].line);
            ret = SQ_EXIT_USAGE;
        }
    free(out);
    return ret;
}

int sq_batch_run(const CliSettings *cfg)
{
    char err[1200];
    Batch b = { .cfg = cfg };
    pthread_mutex_init(&b.mu, NULL);
    int ret = 0;
    if (sq_manifest_load(cfg->batch_path, &b.pairs, &b.npairs, err, sizeof err) < 0) {
        cli_error("%s", err);
        pthread_mutex_destroy(&b.mu);
        return SQ_EXIT_USAGE;
    }
    if (cfg->batch_only &&
        sq_manifest_select(&b.pairs, &b.npairs, cfg->batch_only, cfg->batch_nonly, err, sizeof err) < 0) {
        cli_error("%s", err);
        ret = SQ_EXIT_USAGE;
        goto end;
    }
    b.line = calloc((size_t)b.npairs, sizeof *b.line);
    b.kept = calloc((size_t)b.npairs, sizeof *b.kept);
    if (!b.line || !b.kept) {
        cli_error("out of memory");
        ret = SQ_EXIT_INTERNAL;
        goto end;
    }
    /* the results may be no input and not the manifest; no pair's report the results */
    const char *res_path = cfg->batch_only ? NULL : cfg->output_path ? cfg->output_path : "/dev/stdout";
    if (res_path) {
        const char **inputs = calloc((size_t)(2 * b.npairs + 1), sizeof *inputs);
        if (!inputs) {
            cli_error("out of memory");
            ret = SQ_EXIT_INTERNAL;
            goto end;
        }
        inputs[0] = cfg->batch_path;
        for (int i = 0; i < b.npairs; i++) {
            inputs[1 + 2 * i] = b.pairs[i].ref;
            inputs[2 + 2 * i] = b.pairs[i].dis;
        }
        const int clash = sq_outfile_is_input(res_path, inputs, 2 * b.npairs + 1) ||
                          !strcmp(res_path, cfg->batch_path);
        free(inputs);
        if (clash) {
            cli_error("%s: the results file is the manifest or one of its inputs; refusing to "
                      "overwrite it", cfg->output_path ? cfg->output_path : "standard output");
            ret = SQ_EXIT_USAGE;
            goto end;
        }
        for (int i = 0; cfg->output_path && i < b.npairs; i++) {
            const char *one[1] = { cfg->output_path };
            if (b.pairs[i].output && (same_str(b.pairs[i].output, cfg->output_path) ||
                                      sq_outfile_is_input(b.pairs[i].output, one, 1))) {
                cli_error("%s:%d: the pair's output is the results file", cfg->batch_path,
                          b.pairs[i].line);
                ret = SQ_EXIT_USAGE;
                goto end;
            }
        }
    }
    if ((ret = check_outputs(&b)) != 0)
        goto end;
    int prefix = 1;
    long long keep_bytes = 0;
    if (cfg->resume) {
        const int r = load_resume(&b, cfg->output_path, &prefix, &keep_bytes);
        if (r < 0) {
            cli_error("%s: cannot read the results to resume: %s", cfg->output_path, strerror(-r));
            ret = SQ_EXIT_OUTPUT;
            goto end;
        }
    }
    /* Results go straight to a new (or resumed) file, line by line, so an
     * interrupted batch keeps what it did; a file that exists is replaced only
     * once the batch is done (temp + rename), unless --resume appends to it. */
    SqOutFile of = { 0 };
    struct stat sb;
    const int exists = cfg->output_path && stat(cfg->output_path, &sb) == 0 && S_ISREG(sb.st_mode) &&
                       sb.st_size > 0;
    int direct = cfg->output_path && (!exists || (cfg->resume && prefix));
    if (cfg->batch_only) {
        b.out = cfg->batch_lines;
    } else if (!cfg->output_path) {
        b.out = stdout;
    } else if (direct) {
        if (exists && truncate(cfg->output_path, (off_t)keep_bytes) != 0) {
            cli_error("%s: cannot resume: %s", cfg->output_path, strerror(errno));
            ret = SQ_EXIT_OUTPUT;
            goto end;
        }
        b.out = fopen(cfg->output_path, "a");
        if (!b.out) {
            cli_error("%s: cannot write the results: %s", cfg->output_path, strerror(errno));
            ret = SQ_EXIT_OUTPUT;
            goto end;
        }
        /* kept lines are in the file already: start writing after them */
        while (b.next_write < b.npairs && b.kept[b.next_write])
            b.next_write++;
    } else {
        if (sq_outfile_open(&of, cfg->output_path, err, sizeof err) < 0) {
            cli_error("%s", err);
            ret = SQ_EXIT_OUTPUT;
            goto end;
        }
        b.out = of.f;
    }
    int kept = 0;
    for (int i = 0; i < b.npairs; i++)
        kept += b.kept[i];
    if (make_tasks(&b, !cfg->hwaccel) < 0) {
        cli_error("out of memory");
        ret = SQ_EXIT_INTERNAL;
        if (of.f)
            sq_outfile_abort(&of);
        goto end;
    }
    const int threads = sq_cli_threads(cfg) > 0 ? sq_cli_threads(cfg) : 1;
    const int gpu = cfg->backend != SPEEDQA_BACKEND_CPU && cfg->backend != SPEEDQA_BACKEND_AUTO;
    /* a GPU backend: one worker (one context) per device used */
    int ngpu = 1;
    if (gpu && cfg->device_all) {
        char list[8192];
        ngpu = speedqa_list_devices(cfg->backend, list, sizeof list);
        if (ngpu < 1)
            ngpu = 1; /* opening the first one says why there is none */
        if (ngpu > b.ntasks && b.ntasks > 0)
            ngpu = b.ntasks;
        if (!(b.dev_cfg = calloc((size_t)ngpu, sizeof *b.dev_cfg))) {
            cli_error("out of memory");
            ret = SQ_EXIT_INTERNAL;
            if (of.f)
                sq_outfile_abort(&of);
            goto end;
        }
        for (int g = 0; g < ngpu; g++) {
            b.dev_cfg[g] = *cfg;
            b.dev_cfg[g].device = g;
            b.dev_cfg[g].device_name = NULL;
        }
    }
    b.ndev = ngpu;
    b.workers = gpu ? ngpu : threads < b.ntasks ? threads : b.ntasks > 0 ? b.ntasks : 1;
    b.threads_each = gpu ? threads : threads / b.workers > 0 ? threads / b.workers : 1;
    if (gpu && cfg->hwaccel) {
        /* SPEEDQA_HW_WORKERS (1..64) overrides, for measuring */
        const char *env = getenv("SPEEDQA_HW_WORKERS");
        const int per = env && atoi(env) >= 1 && atoi(env) <= 64 ? atoi(env) : HW_WORKERS;
        const int want = ngpu * per;
        b.workers = want < b.ntasks ? want : b.ntasks > 0 ? b.ntasks : 1;
        b.threads_each = threads / per > 0 ? threads / per : 1;
    }
    const double t0 = now_s();
    pthread_mutex_lock(&b.mu);
    write_ready(&b); /* kept lines before the first new pair (a rebuilt file) */
    pthread_mutex_unlock(&b.mu);
    if (cfg->batch_exec) {
        run_exec(&b);
    } else {
        pthread_t tid[1024];
        int started = 0;
        for (int w = 1; w < b.workers && w < 1024; w++)
            if (pthread_create(&tid[started], NULL, worker, &b) == 0)
                started++;
        worker(&b);
        for (int w = 0; w < started; w++)
            pthread_join(tid[w], NULL);
    }
    pthread_mutex_lock(&b.mu);
    write_ready(&b);
    pthread_mutex_unlock(&b.mu);
    if (cfg->batch_only) {
        if (fflush(b.out) != 0 && !b.write_failed)
            b.write_failed = errno ? errno : EIO;
    } else if (b.out == stdout) {
        if (fflush(stdout) != 0 && !b.write_failed)
            b.write_failed = errno ? errno : EIO;
    } else if (direct) {
        if ((fflush(b.out) != 0 || fsync(fileno(b.out)) != 0) && errno != EINVAL && !b.write_failed)
            b.write_failed = errno ? errno : EIO;
        if (fclose(b.out) != 0 && !b.write_failed)
            b.write_failed = errno ? errno : EIO;
    } else if (b.write_failed) {
        sq_outfile_abort(&of);
    } else if (sq_outfile_commit(&of, err, sizeof err) < 0) {
        cli_error("%s", err);
        ret = SQ_EXIT_OUTPUT;
    }
    if (b.write_failed) {
        if (b.write_failed != EPIPE)
            cli_error("%s: write failed: %s", cfg->output_path ? cfg->output_path : "<stdout>",
                      strerror(b.write_failed));
        ret = SQ_EXIT_OUTPUT;
    }
    if (cfg->read_only) {
        const double secs = now_s() - t0;
        fprintf(stderr, "speedqa: batch --read-only: %d pairs (%d failed), %lld frame pairs read "
                "in %.2f s: %.1f fps (%d worker%s), nothing scored\n", b.npairs, b.nfailed,
                b.frames_read, secs, secs > 0 ? (double)b.frames_read / secs : 0.0, b.workers,
                b.workers == 1 ? "" : "s");
    } else if (!cfg->quiet && !cfg->batch_only)
        fprintf(stderr, "speedqa: batch: %d pairs: %d scored, %d failed, %d kept from %s; "
                "%.2f s (%d worker%s%s)\n", b.npairs, b.npairs - kept - b.nfailed, b.nfailed, kept,
                cfg->output_path ? cfg->output_path : "-", now_s() - t0, b.workers,
                b.workers == 1 ? "" : "s",
                b.dev_cfg ? (cfg->hwaccel ? ", spread over the devices" : ", one per device") : "");
    if (!ret)
        ret = b.failed;
end:
    for (int i = 0; b.line && i < b.npairs; i++)
        free(b.line[i]);
    for (int t = 0; b.task && t < b.ntasks; t++)
        free(b.task[t].pair);
    free(b.task);
    free(b.dev_cfg);
    free(b.line);
    free(b.kept);
    sq_manifest_free(&b.pairs, b.npairs);
    pthread_mutex_destroy(&b.mu);
    return ret;
}
