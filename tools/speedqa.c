/*
 * speedqa: score distorted videos against their reference with the
 * SpEED-QA features, printing vmaf-style XML, JSON or CSV. A plain client of
 * the public API (speedqa.h) and of the readers in tools/input; a job
 * (job.c) does the scoring, batch.c the --batch manifests.
 */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "cli_parse.h"
#include "job.h"
#include "output/identity.h"
#include "output/outfile.h"
#include "speedqa/speedqa.h"

/* The -o pattern; a name cut short would be another file, so it fails instead. */
int sq_cli_expand(char *buf, size_t len, const char *pattern, const char *path, int index)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    const int blen = (int)(dot && dot != base ? (size_t)(dot - base) : strlen(base));
    size_t o = 0;
    for (const char *p = pattern; *p; ) {
        int w;
        if (!strncmp(p, "{name}", 6)) {
            w = snprintf(buf + o, len - o, "%.*s", blen, base);
            p += 6;
        } else if (!strncmp(p, "{i}", 3)) {
            w = snprintf(buf + o, len - o, "%d", index);
            p += 3;
        } else {
            w = snprintf(buf + o, len - o, "%c", *p++);
        }
        /* a name cut short would be another file: refuse it instead */
        if (w < 0 || (size_t)w >= len - o)
            return -1;
        o += (size_t)w;
    }
    return 0;
}

int sq_cli_has_template(const char *pattern)
{
    return pattern && (strstr(pattern, "{name}") || strstr(pattern, "{i}"));
}

/* One device's share of a GPU ladder (--device all): streams g, g + ndev, ... */
typedef struct DevShare {
    CliSettings cfg;
    SqJob job;
    SqJobStream *st;
    int n, ret;
} DevShare;

static void *run_share(void *arg)
{
    DevShare *d = arg;
    SqJobCache *cache = sq_job_cache_new();
    d->job.cfg = &d->cfg;
    d->job.cache = cache;
    d->ret = sq_job_run(&d->job, d->st, d->n);
    sq_job_cache_free(&cache);
    return NULL;
}

/*
 * The renditions of a ladder on a GPU backend: one context kept for all of
 * them, and with --device all one per device, the renditions dealt out.
 */
static int run_gpu_streams(const CliSettings *cfg, const SqJob *job, SqJobStream *st, int n)
{
    char list[8192];
    int ndev = cfg->device_all ? speedqa_list_devices(cfg->backend, list, sizeof list) : 1;
    ndev = ndev < 1 ? 1 : ndev > n ? n : ndev;
    DevShare *sh = calloc((size_t)ndev, sizeof *sh);
    SqJobStream *tmp = calloc((size_t)n, sizeof *tmp);
    pthread_t *tid = calloc((size_t)ndev, sizeof *tid);
    int ret = 0;
    if (!sh || !tmp || !tid) {
        cli_error("out of memory");
        ret = SQ_EXIT_INTERNAL;
        goto end;
    }
    for (int g = 0, at = 0; g < ndev; g++) {
        sh[g].cfg = *cfg;
        if (cfg->device_all) {
            sh[g].cfg.device = g;
            sh[g].cfg.device_name = NULL;
        }
        sh[g].job = *job;
        sh[g].st = tmp + at;
        for (int d = g; d < n; d += ndev)
            tmp[at + sh[g].n++] = st[d];
        at += sh[g].n;
    }
    int started = 0;
    for (int g = 1; g < ndev; g++)
        if (pthread_create(&tid[g], NULL, run_share, &sh[g]) == 0)
            started = g;
        else
            run_share(&sh[g]);
    run_share(&sh[0]);
    for (int g = 1; g <= started; g++)
        if (tid[g])
            pthread_join(tid[g], NULL);
    for (int g = 0, at = 0; g < ndev; g++) {
        for (int k = 0, d = g; k < sh[g].n; k++, d += ndev)
            st[d] = tmp[at + k];
        at += sh[g].n;
        if (sh[g].ret > ret)
            ret = sh[g].ret;
    }
end:
    free(sh);
    free(tmp);
    free(tid);
    return ret;
}

