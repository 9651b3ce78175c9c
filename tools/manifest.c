/*
 * Manifest reading (manifest.h): a small CSV reader (RFC 4180 quotes, CRLF
 * or LF) and a small JSON reader for flat objects of strings, arrays of
 * strings and values it skips. Both are strict about what they read and
 * say where a manifest is wrong.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"

#define MAX_FIELDS 32
#define MAX_MANIFEST ((size_t)1 << 30)

typedef struct Field {
    char key[32];
    char *str;                  /* string value, or NULL */
    char *arr[SPEEDQA_MAX_FEATURES + 1];
    int narr;                   /* -1: not an array */
} Field;

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

/* ---- JSON ---- */

static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}

static void put_utf8(char **o, unsigned c)
{
    char *q = *o;
    if (c < 0x80) {
        *q++ = (char)c;
    } else if (c < 0x800) {
        *q++ = (char)(0xC0 | c >> 6);
        *q++ = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        *q++ = (char)(0xE0 | c >> 12);
        *q++ = (char)(0x80 | (c >> 6 & 0x3F));
        *q++ = (char)(0x80 | (c & 0x3F));
    } else {
        *q++ = (char)(0xF0 | c >> 18);
        *q++ = (char)(0x80 | (c >> 12 & 0x3F));
        *q++ = (char)(0x80 | (c >> 6 & 0x3F));
        *q++ = (char)(0x80 | (c & 0x3F));
    }
    *o = q;
}

static int hex4(const char *p, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        const int c = p[i];
        if (!isxdigit(c))
            return -1;
        *v = *v * 16 + (unsigned)(isdigit(c) ? c - '0' : (tolower(c) - 'a' + 10));
    }
    return 0;
}

/* A JSON string at p (at its quote): a malloc'ed copy in *out; the end, or NULL. */
static const char *json_str(const char *p, char **out)
{
    if (*p != '"')
        return NULL;
    const char *e = ++p;
    while (*e && *e != '"')
        e += *e == '\\' && e[1] ? 2 : 1;
    if (*e != '"')
        return NULL;
    char *o = malloc((size_t)(e - p) + 1), *q = o;
    if (!o)
        return NULL;
    while (p < e) {
        if ((unsigned char)*p < 0x20) {
            free(o);
            return NULL;
        }
        if (*p != '\\') {
            *q++ = *p++;
            continue;
        }
        p++;
        unsigned c;
        switch (*p++) {
        case '"': *q++ = '"'; break;
        case '\\': *q++ = '\\'; break;
        case '/': *q++ = '/'; break;
        case 'b': *q++ = '\b'; break;
        case 'f': *q++ = '\f'; break;
        case 'n': *q++ = '\n'; break;
        case 'r': *q++ = '\r'; break;
        case 't': *q++ = '\t'; break;
        case 'u':
            if (e - p < 4 || hex4(p, &c) < 0) {
                free(o);
                return NULL;
            }
            p += 4;
            if (c >= 0xD800 && c < 0xDC00 && e - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                unsigned lo;
                if (hex4(p + 2, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
                    c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                }
            }
            if (!c || (c >= 0xD800 && c < 0xE000)) {
                free(o);
                return NULL; /* NUL or a lone surrogate is no file name */
            }
            put_utf8(&q, c);
            break;
        default:
            free(o);
            return NULL;
        }
    }
    *q = '\0';
    *out = o;
    return e + 1;
}

/* Skip any JSON value; the end, or NULL. */
static const char *json_skip(const char *p, int depth)
{
    p = ws(p);
    if (depth > 32)
        return NULL;
    if (*p == '"') {
        char *s;
        if (!(p = json_str(p, &s)))
            return NULL;
        free(s);
        return p;
    }
    if (*p == '{' || *p == '[') {
        const char close = *p == '{' ? '}' : ']';
        p = ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                char *k;
                if (!(p = json_str(ws(p), &k)))
                    return NULL;
                free(k);
                p = ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            if (!(p = json_skip(p, depth + 1)))
                return NULL;
            p = ws(p);
            if (*p == close)
                return p + 1;
            if (*p++ != ',')
                return NULL;
        }
    }
    const char *s = p;
    while (*p && (isalnum((unsigned char)*p) || strchr("+-.", *p)))
        p++;
    return p > s ? p : NULL;
}

static void fields_free(Field *f, int n)
{
    for (int i = 0; i < n; i++) {
        free(f[i].str);
        for (int k = 0; k < f[i].narr; k++)
            free(f[i].arr[k]);
    }
}

/* One flat JSON object: its string and string-array members (others skipped). */
static const Field *field(const Field *f, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(f[i].key, key))
            return &f[i];
    return NULL;
}

/* One rule for a key given twice, in every reader of manifests (C and
 * Python, which binds this file): the record is refused, since "the first
 * wins" and "the last wins" would each score another pair. dup: the key. */
