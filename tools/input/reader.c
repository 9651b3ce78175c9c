/*
 * What every reader (y4m.c, yuv.c, lav.c) calls: its failure line, the
 * frame layout, and bytes and payloads from the peeked bytes, the mapping
 * or the stream. Apart from input.c, which opens an input and picks its
 * reader, so that the readers' common ground reads in one place.
 */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64 /* frame counts and seeks past 2 GiB on 32-bit */
#endif
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, fseeko, ftello */
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "input_priv.h"

int sq_in_fail(SqInput *in, int code, const char *fmt, ...)
{
    int n = snprintf(in->msg, sizeof in->msg, "%s: ", in->name);
    if (n < 0 || (size_t)n >= sizeof in->msg)
        return code; /* a path too long to show anything after it */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->msg + n, sizeof in->msg - (size_t)n, fmt, ap);
    va_end(ap);
    return code;
}

int sq_in_set_format(SqInput *in, const SpeedqaFormat *f)
{
    if (f->width < 1 || f->width > SQ_INPUT_MAX_DIM)
        return sq_in_fail(in, -EINVAL, "width %d outside 1..%d", f->width, SQ_INPUT_MAX_DIM);
    if (f->height < 1 || f->height > SQ_INPUT_MAX_DIM)
        return sq_in_fail(in, -EINVAL, "height %d outside 1..%d", f->height, SQ_INPUT_MAX_DIM);
    if (f->bpc < 8 || f->bpc > 16)
        return sq_in_fail(in, -EINVAL, "bit depth %d outside 8..16", f->bpc);

    /*
     * Chroma planes in the file are ceil(w/2) (and ceil(h/2) for 4:2:0)
     * wide, which is what Y4M writers such as ffmpeg produce for odd sizes.
     * The library follows libvmaf and reads only (w >> 1) x (h >> 1) of
     * them; that is a sub-rectangle of what we describe here (same origin,
     * same stride), so the picture we hand out is valid either way.
     */
    uint64_t w = (uint64_t)f->width, h = (uint64_t)f->height, cw, ch;
    switch (f->fmt) {
    case SPEEDQA_PIX_400: cw = 0; ch = 0; break;
    case SPEEDQA_PIX_420: cw = (w + 1) >> 1; ch = (h + 1) >> 1; break;
    case SPEEDQA_PIX_422: cw = (w + 1) >> 1; ch = h; break;
    case SPEEDQA_PIX_444: cw = w; ch = h; break;
    default:
        return sq_in_fail(in, -EINVAL, "unknown pixel format %d", (int)f->fmt);
    }
    /* Dimensions are capped at 2^14, so none of this can wrap in 64 bits;
     * the cap below then keeps it within size_t on 32-bit hosts too. */
    uint64_t bps = f->bpc > 8 ? 2 : 1;
    uint64_t luma = w * h * bps, chroma = cw * ch * bps;
    uint64_t total = luma + 2 * chroma;
    if (total > (uint64_t)SQ_INPUT_MAX_FRAME_BYTES)
        return sq_in_fail(in, -EINVAL,
                          "frame size %llu bytes (%dx%d %s %d-bit) exceeds the limit %llu",
                          (unsigned long long)total, f->width, f->height,
                          speedqa_pix_fmt_name(f->fmt), f->bpc,
                          (unsigned long long)SQ_INPUT_MAX_FRAME_BYTES);

    in->info.format = *f;
    if (in->info.device_frames)
        return 0; /* decoded into the decoder's GPU surfaces: no host frame */
    /* the library's picture memory: huge pages for frame-sized buffers */
    in->buf = speedqa_buffer_alloc((size_t)total);
    if (!in->buf)
        return sq_in_fail(in, -ENOMEM, "cannot allocate a %llu-byte frame buffer",
                          (unsigned long long)total);
    in->frame_bytes = (size_t)total;
    in->plane_off[0] = 0;
    in->plane_off[1] = (size_t)luma;
    in->plane_off[2] = (size_t)(luma + chroma);
    in->stride[0] = (ptrdiff_t)(w * bps);
    in->stride[1] = in->stride[2] = (ptrdiff_t)(cw * bps);
    if (in->layout == SPEEDQA_LAYOUT_SEMI_PLANAR) { /* one plane of U, V pairs: same bytes */
        in->stride[1] = (ptrdiff_t)(2 * cw * bps);
        in->plane_off[2] = 0;
        in->stride[2] = 0;
    }
    in->info.format = *f;
    return 0;
}

