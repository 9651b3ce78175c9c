/*
 * A model file's model_dict read whole for the prediction (predict.h, spec
 * B.1), with json-c: every number through strtod of its literal text, the
 * libsvm model text token by token. What libvmaf would load but never
 * predict with (no norm_type, a chroma correction it cannot place) is
 * refused here, so that a bad file is one line before any frame is read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "predict.h"

/* A JSON number literal: json-c also takes NaN and Infinity, which libvmaf's
 * parser refuses (1e999, a number, reads as inf in both). */
static int number(json_object *v, double *out)
{
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
        return -1;
    const char *t = json_object_get_string(v);
    const char *d = t + (*t == '-');
    if (*d < '0' || *d > '9')
        return -1;
    *out = strtod(t, NULL);
    return 0;
}

/* slopes or intercepts: one for the score, then one per feature */
static int coefs(json_object *md, const char *key, double *out, int n, char *err, size_t len)
{
    json_object *a;
    if (!json_object_object_get_ex(md, key, &a) || !json_object_is_type(a, json_type_array) ||
        json_object_array_length(a) < (size_t)n + 1) {
        snprintf(err, len, "model_dict.%s: not a list of %d numbers", key, n + 1);
        return -1;
    }
    for (int i = 0; i <= n; i++)
        if (number(json_object_array_get_idx(a, (size_t)i), &out[i]) < 0) {
            snprintf(err, len, "model_dict.%s[%d]: not a number", key, i);
            return -1;
        }
    return 0;
}

static int read_knots(SqPredictor *p, json_object *k, char *err, size_t len)
{
    const size_t n = json_object_array_length(k);
    if (n > SQ_PREDICT_MAX_KNOTS) {
        snprintf(err, len, "score_transform.knots: more than %d", SQ_PREDICT_MAX_KNOTS);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *xy = json_object_array_get_idx(k, i);
        if (!json_object_is_type(xy, json_type_array) || json_object_array_length(xy) != 2 ||
            number(json_object_array_get_idx(xy, 0), &p->knots[i][0]) < 0 ||
            number(json_object_array_get_idx(xy, 1), &p->knots[i][1]) < 0) {
            snprintf(err, len, "score_transform.knots[%zu]: not an [x, y] pair", i);
            return -1;
        }
    }
    p->nknots = (int)n;
    return 0;
}

static int read_transform(SqPredictor *p, json_object *md, int enable, char *err, size_t len)
{
    json_object *t, *v;
    p->transform = enable;
    if (!json_object_object_get_ex(md, "score_transform", &t))
        return 0;
    if (!json_object_is_type(t, json_type_object)) {
        snprintf(err, len, "model_dict.score_transform: not an object");
        return -1;
    }
    /* libvmaf refuses a key of another type than its own */
    if (json_object_object_get_ex(t, "enabled", &v)) {
        if (!json_object_is_type(v, json_type_boolean)) {
            snprintf(err, len, "score_transform.enabled: not true or false");
            return -1;
        }
        p->transform |= json_object_get_boolean(v);
    }
    static const char *const ok[2] = { "out_lte_in", "out_gte_in" };
    for (int i = 0; i < 2; i++)
        if (json_object_object_get_ex(t, ok[i], &v) && !json_object_is_type(v, json_type_string)) {
            snprintf(err, len, "score_transform.%s: not a string (\"true\" or \"false\")", ok[i]);
            return -1;
        }
    /* libvmaf 3.2 refuses a null where a number or a list goes, so a key
     * is either absent or of its type */
    static const char *const pk[3] = { "p0", "p1", "p2" };
    for (int i = 0; i < 3; i++)
        if ((p->has_p[i] = json_object_object_get_ex(t, pk[i], &v)) && number(v, &p->p[i]) < 0) {
            snprintf(err, len, "score_transform.%s: not a number", pk[i]);
            return -1;
        }
    if (json_object_object_get_ex(t, "knots", &v) &&
        (!json_object_is_type(v, json_type_array) || read_knots(p, v, err, len) < 0)) {
        if (!json_object_is_type(v, json_type_array))
            snprintf(err, len, "score_transform.knots: not a list");
        return -1;
    }
    p->out_lte_in = json_object_object_get_ex(t, "out_lte_in", &v) &&
                    json_object_is_type(v, json_type_string) && !strcmp(json_object_get_string(v), "true");
    p->out_gte_in = json_object_object_get_ex(t, "out_gte_in", &v) &&
                    json_object_is_type(v, json_type_string) && !strcmp(json_object_get_string(v), "true");
    return 0;
}

