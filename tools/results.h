/*
 * The results file of --batch: one JSON line per pair, written and flushed
 * as the pair's chunk finishes (in completion order; in manifest order once
 * the batch ends),
 * each line ending with the settings that shaped it, so that --resume keeps
 * only lines a run with these settings would have written.
 */
#ifndef SQ_TOOLS_RESULTS_H
#define SQ_TOOLS_RESULTS_H

#include <stdio.h>

#include "cli_parse.h"
#include "job.h"
#include "manifest.h"

/* Every flag that changes a line's numbers or frames, as one string (malloc'd). */
char *sq_results_settings(const CliSettings *cfg);

/* The result line of one pair (no newline; malloc'd; NULL: out of memory). */
char *sq_results_line(const SqPair *p, const SqJobStream *st, const char *settings,
                      int precision_max);

/*
 * --resume: reads path and, for each pair of the manifest, the line of a
 * scored run of that pair (ref, dis, output, features, model) with these settings,
 * in any order, into kept[i] (malloc'd; NULL: to score). *all_kept: every
 * complete line of the file was kept, so new lines may be appended after
 * *keep_bytes (a torn last line is cut). 0, or -errno. Linear in lines + pairs.
 */
int sq_results_resume(const char *path, const SqPair *pairs, int n, const char *settings,
                      char **kept, int *all_kept, long long *keep_bytes);

/*
 * Takes the results file for this process: a regular (or new) file is
 * created if missing and locked (flock), so a second batch on the same file
 * is refused instead of interleaving its lines. Returns the locked fd
 * (close to release), -2 for a file that cannot be locked (not regular:
 * /dev/null, a FIFO; nothing to protect), -1 with errno: EWOULDBLOCK when
 * another process holds it.
 */
int sq_results_lock(const char *path);

/*
 * Once a batch is done: path (a regular file) rewritten with each pair's
 * line in manifest order (kept[i], else line[i]; a pair with neither is
 * left out) through a temporary file renamed over it, so that one
 * manifest's results are the same bytes however its pairs were scheduled
 * (threads, chunks, a Dask cluster). 0, or -errno with one line in err.
 */
int sq_results_order(const char *path, char *const *kept, char *const *line, int n, char *err,
                     size_t errlen);

#endif
