/*
 * Where speedqa's scores go in a model report (engine.h): the order the
 * vmaf tool, computing every feature itself, prints them in. Shared by
 * both engines, so that their reports list the same names the same way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* Which extractor printed a name: the printed names' prefixes of the
 * extractors the supported models use (integer features section 5, A.7). */
static const char *extractor_of_printed(const char *name)
{
    static const char *const pre[][2] = {
        { "cambi", "cambi" },
        { "integer_adm", "adm" }, { "integer_aim", "adm" }, { "VMAF_integer_feature_adm", "adm" },
        { "integer_motion", "motion" }, { "VMAF_integer_feature_motion", "motion" },
        { "integer_vif", "vif" }, { "VMAF_integer_feature_vif", "vif" },
        { "speed_chroma", "speed_chroma" }, { "speed_temporal", "speed_temporal" },
    };
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (!strncmp(name, pre[i][0], strlen(pre[i][0])))
            return pre[i][1];
    return NULL;
}

static int is_imported(const SqVmafOrder *o, const char *name)
{
    for (int i = 0; i < o->nimported; i++)
        if (!strcmp(o->imported[i], name))
            return 1;
    return 0;
}

/* Moves rep's name k to tmp[(*n)++] once. */
static void take(SqVmafReport *rep, int k, char (*tmp)[256], uint8_t *used, int *n)
{
    if (!used[k]) {
        memcpy(tmp[(*n)++], rep->names[k], sizeof tmp[0]);
        used[k] = 1;
    }
}

/* The names libvmaf writes once the sequence is over (motion's flush), so
 * after every per-frame name: motion2 and motion3 (spec 2.4). */
static int at_flush(const char *name)
{
    return !strncmp(name, "integer_motion2", 15) || !strncmp(name, "integer_motion3", 15);
}

/* speedqa's imported names (of rep, in import order) whose extractor is e,
 * or, e NULL, those of no native extractor of the models (--feature's);
 * flush: those libvmaf writes at its flush, else the others. */
static void take_imported(SqVmafReport *rep, const SqVmafOrder *o, const char *e, int flush,
                          char (*tmp)[256], uint8_t *used, int *n)
{
    for (int i = 0; i < o->nimported; i++) {
        if (at_flush(o->imported[i]) != flush)
            continue;
        const char *x = extractor_of_printed(o->imported[i]);
        int native = 0;
        for (int j = 0; x && j < o->next; j++)
            native |= o->ext_native[j] && !strcmp(x, o->ext[j]);
        if (e ? !(x && !strcmp(x, e)) : native)
            continue;
        for (int k = 0; k < rep->n; k++)
            if (!strcmp(rep->names[k], o->imported[i]))
                take(rep, k, tmp, used, n);
    }
}

/*
 * The vmaf tool, computing everything, lists the features extractor by
 * extractor in the models' order, then what extractors write at their flush,
 * then the model scores; libvmaf's collector here lists speedqa's imported
 * names where they were first imported. So: each extractor's names in the
 * models' order (libvmaf's in the collector's order, speedqa's in import
 * order), the imported names of no model extractor after the first native
 * one's (or after all, when none is native), then the rest (--feature's
 * libvmaf extractors, the model scores) as the collector has them, speedqa's
 * flush-time names just before the first model score.
 */
void sq_vmaf_place_imported(SqVmafReport *rep, const SqVmafOrder *o)
{
    char(*tmp)[256] = o->nimported ? malloc(((size_t)rep->n + 1) * sizeof *tmp) : NULL;
    uint8_t *used = tmp ? calloc((size_t)rep->n + 1, 1) : NULL;
    if (!used) {
        free(tmp);
        return; /* the collector's order stands */
    }
    int n = 0, others = 0;
    for (int j = 0; j < o->next; j++) {
        if (o->ext_native[j]) {
            take_imported(rep, o, o->ext[j], 0, tmp, used, &n);
            if (!others++)
                take_imported(rep, o, NULL, 0, tmp, used, &n);
            continue;
        }
        for (int k = 0; k < rep->n; k++) {
            const char *x = extractor_of_printed(rep->names[k]);
            if (!is_imported(o, rep->names[k]) && x && !strcmp(x, o->ext[j]))
                take(rep, k, tmp, used, &n);
        }
    }
    if (!others)
        take_imported(rep, o, NULL, 0, tmp, used, &n);
    for (int k = 0, flushed = 0; k <= rep->n; k++) {
        int score = k == rep->n;
        for (int m = 0; m < o->nscores && !score; m++)
            score = !strcmp(rep->names[k], o->scores[m]);
        if (score && !flushed++)
            for (int j = 0; j < o->next; j++)
                if (o->ext_native[j])
                    take_imported(rep, o, o->ext[j], 1, tmp, used, &n);
        if (k < rep->n && !is_imported(o, rep->names[k]))
            take(rep, k, tmp, used, &n);
    }
    for (int k = 0; k < rep->n; k++)
        take(rep, k, tmp, used, &n); /* nothing left, but nothing lost either */
    for (int k = 0; k < n; k++)
        memcpy(rep->names[k], tmp[k], sizeof tmp[0]);
    free(used);
    free(tmp);
}

void sq_vmaf_report_free(SqVmafReport *rep)
{
    free(rep->names);
    free(rep->values);
    free(rep->pooled);
    memset(rep, 0, sizeof *rep);
}
