#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity.h"

/* What a path reaches: a file (dev, ino), a name in a folder (dev, ino of
 * the folder, name), or, with no folder to stat, a normalised spelling. */
enum { K_NONE, K_FILE, K_NAME, K_LEXICAL };

typedef struct Key {
    int kind;
    int once;       /* a pipe, FIFO or socket: its bytes can be read once */
    dev_t dev;
    ino_t ino;
    char *name;     /* K_NAME: base name; K_LEXICAL: absolute path (owned) */
} Key;

typedef struct Entry {
    Key key;
    int role;
    long tag;
} Entry;

struct SqIdSet {
    Entry *e;
    size_t n, cap;
    int32_t *slot;  /* open addressing over e: index + 1, 0 empty */
    size_t nslot;   /* a power of two, at least twice n */
};

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t key_hash(const Key *k)
{
    uint64_t h = mix(14695981039346656037ull, &k->kind, sizeof k->kind);
    if (k->kind != K_LEXICAL) {
        const uint64_t d = (uint64_t)k->dev, i = (uint64_t)k->ino;
        h = mix(h, &d, sizeof d);
        h = mix(h, &i, sizeof i);
    }
    if (k->name)
        h = mix(h, k->name, strlen(k->name));
    return h;
}

static int key_eq(const Key *a, const Key *b)
{
    if (a->kind != b->kind)
        return 0;
    if (a->kind != K_LEXICAL && (a->dev != b->dev || a->ino != b->ino))
        return 0;
    return a->kind == K_FILE || !strcmp(a->name, b->name);
}

static void key_file(Key *k, const struct stat *st)
{
    k->kind = S_ISCHR(st->st_mode) ? K_NONE : K_FILE;
    k->dev = st->st_dev;
    k->ino = st->st_ino;
    k->once = S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode);
}

/* path made absolute, with ".", ".." and repeated slashes folded; malloc'd. */
static char *lexical(const char *path)
{
    char cwd[PATH_MAX];
    const int rel = path[0] != '/';
    if (rel && !getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, "."); /* a folder too deep to name: folded as relative */
    const size_t len = (rel ? strlen(cwd) + 1 : 0) + strlen(path) + 2;
    char *in = malloc(len), *out = malloc(len);
    if (!in || !out) {
        free(in);
        free(out);
        return NULL;
    }
    snprintf(in, len, "%s%s%s", rel ? cwd : "", rel ? "/" : "", path);
    size_t o = 0;
    for (char *save = NULL, *c = strtok_r(in, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, "."))
            continue;
        if (!strcmp(c, "..")) {
            while (o > 0 && out[--o] != '/')
                ;
            continue;
        }
        out[o++] = '/';
        const size_t cl = strlen(c);
        memcpy(out + o, c, cl);
        o += cl;
    }
    if (!o)
        out[o++] = '/';
    out[o] = '\0';
    free(in);
    return out;
}

/* A file still to be created: its folder's identity and its base name.
 * 1 done, 0 no such folder, -ENOMEM. */
static int key_name(Key *k, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
        return 0;
    const size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
    char *dir = malloc(dlen + 2);
    if (!dir)
        return -ENOMEM;
    if (dlen)
        memcpy(dir, path, dlen);
    else
        dir[0] = '.';
    dir[dlen ? dlen : 1] = '\0';
    struct stat st;
    const int ok = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    free(dir);
    if (!ok)
        return 0;
    if (!(k->name = strdup(base)))
        return -ENOMEM;
    k->kind = K_NAME;
    k->dev = st.st_dev;
    k->ino = st.st_ino;
    return 1;
}

char *sq_id_follow(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 || lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
        return NULL;
    char *cur = strdup(path);
    for (int depth = 0; cur && depth < 40; depth++) {
        char target[PATH_MAX];
        const ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n < 0)
            return cur; /* the last link's target: what a write creates */
        target[n] = '\0';
        const char *slash = strrchr(cur, '/');
        const int dlen = target[0] == '/' || !slash ? 0 : (int)(slash - cur) + 1;
        const size_t len = (size_t)dlen + (size_t)n + 1;
        char *next = malloc(len);
        if (next)
            snprintf(next, len, "%.*s%s", dlen, cur, target);
        free(cur);
        cur = next;
    }
    return cur;
}

