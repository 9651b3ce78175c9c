/* vmaf's XML layout: <VMAF> with params, fyi, frames, pooled_metrics. */
#include <stdio.h>

#include "writer.h"

static int xml_write(FILE *f, const SqReport *r)
{
    static const char *const pool_names[4] = { "min", "max", "mean", "harmonic_mean" };
    char v[SPEEDQA_IO_VALUE_LEN];
    fprintf(f, "<VMAF version=\"%s\">\n", r->version);
    fprintf(f, "  <params qualityWidth=\"%d\" qualityHeight=\"%d\" />\n", r->width, r->height);
    fprintf(f, "  <fyi fps=\"%.2f\" />\n", r->fps);
    fprintf(f, "  <frames>\n");
    for (size_t i = 0; i < r->nframes; i++) {
        fprintf(f, "    <frame frameNum=\"%llu\" ", r->frame_num[i]);
        for (int k = 0; k < r->nscores; k++)
            fprintf(f, "%s=\"%s\" ", r->names[k],
                    sq_fmt_value(v, sizeof v, r->values[i * (size_t)r->nscores + (size_t)k],
                                 r->precision_max));
        fprintf(f, "/>\n");
    }
    fprintf(f, "  </frames>\n");
    fprintf(f, "  <pooled_metrics>\n");
    for (int k = 0; k < r->nscores; k++) {
        const SqPooled *p = &r->pooled[k];
        const double pv[4] = { p->min, p->max, p->mean, p->harmonic_mean };
        fprintf(f, "    <metric name=\"%s\" ", r->names[k]);
        for (int j = 0; j < 4; j++)
            fprintf(f, "%s=\"%s\" ", pool_names[j],
                    sq_fmt_value(v, sizeof v, pv[j], r->precision_max));
        fprintf(f, "/>\n");
    }
    fprintf(f, "  </pooled_metrics>\n");
    fprintf(f, "  <aggregate_metrics />\n");
    fprintf(f, "</VMAF>\n");
    return ferror(f) ? -1 : 0;
}

const SqWriter sq_writer_xml = {
    .name = "xml",
    .ext = ".xml",
    .write = xml_write,
};
