/*
 * The bytes libav reads: the AVIO callbacks over an SqInput (so that the
 * peeked detection bytes are not lost and a pipe reads like a file), and
 * the size check of a Matroska file, which libav's demuxer ends at a cut
 * as if it were whole.
 */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lav_priv.h"

int sq_lav_io_read(void *opaque, uint8_t *buf, int size)
{
    SqInput *in = opaque;
    if (size <= 0)
        return 0;
    size_t got = sq_in_read_bytes(in, buf, (size_t)size);
    if (got > 0)
        return (int)got;
    return sq_in_ioerror(in) ? AVERROR(EIO) : AVERROR_EOF;
}

/* Positions are relative to the stream's start; the peeked bytes are the
 * first pb_len of them, so any real seek simply marks them consumed. */
int64_t sq_lav_io_seek(void *opaque, int64_t offset, int whence)
{
    SqInput *in = opaque;
    const LavPriv *p = in->priv;
    whence &= ~AVSEEK_FORCE;
    if (whence == AVSEEK_SIZE)
        return in->avail;
    int64_t cur = (int64_t)(ftello(in->f) - p->base) - (int64_t)(in->pb_len - in->pb_pos);
    int64_t target;
    switch (whence) {
    case SEEK_SET: target = offset; break;
    case SEEK_CUR: target = cur + offset; break;
    case SEEK_END: target = in->avail + offset; break;
    default: return AVERROR(EINVAL);
    }
    if (target < 0)
        return AVERROR(EINVAL);
    clearerr(in->f);
    if (fseeko(in->f, p->base + (off_t)target, SEEK_SET) != 0)
        return AVERROR(errno ? errno : EIO);
    in->pb_pos = in->pb_len;
    return target;
}

/* One EBML variable-length number in b[0..n): its length (0: none there) and
 * *v its value; strip: a size, whose marker bit goes and all ones is UINT64_MAX. */
static size_t ebml_num(const uint8_t *b, size_t n, int strip, uint64_t *v)
{
    if (!n)
        return 0;
    size_t len = 1;
    while (len <= 8 && !(b[0] & (0x100 >> len)))
        len++;
    if (len > 8 || len > n)
        return 0;
    uint64_t x = strip ? b[0] & ((0xffu >> len)) : b[0];
    int ones = (b[0] & (0xffu >> len)) == (0xffu >> len);
    for (size_t i = 1; i < len; i++) {
        x = x << 8 | b[i];
        ones &= b[i] == 0xff;
    }
    *v = strip && ones ? UINT64_MAX : x;
    return len;
}

/*
 * A Matroska/WebM file cut short: its Segment declares more bytes than the
 * file holds. libav's demuxer ends such a file at the cut as if it were
 * complete (a shorter video, scored with exit 0), so the size is checked
 * here. An unknown Segment size (a live recording) cannot be checked.
 */
int sq_lav_mkv_cut(SqInput *in, LavPriv *p)
{
    struct stat st;
    uint8_t b[64];
    if (!in->seekable || fstat(fileno(in->f), &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    const ssize_t n = pread(fileno(in->f), b, sizeof b, p->base);
    uint64_t id, size, seg;
    size_t o = 0, l;
    if (n < 8 || !(l = ebml_num(b, (size_t)n, 0, &id)) || id != 0x1A45DFA3)
        return 0;
    o += l;
    if (!(l = ebml_num(b + o, (size_t)n - o, 1, &size)) || size > sizeof b)
        return 0;
    o += l + (size_t)size; /* the EBML header's elements */
    if (o >= (size_t)n || !(l = ebml_num(b + o, (size_t)n - o, 0, &id)) || id != 0x18538067)
        return 0;
    o += l;
    if (o >= (size_t)n || !(l = ebml_num(b + o, (size_t)n - o, 1, &seg)) || seg == UINT64_MAX)
        return 0;
    o += l;
    const uint64_t have = (uint64_t)st.st_size - (uint64_t)p->base;
    if (seg > have || o + seg > have)
        return sq_in_fail(in, -EINVAL, "the file is cut short: its Matroska segment declares %llu "
                          "bytes, %llu are there", (unsigned long long)seg,
                          (unsigned long long)(have > o ? have - o : 0));
    return 0;
}