static int read_clip(SqPredictor *p, json_object *md, int disable, char *err, size_t len)
{
    json_object *c;
    if (!json_object_object_get_ex(md, "score_clip", &c))
        return 0;
    if (!json_object_is_type(c, json_type_array) || json_object_array_length(c) != 2 ||
        number(json_object_array_get_idx(c, 0), &p->clip_lo) < 0 ||
        number(json_object_array_get_idx(c, 1), &p->clip_hi) < 0) {
        snprintf(err, len, "model_dict.score_clip: not [min, max]");
        return -1;
    }
    p->clip = !disable;
    return 0;
}

/* chroma_correction_parameter: the one adm3 feature guides the one
 * speed_chroma feature (spec B.3 step 2); libvmaf reads garbage without
 * either and stores no score with a parameter of 0, so both are refused. */
static int read_chroma(SqPredictor *p, json_object *md, const SqModel *m, char *err, size_t len)
{
    json_object *c;
    if (!json_object_object_get_ex(md, "chroma_correction_parameter", &c))
        return 0;
    if (number(c, &p->chroma_c) < 0 || p->chroma_c == 0.0) {
        snprintf(err, len, "model_dict.chroma_correction_parameter: not a non-zero number");
        return -1;
    }
    int na = 0, ns = 0;
    for (int k = 0; k < m->nfeatures; k++) {
        if (strstr(m->f[k].name, "adm3"))
            na++, p->guide = k;
        if (strstr(m->f[k].name, "speed_chroma"))
            ns++, p->guided = k;
    }
    if (na != 1 || ns != 1) {
        snprintf(err, len, "chroma_correction_parameter needs one adm3 and one speed_chroma "
                 "feature (%d and %d)", na, ns);
        return -1;
    }
    p->chroma = 1;
    return 0;
}

int sq_svm_parse(SqPredictor *p, const char *text, char *err, size_t len);

static int read_dict(SqPredictor *p, json_object *md, const SqModel *m, char *err, size_t len)
{
    json_object *v;
    p->nfeat = m->nfeatures;
    if (!json_object_object_get_ex(md, "norm_type", &v) || !json_object_is_type(v, json_type_string) ||
        (strcmp(json_object_get_string(v), "linear_rescale") &&
         strcmp(json_object_get_string(v), "none"))) {
        snprintf(err, len, "model_dict.norm_type: not linear_rescale or none");
        return -1;
    }
    p->rescale = !strcmp(json_object_get_string(v), "linear_rescale");
    if (p->rescale && (coefs(md, "slopes", p->slope, p->nfeat, err, len) < 0 ||
                       coefs(md, "intercepts", p->intercept, p->nfeat, err, len) < 0))
        return -1;
    if (read_transform(p, md, m->enable_transform, err, len) < 0 ||
        read_clip(p, md, m->disable_clip, err, len) < 0 || read_chroma(p, md, m, err, len) < 0)
        return -1;
    if (!json_object_object_get_ex(md, "model", &v) || !json_object_is_type(v, json_type_string)) {
        snprintf(err, len, "model_dict.model: not the libsvm model text");
        return -1;
    }
    return sq_svm_parse(p, json_object_get_string(v), err, len);
}

int sq_predictor_load(SqPredictor *p, const SqModel *m, char *err, size_t len)
{
    char e[400] = "";
    memset(p, 0, sizeof *p);
    json_object *root = sq_model_read_json(m->path, err, len), *md;
    if (!root)
        return -1;
    int r = -1;
    if (!json_object_object_get_ex(root, "model_dict", &md) ||
        !json_object_is_type(md, json_type_object))
        snprintf(e, sizeof e, "no model_dict object");
    else
        r = read_dict(p, md, m, e, sizeof e);
    json_object_put(root);
    if (r < 0) {
        sq_predictor_free(p);
        snprintf(err, len, "model %s: %s", m->path, e);
    }
    return r;
}

void sq_predictor_free(SqPredictor *p)
{
    free(p->coef);
    free(p->start);
    free(p->idx);
    free(p->val);
    p->coef = p->val = NULL;
    p->start = p->idx = NULL;
    p->nsv = 0;
}
