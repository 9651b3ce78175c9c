/*
 * What the files of a scoring job (job.c and job_*.c) share: the state of
 * one run (Run, its streams, their kept scores) and the helpers one file
 * offers the others. Split so that each file holds one concern of a job;
 * not used outside tools/job*.c.
 */
#ifndef SQ_TOOLS_JOB_PRIV_H
#define SQ_TOOLS_JOB_PRIV_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "job.h"
#include "input.h"
#include "prefetch.h"
#include "scale.h"
#include "vmaf/hooks.h"

/* Library messages: errors are kept for our one-line report, warnings are
 * shown (a bounded number of them) unless --quiet. */
typedef struct LogState {
    char last_error[512];
    int quiet;
    int warnings;
} LogState;

#define MAX_WARNINGS 20
#define LADDER_MAX SPEEDQA_MAX_DISTORTED

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
    unsigned long long undef_frame[SQ_JOB_MAX_SCORES][UNDEF_LISTED];
    long long undef_n[SQ_JOB_MAX_SCORES];
} Results;

/* One distorted input while it is scored. */
typedef struct Stream {
    SqJobStream *st;
    SqInput *in;
    SqPrefetch *ahead;
    SqScaler *scaler;   /* --scale and another size: frames are scaled into sbuf */
    uint8_t *sbuf;
    SpeedqaPicture scaled;
    Results res;
    SqModelRun *vm;     /* --model: this stream's libvmaf session; NULL: none */
    int active;         /* still has frames to send */
    const char *empty;  /* the input with no frame, when one side had some */
    long long sent, received;
    /* A read that failed after some frames were scored: the report of the
     * complete frames is still written, then this error is printed. */
    int read_exit;
    char read_err[1100];
} Stream;

typedef struct Run {
    const SqJob *job;
    const CliSettings *cfg;
    SqInput *ref;
    SqPrefetch *ref_ahead;
    int n;
    Stream *s;          /* n */
    SpeedqaContext *ctx;
    LogState *log;
    int vmaf_only;      /* --model whose features are all libvmaf's: no speedqa context */
    long long sent;     /* reference frames sent */
    SpeedqaPicture ref_host;  /* --model with NVDEC: the reference's host copy ... */
    long long ref_host_sent;  /* ... of this frame (0: none yet, frames count from 1) */
    unsigned touched;   /* --read-only: a sum that keeps the reads */
    int ref_read_exit;
    char ref_read_err[1100];
} Run;

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int exit_for_read(int r)
{
    return r == -ENOMEM ? SQ_EXIT_INTERNAL : SQ_EXIT_INPUT;
}

static inline const char *shown(const char *path)
{
    return strcmp(path, "-") ? path : "<stdin>";
}

static inline int same_format(const SpeedqaFormat *a, const SpeedqaFormat *b)
{
    return a->width == b->width && a->height == b->height && a->fmt == b->fmt && a->bpc == b->bpc;
}

/* job_context.c: the library context of a run, and SPEEDQA_TIMES's stage lines. */
void sq_job_stage(const char *what);
int sq_job_get_context(Run *run, const SpeedqaFormat *f, LogState *own_log, const char *dis_path);
void sq_job_put_context(Run *run, int failed);

/* job_open.c: the inputs of a run opened, checked and started. */
long long sq_job_input_frames(const SqInput *in, const char *path);
int sq_job_open_input(SqInput **in, const char *path, const CliSettings *cfg);
int sq_job_skip_input(SqInput *in, const char *path, const char *flag, long long n);
void sq_job_open_streams(Run *run, SqJobStream *const *st, int n, const SpeedqaFormat *fr,
                         char *line);
int sq_job_start_reader(SqInput *in, SqPrefetch **ahead, int threads, SqPrefault prefault);
SqPrefault sq_job_prefault_for(const Run *run, const SqJob *job);
void sq_job_tell_inputs(Run *run, const SpeedqaFormat *fr, int use_vmaf);

/* job_loop.c: the frames read, sent and received, and the progress line. */
int sq_job_score(Run *run);
void sq_job_progress_clear(void);
void sq_job_progress_start(const Run *run);
void sq_job_progress_stop(void);
void sq_job_progress_update(long long done, int final);

/* job_report.c: a stream's end, its report or its failure. */
void sq_job_stream_fail(SqJobStream *st, int code, const char *line);
void sq_job_report_stream(const Run *run, Stream *sd, int nscores, double elapsed, char *line);

#endif
