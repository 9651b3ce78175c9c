/*
 * VMAF models for the speedqa tool: a model file read into a plain struct
 * (model.c, json-c), and the libvmaf session that scores one distorted
 * stream with it (bridge.c). Every caller (the single run, ladders, batch,
 * Python through the CLI) goes through these two headers.
 */
#ifndef SQ_TOOLS_VMAF_MODEL_H
#define SQ_TOOLS_VMAF_MODEL_H

#include <stddef.h>

#include "speedqa/speedqa.h"

#define SQ_MODEL_MAX_FEATURES 64 /* libvmaf's own limit */
#define SQ_MODEL_MAX_OPTS 16
#define SQ_MODEL_MAX 8           /* --model given this many times at most */

typedef struct SqModelOpt {
    char key[64];
    char val[64]; /* normalised as libvmaf does: numbers through strtof and %g */
} SqModelOpt;

typedef struct SqModelFeature {
    char name[160];        /* as the model names it: VMAF_integer_feature_adm3_score */
    const char *extractor; /* libvmaf's extractor that provides it: "integer_adm" */
    int native;            /* speedqa computes it (sq_model_is_native); 0: libvmaf does */
    int nopts;
    SqModelOpt opts[SQ_MODEL_MAX_OPTS];
} SqModelFeature;

typedef struct SqModel {
    char path[4096];        /* the model file */
    char name[128];         /* what the reports call its score: "vmaf" unless name= */
    int enable_transform;   /* vmaf's model flags, from the --model value */
    int disable_clip;
    int nfeatures;
    SqModelFeature f[SQ_MODEL_MAX_FEATURES];
} SqModel;

/*
 * --model's value, vmaf's syntax: "version=NAME" (a file of the model
 * folder, sq_model_dir) or "path=FILE", then ":name=X", ":enable_transform",
 * ":disable_clip" as wanted. Loads the file. 0, or -1 with one line in err.
 */
int sq_model_load_spec(SqModel *m, const char *spec, char *err, size_t len);

/*
 * spec loaded as models[n], after models[0..n) of the same run, with the
 * checks --model makes (the options a model gives speedqa's features, one
 * name per model, at most SQ_MODEL_MAX). 0, or -1 with one line in err;
 * without libvmaf in the build, a model with a feature speedqa cannot
 * compute (the HFR models' five-frame motion window) is that line, naming
 * the feature.
 */
int sq_model_add(SqModel *models, int n, const char *spec, char *err, size_t len);

/* Reads a model file (its model_dict: feature names and options). 0 or -1. */
int sq_model_load(SqModel *m, const char *path, char *err, size_t len);

/* The name libvmaf prints feature (a provided name) under, without its
 * options' suffix (integer_adm2 for VMAF_integer_feature_adm2_score; the
 * SAD score keeps its full name), or -1. */
int sq_model_feature_alias(const char *feature, char *out, size_t len);

/* A model file's JSON (at most 64 MiB), or NULL with one line in err. */
struct json_object *sq_model_read_json(const char *path, char *err, size_t len);

/* The folder version=NAME looks in: $SPEEDQA_MODEL_DIR, the data folder
 * beside the running executable's bin/ (an installed tree, moved or staged
 * too), the configured install folder, else the source tree's data/model
 * (an uninstalled build). buf holds the path when it is built. */
const char *sq_model_dir(char *buf, size_t len);
/* The installed data folder, as --help names it. */
const char *sq_model_install_dir(void);

/* The libvmaf extractor providing a model feature (NULL: none known), and
 * in *native whether speedqa computes it. */
const char *sq_model_extractor_of(const char *feature, int *native);

#define SQ_NATIVE_OPTS 2

/* Once f's options are read: whether speedqa computes it, for an extractor
 * the library takes with some option sets only (f->native was
 * SQ_NATIVE_OPTS): unchanged where its options are taken, else 0. */
void sq_model_settle_native(SqModelFeature *f);

/* Whether speedqa computes f (on any backend: each runs every feature). */
static inline int sq_model_native(const SqModelFeature *f)
{
    return f->native != 0;
}

/* SPEEDQA_MODEL_ENGINE (read by the tool only): which engine scores the
 * models (hooks.c). auto (unset): speedqa's own when it computes every
 * feature of every model, else libvmaf's; native: speedqa's, ADM counted
 * as speedqa's too (else libvmaf's, which is faster for now); libvmaf:
 * libvmaf's. -1: another value. */
enum { SQ_ENGINE_AUTO, SQ_ENGINE_NATIVE, SQ_ENGINE_LIBVMAF };
int sq_model_engine(void);

/* Why speedqa does not compute f: one clause naming the feature, for an
 * error line. */
void sq_model_why_not_native(const SqModelFeature *f, char *buf, size_t len);

/* Whether speedqa computes the extractor itself (else libvmaf does). */
int sq_model_is_native(const char *extractor);

/* Feature i of the model as a speedqa --feature value ("speed_chroma=k=v:..."). */
int sq_model_feature_spec(const SqModelFeature *f, char *buf, size_t len);

#endif
