/*
 * The plan of a --batch before anything is scored: the output identity
 * check of every file it reads and writes, and the pairs grouped into
 * chunks. Both linear in the number of pairs (a hash, not a scan per pair).
 */
#ifndef SQ_TOOLS_BATCH_PLAN_H
#define SQ_TOOLS_BATCH_PLAN_H

#include "cli_parse.h"
#include "manifest.h"

/*
 * No pair's report may be the manifest, an input of any pair, the results
 * file (cfg->output_path, or stdout's file) or another pair's report, and
 * standard input ('-', or one pipe) is read by one pair only; output '-' is
 * refused. 0, or SQ_EXIT_USAGE (SQ_EXIT_INTERNAL) with its one line printed.
 */
int sq_batch_check(const CliSettings *cfg, const SqPair *pairs, int npairs);

typedef struct SqTask {
    int first, n;       /* order[first .. first + n): pairs of one group */
} SqTask;

/*
 * The pairs without a kept line, grouped by reference, features and model (groups
 * in first-seen order, pairs in manifest order), each group cut into tasks
 * of at most chunk pairs: *order (the pairs) and *task (*ntasks), malloc'd
 * (the caller frees both, also on failure). 0, or -1 out of memory.
 */
int sq_batch_plan(const SqPair *pairs, int n, char *const *kept, int chunk, int **order,
                  SqTask **task, int *ntasks);

#endif
