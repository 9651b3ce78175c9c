#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "writer.h"

static const SqWriter *const writers[] = {
    &sq_writer_xml,
    &sq_writer_json,
    &sq_writer_csv,
    &sq_writer_sub,
};

#define N_WRITERS (sizeof writers / sizeof writers[0])

const SqWriter *sq_writer_by_name(const char *name)
{
    for (size_t i = 0; i < N_WRITERS; i++)
        if (!strcmp(writers[i]->name, name))
            return writers[i];
    return NULL;
}

const SqWriter *sq_writer_by_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return NULL;
    for (size_t i = 0; i < N_WRITERS; i++)
        if (!strcasecmp(writers[i]->ext, dot))
            return writers[i];
    return NULL;
}

SqPooled sq_report_pool(const double *values, size_t nframes, int nscores, int k)
{
    SqPooled p = { 0 };
    if (nframes)
        speedqa_pool(values + k, nframes, nscores, &p);
    return p;
}

const char *sq_fmt_value(char *buf, size_t len, double v, int precision_max)
{
    snprintf(buf, len, precision_max ? "%.17g" : "%.6f", v);
    return buf;
}
