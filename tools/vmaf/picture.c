/*
 * A speedqa picture copied into a libvmaf one (bridge.h). libvmaf keeps
 * the pictures it is given until its extractors are done with them, longer
 * than a lent frame lives, so it gets a copy in its own layout: planar,
 * bpc-bit samples in the low bits.
 */
#include <stdint.h>
#include <string.h>

#include "bridge.h"

static void copy_plane(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src, ptrdiff_t sstride,
                       unsigned w, unsigned h, int wide, int step, int shift)
{
    for (unsigned y = 0; y < h; y++, dst += dstride, src += sstride) {
        if (!wide && step == 1) {
            memcpy(dst, src, w);
        } else if (!wide) {
            for (unsigned x = 0; x < w; x++)
                dst[x] = src[(size_t)x * (size_t)step];
        } else if (step == 1 && !shift) {
            memcpy(dst, src, (size_t)w * 2);
        } else {
            const uint16_t *s = (const uint16_t *)(const void *)src;
            uint16_t *d = (uint16_t *)(void *)dst;
            for (unsigned x = 0; x < w; x++)
                d[x] = (uint16_t)(s[(size_t)x * (size_t)step] >> shift);
        }
    }
}

void sq_vmaf_copy_picture(VmafPicture *dst, const SpeedqaPicture *src)
{
    const int wide = src->format.bpc > 8;
    const int shift = src->msb_aligned ? 16 - src->format.bpc : 0;
    const int semi = src->layout == SPEEDQA_LAYOUT_SEMI_PLANAR;
    const int planes = src->format.fmt == SPEEDQA_PIX_400 ? 1 : 3;
    for (int p = 0; p < planes; p++) {
        const uint8_t *s = src->data[semi && p ? 1 : p];
        if (semi && p == 2)
            s += wide ? 2 : 1; /* V follows U in each pair */
        copy_plane(dst->data[p], dst->stride[p], s, src->stride[semi && p ? 1 : p], dst->w[p],
                   dst->h[p], wide, semi && p ? 2 : 1, shift);
    }
}
