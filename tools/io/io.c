/*
 * libspeedqa_io (speedqa_io.h): flags, scoring one reference against its
 * distorted inputs into in-memory reports, and the number format. Scoring
 * is tools/job.c's, as the CLI runs it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "io_priv.h"
#include "job.h"
#include "output/writer.h"

/* getopt keeps its place in globals: one parse at a time */
static pthread_mutex_t parse_mu = PTHREAD_MUTEX_INITIALIZER;

void sq_io_copy(char *buf, size_t len, const char *s)
{
    if (buf && len)
        snprintf(buf, len, "%s", s ? s : "");
}

static void io_destroy(SpeedqaIo *io)
{
    for (int i = 0; io->argv && i < io->argc; i++)
        free(io->argv[i]);
    free(io->argv);
    free(io->models);
    free(io);
}

/* Flags that print and end the CLI: a library call has nothing to print to. */
static int printing_flag(const char *a)
{
    return !strcmp(a, "--help") || !strcmp(a, "-v") || !strcmp(a, "--version") ||
           !strcmp(a, "--list-devices");
}

int speedqa_io_new(SpeedqaIo **out, int argc, const char *const *argv, char *err, size_t errlen)
{
    sq_io_copy(err, errlen, "");
    if (!out || argc < 0 || (argc && !argv)) {
        sq_io_copy(err, errlen, "speedqa_io_new: no handle or arguments");
        return SQ_EXIT_USAGE;
    }
    *out = NULL;
    SpeedqaIo *io = calloc(1, sizeof *io);
    if (!io || !(io->argv = calloc((size_t)argc + 2, sizeof *io->argv))) {
        free(io);
        sq_io_copy(err, errlen, "out of memory");
        return SQ_EXIT_INTERNAL;
    }
    io->argc = argc + 1;
    int ok = (io->argv[0] = strdup("speedqa")) != NULL;
    for (int i = 0; ok && i < argc; i++) {
        if (!argv[i] || printing_flag(argv[i])) {
            snprintf(err, errlen, "%s: not an option of a library run", argv[i] ? argv[i] : "NULL");
            io_destroy(io);
            return SQ_EXIT_USAGE;
        }
        ok = (io->argv[i + 1] = strdup(argv[i])) != NULL;
    }
    if (!ok) {
        io_destroy(io);
        sq_io_copy(err, errlen, "out of memory");
        return SQ_EXIT_INTERNAL;
    }
    char line[1200] = "";
    pthread_mutex_lock(&parse_mu);
    /* getopt keeps where it was inside a word across calls (the CLI parses
     * once); optind = 0 makes glibc start afresh, which cli_parse's
     * optind = 1 does not */
    char prog[] = "speedqa", *dummy[] = { prog, NULL };
    optind = 0;
    opterr = 0;
    (void)getopt(1, dummy, "");
    cli_capture(line, sizeof line, 0);
    int r = cli_parse(&io->cfg, io->argc, io->argv);
    /* cli_parse loads --model into one array for the process (the CLI parses
     * once); a handle keeps its own copy, taken under the lock, so another
     * handle's models never replace this one's under its jobs */
    if (r < 0 && io->cfg.n_models) {
        const size_t sz = sizeof *io->models * (size_t)io->cfg.n_models;
        if ((io->models = malloc(sz)) != NULL) {
            memcpy(io->models, io->cfg.models, sz);
            io->cfg.models = io->models;
        } else {
            snprintf(line, sizeof line, "out of memory");
            r = SQ_EXIT_INTERNAL;
        }
    }
    cli_capture(NULL, 0, 0);
    pthread_mutex_unlock(&parse_mu);
    if (r >= 0) {
        sq_io_copy(err, errlen, line[0] ? line : "bad arguments");
        io_destroy(io);
        return r == SQ_EXIT_INTERNAL ? r : SQ_EXIT_USAGE;
    }
    io->cfg.io_read = 1;
    *out = io;
    return 0;
}

