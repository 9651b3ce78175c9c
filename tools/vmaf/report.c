/*
 * The end of a libvmaf session (bridge.h): features flushed, each frame
 * predicted, and the report read back through the API at full precision.
 * libvmaf's API lists no feature names, but its CSV writer prints every
 * feature of its collector in the collector's order under the names its
 * tool prints: that header line gives the names and the order, and each
 * value then comes from vmaf_feature_score_at_index.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge.h"


/* The name libvmaf stores a printed name under: itself (names with option
 * suffixes, names without alias), else the provided name its alias stands
 * for (spec: integer features section 5, A.7). */
static int stored_name(VmafContext *ctx, const char *printed, unsigned at, char *out, size_t len)
{
    if (strlen(printed) > 256)
        return -1; /* libvmaf truncates its names at 256 */
    double x;
    char cand[2][300];
    int n = 0;
    snprintf(cand[n++], sizeof cand[0], "%s", printed);
    if (!strncmp(printed, "integer_", 8))
        snprintf(cand[n++], sizeof cand[0], "VMAF_integer_feature_%s_score", printed + 8);
    else if (!strncmp(printed, "speed_chroma_", 13))
        snprintf(cand[n++], sizeof cand[0], "Speed_chroma_feature_%s_score", printed);
    else if (!strcmp(printed, "speed_temporal"))
        snprintf(cand[n++], sizeof cand[0], "Speed_temporal_feature_%s_score", printed);
    else if (!strcmp(printed, "cambi"))
        snprintf(cand[n++], sizeof cand[0], "Cambi_feature_cambi_score");
    else
        snprintf(cand[n++], sizeof cand[0], "VMAF_feature_%s_score", printed);
    for (int i = 0; i < n; i++)
        if (strlen(cand[i]) < len && !vmaf_feature_score_at_index(ctx, cand[i], &x, at)) {
            memcpy(out, cand[i], strlen(cand[i]) + 1);
            return 0;
        }
    return -1;
}

/* The CSV header of libvmaf's own report: "Frame,a,b,...," */
static char *collector_header(VmafContext *ctx, char *err, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    char path[4200];
    snprintf(path, sizeof path, "%s/speedqa-vmaf-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(err, len, "cannot create a temporary file in %s: %s", tmp && *tmp ? tmp : "/tmp",
                 strerror(errno));
        return NULL;
    }
    close(fd);
    char *line = NULL;
    size_t cap = 0;
    FILE *f = NULL;
    if (vmaf_write_output(ctx, path, VMAF_OUTPUT_FORMAT_CSV) || !(f = fopen(path, "r")) ||
        getline(&line, &cap, f) < 0) {
        snprintf(err, len, "libvmaf could not list its features");
        free(line);
        line = NULL;
    }
    if (f)
        fclose(f);
    unlink(path);
    return line;
}

static int split_names(SqVmafReport *rep, char *line, char *err, size_t len)
{
    int n = 0;
    for (char *p = line; *p; p++)
        n += *p == ',';
    rep->names = calloc((size_t)n + 1, sizeof *rep->names);
    if (!rep->names) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    char *save = NULL;
    for (char *t = strtok_r(line, ",\r\n", &save); t; t = strtok_r(NULL, ",\r\n", &save))
        if (strcmp(t, "Frame") && rep->n < n)
            snprintf(rep->names[rep->n++], sizeof rep->names[0], "%s", t);
    return 0;
}

static int fill(VmafContext *ctx, SqVmafReport *rep, unsigned last, const unsigned long long *frames,
                size_t nf, char *err, size_t len)
{
    static const enum VmafPoolingMethod how[4] = { VMAF_POOL_METHOD_MIN, VMAF_POOL_METHOD_MAX,
        VMAF_POOL_METHOD_MEAN, VMAF_POOL_METHOD_HARMONIC_MEAN };
    const size_t n = (size_t)rep->n;
    rep->values = malloc((nf ? nf : 1) * (n ? n : 1) * sizeof *rep->values);
    rep->pooled = calloc(n ? n : 1, sizeof *rep->pooled);
    if (!rep->values || !rep->pooled) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        char name[300];
        if (stored_name(ctx, rep->names[k], nf ? (unsigned)frames[0] : 0, name, sizeof name)) {
            snprintf(err, len, "libvmaf has no value of %s", rep->names[k]);
            return -1;
        }
        for (size_t i = 0; i < nf; i++)
            if (vmaf_feature_score_at_index(ctx, name, &rep->values[i * n + k], (unsigned)frames[i])) {
                snprintf(err, len, "libvmaf has no %s of frame %llu", rep->names[k], frames[i]);
                return -1;
            }
        double *pv[4] = { &rep->pooled[k].min, &rep->pooled[k].max, &rep->pooled[k].mean,
                          &rep->pooled[k].harmonic_mean };
        for (int p = 0; p < 4; p++)
            if (vmaf_feature_score_pooled(ctx, name, how[p], pv[p], 0, last)) {
                snprintf(err, len, "libvmaf could not pool %s", rep->names[k]);
                return -1;
            }
    }
    return 0;
}

int sq_vmaf_report_of(VmafContext *ctx, const SqVmafOrder *order, unsigned nframes,
                      const unsigned long long *frames, size_t nreport, SqVmafReport *rep,
                      char *err, size_t len)
{
    memset(rep, 0, sizeof *rep);
    char *line = collector_header(ctx, err, len);
    if (!line)
        return -1;
    int r = split_names(rep, line, err, len);
    free(line);
    if (!r)
        sq_vmaf_place_imported(rep, order);
    if (!r)
        r = fill(ctx, rep, nframes - 1, frames, nreport, err, len);
    if (r)
        sq_vmaf_report_free(rep);
    return r;
}
