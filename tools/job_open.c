/*
 * The inputs of a scoring job: opened with the CLI's flags, skipped,
 * checked against each other, and their readers started (a mapped file
 * lent in place, any other on a read-ahead thread). Apart from the loop
 * because every rule about what an input is and how it is read lives here.
 */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job_priv.h"
#include "output/outfile.h"

static size_t frame_bytes(const SpeedqaFormat *f)
{
    size_t w = (size_t)f->width, h = (size_t)f->height, cw = 0, ch = 0;
    switch (f->fmt) {
    case SPEEDQA_PIX_400: break;
    case SPEEDQA_PIX_420: cw = (w + 1) / 2; ch = (h + 1) / 2; break;
    case SPEEDQA_PIX_422: cw = (w + 1) / 2; ch = h; break;
    case SPEEDQA_PIX_444: cw = w; ch = h; break;
    }
    return (w * h + 2 * cw * ch) * (f->bpc > 8 ? 2 : 1);
}

/* Frames an input holds: the reader's count, else an estimate for a
 * regular Y4M file (size / (FRAME line + payload)); -1 when unknown. */
long long sq_job_input_frames(const SqInput *in, const char *path)
{
    const SqInputInfo *info = sq_input_info(in);
    if (info->frames >= 0)
        return info->frames;
    struct stat st;
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    return (long long)st.st_size / (long long)(frame_bytes(&info->format) + 6);
}

int sq_job_open_input(SqInput **in, const char *path, const CliSettings *cfg)
{
    char err[1100];
    int r = sq_input_open_ex(in, path, NULL, cfg->have_raw ? &cfg->raw : NULL,
                             cfg->hwaccel ? (cfg->device < 0 ? 0 : cfg->device) : -1,
                             cfg->decode_threads, cfg->io_read, err, sizeof err);
    if (r < 0) {
        cli_error("%s", err);
        return r == -ENODEV ? SQ_EXIT_BACKEND : exit_for_read(r);
    }
    if (sq_input_info(*in)->note && !cfg->quiet)
        cli_warning("%s", sq_input_info(*in)->note); /* --hwaccel: decoded in software */
    const char il = sq_input_info(*in)->interlace;
    if (il && !cfg->quiet)
        cli_warning("%s: the Y4M header says interlaced (I%c); its fields are scored as one "
                    "progressive frame, as libvmaf does", shown(path), il);
    return 0;
}

/* Skips n frames, counting them so that running off the end can say so. */
int sq_job_skip_input(SqInput *in, const char *path, const char *flag, long long n)
{
    char err[1100];
    for (long long i = 0; i < n; i++) {
        int r = sq_input_skip(in, 1, err, sizeof err);
        if (r < 0) {
            cli_error("%s", err);
            return exit_for_read(r);
        }
        if (r == 0) {
            cli_error("%s: %s %lld skips past the end (it has %lld frames)", shown(path), flag, n, i);
            return SQ_EXIT_INPUT;
        }
    }
    return 0;
}

/* --scale: a scaler for a stream whose size differs, and the buffer it scales into. */
static int setup_scaler(Stream *s, const SpeedqaFormat *ref, const CliSettings *cfg)
{
    const SpeedqaFormat *f = &sq_input_info(s->in)->format;
    char err[600];
    int r = sq_scaler_open(&s->scaler, f, ref->width, ref->height, err, sizeof err);
    if (r < 0) {
        cli_error("%s: --scale: %s", shown(s->st->path), err);
        return r == -ENOMEM ? SQ_EXIT_INTERNAL : SQ_EXIT_INPUT;
    }
    SpeedqaFormat to = *ref;
    const size_t bps = to.bpc > 8 ? 2 : 1;
    const size_t row = (size_t)to.width * bps;
    const int cw = to.fmt == SPEEDQA_PIX_444 ? to.width : (to.width + 1) / 2;
    const int ch = to.fmt == SPEEDQA_PIX_420 ? (to.height + 1) / 2 : to.height;
    const size_t crow = (size_t)cw * bps;
    const size_t total = row * (size_t)to.height + (to.fmt ? 2 * crow * (size_t)ch : 0);
    if (!(s->sbuf = malloc(total))) {
        cli_error("out of memory for --scale");
        return SQ_EXIT_INTERNAL;
    }
    s->scaled = (SpeedqaPicture){ .format = to };
    s->scaled.data[0] = s->sbuf;
    s->scaled.stride[0] = (ptrdiff_t)row;
    for (int p = 1; to.fmt && p < 3; p++) {
        s->scaled.data[p] = s->sbuf + row * (size_t)to.height + (size_t)(p - 1) * crow * (size_t)ch;
        s->scaled.stride[p] = (ptrdiff_t)crow;
    }
    if (sq_input_info(s->in)->range == 2 && !cfg->quiet)
        cli_warning("%s is tagged full range: ffmpeg's scale filter would convert it to limited "
                    "range, --scale scales the samples as they are", shown(s->st->path));
    return 0;
}

