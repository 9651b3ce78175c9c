/*
 * A scoring job (job.h): its streams grouped into ladders of one context,
 * a ladder that fails scored again stream by stream, and --read-only's
 * pass over the inputs. What each step does lives in job_open.c (inputs),
 * job_context.c (the library context), job_loop.c (the frames) and
 * job_report.c (the reports); this file holds the order of the steps.
 */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_priv.h"

/* Everything of a run let go, its context last kept or closed (failed). */
static void close_run(Run *run, int failed)
{
    Stream *s = run->s;
    /* while the context lives: it unregisters the windows it still has */
    sq_input_unpin(run->ref);
    for (int d = 0; d < LADDER_MAX; d++)
        sq_input_unpin(s[d].in);
    sq_job_put_context(run, failed);
    sq_job_stage("context closed");
    sq_prefetch_stop(&run->ref_ahead);
    sq_input_close(&run->ref);
    for (int d = 0; d < LADDER_MAX; d++) {
        sq_prefetch_stop(&s[d].ahead);
        sq_input_close(&s[d].in);
        sq_scaler_close(&s[d].scaler);
        sq_model_run_close(&s[d].vm);
        free(s[d].sbuf);
        free(s[d].res.values);
        free(s[d].res.frame_num);
    }
    sq_job_stage("inputs closed");
}

/*
 * Score n (<= LADDER_MAX) streams in one context. Returns 0, or an exit
 * code of a failure of the whole ladder (the context, a library error):
 * those leave every stream without a report; the caller decides.
 */
static int run_ladder(const SqJob *job_in, SqJobStream *const *st, int n, char *line)
{
    const CliSettings *cfg = job_in->cfg;
    LogState own_log;
    Stream s[LADDER_MAX];
    memset(s, 0, sizeof s);
    /* --model: speedqa computes the models' own features (and --feature's) */
    SqJob mjob = *job_in;
    const SqJob *job = &mjob;
    const char *mfeat[SPEEDQA_MAX_FEATURES + 1];
    char mbuf[SPEEDQA_MAX_FEATURES][400];
    Run run = { .job = job, .cfg = cfg, .n = 0, .s = s };
    const SqModel *models = job_in->models ? job_in->models : cfg->models;
    const int n_models = job_in->models ? job_in->n_models : cfg->n_models;
    const int use_vmaf = n_models || cfg->n_vmaf_features;
    if (use_vmaf) {
        const int nf = sq_model_job_features(job_in->features, models, n_models, mfeat, mbuf,
                                             SPEEDQA_MAX_FEATURES);
        if (nf < 0)
            return SQ_EXIT_USAGE;
        mjob.features = mfeat;
        run.vmaf_only = nf == 0;
    }
    sq_job_stage("job start");
    int ret = sq_job_open_input(&run.ref, job->ref_path, cfg);
    if (!ret)
        ret = sq_job_skip_input(run.ref, job->ref_path, "--frame_skip_ref", cfg->skip_ref);
    if (ret)
        goto end;
    const SpeedqaFormat *fr = &sq_input_info(run.ref)->format;
    /* a distorted input that cannot be used fails alone */
    sq_job_open_streams(&run, st, n, fr, line);
    line[0] = '\0';
    if (!run.n)
        goto end;
    sq_job_stage("inputs open");
    if (!run.vmaf_only && (ret = sq_job_get_context(&run, fr, &own_log, s[0].st->path)) != 0)
        goto end;
    sq_job_stage("context open");
    for (int d = 0; use_vmaf && d < run.n; d++)
        if ((ret = sq_model_run_open(&s[d].vm, cfg, models, n_models, job->features, fr,
                                           job->threads)) != 0)
            goto end;
    const int nscores = run.ctx ? speedqa_score_count(run.ctx) : 0;
    for (int d = 0; d < run.n; d++) {
        s[d].res.nscores = nscores;
        s[d].res.subsample = cfg->subsample;
    }
    sq_job_progress_start(&run);
    /* libvmaf's engine reads whole pictures; speedqa's own only the scores */
    sq_job_tell_inputs(&run, fr, use_vmaf && sq_model_run_pictures(s[0].vm));
    const SqPrefault pf = sq_job_prefault_for(&run, job);
    ret = sq_job_start_reader(run.ref, &run.ref_ahead, job->threads, pf);
    for (int d = 0; !ret && d < run.n; d++)
        ret = sq_job_start_reader(s[d].in, &s[d].ahead, job->threads, pf);
    if (ret)
        goto end;
    const double t0 = now_s();
    ret = sq_job_score(&run);
    const double elapsed = now_s() - t0;
    sq_job_stage("scored");
    if (ret) {
        sq_job_progress_clear();
        goto end;
    }
    sq_job_progress_update(s[0].received, 1);
    for (int d = 0; d < run.n; d++)
        sq_job_report_stream(&run, &s[d], nscores, elapsed, line);
    line[0] = '\0';
    sq_job_stage("reports written");
end:
    sq_job_progress_stop();
    close_run(&run, ret != 0);
    return ret;
}

