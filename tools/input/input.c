/*
 * Opening an input: its file or stream, the reader its first bytes or its
 * name pick, and the frames read through it (lent, copied, skipped) with
 * the sticky-error rule; the readers' shared helpers are reader.c's.
 */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64 /* frame counts and seeks past 2 GiB on 32-bit */
#endif
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, fseeko, ftello, strdup */
#endif

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "input_priv.h"

static void copy_msg(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

static void destroy(SqInput *in)
{
    if (!in)
        return;
    if (in->rd && in->rd->close)
        in->rd->close(in);
    sq_in_unmap(in);
    if (in->f && in->own_f)
        fclose(in->f);
    speedqa_buffer_free(in->buf);
    free(in->name);
    free(in);
}

/* Opens the file and peeks at its first bytes; no reader chosen yet. */
static int open_stream(SqInput *in, const char *path)
{
    if (strcmp(path, "-") == 0) {
        in->f = stdin;
    } else {
        in->f = fopen(path, "rb");
        if (!in->f) {
            int e = errno ? errno : EIO;
            return sq_in_fail(in, -e, "%s", strerror(e));
        }
        in->own_f = 1;
    }

    struct stat st;
    if (fstat(fileno(in->f), &st) != 0) {
        int e = errno ? errno : EIO;
        return sq_in_fail(in, -e, "%s", strerror(e));
    }
    if (S_ISDIR(st.st_mode))
        return sq_in_fail(in, -EISDIR, "is a directory");
    in->info.stream = !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode);
    if (S_ISREG(st.st_mode)) {
        /* stdin may be a regular file opened at an offset: measure from here */
        off_t pos = ftello(in->f);
        if (pos >= 0) {
            in->seekable = 1;
            in->avail = (long long)st.st_size - (long long)pos;
            if (in->avail < 0)
                in->avail = 0;
        }
    }

    errno = 0;
    in->pb_len = fread(in->pb, 1, sizeof in->pb, in->f);
    if (ferror(in->f))
        return sq_in_fail(in, -EIO, "read error: %s", errno ? strerror(errno) : "I/O error");
    if (in->pb_len == 0)
        return sq_in_fail(in, -EINVAL, "empty file");
    return 0;
}

static int is_y4m(const SqInput *in)
{
    return in->pb_len == SQ_INPUT_PEEK && memcmp(in->pb, "YUV4MPEG2 ", SQ_INPUT_PEEK) == 0;
}

/* Raw geometry given: the input is raw (a .bin, .yuv, stdin) and is read
 * raw without asking libav, whose probe can take raw samples for MPEG-TS or
 * another format; only a name that says "compressed container or stream"
 * still goes to libav (the raw flags then serve the other input). */
static int named_raw(const char *path)
{
    static const char *const lav_ext[] = { ".mp4", ".m4v", ".mkv", ".webm", ".mov", ".avi",
                                           ".ts", ".m2ts", ".mts", ".mxf", ".flv", ".mpg",
                                           ".mpeg", ".ivf", ".264", ".h264", ".265", ".h265",
                                           ".hevc", ".avc", ".obu", ".nut", ".3gp" };
    if (strcmp(path, "-") == 0)
        return 1;
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    for (size_t i = 0; dot && i < sizeof lav_ext / sizeof lav_ext[0]; i++)
        if (strcasecmp(dot, lav_ext[i]) == 0)
            return 0;
    return 1;
}

static const SqReader *reader_by_kind(const char *kind)
{
    if (strcmp(kind, "y4m") == 0)
        return &sq_reader_y4m;
    if (strcmp(kind, "yuv") == 0)
        return &sq_reader_yuv;
#ifdef SQ_HAVE_LAV
    if (strcmp(kind, "lav") == 0)
        return &sq_reader_lav;
#endif
    return NULL;
}

#ifdef SQ_HAVE_LAV
/*
 * libav did not recognise a regular file but raw geometry was given: undo
 * what the attempt read and changed, so the raw reader starts from byte 0.
 */