/*
 * Full-range samples scored against limited-range ones (a yuvj source, a
 * TV-range encode) differ everywhere for reasons that are not coding loss;
 * the scores are still what libvmaf gives, so warn, not refuse.
 */
static void colour_check(const Run *run, const Stream *s)
{
    static const char *const rn[] = { "unknown", "limited", "full" };
    const SqInputInfo *a = sq_input_info(run->ref), *b = sq_input_info(s->in);
    const char *rp = shown(run->job->ref_path), *dp = shown(s->st->path);
    if (run->cfg->quiet)
        return;
    if (a->range && b->range && a->range != b->range)
        cli_warning("colour ranges differ: %s is %s range, %s is %s range; the samples are "
                    "compared as they are", rp, rn[a->range], dp, rn[b->range]);
    if (a->matrix != 2 && b->matrix != 2 && a->matrix != b->matrix)
        cli_warning("colour matrices differ: %s has matrix %d, %s has matrix %d (ISO/IEC "
                    "23091-2 codes); the samples are compared as they are", rp, a->matrix, dp,
                    b->matrix);
}

/*
 * A mapped input is lent to the library frame by frame, no thread needed;
 * any other is read on its own thread, a few frames ahead of the scoring.
 */
int sq_job_start_reader(SqInput *in, SqPrefetch **ahead, int threads, SqPrefault prefault)
{
    char perr[200];
    if (sq_input_mapped(in)) {
        sq_outfile_exit_on(SIGBUS, "speedqa: error: an input file shrank while it was being "
                           "read (SIGBUS); no report written\n", SQ_EXIT_INPUT);
        sq_input_lend(in);
        sq_input_prefault(in, prefault);
        return 0;
    }
    /* decoded frames are lent from the decoder's buffers, not packed */
    sq_input_lend(in);
    /* enough buffers for the frames the library holds and a few ahead */
    const int pr = sq_prefetch_start(ahead, in, 2 * threads + 6, perr, sizeof perr);
    if (pr < 0 && pr != -ENOTSUP) {
        cli_error("%s", perr);
        return SQ_EXIT_INTERNAL;
    }
    return 0;
}

/*
 * Whether a thread maps mapped inputs' pages ahead of the scoring. With a
 * core to spare it pays: a GPU's staging threads copy faster from mapped
 * pages (H200, 1080p: 3,800 instead of 3,450 fps), and on 2 cores
 * --threads 1 runs 1.22x as fast from tmpfs (1080p, 6 interleaved rounds).
 * With every core scoring it pays only from tmpfs (sq_input_prefault):
 * from ext4, --threads 2 on 2 cores runs 1.05x as fast without it, and
 * --threads 16 on the H200 machine 1.12x (one call; equal in another).
 */
SqPrefault sq_job_prefault_for(const Run *run, const SqJob *job)
{
    if (job->batch)
        return SQ_PREFAULT_OFF; /* every core is busy with pairs already */
    if (run->ctx && strcmp(speedqa_backend_name(run->ctx), "cpu") != 0)
        return SQ_PREFAULT_SPARE;
    const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    return ncpu > 0 && job->threads >= ncpu ? SQ_PREFAULT_BUSY : SQ_PREFAULT_SPARE;
}

static int pin_reg(void *ctx, const void *p, size_t bytes)
{
    return speedqa_cuda_host_register(ctx, p, bytes);
}

