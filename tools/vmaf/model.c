/*
 * VMAF models (model.h): --model's value, the model folder, which extractor
 * provides each feature and which of them speedqa computes. The file itself
 * is read in model_file.c (json-c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"
#include "speedqa/speedqa.h"

#ifndef SQ_MODEL_DIR
#define SQ_MODEL_DIR "/usr/local/share/speedqa/model"
#endif
#ifndef SQ_MODEL_SRC_DIR
#define SQ_MODEL_SRC_DIR SQ_MODEL_DIR
#endif

/* Which libvmaf extractor provides a model feature (libvmaf's registry,
 * spec B.2), and which of them speedqa computes: 1 with every option set on
 * every backend, SQ_NATIVE_OPTS with the option sets the library takes
 * (sq_model_settle_native), on every backend too; 0 left to libvmaf. A feature that
 * becomes native later only flips its `native` here. Each native one runs
 * at least as fast as libvmaf 3.2's SIMD extractor on one thread
 * (bench/feature_bench; doc/performance.md) and, unlike libvmaf's motion,
 * on speedqa's workers rather than in a serial chain (feed.c). With every
 * feature native a model runs without libvmaf in the job (native.c);
 * SPEEDQA_MODEL_ENGINE=libvmaf hands ADM back to libvmaf. */
#define NATIVE_ADM (-1)
static const struct {
    const char *prefix;     /* provided feature names start so */
    const char *extractor;
    int native;
} extractors[] = {
    { "Speed_chroma_feature_speed_chroma_", "speed_chroma", 1 },
    { "Speed_temporal_feature_speed_temporal_", "speed_temporal", 1 },
    { "VMAF_integer_feature_adm", "adm", NATIVE_ADM },
    { "VMAF_integer_feature_aim", "adm", NATIVE_ADM },
    { "VMAF_integer_feature_motion", "motion", SQ_NATIVE_OPTS },
    { "VMAF_integer_feature_vif", "vif", SQ_NATIVE_OPTS },
    { "Cambi_feature_cambi_", "cambi", SQ_NATIVE_OPTS },
    { "VMAF_feature_adm", "float_adm", 0 },
    { "VMAF_feature_motion", "float_motion", 0 },
    { "VMAF_feature_vif", "float_vif", 0 },
};

int sq_model_engine(void)
{
    const char *e = getenv("SPEEDQA_MODEL_ENGINE");
    if (!e || !*e || !strcmp(e, "auto"))
        return SQ_ENGINE_AUTO;
    if (!strcmp(e, "native"))
        return SQ_ENGINE_NATIVE;
    return !strcmp(e, "libvmaf") ? SQ_ENGINE_LIBVMAF : -1;
}

static int native_of(int i)
{
    if (extractors[i].native != NATIVE_ADM)
        return extractors[i].native;
#ifdef SQ_HAVE_VMAF
    return sq_model_engine() == SQ_ENGINE_LIBVMAF ? 0 : SQ_NATIVE_OPTS;
#else
    return SQ_NATIVE_OPTS;
#endif
}

const char *sq_model_extractor_of(const char *feature, int *native)
{
    for (size_t i = 0; i < sizeof extractors / sizeof extractors[0]; i++)
        if (!strncmp(feature, extractors[i].prefix, strlen(extractors[i].prefix))) {
            *native = native_of((int)i);
            return extractors[i].extractor;
        }
    return NULL;
}

void sq_model_settle_native(SqModelFeature *f)
{
    if (f->native != SQ_NATIVE_OPTS)
        return;
    char spec[400], err[400];
    const char *one[2] = { spec, NULL };
    /* what speedqa does not implement goes to libvmaf; an option set with
     * no result stays native, and sq_model_add refuses the model */
    if (sq_model_feature_spec(f, spec, sizeof spec) < 0 ||
        speedqa_check_features(one, err, sizeof err) == SPEEDQA_ERR(ENOTSUP))
        f->native = 0;
}

void sq_model_why_not_native(const SqModelFeature *f, char *buf, size_t len)
{
    char spec[400], why[400] = "";
    const char *one[2] = { spec, NULL };
    if (!sq_model_is_native(f->extractor)) {
        snprintf(buf, len, "speedqa cannot compute %s (libvmaf's %s extractor)", f->name,
                 f->extractor);
    } else {
        if (sq_model_feature_spec(f, spec, sizeof spec) == 0)
            speedqa_check_features(one, why, sizeof why);
        snprintf(buf, len, "speedqa cannot compute %s with the model's options%s%s", f->name,
                 why[0] ? ": " : "", why);
    }
}