static int rewind_for_raw(SqInput *in, off_t data_pos)
{
    if (in->rd && in->rd->close)
        in->rd->close(in);
    in->priv = NULL;
    speedqa_buffer_free(in->buf);
    in->buf = NULL;
    in->frame_bytes = 0;
    in->info.fps_num = in->info.fps_den = 0;
    in->info.frames = -1;
    in->msg[0] = '\0';
    clearerr(in->f);
    if (fseeko(in->f, data_pos, SEEK_SET) != 0) {
        int e = errno ? errno : EIO;
        return sq_in_fail(in, -e, "cannot rewind: %s", strerror(e));
    }
    /* The seek went back to where the peeked bytes came from: they will be
     * read again from the file, so they must not also come from pb. */
    in->pb_len = in->pb_pos = 0;
    in->rd = &sq_reader_yuv;
    return 0;
}
#endif

int sq_input_open(SqInput **out, const char *path, const char *kind,
                  const SqRawParams *raw, char *err, size_t errlen)
{
    return sq_input_open_dec(out, path, kind, raw, -1, 0, err, errlen);
}

int sq_input_open_dec(SqInput **out, const char *path, const char *kind, const SqRawParams *raw,
                      int cuda_device, int decode_threads, char *err, size_t errlen)
{
    return sq_input_open_ex(out, path, kind, raw, cuda_device, decode_threads, 0, err, errlen);
}

int sq_input_open_ex(SqInput **out, const char *path, const char *kind, const SqRawParams *raw,
                     int cuda_device, int decode_threads, int no_map, char *err, size_t errlen)
{
    if (!out || !path) {
        copy_msg(err, errlen, "sq_input_open: no output pointer or path");
        if (out)
            *out = NULL;
        return -EINVAL;
    }
    *out = NULL;

    SqInput *in = calloc(1, sizeof *in);
    if (!in) {
        copy_msg(err, errlen, "out of memory");
        return -ENOMEM;
    }
    in->name = strdup(strcmp(path, "-") == 0 ? "<stdin>" : path);
    if (!in->name) {
        free(in);
        copy_msg(err, errlen, "out of memory");
        return -ENOMEM;
    }
    in->info.frames = -1;
    in->info.matrix = 2;
    in->hw_device = cuda_device < 0 ? -1 : cuda_device;
    in->decode_threads = decode_threads < 0 ? 0 : decode_threads;
    in->no_map = no_map;

    int r;
    if (kind && !reader_by_kind(kind)) {
#ifdef SQ_HAVE_LAV
        r = sq_in_fail(in, -EINVAL, "unknown input kind '%s' (expected y4m, yuv or lav)", kind);
#else
        r = strcmp(kind, "lav") == 0
            ? sq_in_fail(in, -ENOSYS, "compressed input is not built in: rebuild with "
                         "libavformat-dev, libavcodec-dev and libavutil-dev installed")
            : sq_in_fail(in, -EINVAL, "unknown input kind '%s' (expected y4m or yuv)", kind);
#endif
        goto fail;
    }
    r = open_stream(in, path);
    if (r < 0)
        goto fail;

    if (kind)
        in->rd = reader_by_kind(kind);
    else if (is_y4m(in))
        in->rd = &sq_reader_y4m;
    else if (raw && (named_raw(path) || !in->seekable))
        /* A pipe cannot be rewound after libav probed it and gave up, so
         * with raw geometry given a non-seekable input is read raw. */
        in->rd = &sq_reader_yuv;
    else {
#ifdef SQ_HAVE_LAV
        /* Where the data starts, in case libav gives up and raw is wanted. */
        off_t data_pos = in->seekable ? ftello(in->f) - (off_t)in->pb_len : -1;
        in->rd = &sq_reader_lav;
        r = in->rd->open(in, raw);
        if (r == -ENOEXEC && raw && data_pos >= 0) {
            r = rewind_for_raw(in, data_pos);
            if (r == 0)
                r = in->rd->open(in, raw);
        } else if (r == -ENOEXEC) {
            r = -EINVAL;
        }
        if (r < 0)
            goto fail;
        in->info.reader = in->rd->name;
        *out = in;
        return 0;
#else
        if (raw)
            in->rd = &sq_reader_yuv;
        else {
            r = sq_in_fail(in, -EINVAL, "not a Y4M file and no raw geometry given (-w -h -p -b); "
                           "compressed input is not built in: rebuild with libavformat-dev, "
                           "libavcodec-dev and libavutil-dev installed");
            goto fail;
        }
#endif
    }

    r = in->rd->open(in, raw);
    if (r == -ENOEXEC)
        r = -EINVAL;
    if (r < 0)
        goto fail;
    in->info.reader = in->rd->name;
    sq_in_map(in);
    *out = in;
    return 0;

fail:
    copy_msg(err, errlen, in->msg);
    destroy(in);
    return r;
}

