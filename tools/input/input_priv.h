/*
 * Internals shared by input.c (open, dispatch), reader.c (buffers, byte
 * helpers), map.c and map_ahead.c (mapped reading) and the readers (y4m.c,
 * yuv.c, lav.c). Not installed, not used outside tools/input.
 *
 * Conventions every reader follows:
 *  - errors go through sq_in_fail(), which writes "name: cause" into
 *    in->msg; the public wrappers copy that line to the caller's buffer and
 *    make the failure sticky (later reads repeat it instead of reading on
 *    from an unknown position);
 *  - frame numbers in messages are 0-based, like SpeedqaScores.frame;
 *  - malformed content (bad header, truncated frame, bad FRAME line) is
 *    -EINVAL; -EIO is kept for errors the OS reports while reading, so a
 *    caller can tell a broken file from a broken disk or pipe.
 */
#ifndef SQ_INPUT_PRIV_H
#define SQ_INPUT_PRIV_H

#include <stddef.h>
#include <stdio.h>

#include "input.h"

/* Longest Y4M header or FRAME line we accept, newline excluded. */
#define SQ_INPUT_MAX_LINE 4096
/* Bytes peeked at open for format detection: strlen("YUV4MPEG2 "). */
#define SQ_INPUT_PEEK 10

typedef struct SqReader {
    const char *name;
    /* Parse whatever precedes the first frame; must call sq_in_set_format. */
    int (*open)(SqInput *in, const SqRawParams *raw);
    /* 1 frame read into in->buf, 0 clean end, < 0 error. */
    int (*read)(SqInput *in);
    /* Like read, but the payload is discarded (seeked over when possible). */
    int (*skip)(SqInput *in);
    /* Frees reader-private state; may be NULL when there is none. */
    void (*close)(SqInput *in);
} SqReader;

extern const SqReader sq_reader_y4m;
extern const SqReader sq_reader_yuv;
#ifdef SQ_HAVE_LAV
/* Anything libavformat/libavcodec decode (lav.c). Its open returns -ENOEXEC
 * when libav does not recognise the data at all, so that input.c can fall
 * back to raw YUV when raw geometry was given. */
extern const SqReader sq_reader_lav;
#endif

struct SqInput {
    const SqReader *rd;
    FILE *f;
    int own_f;               /* 0 for stdin, which we must not fclose */
    char *name;              /* path as shown in messages */
    int seekable;            /* regular file: seek to skip, size known */
    long long avail;         /* bytes from the open position to EOF, if seekable */

    /* Bytes peeked for detection; consumed before anything else is read so
     * detection works on pipes, which cannot be rewound. */
    unsigned char pb[SQ_INPUT_PEEK];
    size_t pb_len, pb_pos;

    SqInputInfo info;
    unsigned char *buf;      /* one frame, allocated once by sq_in_set_format */
    size_t frame_bytes;
    size_t plane_off[3];
    ptrdiff_t stride[3];
    SpeedqaLayout layout;    /* of the pictures handed out; set before sq_in_set_format */
    int msb_aligned;

    void *priv;              /* reader-private state, freed by rd->close */

    /* Mapped reading (map.c): the file's bytes, the offset of the next one,
     * and where the frame just read lies (the mapping or buf). */
    struct SqMap *map;
    size_t map_pos;
    int lend;                /* sq_input_lend: mapped and decoded frames carry a release */
    const unsigned char *frame;

    /* Device frames (lav.c with hw_device >= 0): the reader fills devpic
     * instead of buf, and sets devpic_ready for read_frame. */
    int hw_device;           /* CUDA device to decode on, -1: software */
    int decode_threads;      /* software decoder threads, 0: libav's choice (lav.c) */
    int devpic_ready;
    SpeedqaPicture devpic;
    char note[256];          /* info.note's text */

    long long frame_no;      /* 0-based index of the next frame */
    int state;               /* 0 reading, 1 clean end, < 0 sticky error */
    int no_map;              /* sq_input_open_ex(no_map): read(), never map */
    char msg[1024];
};

/* Formats "in->name: ..." into in->msg and returns code (negative errno). */
int sq_in_fail(SqInput *in, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Validates fmt against the hard limits, lays the planes out and allocates
 * the frame buffer (none when info.device_frames: frames stay on the GPU).
 * Fails with a message naming the offending value. */
int sq_in_set_format(SqInput *in, const SpeedqaFormat *fmt);


/* Next byte (peeked bytes first), or EOF. */
int sq_in_getc(SqInput *in);

/* Reads up to n bytes into dst (peeked bytes first); returns the count. A
 * short count means EOF or an error: check sq_in_ioerror(). */
size_t sq_in_read_bytes(SqInput *in, void *dst, size_t n);

/* Discards up to n bytes, seeking on regular files; returns the count. */
size_t sq_in_discard(SqInput *in, size_t n);

int sq_in_ioerror(const SqInput *in);

typedef struct SqMap SqMap;
/* Map a seekable Y4M or raw input after its reader opened it (nothing
 * happens when it cannot be or SPEEDQA_IO=read). */
void sq_in_map(SqInput *in);
void sq_in_unmap(SqInput *in);
int sq_in_map_getc(SqInput *in);
size_t sq_in_map_skip(SqInput *in, size_t n);
size_t sq_in_map_copy(SqInput *in, void *dst, size_t n);
/* Point in->frame at the next payload: the bytes there (short: truncated). */
size_t sq_in_map_payload(SqInput *in);
/* Lend the frame just read: pic gets a release that marks it given back. */
void sq_in_map_lend(SqInput *in, SpeedqaPicture *pic);

/* Reads one frame payload into in->buf. first_missing_is_eof: 1 when zero
 * bytes at this point is a clean end (raw), 0 when a payload must follow
 * (after a Y4M FRAME line). Returns 1, 0 or a negative errno. */
int sq_in_read_payload(SqInput *in, int first_missing_is_eof);

/* Same, but the payload is discarded. */
int sq_in_skip_payload(SqInput *in, int first_missing_is_eof);

#endif
