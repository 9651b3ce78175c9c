/*
 * --batch MANIFEST: every pair of a manifest scored in one process, pairs
 * sharing a reference (and features) as one ladder, pairs in parallel, one
 * JSON line per pair in manifest order (doc/cli.md has the formats).
 */
#ifndef SQ_TOOLS_BATCH_H
#define SQ_TOOLS_BATCH_H

#include <stddef.h>

#include "cli_parse.h"

/* Runs the batch of cfg->batch_path; the exit code (0: every pair scored). */
int sq_batch_run(const CliSettings *cfg);

/* Shared with speedqa.c: the library thread count for cfg, and the -o
 * pattern ({name}: base name without extension, {i}: 1-based index). */
int sq_cli_threads(const CliSettings *cfg);
void sq_cli_expand(char *buf, size_t len, const char *pattern, const char *path, int index);

/* cfg->batch_exec's executor: the result lines (each ending in a newline)
 * of pairs[0..n) of the manifest, and the worst exit among them. 0, or
 * -EINVAL (a pair unknown or already done, a line missing) */
int sq_batch_deliver(void *sink, const int *pairs, int n, const char *lines, int exit_code);

#endif
