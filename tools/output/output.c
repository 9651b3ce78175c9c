#include <math.h>
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

/*
 * vmaf's choice of digits (libvmaf 3.2's writers, spec B.6): %.16f where
 * |v| has a fractional part that takes more than six multiplications by 10
 * to reach 1 (what %.6f would print as zeros), else %.6f. Its fractional
 * part is |v| less its int conversion: from 2^31 up (and NaN) x86 gives
 * INT_MIN there, a "fraction" above 1, so %.6f.
 */
static int vmaf_long_digits(double v)
{
    const double a = fabs(v);
    if (!(a < 2147483648.0))
        return 0;
    double f = a - (double)(int)a;
    if (!(f < 1.0) || f == 0.0)
        return 0;
    int n = 0;
    do {
        f *= 10.0;
        n++;
    } while (f != 0.0 && f < 1.0);
    return n > 6;
}

const char *sq_fmt_value(char *buf, size_t len, double v, int precision_max)
{
    snprintf(buf, len, precision_max ? "%.17g" : vmaf_long_digits(v) ? "%.16f" : "%.6f", v);
    return buf;
}
