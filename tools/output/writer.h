/*
 * Output writers: one file each (xml.c, json.c, csv.c, sub.c), each exporting a
 * const vtable, looked up by name or file extension in output.c. They lay
 * out the results like Netflix vmaf's writers so existing parsers work.
 */
#ifndef SQ_OUTPUT_WRITER_H
#define SQ_OUTPUT_WRITER_H

#include <stddef.h>
#include <stdio.h>

#include "speedqa/speedqa.h"
#include "speedqa/speedqa_io.h"

/* The library's pooling (speedqa_pool): libvmaf's definitions, once. */
typedef SpeedqaPooled SqPooled;

/* Everything a writer prints. Rows are the reported frames, in order. */
typedef struct SqReport {
    const char *version;
    int width, height;       /* luma size of the scored pictures */
    double fps;              /* scoring speed; non-finite prints as null */
    int precision_max;       /* 1: %.17g, 0: %.6f like vmaf */
    int nscores;
    const char *const *names;       /* nscores output names */
    size_t nframes;
    const unsigned long long *frame_num; /* nframes frame indices */
    const double *values;           /* nframes x nscores, row-major */
    const SqPooled *pooled;         /* nscores */
} SqReport;

typedef struct SqWriter {
    const char *name;        /* "xml", as in --xml */
    const char *ext;         /* ".xml" */
    /* Writes the whole report; returns 0 or -1 (check ferror for why). */
    int (*write)(FILE *f, const SqReport *r);
} SqWriter;

extern const SqWriter sq_writer_xml;
extern const SqWriter sq_writer_json;
extern const SqWriter sq_writer_csv;
extern const SqWriter sq_writer_sub;

/* By name ("json"); NULL if unknown. */
const SqWriter *sq_writer_by_name(const char *name);
/* By the extension of path (case-insensitive); NULL if none matches. */
const SqWriter *sq_writer_by_path(const char *path);

/*
 * Pooled statistics of score k over the report's rows, the way libvmaf
 * pools: double sums in row order, harmonic mean n / sum(1 / (x + 1)) - 1.
 */
SqPooled sq_report_pool(const double *values, size_t nframes, int nscores, int k);

/* One value as the report's precision prints it (vmaf's digits, or %.17g),
 * into buf of SPEEDQA_IO_VALUE_LEN bytes: %.6f of the largest double has
 * 309 digits before the point. */
const char *sq_fmt_value(char *buf, size_t len, double v, int precision_max);

#endif
