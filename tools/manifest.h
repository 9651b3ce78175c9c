/*
 * Batch manifests (CSV with a header, or JSON lines) and the bits of JSON
 * the batch reads back from a results file it resumes.
 */
#ifndef SQ_TOOLS_MANIFEST_H
#define SQ_TOOLS_MANIFEST_H

#include <stddef.h>
#include <stdio.h>

#include "speedqa/speedqa.h"

typedef struct SqPair {
    char *ref, *dis, *output;   /* output NULL: no per-frame report */
    char *features[SPEEDQA_MAX_FEATURES + 1]; /* NULL-terminated */
    int nfeat;                  /* 0: the default pair of features */
    char *model;                /* its --model values, ';'-joined; NULL: the command's --model */
    int line;                   /* 1-based line in the manifest */
} SqPair;

/*
 * Every pair of the manifest at path. CSV: a header row naming the columns
 * ref and dis (required), features (feature strings separated by ';'),
 * model (--model values separated by ';') and output, in any order, other
 * columns ignored; RFC 4180 quoting. JSON lines (the first record, after
 * blank lines and comments, starts with '{'): one object per line with those
 * keys, features and model a string (';'-separated) or an array of strings. Blank
 * lines and lines starting with '#' are skipped. 0, or a negative errno
 * with one line (naming the file and line) in err.
 */
int sq_manifest_load(const char *path, SqPair **pairs, int *n, char *err, size_t errlen);
void sq_manifest_free(SqPair **pairs, int n);

/* Keep pairs idx[0..k) of the manifest, in that order (the others freed):
 * 0, or -EINVAL (an index out of range or twice) / -ENOMEM, a line in err. */
int sq_manifest_select(SqPair **pairs, int *n, const int *idx, int k, char *err, size_t errlen);

/* s as a JSON string (quotes included). */
void sq_json_string(FILE *f, const char *s);

/*
 * A results line read back: 0 when it is one JSON object with string "ref"
 * and "dis" (copied to ref, dis; output to output or "", features to
 * features or "", model to model or "": all len bytes), *failed set when
 * it has an "error"; -1 when it is not such a line (a torn last line).
 */
int sq_result_line_parse(const char *line, char *ref, char *dis, char *output, char *features,
                         char *model, size_t len, int *failed);

/* A pair's features joined with ';' (what its result line records), "" for the default; malloc'd. */
char *sq_pair_features(const SqPair *p);

#endif