void speedqa_io_free(SpeedqaIo **io)
{
    if (io && *io) {
        io_destroy(*io);
        *io = NULL;
    }
}

const char *speedqa_io_format_value(char *buf, size_t len, double v, int precision_max)
{
    return sq_fmt_value(buf, len, v, precision_max);
}

void speedqa_io_free_buf(void *p)
{
    free(p);
}

/* The report's name: it picks the writer as -o's extension would. */
static const char *report_name(const CliSettings *cfg)
{
    if (cfg->output_path)
        return cfg->output_path;
    static const char *const by_fmt[][2] = {
        { "xml", "report.xml" }, { "csv", "report.csv" }, { "sub", "report.sub" },
    };
    for (size_t i = 0; cfg->format && i < sizeof by_fmt / sizeof by_fmt[0]; i++)
        if (!strcmp(cfg->format, by_fmt[i][0]))
            return by_fmt[i][1];
    return "report.json";
}

int speedqa_io_score(const SpeedqaIo *io, SpeedqaIoReport *rep, int n)
{
    if (!io || !rep || n < 1)
        return SQ_EXIT_USAGE;
    memset(rep, 0, sizeof *rep * (size_t)n);
    const CliSettings *cfg = &io->cfg;
    if (cfg->batch_path || cfg->read_only || n != cfg->n_dis) {
        sq_io_copy(rep[0].error, sizeof rep[0].error, cfg->batch_path || cfg->read_only
                   ? "speedqa_io_score scores -r against -d, not --batch or --read-only"
                   : "speedqa_io_score: one report per -d");
        rep[0].exit = SQ_EXIT_USAGE;
        return SQ_EXIT_USAGE;
    }
    CliSettings run = *cfg;
    run.output_path = report_name(cfg);
    run.format = NULL;
    SqJobStream *st = calloc((size_t)n, sizeof *st);
    FILE **mem = calloc((size_t)n, sizeof *mem);
    int ret = st && mem ? 0 : SQ_EXIT_INTERNAL;
    for (int d = 0; !ret && d < n; d++) {
        if (!(mem[d] = open_memstream(&rep[d].text, &rep[d].len)))
            ret = SQ_EXIT_INTERNAL;
        st[d] = (SqJobStream){ .path = cfg->dis_paths[d], .out = mem[d], .out_path = run.output_path };
    }
    const int ran = !ret;
    if (ran) {
        const SqJob job = { .cfg = &run, .ref_path = cfg->ref_path,
                            .features = cfg->n_features ? cfg->features : NULL,
                            .threads = sq_cli_threads(cfg), .batch = 1 };
        ret = sq_job_run(&job, st, n);
    }
    for (int d = 0; d < n; d++) {
        if (mem && mem[d] && fclose(mem[d]) != 0 && st && !st[d].exit) {
            st[d].exit = SQ_EXIT_INTERNAL;
            snprintf(st[d].err, sizeof st[d].err, "out of memory");
        }
        if (!st || !ran) {
            rep[d].exit = SQ_EXIT_INTERNAL;
            sq_io_copy(rep[d].error, sizeof rep[d].error, "out of memory");
            continue;
        }
        rep[d].exit = st[d].exit;
        sq_io_copy(rep[d].error, sizeof rep[d].error, st[d].err);
        if (!st[d].written) { /* no complete report: nothing to read back */
            free(rep[d].text);
            rep[d].text = NULL;
            rep[d].len = 0;
        }
        if (rep[d].exit > ret)
            ret = rep[d].exit;
    }
    free(st);
    free(mem);
    return ret;
}

void speedqa_io_reports_free(SpeedqaIoReport *rep, int n)
{
    for (int d = 0; rep && d < n; d++) {
        free(rep[d].text);
        rep[d].text = NULL;
        rep[d].len = 0;
    }
}
