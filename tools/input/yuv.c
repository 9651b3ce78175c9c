/*
 * Raw YUV reader: frames back to back, no headers, geometry from the
 * caller. Samples above 8 bits are 16-bit little-endian containers. Planar
 * (Y, U, V) or semi-planar (Y, then U and V interleaved: NV12, P010, P016),
 * the latter handed to the library as it lies (SpeedqaPicture.layout).
 */
#include <errno.h>

#include "input_priv.h"

static int yuv_open(SqInput *in, const SqRawParams *raw)
{
    if (!raw)
        return sq_in_fail(in, -EINVAL, "raw YUV needs its geometry (-w -h -p -b)");
    if (raw->fmt < SPEEDQA_PIX_400 || raw->fmt > SPEEDQA_PIX_444)
        return sq_in_fail(in, -EINVAL, "unknown raw pixel format %d", (int)raw->fmt);

    if (raw->layout == SPEEDQA_LAYOUT_SEMI_PLANAR && raw->fmt == SPEEDQA_PIX_400)
        return sq_in_fail(in, -EINVAL, "a semi-planar file needs chroma");
    SpeedqaFormat f = { raw->width, raw->height, raw->fmt, raw->bpc };
    in->layout = raw->layout;
    in->msb_aligned = raw->msb_aligned;
    int r = sq_in_set_format(in, &f);
    if (r < 0)
        return r;

    /* Without a header, the file size is the only check that the geometry
     * is right; catching a mismatch here beats scoring garbage. */
    if (in->seekable) {
        unsigned long long size = (unsigned long long)in->avail;
        if (size % in->frame_bytes != 0)
            return sq_in_fail(in, -EINVAL,
                              "size %llu is not a multiple of the frame size %zu (%dx%d %s %d-bit)",
                              size, in->frame_bytes, f.width, f.height,
                              speedqa_pix_fmt_name(f.fmt), f.bpc);
        in->info.frames = (long long)(size / in->frame_bytes);
    }
    return 0;
}

static int yuv_read(SqInput *in)
{
    return sq_in_read_payload(in, 1);
}

static int yuv_skip(SqInput *in)
{
    return sq_in_skip_payload(in, 1);
}

const SqReader sq_reader_yuv = {
    .name = "yuv",
    .open = yuv_open,
    .read = yuv_read,
    .skip = yuv_skip,
    .close = NULL,
};