int sq_job_run(const SqJob *job, SqJobStream *st, int n)
{
    char line[1200];
    cli_capture(line, sizeof line, 0);
    for (int d = 0; d < n; d++) {
        st[d].exit = st[d].written = 0;
        st[d].err[0] = '\0';
        st[d].frames = 0;
    }
    /* GPU backends score one stream at a time; the CPU backend a ladder */
    const int lmax = job->cfg->backend == SPEEDQA_BACKEND_CPU ||
                     job->cfg->backend == SPEEDQA_BACKEND_AUTO ? LADDER_MAX : 1;
    for (int at = 0; at < n; at += lmax) {
        const int m = n - at < lmax ? n - at : lmax;
        SqJobStream *group[LADDER_MAX];
        for (int d = 0; d < m; d++)
            group[d] = &st[at + d];
        line[0] = '\0';
        int r = run_ladder(job, group, m, line);
        if (!r)
            continue;
        if (m == 1 || r == SQ_EXIT_USAGE || r == SQ_EXIT_BACKEND) {
            /* the whole job (its reference, the features, the backend) failed */
            for (int d = 0; d < m; d++)
                if (!group[d]->exit)
                    sq_job_stream_fail(group[d], r, line);
            continue;
        }
        /* a failure inside the ladder: each stream on its own finds the one at fault */
        for (int d = 0; d < m; d++) {
            if (group[d]->exit)
                continue;
            line[0] = '\0';
            if ((r = run_ladder(job, &group[d], 1, line)) != 0)
                sq_job_stream_fail(group[d], r, line);
        }
    }
    cli_capture(NULL, 0, 0);
    int worst = 0;
    for (int d = 0; d < n; d++) {
        if (st[d].exit > worst)
            worst = st[d].exit;
        if (st[d].exit && st[d].err[0] && !job->batch)
            cli_error("%s", st[d].err);
    }
    return worst;
}

int sq_job_read_pair(const CliSettings *cfg, const char *ref_path, const char *dis_path,
                     long long *frames, double *secs, unsigned *checksum)
{
    Stream s = { 0 };
    SqJobStream st = { .path = dis_path };
    const SqJob job = { .cfg = cfg, .ref_path = ref_path, .threads = 1 };
    Run run = { .job = &job, .cfg = cfg, .n = 1, .s = &s };
    s.st = &st;
    s.active = 1;
    *frames = 0;
    *secs = 0.0;
    int ret = sq_job_open_input(&run.ref, ref_path, cfg);
    if (!ret)
        ret = sq_job_open_input(&s.in, dis_path, cfg);
    if (!ret)
        ret = sq_job_skip_input(run.ref, ref_path, "--frame_skip_ref", cfg->skip_ref);
    if (!ret)
        ret = sq_job_skip_input(s.in, dis_path, "--frame_skip_dist", cfg->skip_dis);
    if (!ret)
        ret = sq_job_start_reader(run.ref, &run.ref_ahead, 1, SQ_PREFAULT_SPARE);
    if (!ret)
        ret = sq_job_start_reader(s.in, &s.ahead, 1, SQ_PREFAULT_SPARE);
    if (!ret) {
        const double t0 = now_s();
        ret = sq_job_score(&run);
        *secs = now_s() - t0;
        const int rexit = s.read_exit ? s.read_exit : run.ref_read_exit;
        if (!ret && rexit) {
            cli_error("%s", s.read_exit ? s.read_err : run.ref_read_err);
            ret = rexit;
        }
        *frames = run.sent;
        *checksum = run.touched;
    }
    sq_prefetch_stop(&run.ref_ahead);
    sq_prefetch_stop(&s.ahead);
    sq_input_close(&run.ref);
    sq_input_close(&s.in);
    return ret;
}

int sq_job_read_only(const CliSettings *cfg)
{
    long long n;
    double t;
    unsigned sum = 0;
    const int ret = sq_job_read_pair(cfg, cfg->ref_path, cfg->dis_path, &n, &t, &sum);
    if (!ret)
        fprintf(stderr, "speedqa: --read-only: %lld frame pairs read in %.3f s: %.1f fps "
                "(checksum %u), nothing scored\n", n, t, t > 0 ? (double)n / t : 0.0, sum);
    return ret;
}
