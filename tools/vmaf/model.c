/*
 * Model files (model.h), read with json-c. Only what speedqa needs to split
 * the work is read here (feature names and their option dictionaries);
 * libvmaf reads the same file itself for the prediction, so the SVM and
 * the score transform stay libvmaf's.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "model.h"

#ifndef SQ_MODEL_DIR
#define SQ_MODEL_DIR "/usr/local/share/speedqa/model"
#endif
#ifndef SQ_MODEL_SRC_DIR
#define SQ_MODEL_SRC_DIR SQ_MODEL_DIR
#endif

/* Which libvmaf extractor provides a model feature (libvmaf's registry,
 * spec B.2), and which of them speedqa computes. A feature that becomes
 * native later only flips its `native` here. */
static const struct {
    const char *prefix;     /* provided feature names start so */
    const char *extractor;
    int native;
} extractors[] = {
    { "Speed_chroma_feature_speed_chroma_", "speed_chroma", 1 },
    { "Speed_temporal_feature_speed_temporal_", "speed_temporal", 1 },
    { "VMAF_integer_feature_adm", "adm", 0 },
    { "VMAF_integer_feature_aim", "adm", 0 },
    { "VMAF_integer_feature_motion", "motion", 0 },
    { "VMAF_integer_feature_vif", "vif", 0 },
    { "Cambi_feature_cambi_", "cambi", 0 },
    { "VMAF_feature_adm", "float_adm", 0 },
    { "VMAF_feature_motion", "float_motion", 0 },
    { "VMAF_feature_vif", "float_vif", 0 },
};

static const char *extractor_of(const char *feature, int *native)
{
    for (size_t i = 0; i < sizeof extractors / sizeof extractors[0]; i++)
        if (!strncmp(feature, extractors[i].prefix, strlen(extractors[i].prefix))) {
            *native = extractors[i].native;
            return extractors[i].extractor;
        }
    return NULL;
}

int sq_model_is_native(const char *extractor)
{
    for (size_t i = 0; i < sizeof extractors / sizeof extractors[0]; i++)
        if (!strcmp(extractor, extractors[i].extractor))
            return extractors[i].native;
    return 0;
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *sq_model_install_dir(void)
{
    return SQ_MODEL_DIR;
}

/* An installed tree moved elsewhere (or staged with DESTDIR) keeps its data
 * next to its bin/: <exe>/../<datadir>/speedqa/model, as its RUNPATH does. */
static int beside_exe(char *out, size_t len)
{
#ifdef SQ_MODEL_REL
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    if ((size_t)snprintf(out, len, "%s/../%s", exe, SQ_MODEL_REL) >= len)
        return -1;
    return is_dir(out) ? 0 : -1;
#else
    (void)out;
    (void)len;
    return -1;
#endif
}

const char *sq_model_dir(char *buf, size_t len)
{
    const char *e = getenv("SPEEDQA_MODEL_DIR");
    if (e && *e)
        return e;
    if (beside_exe(buf, len) == 0)
        return buf;
    return is_dir(SQ_MODEL_DIR) ? SQ_MODEL_DIR : SQ_MODEL_SRC_DIR;
}

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
        if (!(f->extractor = extractor_of(f->name, &f->native))) {
            snprintf(err, len, "feature %s: no extractor known to speedqa provides it", f->name);
            return -1;
        }
        if (opts && read_opts(f, json_object_array_get_idx(opts, i), err, len) < 0)
            return -1;
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
    if (r < 0)
        snprintf(err, len, "model %s: %s", path, e);
    else
        snprintf(m->path, sizeof m->path, "%s", path);
    json_object_put(root);
    return r;
}

/* version=NAME: NAME.json in the model folder or one folder below it
 * (vmaf_v1.0.16/, vmaf_v1.0.16_hfr/), as libvmaf's built-in names go. */
static int find_version(char *out, size_t len, const char *dir, const char *name)
{
    struct stat st;
    snprintf(out, len, "%s/%s.json", dir, name);
    if (stat(out, &st) == 0)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *de;
    int found = -1;
    while (found < 0 && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if ((size_t)snprintf(out, len, "%s/%s/%s.json", dir, de->d_name, name) < len &&
            stat(out, &st) == 0 && S_ISREG(st.st_mode))
            found = 0;
    }
    closedir(d);
    return found;
}

static int flag_value(const char *key, const char *v, int *out, char *err, size_t len)
{
    if (!v || !strcmp(v, "true") || !strcmp(v, "1"))
        *out = 1;
    else if (!strcmp(v, "false") || !strcmp(v, "0"))
        *out = 0;
    else {
        snprintf(err, len, "--model: %s=%s: true or false", key, v);
        return -1;
    }
    return 0;
}

int sq_model_load_spec(SqModel *m, const char *spec, char *err, size_t len)
{
    char buf[4200], path[4600] = "", dirbuf[4200];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "vmaf");
    if ((size_t)snprintf(buf, sizeof buf, "%s", spec) >= sizeof buf) {
        snprintf(err, len, "--model: value too long");
        return -1;
    }
    int have = 0;
    for (char *save = NULL, *kv = strtok_r(buf, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
        char *v = strchr(kv, '=');
        if (v)
            *v++ = '\0';
        if (v && (!strcmp(kv, "path") || !strcmp(kv, "version"))) {
            if (have++) {
                snprintf(err, len, "--model '%s': one path= or version= per --model", spec);
                return -1;
            }
            if (!strcmp(kv, "path"))
                snprintf(path, sizeof path, "%s", v);
            else if (find_version(path, sizeof path, sq_model_dir(dirbuf, sizeof dirbuf), v) < 0) {
                snprintf(err, len, "--model version=%s: no such model in %s (the models there "
                         "can be named; path=FILE.json reads any other)", v,
                         sq_model_dir(dirbuf, sizeof dirbuf));
                return -1;
            }
        } else if (v && !strcmp(kv, "name") && *v && strlen(v) < sizeof m->name) {
            snprintf(m->name, sizeof m->name, "%s", v);
        } else if (!strcmp(kv, "enable_transform")) {
            if (flag_value(kv, v, &m->enable_transform, err, len) < 0)
                return -1;
        } else if (!strcmp(kv, "disable_clip")) {
            if (flag_value(kv, v, &m->disable_clip, err, len) < 0)
                return -1;
        } else {
            snprintf(err, len, "--model '%s': unknown parameter '%s' (path=, version=, name=, "
                     "enable_transform, disable_clip)", spec, kv);
            return -1;
        }
    }
    if (!have) {
        snprintf(err, len, "--model '%s': needs version=NAME or path=FILE.json", spec);
        return -1;
    }
    return sq_model_load(m, path, err, len);
}

int sq_model_feature_spec(const SqModelFeature *f, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "%s", f->extractor);
    for (int i = 0; i < f->nopts && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%c%s=%s", i ? ':' : '=', f->opts[i].key,
                              f->opts[i].val);
    return o < len ? 0 : -1;
}
