/*
 * libspeedqa_io's batches: tools/batch.c's runner, whole (speedqa_io_batch),
 * on a subset with its lines kept in memory (speedqa_io_batch_pairs, a Dask
 * task's chunk), or with the scoring handed to an executor that delivers
 * the lines back (speedqa_io_batch_exec, the Dask client).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "io_priv.h"

/* Runs the batch with run's settings, its lines into a buffer; err: its first error line. */
static int run(CliSettings *run, char **lines, size_t *len, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t n = 0;
    char line[1200] = "";
    sq_io_copy(err, errlen, "");
    FILE *mem = open_memstream(&buf, &n);
    if (!mem) {
        sq_io_copy(err, errlen, "out of memory");
        return SQ_EXIT_INTERNAL;
    }
    run->batch_lines = mem;
    cli_capture(line, sizeof line, 0);
    int ret = sq_batch_run(run);
    cli_capture(NULL, 0, 0);
    if (fclose(mem) != 0 && !ret) {
        ret = SQ_EXIT_INTERNAL;
        sq_io_copy(line, sizeof line, "out of memory");
    }
    sq_io_copy(err, errlen, line);
    if (lines) {
        *lines = buf;
        if (len)
            *len = n;
    } else {
        free(buf);
    }
    return ret;
}

static int need_batch(const SpeedqaIo *io, char **lines, size_t *len, char *err, size_t errlen)
{
    if (lines)
        *lines = NULL;
    if (len)
        *len = 0;
    if (!io || !io->cfg.batch_path) {
        sq_io_copy(err, errlen, "a batch needs --batch MANIFEST among the flags");
        return SQ_EXIT_USAGE;
    }
    return 0;
}

int speedqa_io_batch(const SpeedqaIo *io, char **lines, size_t *len, char *err, size_t errlen)
{
    int r = need_batch(io, lines, len, err, errlen);
    if (r)
        return r;
    CliSettings cfg = io->cfg;
    return run(&cfg, lines, len, err, errlen);
}

int speedqa_io_batch_pairs(const SpeedqaIo *io, const int *pairs, int n, char **lines,
                           size_t *len, char *err, size_t errlen)
{
    int r = need_batch(io, lines, len, err, errlen);
    if (r)
        return r;
    if (n < 1 || !pairs) {
        sq_io_copy(err, errlen, "no pairs to score");
        return SQ_EXIT_USAGE;
    }
    CliSettings cfg = io->cfg;
    cfg.batch_only = pairs;
    cfg.batch_nonly = n;
    cfg.resume = 0; /* the caller's results file is resumed where it is written */
    cfg.output_path = NULL;
    return run(&cfg, lines, len, err, errlen);
}

int speedqa_io_batch_exec(const SpeedqaIo *io, SpeedqaIoExec exec, void *opaque, char **lines,
                          size_t *len, char *err, size_t errlen)
{
    int r = need_batch(io, lines, len, err, errlen);
    if (r)
        return r;
    CliSettings cfg = io->cfg;
    cfg.batch_exec = exec;
    cfg.batch_exec_opaque = opaque;
    return run(&cfg, lines, len, err, errlen);
}

int speedqa_io_batch_deliver(void *sink, const int *pairs, int n, const char *lines, int exit_code)
{
    return sink && (pairs || n == 0) ? sq_batch_deliver(sink, pairs, n, lines, exit_code) : -22;
}
