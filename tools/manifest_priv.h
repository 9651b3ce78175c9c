/* What tools/manifest.c and its JSON record reader (manifest_json.c) share. */
#ifndef SQ_TOOLS_MANIFEST_PRIV_H
#define SQ_TOOLS_MANIFEST_PRIV_H

#include "speedqa/speedqa.h"

#define SQ_MANIFEST_MAX_FIELDS 32

/* One member of a record whose key is under 32 bytes. */
typedef struct SqField {
    char key[32];
    char *str;                  /* string value, or NULL */
    char *arr[SPEEDQA_MAX_FEATURES + 1];
    int narr;                   /* -1: not an array of strings; -2: of too many */
} SqField;

/*
 * The JSON object at p (after blanks, nothing but blanks after it): its
 * members with string or string-array values into f (*nf of them, free
 * with sq_fields_free even after a failure). 0, or -1 with *why, or with
 * the key in dup (32 bytes) when the object gives a key twice.
 */
int sq_json_record(const char *p, SqField *f, int *nf, const char **why, char *dup);
void sq_fields_free(SqField *f, int n);
const SqField *sq_field(const SqField *f, int n, const char *key);

#endif
