#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/outfile.h"
#include "output/writer.h"
#include "results.h"

char *sq_results_settings(const CliSettings *cfg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "frame_cnt=%lld;frame_skip_ref=%lld;frame_skip_dist=%lld;subsample=%lld;"
            "precision=%s;scale=%d;decode_threads=%d", cfg->frame_cnt, cfg->skip_ref,
            cfg->skip_dis, cfg->subsample, cfg->precision_max ? "max" : "6", cfg->scale,
            cfg->decode_threads);
    if (cfg->have_raw)
        fprintf(f, ";raw=%dx%d:%d:%d", cfg->raw.width, cfg->raw.height, (int)cfg->raw.fmt,
                cfg->raw.bpc);
    for (int k = 0; k < cfg->n_features; k++)
        fprintf(f, "%sfeature=%s", ";", cfg->features[k]);
    /* libvmaf's --feature values, the models and -n change a line's numbers
     * too: a line scored with other models is never kept (a pair's own model
     * is the line's "model", part of its key) */
    for (int k = 0; k < cfg->n_vmaf_features; k++)
        fprintf(f, ";feature=%s", cfg->vmaf_features[k]);
    for (int k = 0; k < cfg->n_models; k++)
        fprintf(f, ";model=%s", cfg->model_specs[k] ? cfg->model_specs[k] : "");
    if (cfg->no_prediction)
        fputs(";no_prediction", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

char *sq_results_line(const SqPair *p, const SqJobStream *st, const char *settings,
                      int precision_max)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fputs("{\"ref\": ", f);
    sq_json_string(f, p->ref);
    fputs(", \"dis\": ", f);
    sq_json_string(f, p->dis);
    if (p->output) {
        fputs(", \"output\": ", f);
        sq_json_string(f, p->output);
    }
    if (p->nfeat) {
        char *fs = sq_pair_features(p);
        if (!fs) {
            fclose(f);
            free(buf);
            return NULL;
        }
        fputs(", \"features\": ", f);
        sq_json_string(f, fs);
        free(fs);
    }
    if (p->model) {
        fputs(", \"model\": ", f);
        sq_json_string(f, p->model);
    }
    if (st->exit) {
        fputs(", \"error\": ", f);
        sq_json_string(f, st->err[0] ? st->err : "failed");
    } else {
        static const char *const pool_names[4] = { "min", "max", "mean", "harmonic_mean" };
        fprintf(f, ", \"frames\": %lld, \"pooled_metrics\": {", st->frames);
        for (int k = 0; k < st->nscores; k++) {
            const SqPooled *q = &st->pooled[k];
            const double v[4] = { q->min, q->max, q->mean, q->harmonic_mean };
            fprintf(f, "%s", k ? ", " : "");
            sq_json_string(f, st->names[k]);
            fputs(": {", f);
            for (int j = 0; j < 4; j++) {
                char num[SPEEDQA_IO_VALUE_LEN];
                fprintf(f, "%s\"%s\": %s", j ? ", " : "", pool_names[j],
                        sq_fmt_value(num, sizeof num, v[j], precision_max));
            }
            fputc('}', f);
        }
        fputc('}', f);
    }
    /* last, so that --resume can compare it as the line's end */
    fputs(", \"settings\": ", f);
    sq_json_string(f, settings);
    fputc('}', f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull; /* a separator: ("ab","c") != ("a","bc") */
}

static uint64_t pair_hash(const char *ref, const char *dis, const char *out, const char *feat,
                          const char *model)
{
    return hash_str(hash_str(hash_str(hash_str(hash_str(14695981039346656037ull, ref), dis), out),
                             feat), model);
}

/* The pairs by (ref, dis, output, features, model): open addressing, equal keys chained in next. */
typedef struct PairIndex {
    int *slot;      /* pair index + 1 of a chain's head; 0 empty */
    int *next;      /* next pair with the same key, -1 none */
    char **feat;    /* each pair's features string */
    size_t nslot;
} PairIndex;

static int pair_matches(const SqPair *p, const char *feat, const char *ref, const char *dis,
                        const char *out, const char *want_feat, const char *model)
{
    return !strcmp(p->ref, ref) && !strcmp(p->dis, dis) &&
           !strcmp(p->output ? p->output : "", out) && !strcmp(feat, want_feat) &&
           !strcmp(p->model ? p->model : "", model);
}

static int index_build(PairIndex *ix, const SqPair *pairs, int n)
{
    ix->nslot = 16;
    while (ix->nslot < 2 * (size_t)n)
        ix->nslot *= 2;
    ix->slot = calloc(ix->nslot, sizeof *ix->slot);
    ix->next = malloc(sizeof *ix->next * (size_t)(n + 1));
    ix->feat = calloc((size_t)n + 1, sizeof *ix->feat);
    if (!ix->slot || !ix->next || !ix->feat)
        return -ENOMEM;
    int *tail = malloc(sizeof *tail * (size_t)(n + 1));
    if (!tail)
        return -ENOMEM;
    for (int i = 0; i < n; i++) {
        const SqPair *p = &pairs[i];
        if (!(ix->feat[i] = sq_pair_features(p))) {
            free(tail);
            return -ENOMEM;
        }
        ix->next[i] = -1;
        size_t s = (size_t)pair_hash(p->ref, p->dis, p->output ? p->output : "", ix->feat[i],
                                     p->model ? p->model : "") & (ix->nslot - 1);
        for (;; s = (s + 1) & (ix->nslot - 1)) {
            const int h = ix->slot[s] - 1;
            if (h < 0) {
                ix->slot[s] = i + 1;
                tail[i] = i;
                break;
            }
            if (pair_matches(&pairs[h], ix->feat[h], p->ref, p->dis,
                             p->output ? p->output : "", ix->feat[i], p->model ? p->model : "")) {
                ix->next[tail[h]] = i;
                tail[h] = i;
                break;
            }
        }
    }
    free(tail);
    return 0;
}

/* The first pair with this key and no kept line yet; -1 none. */
static int index_find(const PairIndex *ix, const SqPair *pairs, char **kept, const char *ref,
                      const char *dis, const char *out, const char *feat, const char *model)
{
    size_t s = (size_t)pair_hash(ref, dis, out, feat, model) & (ix->nslot - 1);
    for (; ix->slot[s]; s = (s + 1) & (ix->nslot - 1)) {
        int i = ix->slot[s] - 1;
        if (!pair_matches(&pairs[i], ix->feat[i], ref, dis, out, feat, model))
            continue;
        for (; i >= 0; i = ix->next[i])
            if (!kept[i])
                return i;
        return -1;
    }
    return -1;
}

static void index_free(PairIndex *ix, int n)
{
    for (int i = 0; ix->feat && i < n; i++)
        free(ix->feat[i]);
    free(ix->feat);
    free(ix->slot);
    free(ix->next);
}

/* The line ends with this run's settings (the last key of every line). */
static int same_settings(const char *line, size_t len, const char *tail)
{
    const size_t tl = strlen(tail);
    return len >= tl && !memcmp(line + len - tl, tail, tl);
}

int sq_results_resume(const char *path, const SqPair *pairs, int n, const char *settings,
                      char **kept, int *all_kept, long long *keep_bytes)
{
    *all_kept = 1;
    *keep_bytes = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 0 : -errno;
    PairIndex ix = { 0 };
    char *tail = NULL, *line = NULL;
    size_t tlen = 0, cap = 0;
    FILE *tf = open_memstream(&tail, &tlen);
    if (tf) {
        fputs(", \"settings\": ", tf);
        sq_json_string(tf, settings);
        fputc('}', tf);
    }
    int ret = !tf || fclose(tf) != 0 ? -ENOMEM : index_build(&ix, pairs, n);
    const size_t fl = 8192;
    char *ref = malloc(fl), *dis = malloc(fl), *out = malloc(fl), *feat = malloc(fl);
    char *model = malloc(fl);
    if (!ref || !dis || !out || !feat || !model)
        ret = -ENOMEM;
    ssize_t len;
    long long pos = 0;
    while (!ret && (len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] != '\n')
            break; /* a torn last line: dropped */
        line[--len] = '\0';
        int failed = 1, match = -1;
        if (same_settings(line, (size_t)len, tail) &&
            sq_result_line_parse(line, ref, dis, out, feat, model, fl, &failed) == 0 && !failed)
            match = index_find(&ix, pairs, kept, ref, dis, out, feat, model);
        if (match >= 0 && !(kept[match] = strdup(line)))
            ret = -ENOMEM;
        if (match < 0)
            *all_kept = 0; /* a failed pair, other settings, another manifest: rebuilt */
        pos += len + 1;
        if (*all_kept)
            *keep_bytes = pos;
    }
    free(line);
    fclose(f);
    free(ref);
    free(dis);
    free(out);
    free(feat);
    free(model);
    free(tail);
    index_free(&ix, n);
    return ret;
}

int sq_results_lock(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return -2;
    const int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int sq_results_order(const char *path, char *const *kept, char *const *line, int n, char *err,
                     size_t errlen)
{
    SqOutFile of = { 0 };
    int r = sq_outfile_open(&of, path, err, errlen);
    if (r < 0)
        return r;
    for (int i = 0; i < n; i++) {
        const char *l = kept[i] ? kept[i] : line[i];
        if (l && fprintf(of.f, "%s\n", l) < 0) {
            const int e = errno ? errno : EIO;
            snprintf(err, errlen, "%s: write failed: %s", path, strerror(e));
            sq_outfile_abort(&of);
            return -e;
        }
    }
    return sq_outfile_commit(&of, err, errlen);
}
