/*
 * What the libav reader's files share (lav.c: containers, decoding, the
 * reader's entry points; lav_gpu.c: NVDEC surfaces, lending, the host copy;
 * lav_io.c: the AVIO callbacks and the Matroska size check). Private to tools/input.
 */
#ifndef SQ_TOOLS_INPUT_LAV_PRIV_H
#define SQ_TOOLS_INPUT_LAV_PRIV_H

#include <stdatomic.h>

#include "input_priv.h"
#include "lav_dl.h"

/* A decoded frame out on loan. busy: 0 free, 1 lent, 2 being given back. */
typedef struct Held {
    AVFrame *frame;
    atomic_int busy;
} Held;

typedef struct LavPriv {
    AVFormatContext *fmt;
    AVIOContext *io;
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *frame;
    int stream;
    int pending;       /* p->frame holds a decoded frame not yet returned */
    int drained;       /* the decoder was sent its end-of-stream */
    off_t base;        /* file offset of the stream's byte 0 (seekable only) */
    enum AVPixelFormat pix;
    /* --hwaccel cuda */
    AVBufferRef *hwdev;  /* the CUDA device (primary context) the decoder uses */
    int hw;              /* the decoder was given the device */
    enum AVPixelFormat sw; /* the GPU frames' layout (NV12, P010 ...) */
    Held held[SQ_INPUT_HW_HELD];
    AVFrame *host;       /* sq_input_host_copy's frame */
} LavPriv;

/* lav_open_once: NVDEC could not take the stream, try again in software. */
#define LAV_RETRY_SOFTWARE 1

static inline const char *sq_lav_pix_name(enum AVPixelFormat pix)
{
    const char *n = sq_lav.av_get_pix_fmt_name(pix);
    return n ? n : "unknown";
}

static inline const char *sq_lav_msg(int averr, char *buf, size_t len)
{
    if (sq_lav.av_strerror(averr, buf, len) < 0)
        snprintf(buf, len, "libav error %d", averr);
    return buf;
}

/* lav_gpu.c */
enum AVPixelFormat sq_lav_surface_format(const AVFrame *f);
enum AVPixelFormat sq_lav_pick_format(AVCodecContext *dec, const enum AVPixelFormat *fmts);
const AVCodec *sq_lav_hw_codec(const AVCodec *codec);
int sq_lav_device_format(SqInput *in, LavPriv *p, SpeedqaFormat *f);
int sq_lav_lend_frame(SqInput *in, LavPriv *p);
int sq_lav_host_copy(SqInput *in, LavPriv *p, const SpeedqaPicture *pic, SpeedqaPicture *out);

/* lav_io.c */
int sq_lav_io_read(void *opaque, uint8_t *buf, int size);
int64_t sq_lav_io_seek(void *opaque, int64_t offset, int whence);
int sq_lav_mkv_cut(SqInput *in, LavPriv *p);

#endif