const SqInputInfo *sq_input_info(const SqInput *in)
{
    return in ? &in->info : NULL;
}

/* Runs one reader step with the end-of-stream and sticky-error rules. */
static int step(SqInput *in, int (*fn)(SqInput *), char *err, size_t errlen)
{
    if (in->state < 0) {
        copy_msg(err, errlen, in->msg);
        return in->state;
    }
    if (in->state == 1)
        return 0;
    int r = fn(in);
    if (r < 0) {
        in->state = r;
        copy_msg(err, errlen, in->msg);
    } else if (r == 0) {
        in->state = 1;
    } else {
        in->frame_no++;
    }
    return r;
}

/* The next frame into *pic; lend: a mapped frame may be lent (else it is copied into in->buf). */
static int read_frame(SqInput *in, SpeedqaPicture *pic, int lend, char *err, size_t errlen)
{
    in->frame = NULL;
    in->devpic_ready = 0;
    int r = step(in, in->rd->read, err, errlen);
    if (r != 1)
        return r;
    if (in->devpic_ready) { /* a GPU frame, lent as it is */
        *pic = in->devpic;
        return 1;
    }

    const unsigned char *base = in->frame ? in->frame : in->buf;
    if (in->map && !lend && base != in->buf) {
        memcpy(in->buf, base, in->frame_bytes);
        base = in->buf;
    }
    memset(pic, 0, sizeof *pic);
    pic->format = in->info.format;
    pic->memory = SPEEDQA_MEM_HOST;
    pic->layout = in->layout;
    pic->msb_aligned = in->msb_aligned;
    int planes = in->info.format.fmt == SPEEDQA_PIX_400 ? 1
               : in->layout == SPEEDQA_LAYOUT_SEMI_PLANAR ? 2 : 3;
    for (int i = 0; i < planes; i++) {
        pic->data[i] = base + in->plane_off[i];
        pic->stride[i] = in->stride[i];
    }
    if (base != in->buf && in->lend)
        sq_in_map_lend(in, pic);
    return 1;
}

int sq_input_read(SqInput *in, SpeedqaPicture *pic, char *err, size_t errlen)
{
    if (!in || !pic) {
        copy_msg(err, errlen, "sq_input_read: NULL argument");
        return -EINVAL;
    }
    return read_frame(in, pic, 1, err, errlen);
}

int sq_input_mapped(const SqInput *in)
{
    return in && in->map;
}

void sq_input_lend(SqInput *in)
{
    if (in)
        in->lend = 1;
}

int sq_input_skip(SqInput *in, long long n, char *err, size_t errlen)
{
    if (!in || n < 0) {
        copy_msg(err, errlen, "sq_input_skip: NULL input or negative count");
        return -EINVAL;
    }
    for (long long i = 0; i < n; i++) {
        int r = step(in, in->rd->skip, err, errlen);
        if (r != 1)
            return r;
    }
    return 1;
}

int sq_input_read_into(SqInput *in, unsigned char *buf, SpeedqaPicture *pic, char *err,
                       size_t errlen)
{
    if (!in || !buf) {
        copy_msg(err, errlen, "sq_input_read_into: NULL argument");
        return -EINVAL;
    }
    /* the readers fill in->buf: lend them the caller's buffer for one frame */
    unsigned char *own = in->buf;
    in->buf = buf;
    const int r = pic ? read_frame(in, pic, 0, err, errlen) : -EINVAL;
    in->buf = own;
    if (!pic)
        copy_msg(err, errlen, "sq_input_read_into: NULL argument");
    return r;
}

size_t sq_input_frame_bytes(const SqInput *in)
{
    return in ? in->frame_bytes : 0;
}

void sq_input_close(SqInput **in)
{
    if (!in)
        return;
    destroy(*in);
    *in = NULL;
}
