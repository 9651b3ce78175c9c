/* vmaf's CSV layout: "Frame,<name>,...," then one row per frame, each
 * field followed by a comma; no pooled rows. */
#include <stdio.h>

#include "writer.h"

static int csv_write(FILE *f, const SqReport *r)
{
    char v[SPEEDQA_IO_VALUE_LEN];
    fprintf(f, "Frame,");
    for (int k = 0; k < r->nscores; k++)
        fprintf(f, "%s,", r->names[k]);
    fprintf(f, "\n");
    for (size_t i = 0; i < r->nframes; i++) {
        fprintf(f, "%llu,", r->frame_num[i]);
        for (int k = 0; k < r->nscores; k++)
            fprintf(f, "%s,", sq_fmt_value(v, sizeof v,
                                           r->values[i * (size_t)r->nscores + (size_t)k],
                                           r->precision_max));
        fprintf(f, "\n");
    }
    return ferror(f) ? -1 : 0;
}

const SqWriter sq_writer_csv = {
    .name = "csv",
    .ext = ".csv",
    .write = csv_write,
};
