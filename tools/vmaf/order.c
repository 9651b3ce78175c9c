/*
 * Where speedqa's scores go in a model report (engine.h): the order the
 * vmaf tool, computing every feature itself, prints them in. Shared by
 * both engines, so that their reports list the same names the same way.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "speedqa/speedqa.h"

/* The extractor that printed a name, for the names of the extractors the
 * models use (integer features section 5, A.7) and of libvmaf's others
 * that a --feature names (as libvmaf 3.2 prints them); NULL for the rest. */
static const char *const printed_by[][2] = {
    { "cambi", "cambi" },
    { "integer_adm", "adm" }, { "integer_aim", "adm" }, { "VMAF_integer_feature_adm", "adm" },
    { "integer_motion", "motion" }, { "VMAF_integer_feature_motion", "motion" },
    { "integer_vif", "vif" }, { "VMAF_integer_feature_vif", "vif" },
    { "speed_chroma", "speed_chroma" }, { "speed_temporal", "speed_temporal" },
    { "float_ms_ssim", "float_ms_ssim" }, { "float_ssim", "float_ssim" },
    { "ciede2000", "ciede" }, { "psnr_hvs", "psnr_hvs" }, { "psnr_", "psnr" },
};

static const char *extractor_of_printed(const char *name)
{
    for (size_t i = 0; i < sizeof printed_by / sizeof printed_by[0]; i++)
        if (!strncmp(name, printed_by[i][0], strlen(printed_by[i][0])))
            return printed_by[i][1];
    return NULL;
}

/* An extractor's name as extractor_of_printed gives it, or NULL for the others. */
static const char *known_extractor(const char *e)
{
    for (size_t i = 0; e && i < sizeof printed_by / sizeof printed_by[0]; i++)
        if (!strcmp(e, printed_by[i][1]))
            return printed_by[i][1];
    return NULL;
}

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* Whether speedqa feature specs a and b are one (the library's rule: one
 * name with the same options, however they are spelt). */
static int same_feature(const char *a, const char *b)
{
    const char *two[3] = { a, b, NULL };
    char err[400];
    return speedqa_check_features(two, err, sizeof err) == SPEEDQA_ERR(EEXIST);
}

/* Instance f (a speedqa feature, or -1: libvmaf's extractor ext) once. */
static void add_inst(SqVmafOrder *o, int f, const char *ext)
{
    ext = f < 0 ? known_extractor(ext) : NULL;
    for (int i = 0; i < o->ninst; i++)
        if (o->inst[i] == f && same_str(o->inst_ext[i], ext))
            return;
    if (o->ninst < SQ_VMAF_MAX_INST) {
        o->inst_ext[o->ninst] = ext;
        o->inst[o->ninst++] = f;
    }
}

void sq_vmaf_order_init(SqVmafOrder *o, const SqVmafSetup *s)
{
    int nn = 0;
    while (s->native && s->native[nn])
        nn++;
    o->ninst = 0;
    for (int m = 0; m < s->nmodels; m++)
        for (int k = 0; k < s->models[m].nfeatures; k++) {
            const SqModelFeature *f = &s->models[m].f[k];
            char spec[400];
            int j = -1;
            if (sq_model_native(f) && sq_model_feature_spec(f, spec, sizeof spec) == 0)
                for (j = 0; j < nn && !same_feature(s->native[j], spec); j++)
                    ;
            add_inst(o, j < nn ? j : -1, f->extractor);
        }
    /* --feature's in their order: libvmaf's k after user_before[k] of speedqa's */
    int u = 0;
    for (int k = 0; k < s->n_features; k++) {
        for (; s->user && s->user_before && u < s->user_before[k] && s->user[u]; u++)
            for (int j = 0; j < nn; j++)
                if (same_feature(s->native[j], s->user[u])) {
                    add_inst(o, j, NULL);
                    break;
                }
        char e[64];
        snprintf(e, sizeof e, "%.*s", (int)strcspn(s->features[k], "="), s->features[k]);
        add_inst(o, -1, e);
    }
    for (int j = 0; j < nn; j++)
        add_inst(o, j, NULL);
}

/* The names libvmaf writes once the sequence is over (motion's flush), so
 * after every per-frame name: motion2 and motion3 (spec 2.4). */
static int at_flush(const char *name)
{
    return !strncmp(name, "integer_motion2", 15) || !strncmp(name, "integer_motion3", 15);
}