/* 0 (k->kind K_NONE: nothing to compare), or -ENOMEM. */
static int resolve(Key *k, const char *path, int role)
{
    memset(k, 0, sizeof *k);
    struct stat st;
    if (!strcmp(path, "-")) {
        if (fstat(role == SQ_ID_INPUT ? STDIN_FILENO : STDOUT_FILENO, &st) == 0)
            key_file(k, &st);
        return 0;
    }
    if (stat(path, &st) == 0) {
        key_file(k, &st);
        return 0;
    }
    if (role == SQ_ID_INPUT)
        return 0;
    /* a dangling symlink: a write creates the file it names */
    char *followed = sq_id_follow(path);
    if (followed) {
        const int r = resolve(k, followed, role);
        free(followed);
        return r;
    }
    int r = key_name(k, path);
    if (r)
        return r < 0 ? r : 0;
    /* No folder to stat ("a1/../x" with no a1): its folded spelling, which
     * may still reach an existing folder. */
    char *lex = lexical(path);
    if (!lex)
        return -ENOMEM;
    if (stat(lex, &st) == 0) {
        key_file(k, &st);
        free(lex);
        return 0;
    }
    r = key_name(k, lex);
    if (r) {
        free(lex);
        return r < 0 ? r : 0;
    }
    k->kind = K_LEXICAL;
    k->name = lex;
    return 0;
}

SqIdSet *sq_idset_new(void)
{
    SqIdSet *s = calloc(1, sizeof *s);
    if (s && !(s->slot = calloc(s->nslot = 64, sizeof *s->slot))) {
        free(s);
        s = NULL;
    }
    return s;
}

void sq_idset_free(SqIdSet **set)
{
    SqIdSet *s = *set;
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->e[i].key.name);
    free(s->e);
    free(s->slot);
    free(s);
    *set = NULL;
}

static size_t find(const SqIdSet *s, const Key *k)
{
    size_t i = (size_t)key_hash(k) & (s->nslot - 1);
    while (s->slot[i] && !key_eq(&s->e[s->slot[i] - 1].key, k))
        i = (i + 1) & (s->nslot - 1);
    return i;
}

static int grow(SqIdSet *s)
{
    if (s->n == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 64;
        Entry *e = realloc(s->e, cap * sizeof *e);
        if (!e)
            return -ENOMEM;
        s->e = e;
        s->cap = cap;
    }
    if (2 * (s->n + 1) <= s->nslot)
        return 0;
    if (s->nslot > (size_t)INT32_MAX)
        return -ENOMEM;
    int32_t *old = s->slot;
    const size_t nold = s->nslot;
    if (!(s->slot = calloc(2 * nold, sizeof *s->slot))) {
        s->slot = old;
        return -ENOMEM;
    }
    s->nslot = 2 * nold;
    for (size_t i = 0; i < nold; i++)
        if (old[i])
            s->slot[find(s, &s->e[old[i] - 1].key)] = old[i];
    free(old);
    return 0;
}

int sq_idset_add(SqIdSet *s, const char *path, int role, long tag, long *other_tag,
                 int *other_role)
{
    Key k;
    int r = resolve(&k, path, role);
    if (r < 0 || k.kind == K_NONE)
        return r;
    if ((r = grow(s)) < 0) {
        free(k.name);
        return r;
    }
    const size_t i = find(s, &k);
    if (s->slot[i]) {
        const Entry *e = &s->e[s->slot[i] - 1];
        free(k.name);
        const int clash = role == SQ_ID_OUTPUT || e->role == SQ_ID_OUTPUT || k.once;
        if (clash) {
            if (other_tag)
                *other_tag = e->tag;
            if (other_role)
                *other_role = e->role;
        }
        return clash;
    }
    s->e[s->n] = (Entry){ k, role, tag };
    s->slot[i] = (int32_t)++s->n;
    return 0;
}

int sq_outputs_check(const char *const *outputs, int n, const char *const *inputs, int ni,
                     char *err, size_t errlen)
{
    SqIdSet *s = sq_idset_new();
    int r = s ? 0 : -ENOMEM;
    for (int i = 0; !r && i < ni; i++) {
        long other = 0;
        if ((r = sq_idset_add(s, inputs[i], SQ_ID_INPUT, i, &other, NULL)) > 0)
            snprintf(err, errlen, "%s and %s are one pipe, which can be read once", inputs[other],
                     inputs[i]);
    }
    int twice = 0;
    for (int i = 0; !r && i < n; i++) {
        long other = 0;
        int role = 0;
        if ((r = sq_idset_add(s, outputs[i], SQ_ID_OUTPUT, i, &other, &role)) > 0) {
            twice = role == SQ_ID_OUTPUT;
            if (!twice)
                snprintf(err, errlen, "%s: the output names the input %s; refusing to "
                         "overwrite it", outputs[i], inputs[other]);
            else
                snprintf(err, errlen, "%s and %s name one file; refusing to write both",
                         outputs[other], outputs[i]);
        }
    }
    sq_idset_free(&s);
    if (r == -ENOMEM)
        snprintf(err, errlen, "out of memory");
    return r > 0 ? (twice ? -2 : -1) : r;
}
