/*
 * Raw planar YUV reader. Input: a 11-byte header, then the file.
 *   int32 LE width, int32 LE height (any value: negative, huge),
 *   int8 pixel format, int8 bit depth, mode byte:
 *     bit 0: feed through a pipe (not seekable) instead of a file
 *     bits 1-2: 0 read every frame, 1 skip frame 0 then read,
 *               2 alternate skip and read, 3 skip 1000 then read
 *     bit 3: no raw geometry at all (must fail cleanly)
 * Promises checked: geometry outside the hard limits (or whose frame size
 * overflows / exceeds 1 GiB) is refused before anything is allocated; on a
 * file the size must be a multiple of the frame size and the frame count
 * is exact; reads return 1/0/negative, errors are sticky; pictures lie in
 * the reader's buffer; nothing leaks.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_input_check.h"

#define MAX_FRAMES 64

/* Frame size in bytes of a geometry within the limits, else 0. */
static unsigned long long frame_bytes(const SqRawParams *p)
{
    if (p->width < 1 || p->width > SQ_INPUT_MAX_DIM || p->height < 1 ||
        p->height > SQ_INPUT_MAX_DIM || p->bpc < 8 || p->bpc > 16 ||
        (unsigned)p->fmt > SPEEDQA_PIX_444)
        return 0;
    const SpeedqaFormat f = { p->width, p->height, p->fmt, p->bpc };
    unsigned long long total = fuzz_frame_bytes(&f); /* dimensions are capped: no wrap */
    return total > SQ_INPUT_MAX_FRAME_BYTES ? 0 : total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 11)
        return 0;
    FuzzBytes b = { data, 11 };
    SqRawParams raw = { 0 };
    raw.width = (int32_t)fuzz_u32(&b);
    raw.height = (int32_t)fuzz_u32(&b);
    raw.fmt = (SpeedqaPixelFormat)(int8_t)fuzz_u8(&b);
    raw.bpc = (int8_t)fuzz_u8(&b);
    const unsigned mode = fuzz_u8(&b);
    /* mode bit 4: samples MSB-aligned (P010-style), for the depths with padding */
    raw.msb_aligned = (mode & 16) && raw.bpc > 8 && raw.bpc < 16;
    data += 11;
    size -= 11;

    char path[64], err[512];
    int pfd = -1;
    if ((mode & 1) && fuzz_pipe(data, size, path, sizeof path, &pfd) < 0)
        pfd = -1;
    const int seekable = pfd < 0;
    if (pfd < 0 && fuzz_file(data, size, path, sizeof path) < 0)
        return 0;

    const unsigned long long fb = frame_bytes(&raw);
    SqInput *in = (SqInput *)&err;
    err[0] = '\0';
    int r = sq_input_open(&in, path, "yuv", (mode & 8) ? NULL : &raw, err, sizeof err);
    fuzz_pipe_close(pfd);
    if (fuzz_verbose())
        fprintf(stderr, "  open %d %s\n", r, r < 0 ? err : "");
    if (r < 0) {
        FUZZ_CHECK(in == NULL, "failed open left *out set");
        FUZZ_CHECK(r == -EINVAL || r == -EIO || r == -ENOMEM, "unexpected error %d (%s)", r, err);
        FUZZ_CHECK(err[0] != '\0', "error %d without a message", r);
        FUZZ_CHECK((mode & 8) || fb == 0 || size == 0 || (seekable && size % fb != 0) || r == -ENOMEM,
                   "valid geometry %dx%d fmt %d bpc %d refused: %s", raw.width, raw.height,
                   (int)raw.fmt, raw.bpc, err);
        return 0;
    }
    FUZZ_CHECK(!(mode & 8), "raw reader opened without geometry");
    FUZZ_CHECK(fb != 0, "geometry %dx%d fmt %d bpc %d accepted", raw.width, raw.height,
               (int)raw.fmt, raw.bpc);
    FUZZ_CHECK(!seekable || size % fb == 0, "file of %zu bytes accepted for %llu-byte frames", size, fb);
    const SqInputInfo *info = sq_input_info(in);
    fuzz_check_info(info);
    FUZZ_CHECK(info->format.width == raw.width && info->format.height == raw.height &&
               info->format.fmt == raw.fmt && info->format.bpc == raw.bpc, "format differs from the raw parameters");
    FUZZ_CHECK(seekable ? info->frames == (long long)(size / fb) : info->frames == -1,
               "frame count %lld for %zu bytes of %llu-byte frames", info->frames, size, fb);

    const int pattern = (mode >> 1) & 3;
    long long consumed;
    const int last = fuzz_input_frames(in, info, pattern, MAX_FRAMES, &consumed, err, sizeof err);
    const long long whole = (long long)(size / fb);
    if (last == 0)
        FUZZ_CHECK(pattern == 3 || consumed == whole, "clean end after %lld of %lld frames", consumed, whole);
    if (last < 0) {
        FUZZ_CHECK(last == -EINVAL || last == -EIO, "read error %d (%s)", last, err);
        /* (MSB-aligned frames whose every word fits in the low bits are LSB data: refused) */
        FUZZ_CHECK(!seekable || size % fb != 0 || (raw.msb_aligned && strstr(err, "not P010")),
                   "read error on a well-sized file: %s", err);
    }
    fuzz_input_end(&in, info, last, err);
    return 0;
}