int sq_model_is_native(const char *extractor)
{
    for (size_t i = 0; i < sizeof extractors / sizeof extractors[0]; i++)
        if (!strcmp(extractor, extractors[i].extractor))
            return native_of((int)i);
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

#ifndef SQ_HAVE_JSON_C
/* A build without json-c (a cross build without the target's libjson-c-dev)
 * reads no model file; model_file.c is the reader. */
int sq_model_load(SqModel *m, const char *path, char *err, size_t len)
{
    (void)m;
    snprintf(err, len, "model %s: this build of speedqa reads no model files (rebuild with "
             "libjson-c-dev installed)", path);
    return -1;
}
#endif

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

int sq_model_feature_alias(const char *feature, char *out, size_t len)
{
    static const char *const pre[][2] = {
        { "VMAF_integer_feature_", "integer_" }, { "Cambi_feature_", "" },
        { "Speed_chroma_feature_", "" }, { "Speed_temporal_feature_", "" },
    };
    const size_t fl = strlen(feature);
    /* libvmaf's alias map has none for the SAD score (spec 5.3): its full name */
    if (!strcmp(feature, "VMAF_integer_feature_motion_sad_score"))
        return (size_t)snprintf(out, len, "%s", feature) < len ? 0 : -1;
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
        const size_t pl = strlen(pre[i][0]);
        if (strncmp(feature, pre[i][0], pl) || fl < pl + 6 || strcmp(feature + fl - 6, "_score"))
            continue;
        return (size_t)snprintf(out, len, "%s%.*s", pre[i][1], (int)(fl - pl - 6), feature + pl) <
               len ? 0 : -1;
    }
    return -1;
}

/* The one loader of a run's models: --model (cli_parse.c) and a batch
 * manifest's model column (batch_models.c) check the same things. */
int sq_model_add(SqModel *models, int n, const char *spec, char *err, size_t len)
{
    if (n >= SQ_MODEL_MAX) {
        snprintf(err, len, "--model: at most %d models", SQ_MODEL_MAX);
        return -1;
    }
    SqModel *m = &models[n];
    if (sq_model_load_spec(m, spec, err, len) < 0)
        return -1;
    /* the options the model gives speedqa's own features, checked now: a
     * bad one is the model file's fault, not a --feature's */
    for (int k = 0; k < m->nfeatures; k++) {
        char fspec[400], ferr[400] = "options too long";
        const char *one[2] = { fspec, NULL };
        if (m->f[k].native && (sq_model_feature_spec(&m->f[k], fspec, sizeof fspec) < 0 ||
                               speedqa_check_features(one, ferr, sizeof ferr) < 0)) {
            snprintf(err, len, "--model: model %s: feature %s: %s", m->path, m->f[k].name, ferr);
            return -1;
        }
    }
#ifndef SQ_HAVE_VMAF
    /* without libvmaf, every feature is speedqa's or the model cannot score */
    for (int k = 0; k < m->nfeatures; k++)
        if (!m->f[k].native) {
            char why[600];
            sq_model_why_not_native(&m->f[k], why, sizeof why);
            snprintf(err, len, "--model: model %s: %s, and this build has no libvmaf (install "
                     "libvmaf-dev >= 3.0 and rebuild)", m->path, why);
            return -1;
        }
#endif
    for (int i = 0; i < n; i++)
        if (!strcmp(models[i].name, m->name)) {
            snprintf(err, len, "--model: two models named '%s': give each its own with :name=...",
                     m->name);
            return -1;
        }
    /* a model's score named as a feature's column would take its place (libvmaf's
     * report) or repeat a key: the names of libvmaf's feature families (every
     * alias sq_model_feature_alias gives, and the extra columns: aim, the
     * scales, the SAD) are refused */
    static const char *const family[] = { "VMAF_", "integer_", "float_", "psnr", "ciede",
                                          "cambi", "Cambi_", "speed_", "Speed_" };
    for (size_t i = 0; i < sizeof family / sizeof family[0]; i++)
        if (!strncmp(m->name, family[i], strlen(family[i]))) {
            snprintf(err, len, "--model: a model named '%s' as libvmaf's %s... columns: give "
                     "it another :name=...", m->name, family[i]);
            return -1;
        }
    return 0;
}
