/*
 * The end of a scoring job's streams: the warnings about what was scored,
 * each stream's summary and report (speedqa's scores, or with --model
 * libvmaf's), or the failure it records. Apart from the loop because what
 * a report holds changes with the formats, not with how frames are scored.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_priv.h"

/* Record the thread's captured error line for stream d. */
void sq_job_stream_fail(SqJobStream *st, int code, const char *line)
{
    st->exit = code;
    if (!st->err[0])
        snprintf(st->err, sizeof st->err, "%s", line);
}

/*
 * One feature whose scores libvmaf leaves undefined on some frames (NaN
 * before the clip) gets one warning: the published value is the clip, as in
 * libvmaf, but the user should know which frames carry it.
 */
static void warn_undefined(const Results *res, SpeedqaContext *ctx, const CliSettings *cfg,
                           const char *path, int named)
{
    if (cfg->quiet)
        return;
    for (int k = 0; k < res->nscores;) {
        const char *name = speedqa_score_name(ctx, k);
        /* speed_chroma's u, v, uv come together: one feature, one warning */
        const int group = !strncmp(name, "speed_chroma_u", 14) && k + 2 < res->nscores ? 3 : 1;
        int worst = k;
        char which[400] = "";
        size_t len = 0;
        for (int j = k; j < k + group; j++) {
            if (!res->undef_n[j])
                continue;
            if (res->undef_n[j] > res->undef_n[worst] || !res->undef_n[worst])
                worst = j;
            len += (size_t)snprintf(which + len, len < sizeof which ? sizeof which - len : 0, "%s%s",
                                    len ? ", " : "", speedqa_score_name(ctx, j));
        }
        if (res->undef_n[worst]) {
            char frames[200] = "";
            size_t fl = 0;
            const long long n = res->undef_n[worst];
            for (long long i = 0; i < n && i < UNDEF_LISTED; i++)
                fl += (size_t)snprintf(frames + fl, fl < sizeof frames ? sizeof frames - fl : 0,
                                       "%s%llu", i ? ", " : "", res->undef_frame[worst][i]);
            sq_job_progress_clear();
            cli_warning("%s%s%s %s undefined on %lld frame%s (%s%s): NaN before the speed_max_val "
                        "clip; the clip value is reported, as libvmaf does", named ? shown(path) : "",
                        named ? ": " : "", which, strchr(which, ',') ? "are" : "is", n,
                        n == 1 ? "" : "s", frames, n > UNDEF_LISTED ? ", ..." : "");
        }
        k += group;
    }
}

static const SqWriter *pick_writer(const CliSettings *cfg, const char *path)
{
    if (cfg->format)
        return sq_writer_by_name(cfg->format);
    const SqWriter *w = path ? sq_writer_by_path(path) : NULL;
    return w ? w : &sq_writer_xml;
}

/* Its scores: speedqa's, or with --model libvmaf's collector (mr). */
static int write_report(const Run *run, const Stream *s, const char *oname, double fps,
                        const SqModelReport *mr)
{
    const CliSettings *cfg = run->cfg;
    const int n = mr ? mr->n : speedqa_score_count(run->ctx);
    const char *names[SQ_JOB_MAX_SCORES];
    for (int k = 0; !mr && k < n; k++)
        names[k] = speedqa_score_name(run->ctx, k);
    const SpeedqaFormat *f = &sq_input_info(run->ref)->format;
    const SqReport rep = {
        .version = speedqa_version(),
        .width = f->width,
        .height = f->height,
        .fps = fps,
        .precision_max = cfg->precision_max,
        .nscores = n,
        .names = mr ? mr->names : names,
        .nframes = mr ? mr->nframes : s->res.n,
        .frame_num = mr ? mr->frame_num : s->res.frame_num,
        .values = mr ? mr->values : s->res.values,
        .pooled = mr ? mr->pooled : s->st->pooled,
    };
    errno = 0;
    FILE *out = s->st->out;
    int r = pick_writer(cfg, oname)->write(out, &rep);
    if (r == 0 && fflush(out) != 0)
        r = -1;
    if (r < 0) {
        /* a reader that went away (| head) wanted no more: end quietly */
        if (errno != EPIPE)
            cli_error("%s: write failed: %s", oname ? oname : "<stdout>",
                      errno ? strerror(errno) : "I/O error");
        return SQ_EXIT_OUTPUT;
    }
    return 0;
}

