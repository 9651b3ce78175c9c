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

/* The stock models are under 1 MiB: a bigger "model" (/dev/zero, a video
 * named by mistake) is refused before it is read into memory whole. */
#define MODEL_MAX_BYTES ((size_t)64 << 20)

json_object *sq_model_read_json(const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, len, "model %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t n = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    for (size_t got = 1; buf && got;) {
        if (n == cap) {
            char *b = cap <= MODEL_MAX_BYTES ? realloc(buf, cap * 2) : NULL;
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    }
    const int bad = ferror(f);
    fclose(f);
    if (!buf || n > MODEL_MAX_BYTES || bad) {
        snprintf(err, len, "model %s: %s", path,
                 bad ? "read error" : "larger than 64 MiB (not a model file)");
        free(buf);
        return NULL;
    }
    enum json_tokener_error je = json_tokener_success;
    json_tokener *tok = json_tokener_new();
    json_object *root = tok ? json_tokener_parse_ex(tok, buf, (int)n) : NULL;
    if (tok) {
        je = json_tokener_get_error(tok);
        /* the whole file one value: trailing text after it, as libvmaf reads it, is ignored */
        if (je == json_tokener_continue)
            je = json_tokener_error_parse_eof;
        json_tokener_free(tok);
    }
    free(buf);
    if (!root || je != json_tokener_success) {
        json_object_put(root);
        snprintf(err, len, "model %s: not valid JSON (%s)", path,
                 tok ? json_tokener_error_desc(je) : "out of memory");
        return NULL;
    }
    return root;
}

int sq_model_load(SqModel *m, const char *path, char *err, size_t len)
{
    char e[400] = "";
    json_object *root = sq_model_read_json(path, err, len);
    if (!root)
        return -1;
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