int sq_in_getc(SqInput *in)
{
    if (in->pb_pos < in->pb_len)
        return in->pb[in->pb_pos++];
    return in->map ? sq_in_map_getc(in) : getc(in->f);
}

size_t sq_in_read_bytes(SqInput *in, void *dst, size_t n)
{
    unsigned char *d = dst;
    size_t done = 0;
    while (done < n && in->pb_pos < in->pb_len)
        d[done++] = in->pb[in->pb_pos++];
    if (done < n && in->map) {
        done += sq_in_map_copy(in, d + done, n - done);
    } else if (done < n) {
        done += fread(d + done, 1, n - done, in->f);
    }
    return done;
}

size_t sq_in_discard(SqInput *in, size_t n)
{
    size_t done = 0;
    while (done < n && in->pb_pos < in->pb_len) {
        in->pb_pos++;
        done++;
    }
    if (done == n)
        return done;
    if (in->map)
        return done + sq_in_map_skip(in, n - done);

    if (in->seekable) {
        /* fseeko happily moves past EOF, so clamp to the size we measured
         * to report a truncated last frame exactly like a read would. */
        struct stat st;
        off_t pos = ftello(in->f);
        if (pos >= 0 && fstat(fileno(in->f), &st) == 0) {
            long long rem = (long long)st.st_size - (long long)pos;
            if (rem < 0)
                rem = 0;
            size_t step = n - done;
            if ((unsigned long long)rem < step)
                step = (size_t)rem;
            if (fseeko(in->f, (off_t)step, SEEK_CUR) == 0)
                return done + step;
        }
        /* fall back to reading */
    }

    while (done < n) {
        size_t chunk = n - done < in->frame_bytes ? n - done : in->frame_bytes;
        size_t got = fread(in->buf, 1, chunk, in->f);
        done += got;
        if (got < chunk)
            break;
    }
    return done;
}

int sq_in_ioerror(const SqInput *in)
{
    return !in->map && ferror(in->f) != 0;
}

#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
/* Files store 16-bit samples little-endian; the picture wants native. */
static void swap16(unsigned char *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        unsigned char t = p[i];
        p[i] = p[i + 1];
        p[i + 1] = t;
    }
}
#define SQ_NEED_SWAP 1
#else
#define SQ_NEED_SWAP 0
#endif

static int payload_result(SqInput *in, size_t got, int first_missing_is_eof)
{
    if (got == in->frame_bytes)
        return 1;
    if (sq_in_ioerror(in))
        return sq_in_fail(in, -EIO, "read error in frame %lld: %s", in->frame_no,
                          errno ? strerror(errno) : "I/O error");
    if (got == 0 && first_missing_is_eof)
        return 0;
    return sq_in_fail(in, -EINVAL, "truncated frame %lld: got %zu of %zu bytes",
                      in->frame_no, got, in->frame_bytes);
}

int sq_in_read_payload(SqInput *in, int first_missing_is_eof)
{
    errno = 0;
    in->frame = in->buf;
    size_t got = in->map ? sq_in_map_payload(in) : sq_in_read_bytes(in, in->buf, in->frame_bytes);
    int r = payload_result(in, got, first_missing_is_eof);
#if SQ_NEED_SWAP
    if (r == 1 && in->info.format.bpc > 8)
        swap16(in->buf, in->frame_bytes);
#endif
    return r;
}

int sq_in_skip_payload(SqInput *in, int first_missing_is_eof)
{
    errno = 0;
    size_t got = sq_in_discard(in, in->frame_bytes);
    return payload_result(in, got, first_missing_is_eof);
}
