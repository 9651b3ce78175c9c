/*
 * Model files (model.h), read with json-c: here what splits the work
 * (feature names and their option dictionaries); the rest of model_dict
 * (normalisation, SVM, transform, clip) is predict_load.c's, read for the
 * native engine and checked here for both (libvmaf's engine reads the
 * file itself again).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model.h"
#include "predict.h"

/* libvmaf normalises option values: a number's text through strtof, then
 * %g (spec B.1), so 17.0 is "17" and precision past 6 digits is gone. */
static int opt_value(json_object *v, char *out, size_t len)
{
    switch (json_object_get_type(v)) {
    case json_type_boolean:
        snprintf(out, len, "%s", json_object_get_boolean(v) ? "true" : "false");
        return 0;
    case json_type_double:
    case json_type_int:
        snprintf(out, len, "%g", (double)strtof(json_object_get_string(v), NULL));
        return 0;
    case json_type_string:
        return (size_t)snprintf(out, len, "%s", json_object_get_string(v)) < len ? 0 : -1;
    default:
        return -1;
    }
}

static int read_opts(SqModelFeature *f, json_object *dict, char *err, size_t len)
{
    if (!json_object_is_type(dict, json_type_object)) {
        snprintf(err, len, "feature_opts_dicts: %s: not an object", f->name);
        return -1;
    }
    json_object_object_foreach(dict, key, val) {
        if (f->nopts == SQ_MODEL_MAX_OPTS || strlen(key) >= sizeof f->opts[0].key) {
            snprintf(err, len, "feature_opts_dicts: %s: too many or too long options", f->name);
            return -1;
        }
        SqModelOpt *o = &f->opts[f->nopts++];
        snprintf(o->key, sizeof o->key, "%s", key);
        if (opt_value(val, o->val, sizeof o->val) < 0) {
            snprintf(err, len, "feature_opts_dicts: %s: option %s has a value of the wrong type",
                     f->name, key);
            return -1;
        }
    }
    return 0;
}

static int read_features(SqModel *m, json_object *md, char *err, size_t len)
{
    json_object *names, *opts = NULL;
    if (!json_object_object_get_ex(md, "feature_names", &names) ||
        !json_object_is_type(names, json_type_array)) {
        snprintf(err, len, "model_dict has no feature_names list");
        return -1;
    }
    const size_t n = json_object_array_length(names);
    if (n == 0 || n > SQ_MODEL_MAX_FEATURES) {
        snprintf(err, len, "model_dict.feature_names: %zu features (1..%d)", n,
                 SQ_MODEL_MAX_FEATURES);
        return -1;
    }
    if (json_object_object_get_ex(md, "feature_opts_dicts", &opts) &&
        (!json_object_is_type(opts, json_type_array) || json_object_array_length(opts) != n)) {
        snprintf(err, len, "model_dict.feature_opts_dicts: not a list of %zu objects", n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        SqModelFeature *f = &m->f[i];
        json_object *name = json_object_array_get_idx(names, i);
        if (!json_object_is_type(name, json_type_string) ||
            json_object_get_string_len(name) >= (int)sizeof f->name) {
            snprintf(err, len, "model_dict.feature_names[%zu]: not a feature name", i);
            return -1;
        }
        snprintf(f->name, sizeof f->name, "%s", json_object_get_string(name));
        if (!(f->extractor = sq_model_extractor_of(f->name, &f->native))) {
            snprintf(err, len, "feature %s: no extractor known to speedqa provides it", f->name);
            return -1;
        }
        if (opts && read_opts(f, json_object_array_get_idx(opts, i), err, len) < 0)
            return -1;
        sq_model_settle_native(f);
    }
    m->nfeatures = (int)n;
    return 0;
}

int sq_model_load(SqModel *m, const char *path, char *err, size_t len)
{
    char e[400] = "";
    json_object *root = json_object_from_file(path);
    if (!root) {
        FILE *f = fopen(path, "rb");
        if (!f)
            snprintf(err, len, "model %s: %s", path, strerror(errno));
        else
            snprintf(err, len, "model %s: not valid JSON (%s)", path, json_util_get_last_err()
                     ? json_util_get_last_err() : "parse error");
        if (f)
            fclose(f);
        /* json-c's message ends in a newline: one line only */
        char *nl = strchr(err, '\n');
        if (nl)
            *nl = '\0';
        return -1;
    }
    json_object *md, *type;
    int r = -1;
    if (!json_object_object_get_ex(root, "model_dict", &md) ||
        !json_object_is_type(md, json_type_object))
        snprintf(e, sizeof e, "no model_dict object");
    else if (!json_object_object_get_ex(md, "model_type", &type) ||
             strcmp(json_object_get_string(type), "LIBSVMNUSVR"))
        snprintf(e, sizeof e, "model_type is not LIBSVMNUSVR (model collections are not "
                 "supported)");
    else
        r = read_features(m, md, e, sizeof e);
    json_object_put(root);
    if (r < 0) {
        snprintf(err, len, "model %s: %s", path, e);
        return -1;
    }
    snprintf(m->path, sizeof m->path, "%s", path);
    /* the rest of the file (the SVM, the transform) checked now, whichever
     * engine predicts: a bad one is one line before any frame is read */
    SqPredictor p;
    r = sq_predictor_load(&p, m, err, len);
    sq_predictor_free(&p);
    return r;
}
