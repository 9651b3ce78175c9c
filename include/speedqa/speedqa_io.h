/*
 * speedqa_io: the speedqa tool's input and output layer as a library
 * (libspeedqa_io), for bindings (Python's speedqa package, its Dask runner)
 * that must behave exactly like the CLI: the same readers (Y4M, raw YUV by
 * flags, semi-planar, libav when installed), the same manifests, the same
 * reports, result lines and number format, the same batch runner, exit
 * codes and one-line errors. The CLI is built from the same code.
 *
 * Options are the CLI's flags (`speedqa --help`), parsed by the CLI's own
 * parser, so a binding never restates a default or a range. Functions
 * return 0 or a CLI exit code (2 usage, 3 input, 4 backend, 5 output,
 * 1 internal) with one line in err; nothing is printed but the CLI's
 * warnings. Inputs are read, never memory-mapped: a file that shrinks
 * while it is scored fails with exit 3 instead of a SIGBUS that would end
 * the host process. Every handle is the caller's; no global state.
 */
#ifndef SPEEDQA_IO_H
#define SPEEDQA_IO_H

#include <stddef.h>

#include "speedqa.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && !defined(_WIN32)
#define SPEEDQA_IO_API __attribute__((visibility("default")))
#else
#define SPEEDQA_IO_API
#endif

/** Parsed flags. */
typedef struct SpeedqaIo SpeedqaIo;

/**
 * argv: flags exactly as `speedqa` takes them, without the program name
 * (e.g. {"-r", "a.y4m", "-d", "b.y4m", "--precision", "max"}); copied.
 * 0, or 2 (a bad flag; --help and --version are refused too) with one line in err
 * (1: out of memory).
 */
SPEEDQA_IO_API int speedqa_io_new(SpeedqaIo **io, int argc, const char *const *argv, char *err,
                                  size_t errlen);
SPEEDQA_IO_API void speedqa_io_free(SpeedqaIo **io);

/** What speedqa_io_score gives per distorted input (-d, in order). */
typedef struct SpeedqaIoReport {
    int exit;          /**< 0 scored; else the CLI's exit code for this input */
    char error[1200];  /**< its one error line, "" when none */
    char *text;        /**< the report (--json unless --xml/--csv/--sub), as `-o` would
                        *   hold it; may be set with exit 3 (the frames before a read error) */
    size_t len;
} SpeedqaIoReport;

/**
 * Score -r against each of the n -d of io (a ladder when several), as the CLI
 * does. reports: n of them, filled; free with speedqa_io_reports_free. Returns
 * the worst exit code (0: all scored); a run-level failure (2, 4) is in
 * reports[0] too.
 */
SPEEDQA_IO_API int speedqa_io_score(const SpeedqaIo *io, SpeedqaIoReport *reports, int n);
SPEEDQA_IO_API void speedqa_io_reports_free(SpeedqaIoReport *reports, int n);

/** Bytes a value printed by speedqa_io_format_value may take, its NUL included. */
#define SPEEDQA_IO_VALUE_LEN 320

/**
 * A value as the reports print it: vmaf's digits (%.6f, or %.16f where %.6f
 * would print only zeros of a nonzero fraction), or %.17g with
 * precision_max; buf of SPEEDQA_IO_VALUE_LEN bytes.
 */
SPEEDQA_IO_API const char *speedqa_io_format_value(char *buf, size_t len, double v,
                                                   int precision_max);

/**
 * `speedqa --batch MANIFEST [-o RESULTS] ...` as io's flags say (results file,
 * --resume, pair reports, exit code). lines (may be NULL): the result lines
 * this run wrote, newline-terminated, malloc'd (speedqa_io_free_buf), never a
 * previous run's. err: the run-level error line, if any.
 */
SPEEDQA_IO_API int speedqa_io_batch(const SpeedqaIo *io, char **lines, size_t *len, char *err,
                                    size_t errlen);

