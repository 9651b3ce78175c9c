/*
 * Raw YUV reader: frames back to back, no headers, geometry from the
 * caller. Samples above 8 bits are 16-bit little-endian containers. Planar
 * (Y, U, V) or semi-planar (Y, then U and V interleaved: NV12, P010, P016),
 * the latter handed to the library as it lies (SpeedqaPicture.layout).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

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

/*
 * P010-style samples keep their value in the top bits of each 16-bit word
 * (the low ones are padding, zero or not). A file of LSB-aligned samples
 * (yuv420p10le) has the same size; read as P010 every value would be 0..15
 * and scored. No real P010 frame has every word below 1 << bpc (neutral
 * chroma alone is 512 << 6), so such a frame is an error.
 */
static int fits_low_bits(const SqInput *in)
{
    const uint64_t lane = 0xffffu & ~((1u << in->info.format.bpc) - 1);
    const uint64_t high = lane | lane << 16 | lane << 32 | lane << 48;
    const unsigned char *p = in->frame;
    const size_t n = in->frame_bytes;
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        acc |= v;
    }
    for (; i + 2 <= n; i += 2) {
        uint16_t v;
        memcpy(&v, p + i, 2);
        acc |= v;
    }
    return (acc & high) == 0;
}

static int yuv_read(SqInput *in)
{
    const int r = sq_in_read_payload(in, 1);
    if (r == 1 && in->msb_aligned && in->info.format.bpc < 16 && fits_low_bits(in))
        return sq_in_fail(in, -EINVAL, "frame %lld: every sample fits in the low %d bits, so the "
                          "file is not P010 (MSB-aligned); LSB-aligned %d-bit samples are -p 420 "
                          "-b %d", in->frame_no, in->info.format.bpc, in->info.format.bpc,
                          in->info.format.bpc);
    return r;
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
