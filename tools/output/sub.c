/* vmaf's subtitle layout (MicroDVD): one line per frame,
 * "{n}{n+1}frame: n|<name>: <value>|...", so a player can show the
 * scores over the video. No header, no pooled values. */
#include <stdio.h>

#include "writer.h"

static int sub_write(FILE *f, const SqReport *r)
{
    char v[SPEEDQA_IO_VALUE_LEN];
    for (size_t i = 0; i < r->nframes; i++) {
        const unsigned long long n = r->frame_num[i];
        fprintf(f, "{%llu}{%llu}frame: %llu|", n, n + 1, n);
        for (int k = 0; k < r->nscores; k++)
            fprintf(f, "%s: %s|", r->names[k],
                    sq_fmt_value(v, sizeof v, r->values[i * (size_t)r->nscores + (size_t)k],
                                 r->precision_max));
        fprintf(f, "\n");
    }
    return ferror(f) ? -1 : 0;
}

const SqWriter sq_writer_sub = {
    .name = "sub",
    .ext = ".sub",
    .write = sub_write,
};
