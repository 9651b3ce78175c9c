/*
 * --batch MANIFEST: every pair of a manifest scored in one process, pairs
 * sharing a reference (and features) as ladders, pairs in parallel, one
 * JSON line per pair, written as the pairs finish and put in manifest
 * order when the batch ends (doc/cli.md has the formats and the rules).
 */
#ifndef SQ_TOOLS_BATCH_H
#define SQ_TOOLS_BATCH_H

#include <stddef.h>

#include "cli_parse.h"

/* Runs the batch of cfg->batch_path; the exit code (0: every pair scored). */
int sq_batch_run(const CliSettings *cfg);

/* Shared with speedqa.c: the library thread count for cfg, and the -o
 * pattern ({name}: base name without extension, {i}: 1-based index):
 * 0, or -1 when the name would not fit in len (never cut: a cut name is
 * another file). */
int sq_cli_threads(const CliSettings *cfg);
int sq_cli_expand(char *buf, size_t len, const char *pattern, const char *path, int index);
int sq_cli_has_template(const char *pattern);

/* cfg->batch_exec's executor: the result lines (each ending in a newline)
 * of pairs[0..n) of the manifest, and the worst exit among them. 0, or
 * -EINVAL (a pair unknown or already done, a line missing) */
int sq_batch_deliver(void *sink, const int *pairs, int n, const char *lines, int exit_code);

/* cfg->batch_exec's executor: the result lines (each ending in a newline)
 * of pairs[0..n) of the manifest, and the worst exit among them. 0, or
 * -EINVAL (a pair unknown or already done, a line missing). */
int sq_batch_deliver(void *sink, const int *pairs, int n, const char *lines, int exit_code);

#endif
