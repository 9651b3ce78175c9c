/* vmaf's JSON layout: version, fps, frames[], pooled_metrics, aggregate_metrics. */
#include <math.h>
#include <stdio.h>

#include "writer.h"

/* JSON has no NaN or infinity: vmaf prints null for them. */
static const char *json_num(char *buf, size_t len, double v, int precision_max)
{
    if (!isfinite(v))
        return "null";
    return sq_fmt_value(buf, len, v, precision_max);
}

static int json_write(FILE *f, const SqReport *r)
{
    static const char *const pool_names[4] = { "min", "max", "mean", "harmonic_mean" };
    char v[SPEEDQA_IO_VALUE_LEN];
    fprintf(f, "{\n");
    fprintf(f, "  \"version\": \"%s\",\n", r->version);
    if (isfinite(r->fps))
        fprintf(f, "  \"fps\": %.2f,\n", r->fps);
    else
        fprintf(f, "  \"fps\": null,\n");
    fprintf(f, "  \"frames\": [");
    for (size_t i = 0; i < r->nframes; i++) {
        fprintf(f, "%s    {\n", i ? ",\n" : "\n");
        fprintf(f, "      \"frameNum\": %llu,\n", r->frame_num[i]);
        fprintf(f, "      \"metrics\": {\n");
        for (int k = 0; k < r->nscores; k++)
            fprintf(f, "        \"%s\": %s%s\n", r->names[k],
                    json_num(v, sizeof v, r->values[i * (size_t)r->nscores + (size_t)k],
                             r->precision_max),
                    k + 1 < r->nscores ? "," : "");
        fprintf(f, "      }\n");
        fprintf(f, "    }");
    }
    fprintf(f, "\n  ],\n");
    fprintf(f, "  \"pooled_metrics\": {");
    for (int k = 0; k < r->nscores; k++) {
        const SqPooled *p = &r->pooled[k];
        const double pv[4] = { p->min, p->max, p->mean, p->harmonic_mean };
        fprintf(f, "%s    \"%s\": {", k ? ",\n" : "\n", r->names[k]);
        for (int j = 0; j < 4; j++)
            fprintf(f, "%s      \"%s\": %s", j ? ",\n" : "\n", pool_names[j],
                    json_num(v, sizeof v, pv[j], r->precision_max));
        fprintf(f, "\n    }");
    }
    fprintf(f, "\n  },\n");
    fprintf(f, "  \"aggregate_metrics\": {\n  }\n");
    fprintf(f, "}\n");
    return ferror(f) ? -1 : 0;
}

const SqWriter sq_writer_json = {
    .name = "json",
    .ext = ".json",
    .write = json_write,
};
