/*
 * The report file behind -o. A user's file is never truncated or removed
 * by a run that fails or is interrupted: the report goes to a temporary
 * file in the destination's folder and is renamed over it only once it is
 * complete. Outputs that are not regular files (/dev/null, a FIFO, a
 * terminal) cannot be renamed over and are written in place.
 */
#ifndef SQ_OUTPUT_OUTFILE_H
#define SQ_OUTPUT_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct SqOutFile {
    FILE *f;
    char *dest;    /* the file that will hold the report (symlinks resolved) */
    char *tmp;     /* the temporary file, or NULL when written in place */
    int existed;   /* dest was a file before the run: a failed run keeps it */
} SqOutFile;

/*
 * 1 when path (existing) is the same file as one of the n inputs ("-" is
 * standard input) or as standard output redirected to a file; 0 otherwise.
 */
int sq_outfile_is_input(const char *path, const char *const *inputs, int n);

/*
 * Prepares path for writing: creates the temporary file (so an unwritable
 * folder fails now, before any scoring) and registers it for removal on
 * every signal that ends the process by default (outfile.c says which).
 * An existing report with no write permission is refused (-EACCES): the
 * user protected it; a replaced report keeps its mode. 0, or -errno with
 * one line in err.
 */
int sq_outfile_open(SqOutFile *o, const char *path, char *err, size_t errlen);

/* Flushes, closes and renames the report into place. 0, or -errno with one line in err. */
int sq_outfile_commit(SqOutFile *o, char *err, size_t errlen);

/*
 * On signal sig (SIGBUS: a mapped input shrank under us), remove the
 * temporary report, write line to stderr and _exit(code): a clear error
 * and a nonzero exit instead of a crash. line must stay valid.
 */
void sq_outfile_exit_on(int sig, const char *line, int code);

/* Closes and removes the temporary file; the destination is untouched. */
void sq_outfile_abort(SqOutFile *o);

#endif
