/*
 * Manifest reading (manifest.h): a small CSV reader (RFC 4180 quotes, CRLF
 * or LF) and JSON lines read by json-c (manifest_json.c). Both are strict
 * about what they read, refuse a key or column given twice, and say where
 * a manifest is wrong.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "manifest_priv.h"

#define MAX_FIELDS 32
#define MAX_MANIFEST ((size_t)1 << 30)


static char *read_all(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the manifest: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1 || ferror(f))
            break;
        char *nb = cap >= MAX_MANIFEST ? NULL : realloc(buf, cap *= 2);
        if (!nb) {
            free(buf);
            buf = NULL;
        } else {
            buf = nb;
        }
    }
    const int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: cannot read the manifest%s", path, buf ? "" : " (too large)");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (strlen(buf) != n) {
        snprintf(err, errlen, "%s: the manifest holds a NUL byte", path);
        free(buf);
        return NULL;
    }
    return buf;
}

static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}

void sq_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

char *sq_pair_features(const SqPair *p)
{
    size_t n = 1;
    for (int i = 0; i < p->nfeat; i++)
        n += strlen(p->features[i]) + 1;
    char *s = malloc(n);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < p->nfeat; i++) {
        if (i)
            strcat(s, ";");
        strcat(s, p->features[i]);
    }
    return s;
}

int sq_result_line_parse(const char *line, char *ref, char *dis, char *output, char *features,
                         char *model, size_t len, int *failed)
{
    SqField f[SQ_MANIFEST_MAX_FIELDS];
    int nf;
    const char *why;
    char dup[32];
    /* a line with a key twice is no match: its pair is scored again */
    int ret = sq_json_record(line, f, &nf, &why, dup);
    const SqField *r = sq_field(f, nf, "ref"), *d = sq_field(f, nf, "dis");
    const SqField *o = sq_field(f, nf, "output"), *ft = sq_field(f, nf, "features");
    if (ret == 0 && r && r->str && d && d->str) {
        snprintf(ref, len, "%s", r->str);
        snprintf(dis, len, "%s", d->str);
        snprintf(output, len, "%s", o && o->str ? o->str : "");
        /* a line too long to hold is never a match */
        if (snprintf(features, len, "%s", ft && ft->str ? ft->str : "") >= (int)len)
            snprintf(features, len, "%c", 1);
        const SqField *md = sq_field(f, nf, "model");
        if (snprintf(model, len, "%s", md && md->str ? md->str : "") >= (int)len)
            snprintf(model, len, "%c", 1);
        *failed = sq_field(f, nf, "error") != NULL || !sq_field(f, nf, "pooled_metrics");
    } else {
        ret = -1;
    }
    sq_fields_free(f, nf);
    return ret;
}

/* ---- pairs ---- */

/* Split "a;b" into p->features (copies); empty parts are dropped. */
static int set_features(SqPair *p, const char *s, char *err, size_t errlen, const char *where)
{
    const char *a = s;
    while (*a) {
        const char *e = strchr(a, ';');
        size_t n = e ? (size_t)(e - a) : strlen(a);
        while (n && isspace((unsigned char)*a)) {
            a++;
            n--;
        }
        while (n && isspace((unsigned char)a[n - 1]))
            n--;
        if (n) {
            if (p->nfeat == SPEEDQA_MAX_FEATURES) {
                snprintf(err, errlen, "%s: more than %d features", where, SPEEDQA_MAX_FEATURES);
                return -EINVAL;
            }
            if (!(p->features[p->nfeat] = strndup(a, n)))
                return -ENOMEM;
            p->nfeat++;
        }
        a = e ? e + 1 : a + strlen(a);
    }
    return 0;
}

/* Append the parts of "a;b" to p->model, ';'-joined (trimmed; empty parts
 * dropped): one string, as the result line records it and --resume and the
 * batch's grouping compare it. */
