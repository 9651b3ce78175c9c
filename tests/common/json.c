#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

typedef struct { const char *p, *end; int err; } Parser;

static void skip_ws(Parser *ps)
{
    while (ps->p < ps->end && isspace((unsigned char)*ps->p))
        ps->p++;
}

static int parse_value(Parser *ps, JVal *v);

static char *parse_string(Parser *ps)
{
    if (ps->p >= ps->end || *ps->p != '"') {
        ps->err = 1;
        return NULL;
    }
    ps->p++;
    size_t cap = 16, len = 0;
    char *s = malloc(cap);
    while (s && ps->p < ps->end && *ps->p != '"') {
        char c = *ps->p++;
        if (c == '\\' && ps->p < ps->end) {
            c = *ps->p++;
            if (c == 'n') c = '\n';
            else if (c == 't') c = '\t';
            else if (c == 'u') { ps->p += 4; c = '?'; }
        }
        if (len + 2 > cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) { free(s); s = NULL; break; }
            s = t;
        }
        s[len++] = c;
    }
    if (!s || ps->p >= ps->end) {
        free(s);
        ps->err = 1;
        return NULL;
    }
    ps->p++;
    s[len] = '\0';
    return s;
}

static int push(JVal *v, char *key, const JVal *item)
{
    JVal *it = realloc(v->items, sizeof(JVal) * (v->n + 1));
    if (!it) return -1;
    v->items = it;
    if (v->type == J_OBJ) {
        char **k = realloc(v->keys, sizeof(char *) * (v->n + 1));
        if (!k) return -1;
        v->keys = k;
        v->keys[v->n] = key;
    }
    v->items[v->n++] = *item;
    return 0;
}

static int parse_container(Parser *ps, JVal *v, char close)
{
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) { ps->p++; return 0; }
    for (;;) {
        char *key = NULL;
        skip_ws(ps);
        if (close == '}') {
            key = parse_string(ps);
            skip_ws(ps);
            if (!key || ps->p >= ps->end || *ps->p != ':') { free(key); return -1; }
            ps->p++;
        }
        JVal item;
        if (parse_value(ps, &item) < 0 || push(v, key, &item) < 0) { free(key); return -1; }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') { ps->p++; continue; }
        if (ps->p < ps->end && *ps->p == close) { ps->p++; return 0; }
        return -1;
    }
}

static int parse_value(Parser *ps, JVal *v)
{
    memset(v, 0, sizeof(*v));
    skip_ws(ps);
    if (ps->p >= ps->end) return -1;
    char c = *ps->p;
    if (c == '{') { v->type = J_OBJ; return parse_container(ps, v, '}'); }
    if (c == '[') { v->type = J_ARR; return parse_container(ps, v, ']'); }
    if (c == '"') { v->type = J_STR; v->str = parse_string(ps); return v->str ? 0 : -1; }
    if (!strncmp(ps->p, "true", 4)) { v->type = J_BOOL; v->num = 1; ps->p += 4; return 0; }
    if (!strncmp(ps->p, "false", 5)) { v->type = J_BOOL; ps->p += 5; return 0; }
    if (!strncmp(ps->p, "null", 4)) { v->type = J_NULL; ps->p += 4; return 0; }
    char *e;
    v->type = J_NUM;
    v->num = strtod(ps->p, &e);
    if (e == ps->p) return -1;
    ps->p = e;
    return 0;
}

static void free_inner(JVal *v)
{
    for (int i = 0; i < v->n; i++) {
        free_inner(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

void json_free(JVal *v)
{
    if (!v) return;
    free_inner(v);
    free(v);
}

JVal *json_load(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); return NULL; }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(len > 0 ? (size_t)len : 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) { fclose(f); free(buf); return NULL; }
    fclose(f);
    Parser ps = { buf, buf + len, 0 };
    JVal *v = calloc(1, sizeof(*v));
    if (!v || parse_value(&ps, v) < 0 || ps.err) {
        fprintf(stderr, "%s: JSON parse error\n", path);
        json_free(v);
        v = NULL;
    }
    free(buf);
    return v;
}

const JVal *json_get(const JVal *obj, const char *key)
{
    if (!obj || obj->type != J_OBJ) return NULL;
    for (int i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key)) return &obj->items[i];
    return NULL;
}
