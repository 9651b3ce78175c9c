/*
 * The libsvm model text of a model file (spec B.1): header tokens up to
 * "SV", then total_sv lines of a coefficient and sparse index:value pairs.
 * Numbers through strtod (correctly rounded, as libvmaf's istream reads
 * them). Only regression models are taken: a classifier predicts otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"

int sq_svm_parse(SqPredictor *p, const char *text, char *err, size_t len);

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    return s;
}

/* The next whitespace-separated token into tok (truncated to its size). */
static const char *token(const char *s, char *tok, size_t n)
{
    s = skip_space(s);
    size_t k = 0;
    while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') {
        if (k + 1 < n)
            tok[k++] = *s;
        s++;
    }
    tok[k] = '\0';
    return s;
}

/* A decimal number as libvmaf's stream reads one: strtod would take nan
 * and inf too, which libvmaf refuses. */
static int decimal_at(const char *s)
{
    s += *s == '-' || *s == '+';
    return (*s >= '0' && *s <= '9') || (*s == '.' && s[1] >= '0' && s[1] <= '9');
}

static int numbers(const char **s, double *out, int n)
{
    for (int i = 0; i < n; i++) {
        char *end;
        const char *at = skip_space(*s);
        if (!decimal_at(at))
            return -1;
        out[i] = strtod(at, &end);
        *s = end;
    }
    return 0;
}

/* The header; *s left after "SV". */
static int header(SqPredictor *p, const char **s, int *nsv, char *err, size_t len)
{
    char tok[64];
    int nr_class = 2, have_kernel = 0, svr = 0, have_rho = 0;
    *nsv = -1;
    for (;;) {
        *s = token(*s, tok, sizeof tok);
        double d[4];
        if (!tok[0] || !strcmp(tok, "SV"))
            break;
        if (!strcmp(tok, "svm_type")) {
            *s = token(*s, tok, sizeof tok);
            svr = !strcmp(tok, "nu_svr") || !strcmp(tok, "epsilon_svr");
        } else if (!strcmp(tok, "kernel_type")) {
            static const char *const k[4] = { "linear", "polynomial", "rbf", "sigmoid" };
            *s = token(*s, tok, sizeof tok);
            for (int i = 0; i < 4; i++)
                if (!strcmp(tok, k[i]))
                    p->kernel = i, have_kernel = 1;
        } else if (!strcmp(tok, "degree") || !strcmp(tok, "nr_class") || !strcmp(tok, "total_sv")) {
            if (numbers(s, d, 1) < 0)
                goto bad;
            *(!strcmp(tok, "degree") ? &p->degree : !strcmp(tok, "nr_class") ? &nr_class : nsv) =
                (int)d[0];
        } else if (!strcmp(tok, "gamma") || !strcmp(tok, "coef0") || !strcmp(tok, "rho")) {
            if (numbers(s, d, 1) < 0)
                goto bad;
            *(!strcmp(tok, "gamma") ? &p->gamma : !strcmp(tok, "coef0") ? &p->coef0 : &p->rho) = d[0];
            have_rho |= !strcmp(tok, "rho");
        } else if (!strcmp(tok, "label") || !strcmp(tok, "probA") || !strcmp(tok, "probB") ||
                   !strcmp(tok, "nr_sv")) {
            if (nr_class != 2 || numbers(s, d, strcmp(tok, "label") && strcmp(tok, "nr_sv") ? 1 : 2))
                goto bad;
        } else {
            snprintf(err, len, "model_dict.model: unknown libsvm header token '%s'", tok);
            return -1;
        }
    }
    /* without rho libvmaf's libsvm reads through a null pointer (a crash) */
    if (strcmp(tok, "SV") || !svr || !have_kernel || !have_rho || nr_class != 2 || *nsv <= 0 ||
        *nsv > 1000000) {
        snprintf(err, len, "model_dict.model: not a libsvm nu_svr or epsilon_svr model with its kernel, "
                 "rho, total_sv and SV");
        return -1;
    }
    return 0;
bad:
    snprintf(err, len, "model_dict.model: libsvm header '%s' without its numbers", tok);
    return -1;
}

/* Counts the index:value pairs of the SV lines, to size the arrays once. */
static size_t count_nodes(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == ':';
    return n;
}

/* One SV line at *s: its coefficient and pairs, up to the end of the line. */
static int sv_line(SqPredictor *p, const char **s, int j, int *nn, char *err, size_t len)
{
    const char *c = *s;
    while (*c == ' ' || *c == '\t')
        c++;
    if (numbers(&c, &p->coef[j], 1) < 0) {
        snprintf(err, len, "model_dict.model: support vector %d has no coefficient", j + 1);
        return -1;
    }
    p->start[j] = *nn;
    for (;;) {
        while (*c == ' ' || *c == '\t' || *c == '\r')
            c++;
        if (!*c || *c == '\n')
            break;
        char *end;
        errno = 0;
        const long ix = strtol(c, &end, 10);
        if (end == c || *end != ':' || errno || ix < 1 || ix > 1000000 ||
            (*nn > p->start[j] && ix <= p->idx[*nn - 1])) {
            snprintf(err, len, "model_dict.model: support vector %d: not ascending index:value pairs", j + 1);
            return -1;
        }
        c = end + 1;
        p->idx[*nn] = (int)ix;
        p->val[*nn] = decimal_at(c) ? strtod(c, &end) : 0.0;
        if (!decimal_at(c) || end == c) {
            snprintf(err, len, "model_dict.model: support vector %d: index %ld has no value", j + 1, ix);
            return -1;
        }
        c = end;
        (*nn)++;
    }
    *s = *c ? c + 1 : c;
    return 0;
}

int sq_svm_parse(SqPredictor *p, const char *text, char *err, size_t len)
{
    const char *s = text;
    int nsv;
    /* libvmaf's reader takes lines of spaces only */
    if (strpbrk(text, "\t\r")) {
        snprintf(err, len, "model_dict.model: a tab or carriage return in the libsvm text "
                 "(libvmaf refuses it)");
        return -1;
    }
    if (header(p, &s, &nsv, err, len) < 0)
        return -1;
    while (*s && *s != '\n')
        s++; /* the rest of the SV line */
    if (*s)
        s++;
    const size_t nodes = count_nodes(s);
    p->coef = malloc((size_t)nsv * sizeof *p->coef);
    p->start = malloc(((size_t)nsv + 1) * sizeof *p->start);
    p->idx = malloc((nodes ? nodes : 1) * sizeof *p->idx);
    p->val = malloc((nodes ? nodes : 1) * sizeof *p->val);
    if (!p->coef || !p->start || !p->idx || !p->val) {
        snprintf(err, len, "out of memory");
        return -1; /* the caller frees */
    }
    int nn = 0;
    for (int j = 0; j < nsv; j++)
        if (sv_line(p, &s, j, &nn, err, len) < 0)
            return -1;
    p->start[nsv] = nn;
    p->nsv = nsv;
    if (*skip_space(s)) {
        snprintf(err, len, "model_dict.model: more than total_sv (%d) support vectors", nsv);
        return -1;
    }
    return 0;
}
