/* Minimal JSON reader for the test programs (golden files). */
#ifndef SQ_TEST_JSON_H
#define SQ_TEST_JSON_H

#include <stddef.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JType;

typedef struct JVal {
    JType type;
    double num;
    char *str;            /* J_STR */
    struct JVal *items;   /* J_ARR / J_OBJ values */
    char **keys;          /* J_OBJ */
    int n;
} JVal;

/* Parse a whole file; NULL on error (message on stderr). */
JVal *json_load(const char *path);
void json_free(JVal *v);
const JVal *json_get(const JVal *obj, const char *key);

#endif
