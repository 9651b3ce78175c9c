/*
 * --model inside a scoring job (tools/job.c): the speedqa features a job
 * computes for its models, and one model run per distorted stream on one
 * of two engines (engine.h: libvmaf's session, or speedqa's own when it
 * computes every feature), with the tool's one-line errors and exit codes.
 */
#ifndef SQ_TOOLS_VMAF_HOOKS_H
#define SQ_TOOLS_VMAF_HOOKS_H

#include "cli_parse.h"
#include "speedqa/speedqa.h"

typedef struct SqModelRun SqModelRun;

/* What a report of a model run holds (valid until the run is closed). */
typedef struct SqModelReport {
    int n;
    const char *const *names;
    const double *values;              /* nframes x n */
    const SpeedqaPooled *pooled;
    size_t nframes;
    const unsigned long long *frame_num;
} SqModelReport;

/*
 * The speedqa features of a job: every native feature of the models (sq_model_native, deduplicated) and then the
 * job's own list (user: NULL-terminated; NULL: none), into out (NULL-
 * terminated, strings in buf). Returns how many (0: none, libvmaf computes
 * every feature), or -1 after one error line (too many).
 */
int sq_model_job_features(const char *const *user, const SqModel *models, int n_models,
                          const char **out, char (*buf)[400], int max);

/* One stream's session; native: the features of the job's speedqa context
 * (sq_model_job_features's). 0 or an SQ_EXIT_* code after one error line. */
int sq_model_run_open(SqModelRun **r, const CliSettings *cfg, const SqModel *models,
                      int n_models, const char *const *speedqa, const SpeedqaFormat *f,
                      int threads);
/* Whether the run takes the pictures (libvmaf's engine computes features
 * from them; speedqa's own takes only the scores). */
int sq_model_run_pictures(const SqModelRun *r);
int sq_model_run_send(SqModelRun *r, const SpeedqaPicture *ref, const SpeedqaPicture *dis,
                      long long index);
/* speedqa's n scores of one frame (ctx names them). */
int sq_model_run_import(SqModelRun *r, SpeedqaContext *ctx, unsigned long long frame,
                        const double *values, int n);
/* After the last of sent frames: predicted, pooled, assembled. */
int sq_model_run_report(SqModelRun *r, long long sent, long long subsample, SqModelReport *rep);
void sq_model_run_close(SqModelRun **r);

#endif
