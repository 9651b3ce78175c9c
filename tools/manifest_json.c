/*
 * A manifest's JSON record, read by json-c (strict RFC 8259). json-c keeps
 * the last of a key given twice; the manifest rule is to refuse such a
 * record (doc/cli.md), so the keys the text names are counted against the
 * members json-c kept, and on a difference decoded (by json-c again) until
 * the repeated one is found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest_priv.h"

void sq_fields_free(SqField *f, int n)
{
    for (int i = 0; i < n; i++) {
        free(f[i].str);
        for (int k = 0; k < f[i].narr; k++)
            free(f[i].arr[k]);
    }
}

const SqField *sq_field(const SqField *f, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(f[i].key, key))
            return &f[i];
    return NULL;
}

#ifdef SQ_HAVE_JSON_C
#include <json-c/json.h>

static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}

/* The end of the string literal at p (its quote), in text json-c accepted. */
static const char *literal_end(const char *p)
{
    for (p++; *p != '"'; p++)
        p += *p == '\\';
    return p + 1;
}

/* The JSON text p[0..len) parsed (strict), or NULL. */
static json_object *parse_len(const char *p, size_t len)
{
    struct json_tokener *tok = json_tokener_new();
    if (!tok || len > (size_t)0x7fffffff) {
        json_tokener_free(tok);
        return NULL;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *o = json_tokener_parse_ex(tok, p, (int)len);
    if (json_tokener_get_error(tok) != json_tokener_success) {
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}

/* The next top-level key literal of the valid object at or after *p (the
 * string met at depth 1 where a key stands: after '{' or ','), *p moved past
 * it; NULL when no key is left. *depth carries the nesting between calls. */
static const char *next_key(const char **p, int *depth)
{
    int want_key = 0;
    while (**p) {
        const char c = **p;
        if (c == '"') {
            const char *k = *p, *e = literal_end(k);
            const int is_key = *depth == 1 && want_key;
            *p = e;
            want_key = 0;
            if (is_key)
                return k;
            continue;
        }
        *depth += c == '{' || c == '[';
        *depth -= c == '}' || c == ']';
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
            want_key = *depth == 1 && (c == '{' || c == ',');
        (*p)++;
    }
    return NULL;
}

/* On a top-level key of the valid object at p decoded twice, 1 with it in
 * dup; 0 when none repeats; -1 out of memory. */
static int repeated_key(const char *p, char *dup, size_t duplen)
{
    json_object *seen = json_object_new_object();
    if (!seen)
        return -1;
    int depth = 0, ret = 0;
    for (const char *k; !ret && (k = next_key(&p, &depth));) {
        json_object *o = parse_len(k, (size_t)(p - k));
        const char *ks = o ? json_object_get_string(o) : NULL;
        if (!ks)
            ret = -1;
        else if (json_object_object_get_ex(seen, ks, NULL))
            ret = 1, snprintf(dup, duplen, "%s", ks);
        else if (json_object_object_add(seen, ks, NULL) != 0)
            ret = -1;
        json_object_put(o);
    }
    json_object_put(seen);
    return ret;
}

/* How many keys the valid object at p names at its top level. */
static size_t count_keys(const char *p)
{
    size_t n = 0;
    int depth = 0;
    while (next_key(&p, &depth))
        n++;
    return n;
}

/* A string value as a file name or feature wants it: NUL-free, malloc'd; NULL otherwise. */
static char *string_of(json_object *v)
{
    if (!json_object_is_type(v, json_type_string))
        return NULL;
    const char *s = json_object_get_string(v);
    const size_t n = (size_t)json_object_get_string_len(v);
    return strlen(s) == n ? strdup(s) : NULL; /* a \u0000 names no file */
}

/* Member key: val into fl (a string, or an array of strings). */
static void take_member(SqField *fl, json_object *val)
{
    if (json_object_is_type(val, json_type_string)) {
        fl->str = string_of(val);
        return;
    }
    if (!json_object_is_type(val, json_type_array))
        return;
    const size_t n = json_object_array_length(val);
    if (n > SPEEDQA_MAX_FEATURES) {
        fl->narr = -2;
        return;
    }
    fl->narr = 0;
    for (size_t i = 0; i < n; i++) {
        char *s = string_of(json_object_array_get_idx(val, i));
        if (!s) {
            sq_fields_free(fl, 1);
            fl->narr = -1;
            return;
        }
        fl->arr[fl->narr++] = s;
    }
}

int sq_json_record(const char *p, SqField *f, int *nf, const char **why, char *dup)
{
    *nf = 0;
    *why = "not a JSON object";
    dup[0] = '\0';
    p = ws(p);
    struct json_tokener *tok = json_tokener_new();
    if (!tok)
        return -1;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    const size_t len = strlen(p);
    json_object *o = len <= 0x7fffffff ? json_tokener_parse_ex(tok, p, (int)len) : NULL;
    const int ok = o && json_tokener_get_error(tok) == json_tokener_success &&
                   json_object_is_type(o, json_type_object);
    const size_t end = ok ? json_tokener_get_parse_end(tok) : 0;
    json_tokener_free(tok);
    if (!ok) {
        json_object_put(o);
        return -1;
    }
    int ret = 0;
    if (*ws(p + end)) {
        *why = "text after the JSON object";
        ret = -1;
    } else if (count_keys(p) != (size_t)json_object_object_length(o) &&
               repeated_key(p, dup, 32) != 0) {
        *why = dup[0] ? "" : "out of memory";
        ret = -1;
    }
    json_object_object_foreach(o, key, val) {
        if (ret || strlen(key) >= sizeof f->key)
            continue; /* no key we read is that long */
        SqField fl = { .narr = -1 };
        memcpy(fl.key, key, strlen(key) + 1);
        take_member(&fl, val);
        if (*nf < SQ_MANIFEST_MAX_FIELDS)
            f[(*nf)++] = fl;
        else
            sq_fields_free(&fl, 1);
    }
    json_object_put(o);
    return ret;
}
#else /* a build without json-c (cross builds): CSV manifests only */
int sq_json_record(const char *p, SqField *f, int *nf, const char **why, char *dup)
{
    (void)p;
    (void)f;
    *nf = 0;
    dup[0] = '\0';
    *why = "JSON-lines manifests need json-c: this speedqa was built without libjson-c-dev";
    return -1;
}
#endif