static int json_object(const char *p, Field *f, int *nf, const char **why, char *dup)
{
    *nf = 0;
    p = ws(p);
    *why = "not a JSON object";
    if (*p++ != '{')
        return -1;
    p = ws(p);
    if (*p == '}')
        return *ws(p + 1) ? -1 : 0;
    for (;;) {
        char *key;
        if (!(p = json_str(ws(p), &key)))
            return -1;
        p = ws(p);
        if (*p++ != ':') {
            free(key);
            return -1;
        }
        p = ws(p);
        Field fl = { .narr = -1 };
        snprintf(fl.key, sizeof fl.key, "%s", key);
        const int known = strlen(key) < sizeof fl.key;
        free(key);
        if (*p == '"' && known) {
            if (!(p = json_str(p, &fl.str)))
                return -1;
        } else if (*p == '[' && known) {
            const char *q = ws(p + 1);
            fl.narr = 0;
            int strings = 1, many = 0;
            while (*q != ']' && strings) {
                char *s;
                many = fl.narr == SPEEDQA_MAX_FEATURES;
                if (*q != '"' || many || !(q = json_str(q, &s))) {
                    strings = 0;
                    break;
                }
                fl.arr[fl.narr++] = s;
                q = ws(q);
                if (*q == ',')
                    q = ws(q + 1);
                else if (*q != ']')
                    strings = 0;
            }
            if (!strings) {
                /* kept by name, so that the caller refuses it (narr -2: too many) */
                char k[sizeof fl.key];
                memcpy(k, fl.key, sizeof k);
                fields_free(&fl, 1);
                fl = (Field){ .narr = many ? -2 : -1 };
                memcpy(fl.key, k, sizeof k);
                if (!(p = json_skip(p, 0)))
                    return -1;
            } else {
                p = q + 1;
            }
        } else if (!(p = json_skip(p, 0))) {
            return -1;
        }
        if (known && field(f, *nf, fl.key)) {
            snprintf(dup, sizeof fl.key, "%s", fl.key);
            fields_free(&fl, 1);
            *why = "";
            return -1;
        }
        if (*nf < MAX_FIELDS)
            f[(*nf)++] = fl;
        else
            fields_free(&fl, 1);
        p = ws(p);
        if (*p == '}')
            break;
        if (*p++ != ',')
            return -1;
    }
    *why = "text after the JSON object";
    return *ws(p + 1) ? -1 : 0;
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
                         size_t len, int *failed)
{
    Field f[MAX_FIELDS];
    int nf;
    const char *why;
    char dup[32];
    /* a line with a key twice is no match: its pair is scored again */
    int ret = json_object(line, f, &nf, &why, dup);
    const Field *r = field(f, nf, "ref"), *d = field(f, nf, "dis"), *o = field(f, nf, "output");
    const Field *ft = field(f, nf, "features");
    if (ret == 0 && r && r->str && d && d->str) {
        snprintf(ref, len, "%s", r->str);
        snprintf(dis, len, "%s", d->str);
        snprintf(output, len, "%s", o && o->str ? o->str : "");
        /* a line too long to hold is never a match */
        if (snprintf(features, len, "%s", ft && ft->str ? ft->str : "") >= (int)len)
            snprintf(features, len, "%c", 1);
        *failed = field(f, nf, "error") != NULL || !field(f, nf, "pooled_metrics");
    } else {
        ret = -1;
    }
    fields_free(f, nf);
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
            Field f[MAX_FIELDS];
            int nf;
            const char *why;
            char where[1100], dup[32] = "";
            snprintf(where, sizeof where, "%s:%d", path, lineno);
            SqPair p = { .line = lineno };
            if (json_object(s, f, &nf, &why, dup) < 0) {
                if (dup[0])
                    snprintf(err, errlen, "%s: the key \"%s\" appears twice in the record; "
                             "refusing to guess which one counts", where, dup);
                else
                    snprintf(err, errlen, "%s: %s", where, why);
                ret = -EINVAL;
            } else {
                const Field *r = field(f, nf, "ref"), *d = field(f, nf, "dis");
                const Field *o = field(f, nf, "output"), *ft = field(f, nf, "features");
                p.ref = r && r->str ? strdup(r->str) : NULL;
                p.dis = d && d->str ? strdup(d->str) : NULL;
                p.output = o && o->str ? strdup(o->str) : NULL;
                if (ft && ft->str)
                    ret = set_features(&p, ft->str, err, errlen, where);
                for (int k = 0; ft && !ret && k < ft->narr; k++)
                    ret = set_features(&p, ft->arr[k], err, errlen, where);
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
            fields_free(f, nf);
        }
        line = nl ? nl + 1 : NULL;
    }
    return ret;
}

/* One CSV record from *p: fields (malloc'ed) into fl; the record count in *nfl. */
static int csv_record(char **p, char **fl, int *nfl, int *lineno)
{
    char *s = *p;
    *nfl = 0;
    for (;;) {
        char *buf = malloc(strlen(s) + 1), *o = buf;
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
    int cap = 0, lineno = 1, ret = 0, col[4] = { -1, -1, -1, -1 }, header = 0;
    static const char *const names[4] = { "ref", "dis", "features", "output" };
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
                for (int k = 0; k < 4; k++)
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
                         "(optional: features, output)", where);
                ret = -EINVAL;
            }
        } else {
            SqPair p1 = { .line = at };
            char **dst[4] = { &p1.ref, &p1.dis, NULL, &p1.output };
            for (int k = 0; k < 4 && !ret; k++) {
                const char *v = col[k] >= 0 && col[k] < nfl ? fl[col[k]] : NULL;
                if (!v)
                    continue;
                if (k == 2)
                    ret = set_features(&p1, v, err, errlen, where);
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