static int add_model(SqPair *p, const char *s)
{
    for (const char *a = s; *a;) {
        const char *e = strchr(a, ';');
        size_t n = e ? (size_t)(e - a) : strlen(a);
        const char *b = a;
        while (n && isspace((unsigned char)*b))
            b++, n--;
        while (n && isspace((unsigned char)b[n - 1]))
            n--;
        if (n) {
            size_t old = p->model ? strlen(p->model) : 0;
            char *m = realloc(p->model, old + n + 2);
            if (!m)
                return -ENOMEM;
            if (old)
                m[old++] = ';';
            memcpy(m + old, b, n);
            m[old + n] = '\0';
            p->model = m;
        }
        a = e ? e + 1 : a + strlen(a);
    }
    return 0;
}

static int add_pair(SqPair **pairs, int *n, int *cap, SqPair *p)
{
    if (*n == *cap) {
        const int nc = *cap ? 2 * *cap : 64;
        SqPair *np = realloc(*pairs, (size_t)nc * sizeof *np);
        if (!np)
            return -ENOMEM;
        *pairs = np;
        *cap = nc;
    }
    (*pairs)[(*n)++] = *p;
    return 0;
}

static void pair_free(SqPair *p)
{
    free(p->ref);
    free(p->dis);
    free(p->output);
    free(p->model);
    for (int k = 0; k < p->nfeat; k++)
        free(p->features[k]);
}

/* Check a pair's paths; then it is kept. */
static int finish_pair(SqPair *p, const char *where, char *err, size_t errlen)
{
    if (!p->ref || !p->ref[0] || !p->dis || !p->dis[0]) {
        snprintf(err, errlen, "%s: %s is missing or empty", where, !p->ref || !p->ref[0] ? "ref" : "dis");
        return -EINVAL;
    }
    if (p->output && !p->output[0]) {
        free(p->output);
        p->output = NULL;
    }
    p->features[p->nfeat] = NULL;
    return 0;
}

static int load_jsonl(char *text, const char *path, SqPair **pairs, int *n, char *err, size_t errlen)
{
    int cap = 0, lineno = 0, ret = 0;
    for (char *line = text; line && !ret;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        const char *s = ws(line);
        if (*s && *s != '#') {
            SqField f[SQ_MANIFEST_MAX_FIELDS];
            int nf;
            const char *why;
            char where[1100], dup[32] = "";
            snprintf(where, sizeof where, "%s:%d", path, lineno);
            SqPair p = { .line = lineno };
            if (sq_json_record(s, f, &nf, &why, dup) < 0) {
                if (dup[0])
                    snprintf(err, errlen, "%s: the key \"%s\" appears twice in the record; "
                             "refusing to guess which one counts", where, dup);
                else
                    snprintf(err, errlen, "%s: %s", where, why);
                ret = -EINVAL;
            } else {
                const SqField *r = sq_field(f, nf, "ref"), *d = sq_field(f, nf, "dis");
                const SqField *o = sq_field(f, nf, "output"), *ft = sq_field(f, nf, "features");
                p.ref = r && r->str ? strdup(r->str) : NULL;
                p.dis = d && d->str ? strdup(d->str) : NULL;
                p.output = o && o->str ? strdup(o->str) : NULL;
                if (ft && ft->str)
                    ret = set_features(&p, ft->str, err, errlen, where);
                for (int k = 0; ft && !ret && k < ft->narr; k++)
                    ret = set_features(&p, ft->arr[k], err, errlen, where);
                const SqField *md = sq_field(f, nf, "model");
                if (!ret && md && md->str)
                    ret = add_model(&p, md->str);
                for (int k = 0; md && !ret && k < md->narr; k++)
                    ret = add_model(&p, md->arr[k]);
                if (!ret && md && !md->str && md->narr < 0) {
                    snprintf(err, errlen, "%s: model must be a string or an array of strings",
                             where);
                    ret = -EINVAL;
                }
                if (!ret && ft && !ft->str && ft->narr == -2) {
                    snprintf(err, errlen, "%s: more than %d features", where, SPEEDQA_MAX_FEATURES);
                    ret = -EINVAL;
                } else if (!ret && ft && !ft->str && ft->narr < 0) {
                    snprintf(err, errlen, "%s: features must be a string or an array of strings", where);
                    ret = -EINVAL;
                }
                if (!ret)
                    ret = finish_pair(&p, where, err, errlen);
                if (!ret)
                    ret = add_pair(pairs, n, &cap, &p);
                if (ret)
                    pair_free(&p);
            }
            sq_fields_free(f, nf);
        }
        line = nl ? nl + 1 : NULL;
    }
    return ret;
}

