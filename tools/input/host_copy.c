/*
 * sq_input_host_copy (input.h): device pictures exist only where libav
 * decodes on NVDEC, so the copy is the libav reader's; every other input
 * hands out host pictures, which come back as they are.
 */
#include <errno.h>
#include <stdio.h>

#include "input_priv.h"
#include "prefetch.h"
#ifdef SQ_HAVE_LAV
#include "lav_priv.h"
#endif

int sq_input_host_copy(SqInput *in, const SpeedqaPicture *pic, SpeedqaPicture *out, char *err,
                       size_t errlen)
{
    if (!in || !pic || !out) {
        if (err && errlen)
            snprintf(err, errlen, "sq_input_host_copy: NULL argument");
        return -EINVAL;
    }
    if (pic->memory == SPEEDQA_MEM_HOST) {
        *out = *pic;
        return 0;
    }
    int r = sq_in_fail(in, -EINVAL, "a device picture from an input that decodes on the host");
#ifdef SQ_HAVE_LAV
    /* a frame read ahead is the read-ahead's loan of the input's */
    if (in->rd == &sq_reader_lav && in->priv)
        r = sq_lav_host_copy(in, in->priv, sq_prefetch_origin(pic), out);
#endif
    if (r < 0 && err && errlen)
        snprintf(err, errlen, "%s", in->msg);
    return r;
}
