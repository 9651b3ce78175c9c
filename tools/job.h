/*
 * One scoring job of the speedqa tool: a reference against one or more
 * distorted inputs (a ladder), each with its own report. The single run,
 * the -d ladder and every pair of --batch go through here.
 */
#ifndef SQ_TOOLS_JOB_H
#define SQ_TOOLS_JOB_H

#include <stdio.h>

#include "cli_parse.h"
#include "output/writer.h"
#include "speedqa/speedqa.h"

/* The scores a job keeps per frame and sums up per stream (speedqa's, or
 * the first of a model's report): a context with more is refused at open. */
#define SQ_JOB_MAX_SCORES 32

/* One distorted input of a job, and how it ended. */
typedef struct SqJobStream {
    const char *path;
    FILE *out;          /* its report; NULL: none (a batch pair without output) */
    const char *out_path; /* the report's name (its extension picks the format); NULL: stdout */
    /* When set and out is NULL: opens out just before the report is written
     * (a batch holds a report open only while it writes it); 0, or an
     * SQ_EXIT_* code with its line in err. */
    int (*open_out)(struct SqJobStream *st, void *arg);
    void *open_arg;
    int exit;           /* SQ_EXIT_*: 0 scored (and reported, when out is set) */
    int written;        /* its whole report went to out (even when a read error follows) */
    char err[1200];     /* its first error line, "" if none */
    long long frames;   /* frames reported */
    int nscores;
    char names[SQ_JOB_MAX_SCORES][320];
    SqPooled pooled[SQ_JOB_MAX_SCORES];
} SqJobStream;

/* A library context kept from one job to the next of the same shape
 * (a batch on a GPU pays its start-up once). Zero-initialise; close with
 * sq_job_cache_free. */
typedef struct SqJobCache SqJobCache;
SqJobCache *sq_job_cache_new(void);
void sq_job_cache_free(SqJobCache **c);

typedef struct SqJob {
    const CliSettings *cfg;     /* every flag but the inputs and the output */
    const char *ref_path;
    const char *const *features; /* NULL-terminated; NULL: the library's default pair */
    int threads;                /* library threads for this job */
    int batch;                  /* errors go to the streams' err only, no progress line */
    SqJobCache *cache;          /* NULL: a context of its own */
    /* VMAF models of this job (a batch pair's own); NULL: cfg's --model */
    const SqModel *models;
    int n_models;
} SqJob;

/*
 * Score every stream of the job: one ladder context when there are several
 * and the backend takes ladders (up to SPEEDQA_MAX_DISTORTED at a time),
 * else one stream after another. A stream whose input cannot be opened or
 * does not match the reference fails alone; a scoring failure inside a
 * ladder (a bad sample, an undefined score) scores its streams again one by
 * one, so that only the stream at fault fails, with its own message.
 * Every stream's error line is in its err; outside a batch it is also
 * printed, once, when the job ends. Returns the worst exit code of the
 * streams (0: all scored).
 */
int sq_job_run(const SqJob *job, SqJobStream *st, int n);

/* --read-only: read both inputs as scoring would, score nothing, print the rate. */
int sq_job_read_only(const CliSettings *cfg);

/* Read (or decode) one pair as a run would and score nothing: the frame
 * pairs read, the seconds of the read loop and the checksum of what was
 * touched; 0 or an SQ_EXIT_* code (its line already printed). */
int sq_job_read_pair(const CliSettings *cfg, const char *ref_path, const char *dis_path,
                     long long *frames, double *secs, unsigned *checksum);

#endif