/* The imported name rep->names[k] is: its index in o->imported, or -1. */
static int imported_at(const SqVmafReport *rep, const SqVmafOrder *o, int k)
{
    for (int i = 0; i < o->nimported; i++)
        if (!strcmp(o->imported[i], rep->names[k]))
            return i;
    return -1;
}

static int is_score(const SqVmafReport *rep, const SqVmafOrder *o, int k)
{
    for (int m = 0; m < o->nscores; m++)
        if (!strcmp(rep->names[k], o->scores[m]))
            return 1;
    return 0;
}

typedef struct Place {
    SqVmafReport *rep;
    const SqVmafOrder *o;
    int *imp;      /* imported_at of each name */
    char (*tmp)[256];
    uint8_t *used;
    int n;
} Place;

/* Moves rep's name k to the next place once. */
static void take(Place *p, int k)
{
    if (!p->used[k]) {
        memcpy(p->tmp[p->n++], p->rep->names[k], sizeof p->tmp[0]);
        p->used[k] = 1;
    }
}

/* speedqa's names of feature f (any: f < -1) written at the flush or not, in import order */
static void take_feature(Place *p, int f, int flush)
{
    for (int i = 0; i < p->o->nimported; i++) {
        if (at_flush(p->o->imported[i]) != flush || (f >= -1 && p->o->imported_feat[i] != f))
            continue;
        for (int k = 0; k < p->rep->n; k++)
            if (p->imp[k] == i)
                take(p, k);
    }
}

/*
 * The vmaf tool, computing everything, lists each extractor instance's
 * per-frame names in the order it registered them (sq_vmaf_order_init),
 * then the names written at the flush, instance by instance, then the
 * model scores. libvmaf's collector here lists libvmaf's own names in that
 * order (when it extracts on the calling thread; with threads, in the order
 * its extractors finish) and speedqa's where they were first imported:
 * speedqa's go to their instances' places, libvmaf's to the place of the
 * first instance of their extractor (printed_by; names of no extractor
 * there where the first such instance is). Not placed so: two libvmaf
 * instances of one extractor with another between them, and libvmaf's
 * flush names.
 */
void sq_vmaf_place_imported(SqVmafReport *rep, const SqVmafOrder *o)
{
    Place p = { .rep = rep, .o = o };
    p.tmp = o->nimported ? malloc(((size_t)rep->n + 1) * sizeof *p.tmp) : NULL;
    p.used = p.tmp ? calloc((size_t)rep->n + 1, 1) : NULL;
    p.imp = p.used ? malloc(((size_t)rep->n + 1) * sizeof *p.imp) : NULL;
    if (!p.imp) {
        free(p.used);
        free(p.tmp);
        return; /* the collector's order stands */
    }
    for (int k = 0; k < rep->n; k++)
        p.imp[k] = imported_at(rep, o, k);
    for (int i = 0; i < o->ninst; i++) {
        if (o->inst[i] >= 0) {
            take_feature(&p, o->inst[i], 0);
            continue;
        }
        /* libvmaf's names of this extractor (known_extractor), or of the others */
        for (int k = 0; k < rep->n; k++)
            if (p.imp[k] < 0 && !is_score(rep, o, k) &&
                same_str(extractor_of_printed(rep->names[k]), o->inst_ext[i]))
                take(&p, k);
    }
    for (int k = 0; k < rep->n; k++)
        if (p.imp[k] < 0 && !is_score(rep, o, k))
            take(&p, k); /* libvmaf's of no instance: none expected */
    take_feature(&p, -2, 0); /* none left: each is some instance's */
    for (int i = 0; i < o->ninst; i++)
        if (o->inst[i] >= 0)
            take_feature(&p, o->inst[i], 1);
    take_feature(&p, -2, 1);
    for (int k = 0; k < rep->n; k++)
        take(&p, k); /* the scores, in the collector's order */
    for (int k = 0; k < p.n; k++)
        memcpy(rep->names[k], p.tmp[k], sizeof p.tmp[0]);
    free(p.imp);
    free(p.used);
    free(p.tmp);
}

void sq_vmaf_report_free(SqVmafReport *rep)
{
    free(rep->names);
    free(rep->values);
    free(rep->pooled);
    memset(rep, 0, sizeof *rep);
}
