/*
 * What tools/batch.c and tools/batch_lines.c share: one batch run's state.
 */
#ifndef SQ_TOOLS_BATCH_PRIV_H
#define SQ_TOOLS_BATCH_PRIV_H

#include <pthread.h>
#include <stdio.h>

#include "batch_models.h"
#include "batch_plan.h"
#include "cli_parse.h"
#include "manifest.h"

typedef struct Batch {
    const CliSettings *cfg;
    CliSettings *dev_cfg;   /* --device all: worker w's settings name device w % ndev */
    int ndev;
    int next_worker;
    SqPair *pairs;
    int npairs;
    char **kept;        /* --resume: the line kept for a pair, NULL: to score */
    char **line;        /* this run's line of a pair, once its chunk is done */
    char *settings;     /* what every line records (results.h) */
    SqBatchModels models; /* the manifest's own models, by pair */
    int *order;         /* pairs to score, grouped */
    SqTask *task;
    int ntasks, next_task;
    int workers, threads_each;
    FILE *out;          /* the lines as they come; NULL: none (a subset's go to batch_lines) */
    int write_failed;
    int failed;         /* worst exit of a pair */
    int nfailed;
    int todo, done;     /* pairs to score, pairs scored: the progress line */
    long long frames;
    int progress;       /* stderr is a terminal: one line, rewritten */
    double t0, shown;   /* start; the progress line's last update */
    long long frames_read; /* --read-only */
    pthread_mutex_t mu;
} Batch;

double sq_batch_now(void);

/* Under mu: one line to the results, flushed at once (an interrupted batch keeps it). */
void sq_batch_write_line(Batch *b, const char *line);

/* Under mu: pair i's line is done (taken; NULL: out of memory): written to
 * the results as it comes, kept for the ordered file at the end. */
void sq_batch_take_line(Batch *b, int i, char *l);

/* Under mu: the progress line on a terminal. */
void sq_batch_progress(Batch *b);

/* cfg->batch_exec: the pairs left to score, through the executor. */
void sq_batch_exec(Batch *b);

#endif
