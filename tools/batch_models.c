#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "batch_models.h"

static uint64_t hash_str(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The value's ';'-separated specs (the manifest reader trimmed them and
 * dropped empty ones) loaded as all[*nall ..), *all grown to hold them. */
static int load_value(SqModel **all, int *nall, const char *value, char *err, size_t len)
{
    int k = 1;
    for (const char *c = value; *c; c++)
        k += *c == ';';
    if (k > SQ_MODEL_MAX)
        k = SQ_MODEL_MAX + 1; /* sq_model_add refuses the one past the limit unwritten */
    SqModel *grown = realloc(*all, sizeof **all * (size_t)(*nall + k));
    if (!grown) {
        snprintf(err, len, "out of memory");
        return SQ_EXIT_INTERNAL;
    }
    *all = grown;
    char *copy = strdup(value);
    if (!copy) {
        snprintf(err, len, "out of memory");
        return SQ_EXIT_INTERNAL;
    }
    int n = 0, ret = 0;
    for (char *save = NULL, *s = strtok_r(copy, ";", &save); s && !ret;
         s = strtok_r(NULL, ";", &save))
        ret = sq_model_add(*all + *nall, n++, s, err, len) < 0 ? SQ_EXIT_USAGE : 0;
    free(copy);
    if (!ret)
        *nall += n;
    return ret;
}

int sq_batch_models_load(const CliSettings *cfg, const SqPair *pairs, int npairs,
                         SqBatchModels *bm)
{
    memset(bm, 0, sizeof *bm);
    if (cfg->read_only)
        return 0; /* nothing is scored, so no model is loaded */
    size_t nslot = 16;
    while (nslot < 2 * (size_t)npairs)
        nslot *= 2;
    /* a catalog has 100k pairs and a few models: each value is loaded once,
     * found again by a hash of it (slot: the first pair giving it + 1) */
    int *slot = calloc(nslot, sizeof *slot);
    bm->start = calloc((size_t)npairs + 1, sizeof *bm->start);
    bm->n = calloc((size_t)npairs + 1, sizeof *bm->n);
    char err[1200] = "out of memory";
    int nall = 0, ret = slot && bm->start && bm->n ? 0 : SQ_EXIT_INTERNAL, bad = -1;
    for (int i = 0; !ret && i < npairs; i++) {
        const char *v = pairs[i].model;
        if (!v)
            continue;
        const char *why = cli_model_refused(cfg);
        if (why) {
            snprintf(err, sizeof err, "%s", why);
            ret = SQ_EXIT_USAGE, bad = i;
            break;
        }
        size_t s = (size_t)hash_str(v) & (nslot - 1);
        while (slot[s] && strcmp(pairs[slot[s] - 1].model, v))
            s = (s + 1) & (nslot - 1);
        if (slot[s]) {
            bm->start[i] = bm->start[slot[s] - 1];
            bm->n[i] = bm->n[slot[s] - 1];
            continue;
        }
        const int at = nall;
        if ((ret = load_value(&bm->all, &nall, v, err, sizeof err)) != 0) {
            bad = i;
            break;
        }
        slot[s] = i + 1;
        bm->start[i] = at;
        bm->n[i] = nall - at;
    }
    free(slot);
    if (ret && bad >= 0)
        cli_error("%s:%d: %s", cfg->batch_path, pairs[bad].line, err);
    else if (ret)
        cli_error("%s", err);
    if (ret)
        sq_batch_models_free(bm);
    return ret;
}

const SqModel *sq_batch_models_of(const SqBatchModels *bm, int i, int *n)
{
    *n = bm->n ? bm->n[i] : 0;
    return *n ? bm->all + bm->start[i] : NULL;
}

void sq_batch_models_free(SqBatchModels *bm)
{
    free(bm->all);
    free(bm->start);
    free(bm->n);
    memset(bm, 0, sizeof *bm);
}