/* Stream sd after the loop (nscores: speedqa's scores a frame; elapsed: the
 * loop's seconds): its summary and report, or its failure with its line. */
void sq_job_report_stream(const Run *run, Stream *sd, int nscores, double elapsed, char *line)
{
    const SqJob *job = run->job;
    const CliSettings *cfg = run->cfg;
    SqJobStream *o = sd->st;
    line[0] = '\0';
    const int read_exit = sd->read_exit ? sd->read_exit : run->ref_read_exit;
    const char *read_err = sd->read_exit ? sd->read_err : run->ref_read_err;
    if (sd->sent == 0) {
        if (read_exit)
            cli_error("%s", read_err);
        else
            cli_error("%s: no frames to score%s", shown(sd->empty ? sd->empty : job->ref_path),
                      (!sd->empty ? cfg->skip_ref || cfg->skip_dis
                                  : sd->empty == job->ref_path ? cfg->skip_ref : cfg->skip_dis)
                          ? " after skipping" : "");
        sq_job_stream_fail(o, read_exit ? read_exit : SQ_EXIT_INPUT, line);
        return;
    }
    if (cfg->frame_cnt > sd->sent && !cfg->quiet && !read_exit) {
        sq_job_progress_clear();
        cli_warning("--frame_cnt %lld: the inputs have only %lld frames%s%s", cfg->frame_cnt,
                    sd->sent, run->n > 1 ? " in " : "", run->n > 1 ? shown(o->path) : "");
    }
    if (run->ctx)
        warn_undefined(&sd->res, run->ctx, cfg, o->path, run->n > 1 || job->batch);
    SqModelReport mr;
    int r = 0;
    /* speedqa's scores go to libvmaf at the end, all at once: its
     * collector then lists them after its own features on every run */
    for (size_t i = 0; sd->vm && !r && i < sd->res.n; i++)
        r = sq_model_run_import(sd->vm, run->ctx, sd->res.frame_num[i],
                                sd->res.values + i * (size_t)nscores, nscores);
    if (sd->vm && !r)
        r = sq_model_run_report(sd->vm, sd->sent, cfg->subsample, &mr);
    if (r) {
        sq_job_stream_fail(o, r, line);
        return;
    }
    /* a stream's summary keeps the first SQ_JOB_MAX_SCORES (a model's report has more) */
    o->nscores = sd->vm ? (mr.n < SQ_JOB_MAX_SCORES ? mr.n : SQ_JOB_MAX_SCORES) : nscores;
    o->frames = sd->vm ? (long long)mr.nframes : (long long)sd->res.n;
    for (int k = 0; k < o->nscores; k++) {
        snprintf(o->names[k], sizeof o->names[k], "%s",
                 sd->vm ? mr.names[k] : speedqa_score_name(run->ctx, k));
        o->pooled[k] = sd->vm ? mr.pooled[k]
                              : sq_report_pool(sd->res.values, sd->res.n, nscores, k);
    }
    if (!o->out && o->open_out)
        r = o->open_out(o, o->open_arg);
    if (!r && o->out)
        r = write_report(run, sd, o->out_path,
                         elapsed > 0 ? (double)sd->sent / elapsed : INFINITY,
                         sd->vm ? &mr : NULL);
    o->written = o->out && r == 0;
    if (r == 0 && read_exit) {
        cli_error("%s", read_err);
        r = read_exit;
    }
    if (r)
        sq_job_stream_fail(o, r, line);
}