/* Several -d: one report each, named by the -o pattern. */
static int run_ladder_cli(const CliSettings *cfg)
{
    const int n = cfg->n_dis;
    const char *inputs[SQ_CLI_MAX_DIS + 1];
    static char names[SQ_CLI_MAX_DIS][4096];
    SqJobStream *st = calloc((size_t)n, sizeof *st);
    SqOutFile *of = calloc((size_t)n, sizeof *of);
    int ret = 0;
    if (!st || !of) {
        cli_error("out of memory");
        ret = SQ_EXIT_INTERNAL;
        goto end;
    }
    inputs[0] = cfg->ref_path;
    const char *outs[SQ_CLI_MAX_DIS];
    for (int d = 0; d < n; d++) {
        inputs[1 + d] = cfg->dis_paths[d];
        if (sq_cli_expand(names[d], sizeof names[d], cfg->output_path, cfg->dis_paths[d],
                          d + 1) < 0) {
            cli_error("-o %s: the name for %s is longer than %zu bytes", cfg->output_path,
                      cfg->dis_paths[d], sizeof names[d] - 1);
            ret = SQ_EXIT_USAGE;
            goto end;
        }
        outs[d] = names[d];
    }
    char err[1200];
    const int c = sq_outputs_check(outs, n, inputs, n + 1, err, sizeof err);
    if (c < 0) {
        cli_error("-o %s: %s%s", cfg->output_path, err,
                  c == -2 ? " (use {i}: one name per rendition)" : "");
        ret = c == -ENOMEM ? SQ_EXIT_INTERNAL : SQ_EXIT_USAGE;
        goto end;
    }
    for (int d = 0; d < n; d++) {
        if (sq_outfile_open(&of[d], names[d], err, sizeof err) < 0) {
            cli_error("%s", err);
            ret = SQ_EXIT_OUTPUT;
            goto end;
        }
        st[d] = (SqJobStream){ .path = cfg->dis_paths[d], .out = of[d].f, .out_path = names[d] };
    }
    const SqJob job = { .cfg = cfg, .ref_path = cfg->ref_path,
                        .features = cfg->n_features ? cfg->features : NULL,
                        .threads = sq_cli_threads(cfg) };
    const int gpu = cfg->backend != SPEEDQA_BACKEND_CPU && cfg->backend != SPEEDQA_BACKEND_AUTO;
    ret = gpu ? run_gpu_streams(cfg, &job, st, n) : sq_job_run(&job, st, n);
    for (int d = 0; d < n; d++) {
        /* the complete frames' report of a failed run goes to a new file only */
        if (!st[d].written || (st[d].exit && of[d].existed)) {
            sq_outfile_abort(&of[d]);
            continue;
        }
        if (sq_outfile_commit(&of[d], err, sizeof err) < 0) {
            cli_error("%s", err);
            if (ret < SQ_EXIT_OUTPUT)
                ret = SQ_EXIT_OUTPUT;
        }
    }
end:
    for (int d = 0; of && d < n; d++)
        if (of[d].f)
            sq_outfile_abort(&of[d]);
    free(st);
    free(of);
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
    if (cfg.batch_path)
        return sq_batch_run(&cfg);
    if (cfg.read_only)
        return sq_job_read_only(&cfg);
    if (cfg.n_dis > 1)
        return run_ladder_cli(&cfg);

    /* -o with {name} or {i} names the report after the one -d, as a ladder does */
    static char oname[4096];
    if (sq_cli_has_template(cfg.output_path)) {
        if (sq_cli_expand(oname, sizeof oname, cfg.output_path, cfg.dis_path, 1) < 0) {
            cli_error("-o %s: the name for %s is longer than %zu bytes", cfg.output_path,
                      cfg.dis_path, sizeof oname - 1);
            return SQ_EXIT_USAGE;
        }
        cfg.output_path = oname;
    }
    /* Checked before anything is opened for writing: writing would
     * destroy the input before it is read. */
    const char *inputs[2] = { cfg.ref_path, cfg.dis_path };
    const char *outs[1] = { cfg.output_path ? cfg.output_path : "-" };
    char cerr[1200];
    const int oc = sq_outputs_check(outs, 1, inputs, 2, cerr, sizeof cerr);
    if (oc < 0) {
        if (cfg.output_path)
            cli_error("%s", cerr);
        else
            cli_error("standard output is one of the inputs; refusing to write the report there");
        return oc == -ENOMEM ? SQ_EXIT_INTERNAL : SQ_EXIT_USAGE;
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
    SqJobStream st = { .path = cfg.dis_path, .out = out, .out_path = cfg.output_path };
    const SqJob job = { .cfg = &cfg, .ref_path = cfg.ref_path,
                        .features = cfg.n_features ? cfg.features : NULL,
                        .threads = sq_cli_threads(&cfg) };
    ret = sq_job_run(&job, &st, 1);
    if (!cfg.output_path)
        return ret;
    /* A report of the complete frames before a read error (exit 3) goes to a
     * new file; an existing one stays as it was, as after any failed run. */
    if (st.written && (ret == 0 || !of.existed)) {
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