/* At least the unquoted length of the field at s: its bytes up to its end
 * (not the rest of the file: that made reading a manifest quadratic). */
static size_t field_bound(const char *s)
{
    if (*s != '"')
        return strcspn(s, ",\n"); /* a lone \r stays in the field */
    for (const char *e = s + 1; (e = strchr(e, '"')) != NULL; e += 2)
        if (e[1] != '"')
            return (size_t)(e - s);
    return strlen(s); /* an unterminated quote: an error, once */
}

/* One CSV record from *p: fields (malloc'ed) into fl; the record count in *nfl. */
static int csv_record(char **p, char **fl, int *nfl, int *lineno)
{
    char *s = *p;
    *nfl = 0;
    for (;;) {
        char *buf = malloc(field_bound(s) + 1), *o = buf;
        if (!buf)
            return -ENOMEM;
        if (*s == '"') {
            s++;
            for (;;) {
                if (!*s) {
                    free(buf);
                    return -EINVAL; /* an unterminated quote */
                }
                if (*s == '"' && s[1] == '"') {
                    *o++ = '"';
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    *lineno += *s == '\n';
                    *o++ = *s++;
                }
            }
            if (*s && *s != ',' && *s != '\n' && !(*s == '\r' && s[1] == '\n')) {
                free(buf);
                return -EINVAL; /* text after a closing quote */
            }
        } else {
            while (*s && *s != ',' && *s != '\n' && !(*s == '\r' && s[1] == '\n'))
                *o++ = *s++;
        }
        *o = '\0';
        if (*nfl == MAX_FIELDS) {
            free(buf);
            return -E2BIG;
        }
        fl[(*nfl)++] = buf;
        if (*s == ',') {
            s++;
            continue;
        }
        s += *s == '\r' ? 2 : *s == '\n' ? 1 : 0;
        *p = s;
        return 0;
    }
}