/**
 * Pairs pairs[0..n) (0-based, manifest order) of io's --batch manifest,
 * scored by the batch runner with no results file: their result lines, in
 * that order, exactly as --batch writes them. Returns the worst exit code.
 */
SPEEDQA_IO_API int speedqa_io_batch_pairs(const SpeedqaIo *io, const int *pairs, int n,
                                          char **lines, size_t *len, char *err, size_t errlen);

/**
 * speedqa_io_batch, but the pairs left to score (after --resume) go to exec,
 * called once on this thread; it scores them where it likes (chunks through
 * speedqa_io_batch_pairs) and hands their lines back, as they come, with
 * speedqa_io_batch_deliver(sink, ...). The results file is written in
 * manifest order as lines arrive, exactly as by speedqa_io_batch.
 */
typedef int (*SpeedqaIoExec)(void *opaque, void *sink, const int *pairs, int n);
SPEEDQA_IO_API int speedqa_io_batch_exec(const SpeedqaIo *io, SpeedqaIoExec exec, void *opaque,
                                         char **lines, size_t *len, char *err, size_t errlen);
/** lines: n newline-terminated lines (speedqa_io_batch_pairs's), exit: their worst exit. */
SPEEDQA_IO_API int speedqa_io_batch_deliver(void *sink, const int *pairs, int n,
                                            const char *lines, int exit_code);

/** A batch manifest, read by the batch's reader. */
typedef struct SpeedqaIoManifest SpeedqaIoManifest;
/** 0, or 2 with one line (file and line) in err. */
SPEEDQA_IO_API int speedqa_io_manifest_load(SpeedqaIoManifest **m, const char *path, char *err,
                                            size_t errlen);
SPEEDQA_IO_API int speedqa_io_manifest_count(const SpeedqaIoManifest *m);
/** key: "ref", "dis", "output" (NULL when none), "features" (';'-joined, "" default),
 *  "model" (its --model values, ';'-joined, "": the command's --model). */
SPEEDQA_IO_API const char *speedqa_io_manifest_get(const SpeedqaIoManifest *m, int i,
                                                   const char *key);
SPEEDQA_IO_API int speedqa_io_manifest_line(const SpeedqaIoManifest *m, int i);
SPEEDQA_IO_API void speedqa_io_manifest_free(SpeedqaIoManifest **m);

/** A video opened by the CLI's readers (io: its -w -h -p -b, or NULL). */
typedef struct SpeedqaIoVideo SpeedqaIoVideo;
typedef struct SpeedqaIoVideoInfo {
    SpeedqaFormat format;
    int fps_num, fps_den;      /**< 0/0 unknown */
    long long frames;          /**< -1 unknown */
    char reader[8];            /**< "y4m", "yuv", "lav" */
    size_t frame_bytes;        /**< of one frame as speedqa_io_video_read writes it */
} SpeedqaIoVideoInfo;
/** 0, or -errno (-ENOENT for a missing file) with one line in err. */
SPEEDQA_IO_API int speedqa_io_video_open(SpeedqaIoVideo **v, const char *path, const SpeedqaIo *io,
                                         SpeedqaIoVideoInfo *info, char *err, size_t errlen);
/**
 * The next frame into buf (frame_bytes): Y, U, V planes one after another,
 * rows packed, samples of 1 byte (8-bit) or 2 (host order; semi-planar and
 * MSB-aligned files unpacked to planar values). 1 a frame, 0 the end,
 * -errno with one line in err.
 */
SPEEDQA_IO_API int speedqa_io_video_read(SpeedqaIoVideo *v, void *buf, size_t len, char *err,
                                         size_t errlen);
SPEEDQA_IO_API void speedqa_io_video_close(SpeedqaIoVideo **v);

/** Frees what the functions above returned through char **lines. */
SPEEDQA_IO_API void speedqa_io_free_buf(void *p);

#ifdef __cplusplus
}
#endif
#endif
