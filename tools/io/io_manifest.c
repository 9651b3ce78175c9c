/* libspeedqa_io's manifests: tools/manifest.c's reader, pairs as data. */
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"
#include "io_priv.h"
#include "manifest.h"

struct SpeedqaIoManifest {
    SqPair *pairs;
    int n;
    char **features; /* each pair's, ';'-joined */
};

void speedqa_io_manifest_free(SpeedqaIoManifest **m)
{
    if (!m || !*m)
        return;
    for (int i = 0; (*m)->features && i < (*m)->n; i++)
        free((*m)->features[i]);
    free((*m)->features);
    sq_manifest_free(&(*m)->pairs, (*m)->n);
    free(*m);
    *m = NULL;
}

int speedqa_io_manifest_load(SpeedqaIoManifest **out, const char *path, char *err, size_t errlen)
{
    sq_io_copy(err, errlen, "");
    if (!out || !path) {
        sq_io_copy(err, errlen, "speedqa_io_manifest_load: no handle or path");
        return SQ_EXIT_USAGE;
    }
    *out = NULL;
    SpeedqaIoManifest *m = calloc(1, sizeof *m);
    if (!m) {
        sq_io_copy(err, errlen, "out of memory");
        return SQ_EXIT_INTERNAL;
    }
    if (sq_manifest_load(path, &m->pairs, &m->n, err, errlen) < 0) {
        free(m);
        return SQ_EXIT_USAGE; /* what --batch exits with */
    }
    int ok = (m->features = calloc((size_t)m->n, sizeof *m->features)) != NULL;
    for (int i = 0; ok && i < m->n; i++)
        ok = (m->features[i] = sq_pair_features(&m->pairs[i])) != NULL;
    if (!ok) {
        speedqa_io_manifest_free(&m);
        sq_io_copy(err, errlen, "out of memory");
        return SQ_EXIT_INTERNAL;
    }
    *out = m;
    return 0;
}

int speedqa_io_manifest_count(const SpeedqaIoManifest *m)
{
    return m ? m->n : 0;
}

const char *speedqa_io_manifest_get(const SpeedqaIoManifest *m, int i, const char *key)
{
    if (!m || i < 0 || i >= m->n || !key)
        return NULL;
    const SqPair *p = &m->pairs[i];
    return !strcmp(key, "ref") ? p->ref : !strcmp(key, "dis") ? p->dis
         : !strcmp(key, "output") ? p->output : !strcmp(key, "features") ? m->features[i]
         : !strcmp(key, "model") ? (p->model ? p->model : "") : NULL;
}

int speedqa_io_manifest_line(const SpeedqaIoManifest *m, int i)
{
    return m && i >= 0 && i < m->n ? m->pairs[i].line : -1;
}