static int load_csv(char *text, const char *path, SqPair **pairs, int *n, char *err, size_t errlen)
{
    int cap = 0, lineno = 1, ret = 0, col[5] = { -1, -1, -1, -1, -1 }, header = 0;
    static const char *const names[5] = { "ref", "dis", "features", "output", "model" };
    char *p = text;
    if (!strncmp(p, "\xEF\xBB\xBF", 3))
        p += 3; /* a spreadsheet's UTF-8 mark */
    while (*p && !ret) {
        const int at = lineno;
        char *s = p;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\n' || (*s == '\r' && s[1] == '\n') || *s == '#') {
            char *nl = strchr(s, '\n');
            p = nl ? nl + 1 : s + strlen(s);
            lineno++;
            continue;
        }
        char *fl[MAX_FIELDS];
        int nfl;
        char where[1100];
        snprintf(where, sizeof where, "%s:%d", path, at);
        ret = csv_record(&p, fl, &nfl, &lineno);
        lineno++;
        if (ret)
            for (int i = 0; i < nfl; i++)
                free(fl[i]);
        if (ret == -EINVAL || ret == -E2BIG) {
            snprintf(err, errlen, "%s: %s", where, ret == -EINVAL ? "a quote is not closed or "
                     "text follows a closing quote" : "too many columns");
            return -EINVAL;
        }
        if (ret)
            return ret;
        if (!header) {
            for (int i = 0; i < nfl; i++)
                for (int k = 0; k < 5; k++)
                    if (!strcmp(fl[i], names[k]) && col[k] >= 0 && !ret) {
                        snprintf(err, errlen, "%s: the column \"%s\" appears twice in the "
                                 "header; refusing to guess which one counts", where, names[k]);
                        ret = -EINVAL;
                    } else if (!strcmp(fl[i], names[k])) {
                        col[k] = i;
                    }
            header = 1;
            if (!ret && (col[0] < 0 || col[1] < 0)) {
                snprintf(err, errlen, "%s: the header must name the columns ref and dis "
                         "(optional: features, model, output)", where);
                ret = -EINVAL;
            }
        } else {
            SqPair p1 = { .line = at };
            char **dst[5] = { &p1.ref, &p1.dis, NULL, &p1.output, NULL };
            for (int k = 0; k < 5 && !ret; k++) {
                const char *v = col[k] >= 0 && col[k] < nfl ? fl[col[k]] : NULL;
                if (!v)
                    continue;
                if (k == 2)
                    ret = set_features(&p1, v, err, errlen, where);
                else if (k == 4)
                    ret = add_model(&p1, v);
                else if (!(*dst[k] = strdup(v)))
                    ret = -ENOMEM;
            }
            if (!ret)
                ret = finish_pair(&p1, where, err, errlen);
            if (!ret)
                ret = add_pair(pairs, n, &cap, &p1);
            if (ret)
                pair_free(&p1);
        }
        for (int i = 0; i < nfl; i++)
            free(fl[i]);
    }
    if (!ret && !header) {
        snprintf(err, errlen, "%s: the manifest is empty (a CSV header ref,dis or JSON lines)", path);
        ret = -EINVAL;
    }
    return ret;
}

int sq_manifest_load(const char *path, SqPair **pairs, int *n, char *err, size_t errlen)
{
    *pairs = NULL;
    *n = 0;
    char *text = read_all(path, err, errlen);
    if (!text)
        return -EIO;
    const char *s = ws(text);
    while (*s == '#') { /* comments before the first record */
        const char *nl = strchr(s, '\n');
        s = nl ? ws(nl + 1) : s + strlen(s);
    }
    int ret = *s == '{' ? load_jsonl(text, path, pairs, n, err, errlen)
                        : load_csv(text, path, pairs, n, err, errlen);
    free(text);
    if (ret == -ENOMEM)
        snprintf(err, errlen, "%s: out of memory reading the manifest", path);
    if (!ret && !*n) {
        snprintf(err, errlen, "%s: the manifest lists no pairs", path);
        ret = -EINVAL;
    }
    if (ret)
        sq_manifest_free(pairs, *n);
    return ret;
}

int sq_manifest_select(SqPair **pairs, int *n, const int *idx, int k, char *err, size_t errlen)
{
    SqPair *sel = calloc((size_t)(k > 0 ? k : 1), sizeof *sel);
    char *taken = calloc((size_t)(*n > 0 ? *n : 1), 1);
    int ret = sel && taken ? 0 : -ENOMEM;
    for (int i = 0; !ret && i < k; i++) {
        if (idx[i] < 0 || idx[i] >= *n || taken[idx[i]]) {
            snprintf(err, errlen, "pair %d: not in the manifest's %d pairs, or asked twice",
                     idx[i], *n);
            ret = -EINVAL;
        } else {
            taken[idx[i]] = 1;
            sel[i] = (*pairs)[idx[i]];
        }
    }
    if (ret) {
        if (ret == -ENOMEM)
            snprintf(err, errlen, "out of memory");
        free(sel);
        free(taken);
        return ret;
    }
    for (int i = 0; i < *n; i++)
        if (!taken[i])
            pair_free(&(*pairs)[i]);
    free(taken);
    free(*pairs);
    *pairs = sel;
    *n = k;
    return 0;
}

void sq_manifest_free(SqPair **pairs, int n)
{
    for (int i = 0; *pairs && i < n; i++)
        pair_free(&(*pairs)[i]);
    free(*pairs);
    *pairs = NULL;
}
