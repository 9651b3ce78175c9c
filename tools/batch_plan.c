#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "batch_plan.h"
#include "output/identity.h"

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull;
}

static uint64_t group_hash(const SqPair *p)
{
    uint64_t h = hash_str(14695981039346656037ull, p->ref);
    for (int k = 0; k < p->nfeat; k++)
        h = hash_str(h, p->features[k]);
    return hash_str(h, p->model ? p->model : "");
}

static int same_group(const SqPair *a, const SqPair *b)
{
    /* a chunk is one job, and a job scores one set of models */
    if (strcmp(a->ref, b->ref) || a->nfeat != b->nfeat ||
        strcmp(a->model ? a->model : "", b->model ? b->model : ""))
        return 0;
    for (int k = 0; k < a->nfeat; k++)
        if (strcmp(a->features[k], b->features[k]))
            return 0;
    return 1;
}

/*
 * The pairs still to score, grouped by reference, features and models (a hash: a
 * catalog has 100k pairs and as many references), groups in first-seen
 * order, each cut into chunks of at most `chunk` pairs: a chunk is scored
 * as one ladder and its lines are written when it ends.
 */
int sq_batch_plan(const SqPair *pairs, int n, char *const *kept, int chunk, int **order_out,
                  SqTask **task_out, int *ntasks)
{
    size_t nslot = 16;
    while (nslot < 2 * (size_t)n)
        nslot *= 2;
    int *slot = calloc(nslot, sizeof *slot);         /* first pair of a group + 1 */
    int *group = malloc(sizeof *group * (size_t)(n + 1)); /* each pair's group, -1 kept */
    int *count = calloc((size_t)n + 1, sizeof *count);
    int *order = *order_out = malloc(sizeof *order * (size_t)(n + 1));
    SqTask *task = *task_out = malloc(sizeof *task * (size_t)(n + 1));
    int ngroups = 0, ret = slot && group && count && order && task ? 0 : -1;
    *ntasks = 0;
    for (int i = 0; !ret && i < n; i++) {
        group[i] = -1;
        if (kept[i])
            continue;
        size_t s = (size_t)group_hash(&pairs[i]) & (nslot - 1);
        while (slot[s] && !same_group(&pairs[slot[s] - 1], &pairs[i]))
            s = (s + 1) & (nslot - 1);
        if (!slot[s]) {
            slot[s] = i + 1;
            group[i] = ngroups++;
        } else {
            group[i] = group[slot[s] - 1];
        }
        count[group[i]]++;
    }
    if (!ret) {
        /* count -> each group's start in order, then the pairs placed */
        for (int g = 0, at = 0; g < ngroups; g++) {
            const int c = count[g];
            count[g] = at;
            for (int k = 0; k < c; k += chunk)
                task[(*ntasks)++] = (SqTask){ at + k, c - k < chunk ? c - k : chunk };
            at += c;
        }
        for (int i = 0; i < n; i++)
            if (group[i] >= 0)
                order[count[group[i]]++] = i;
    }
    free(slot);
    free(group);
    free(count);
    return ret;
}

/*
 * Every file the batch writes is resolved before anything is scored
 * (output/identity.h): no pair's report may be the manifest, an input of
 * any pair, the results file or another pair's report, and standard input
 * is read by one pair only. One line, exit 2.
 */
int sq_batch_check(const CliSettings *cfg, const SqPair *pairs, int npairs)
{
    const char *man = cfg->batch_path;
    int stdin_line = 0;
    for (int i = 0; i < npairs; i++) {
        const SqPair *p = &pairs[i];
        const int reads = !strcmp(p->ref, "-") + !strcmp(p->dis, "-");
        if (reads > 1) {
            cli_error("%s:%d: the pair reads standard input ('-') on both sides; it can be "
                      "read once", man, p->line);
            return SQ_EXIT_USAGE;
        }
        if (reads && stdin_line) {
            cli_error("%s:%d: the pair reads standard input ('-'), as line %d does; it can be "
                      "read by one pair only", man, p->line, stdin_line);
            return SQ_EXIT_USAGE;
        }
        if (reads)
            stdin_line = p->line;
        if (p->output && !strcmp(p->output, "-")) {
            cli_error("%s:%d: output '-' is refused: standard output holds the results "
                      "(name a file)", man, p->line);
            return SQ_EXIT_USAGE;
        }
    }
    SqIdSet *set = sq_idset_new();
    long other = 0;
    int role = 0, r = set ? sq_idset_add(set, man, SQ_ID_INPUT, 0, NULL, NULL) : -ENOMEM;
    for (int i = 0; r == 0 && i < npairs; i++) {
        const SqPair *p = &pairs[i];
        if ((r = sq_idset_add(set, p->ref, SQ_ID_INPUT, p->line, &other, &role)) == 0)
            r = sq_idset_add(set, p->dis, SQ_ID_INPUT, p->line, &other, &role);
        if (r > 0)
            cli_error("%s:%d: the pair reads a pipe or FIFO that line %ld reads too; it can be "
                      "read once", man, p->line, other);
    }
    const char *res = cfg->output_path ? cfg->output_path : "-";
    if (r == 0 && !cfg->read_only &&
        (r = sq_idset_add(set, res, SQ_ID_OUTPUT, -1, &other, &role)) > 0)
        cli_error("%s: the results file is the manifest or one of its inputs; refusing to "
                  "overwrite it", cfg->output_path ? cfg->output_path : "standard output");
    for (int i = 0; r == 0 && i < npairs; i++) {
        const SqPair *p = &pairs[i];
        if (!p->output || (r = sq_idset_add(set, p->output, SQ_ID_OUTPUT, p->line, &other,
                                            &role)) <= 0)
            continue;
        if (role == SQ_ID_INPUT)
            cli_error("%s:%d: the pair's output %s is the manifest or an input of the batch; "
                      "refusing to overwrite it", man, p->line, p->output);
        else if (other < 0)
            cli_error("%s:%d: the pair's output %s is the results file", man, p->line, p->output);
        else
            cli_error("%s:%d: the pair's output %s is also line %ld's output", man, p->line,
                      p->output, other);
    }
    sq_idset_free(&set);
    if (r < 0)
        cli_error("out of memory");
    return r < 0 ? SQ_EXIT_INTERNAL : r > 0 ? SQ_EXIT_USAGE : 0;
}
