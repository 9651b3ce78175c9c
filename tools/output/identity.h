/*
 * Output identity: the one rule that decides whether two paths name one
 * file, used by the single run, the ladder's -o template, --batch (reports
 * and the results file) and, through the shared I/O library, Python/Dask.
 *
 * A path is resolved to what a write would reach, before anything is
 * scored: an existing file to its (st_dev, st_ino) (symlinks and hard links
 * match; /dev/stdout, /dev/fd/N and /proc/self/fd/N reach the file behind
 * the descriptor), a file still to be created to (dev, ino) of its folder
 * plus its base name, and a path whose folder does not exist to its
 * lexically normalised absolute spelling. Character devices (/dev/null, a
 * terminal) are exempt: writing one twice loses no file.
 *
 * Refused: two outputs that name one file; an output that names an input;
 * one pipe or FIFO (stdin, "-") read as an input twice (it can be read once).
 * Plain C, no CLI state: safe to call from any client.
 */
#ifndef SQ_OUTPUT_IDENTITY_H
#define SQ_OUTPUT_IDENTITY_H

#include <stddef.h>

typedef struct SqIdSet SqIdSet;

enum { SQ_ID_INPUT = 1, SQ_ID_OUTPUT = 2 };

/* An empty set; NULL when out of memory. */
SqIdSet *sq_idset_new(void);
void sq_idset_free(SqIdSet **set);

/*
 * Adds path as an input or an output ("-": standard input for an input,
 * standard output for an output), tagged with the caller's tag (a manifest
 * line, an index). Returns 0 when it names no file already in the set in a
 * conflicting role; 1 on a conflict, with the earlier entry's tag and role
 * in *other_tag and *other_role (either may be NULL); -ENOMEM. An input that
 * does not exist is not added (it names no file an output could replace).
 * Time: O(1) expected; a set of 100k entries costs a few MB.
 */
int sq_idset_add(SqIdSet *set, const char *path, int role, long tag, long *other_tag,
                 int *other_role);

/*
 * The whole rule on lists: 0 when no two of the n outputs name one file and
 * none of them names one of the ni inputs and no pipe is among the inputs
 * twice; else one line in err (naming both paths) and -1 (an output names
 * an input, or a pipe is read twice), -2 (two outputs name one file) or
 * -ENOMEM.
 */
int sq_outputs_check(const char *const *outputs, int n, const char *const *inputs, int ni,
                     char *err, size_t errlen);

/*
 * path, when it is a dangling symlink (a chain of them): the path of the
 * file a write through it creates (the last link's target, relative to its
 * folder); malloc'd. NULL when path is no dangling link (or out of memory).
 * The -o file writes there too, so the rule and the write agree.
 */
char *sq_id_follow(const char *path);

#endif