static int pin_unreg(void *ctx, const void *p)
{
    return speedqa_cuda_host_unregister(ctx, p);
}

/* The rows the features read, so that a mapped input maps only theirs ahead. */
static void tell_rows_read(SpeedqaContext *ctx, const SpeedqaFormat *f, SqInput *const *in, int n)
{
    uint8_t *mark[3] = { NULL, NULL, NULL };
    int rows[3];
    for (int c = 0; c < 3; c++) {
        rows[c] = c && f->fmt == SPEEDQA_PIX_420 ? f->height >> 1 : f->height;
        if (!(mark[c] = malloc((size_t)rows[c] + 1)) ||
            speedqa_rows_read(ctx, c, mark[c], rows[c]) < 0)
            goto end; /* the pages are mapped whole, as without it */
    }
    for (int i = 0; i < n; i++)
        sq_input_rows_read(in[i], (const uint8_t *const *)mark, rows);
end:
    for (int c = 0; c < 3; c++)
        free(mark[c]);
}

/* What the inputs' readers may know of the scoring: the rows it reads, and
 * (SPEEDQA_PIN=1) the context that registers their pages. */
void sq_job_tell_inputs(Run *run, const SpeedqaFormat *fr, int use_vmaf)
{
    SqInput *ins[LADDER_MAX + 1];
    ins[0] = run->ref;
    for (int d = 0; d < run->n; d++)
        ins[1 + d] = run->s[d].scaler ? NULL : run->s[d].in;
    if (run->ctx && !use_vmaf) /* libvmaf reads every row */
        tell_rows_read(run->ctx, fr, ins, 1 + run->n);
    /* SPEEDQA_PIN=1: a GPU uploads mapped frames straight from the page
     * cache. Not by default: on the H200 registering the pages cost more
     * than the staging copy it saves (0.76x at 1080p, stop 30) */
    const char *pin = getenv("SPEEDQA_PIN");
    const SqPinOps ops = { pin_reg, pin_unreg, run->ctx, 0 };
    for (int i = 0; run->ctx && pin && !strcmp(pin, "1") && i < 1 + run->n; i++)
        sq_input_pin(ins[i], &ops);
}

/* The distorted inputs opened, skipped and checked against the reference
 * (fr), each that passes a stream of run: one that cannot be used fails
 * alone, its line in its err. */
void sq_job_open_streams(Run *run, SqJobStream *const *st, int n, const SpeedqaFormat *fr,
                         char *line)
{
    const SqJob *job = run->job;
    const CliSettings *cfg = run->cfg;
    for (int d = 0; d < n; d++) {
        Stream *sd = &run->s[run->n];
        *sd = (Stream){ .st = st[d], .active = 1 };
        line[0] = '\0';
        int r = sq_job_open_input(&sd->in, st[d]->path, cfg);
        if (!r)
            r = sq_job_skip_input(sd->in, st[d]->path, "--frame_skip_dist", cfg->skip_dis);
        const SpeedqaFormat *fd = r ? NULL : &sq_input_info(sd->in)->format;
        if (fd && cfg->scale && fd->fmt == fr->fmt && fd->bpc == fr->bpc &&
            (fd->width != fr->width || fd->height != fr->height)) {
            r = setup_scaler(sd, fr, cfg);
            fd = r ? NULL : fr;
        }
        if (fd && !same_format(fr, fd)) {
            cli_error("%s is %dx%d %s %d-bit but %s is %dx%d %s %d-bit; they must match%s",
                      shown(job->ref_path), fr->width, fr->height, speedqa_pix_fmt_name(fr->fmt),
                      fr->bpc, shown(st[d]->path), fd->width, fd->height,
                      speedqa_pix_fmt_name(fd->fmt), fd->bpc,
                      fd->fmt == fr->fmt && fd->bpc == fr->bpc && !cfg->scale
                          ? " (--scale scales a rendition to the reference size)" : "");
            r = SQ_EXIT_INPUT;
        }
        if (r) {
            sq_job_stream_fail(st[d], r, line);
            sq_input_close(&sd->in);
            sq_scaler_close(&sd->scaler);
            free(sd->sbuf);
            sd->sbuf = NULL;
            continue;
        }
        colour_check(run, sd);
        run->n++;
    }
}
