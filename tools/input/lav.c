/*
 * Compressed input through libavformat + libavcodec: any container and
 * codec ffmpeg decodes, delivered in the decoder's native planar YUV (or
 * gray) format and bit depth. Nothing is converted: a pixel format the
 * library cannot take as is gets an error naming it.
 *
 * Bytes come through a custom AVIOContext on the SqInput's stream, so the
 * peeked detection bytes are not lost and stdin works like a file.
 *
 * Nothing here links libav: every call goes through sq_lav (lav_dl.c), which
 * the first lav_open fills with dlopen/dlsym.
 *
 * With a CUDA device (sq_input_open_dec, --hwaccel cuda) the decoder runs on
 * NVDEC through libav's cuda hwaccel, in the device's primary context (the
 * CUDA backend's), and each frame stays in the decoder's surface: it is
 * lent as a SPEEDQA_MEM_CUDA picture whose release unreferences it. A
 * stream NVDEC cannot take starts over in software (see lav_open). A
 * software-decoded frame is lent the same way (a host picture over the
 * decoder's planes) when the caller gives pictures back (sq_input_lend),
 * else packed into in->buf.
 */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lav_priv.h"

#define LAV_IO_BUF 65536

/* libav demuxer names (one of a demuxer's names suffices: "mov" takes
 * mp4/m4v/3gp, "matroska" webm): the containers and elementary streams
 * encoded video for scoring comes in. */
#define LAV_CONTAINERS "mov,matroska,avi,mpegts,mpeg,mxf,flv,ivf,obu,h264,hevc,m4v,mpegvideo"

static const struct {
    enum AVPixelFormat pix;
    SpeedqaPixelFormat fmt;
    int bpc;
} pix_map[] = {
    { AV_PIX_FMT_YUV420P, SPEEDQA_PIX_420, 8 },
    { AV_PIX_FMT_YUVJ420P, SPEEDQA_PIX_420, 8 },
    { AV_PIX_FMT_YUV422P, SPEEDQA_PIX_422, 8 },
    { AV_PIX_FMT_YUVJ422P, SPEEDQA_PIX_422, 8 },
    { AV_PIX_FMT_YUV444P, SPEEDQA_PIX_444, 8 },
    { AV_PIX_FMT_YUVJ444P, SPEEDQA_PIX_444, 8 },
    { AV_PIX_FMT_GRAY8, SPEEDQA_PIX_400, 8 },
    /* Native-endian names: the LE variants on little-endian hosts, which
     * is the layout a SpeedqaPicture wants. */
    { AV_PIX_FMT_YUV420P10, SPEEDQA_PIX_420, 10 },
    { AV_PIX_FMT_YUV420P12, SPEEDQA_PIX_420, 12 },
    { AV_PIX_FMT_YUV420P16, SPEEDQA_PIX_420, 16 },
    { AV_PIX_FMT_YUV422P10, SPEEDQA_PIX_422, 10 },
    { AV_PIX_FMT_YUV422P12, SPEEDQA_PIX_422, 12 },
    { AV_PIX_FMT_YUV422P16, SPEEDQA_PIX_422, 16 },
    { AV_PIX_FMT_YUV444P10, SPEEDQA_PIX_444, 10 },
    { AV_PIX_FMT_YUV444P12, SPEEDQA_PIX_444, 12 },
    { AV_PIX_FMT_YUV444P16, SPEEDQA_PIX_444, 16 },
    { AV_PIX_FMT_GRAY10, SPEEDQA_PIX_400, 10 },
    { AV_PIX_FMT_GRAY12, SPEEDQA_PIX_400, 12 },
    { AV_PIX_FMT_GRAY16, SPEEDQA_PIX_400, 16 },
};

/* Next decoded frame into p->frame: 1, 0 at the end, or a negative errno. */
static int decode(SqInput *in, LavPriv *p)
{
    char eb[128];
    for (;;) {
        int r = sq_lav.avcodec_receive_frame(p->dec, p->frame);
        if (r == 0) {
            if ((p->frame->flags & AV_FRAME_FLAG_CORRUPT) || p->frame->decode_error_flags)
                return sq_in_fail(in, -EINVAL, "frame %lld is corrupt (the decoder had to conceal errors)",
                                  in->frame_no);
            return 1;
        }
        if (r == AVERROR_EOF)
            return 0;
        if (r != AVERROR(EAGAIN))
            return sq_in_fail(in, -EINVAL, "cannot decode frame %lld: %s", in->frame_no,
                              sq_lav_msg(r, eb, sizeof eb));
        if (p->drained)
            return 0;
        for (;;) {
            r = sq_lav.av_read_frame(p->fmt, p->pkt);
            if (r == AVERROR_EOF) {
                p->drained = 1;
                r = sq_lav.avcodec_send_packet(p->dec, NULL);
                break;
            }
            if (r < 0) {
                if (sq_in_ioerror(in))
                    return sq_in_fail(in, -EIO, "read error before frame %lld", in->frame_no);
                return sq_in_fail(in, -EINVAL, "cannot read the packet of frame %lld: %s",
                                  in->frame_no, sq_lav_msg(r, eb, sizeof eb));
            }
            if (p->pkt->stream_index != p->stream) {
                sq_lav.av_packet_unref(p->pkt);
                continue;
            }
            /* a short read at a cut (IVF, MP4, ...): scoring what is left
             * would present a shorter video as the whole one */
            if (p->pkt->flags & AV_PKT_FLAG_CORRUPT) {
                sq_lav.av_packet_unref(p->pkt);
                return sq_in_fail(in, -EINVAL, "a packet is truncated or corrupt (the file was "
                                  "cut short?)");
            }
            r = sq_lav.avcodec_send_packet(p->dec, p->pkt);
            sq_lav.av_packet_unref(p->pkt);
            break;
        }
        if (r < 0 && r != AVERROR(EAGAIN) && r != AVERROR_EOF)
            return sq_in_fail(in, -EINVAL, "cannot decode frame %lld: %s", in->frame_no,
                              sq_lav_msg(r, eb, sizeof eb));
    }
}

static int same_shape(const SqInput *in, const LavPriv *p)
{
    const AVFrame *f = p->frame;
    return f->width == in->info.format.width && f->height == in->info.format.height &&
           f->format == p->pix && (p->pix != AV_PIX_FMT_CUDA || sq_lav_surface_format(f) == p->sw);
}

static int check_shape(SqInput *in, const LavPriv *p)
{
    if (same_shape(in, p))
        return 0;
    return sq_in_fail(in, -EINVAL, "frame %lld is %dx%d %s, the stream started as %dx%d %s",
                      in->frame_no, p->frame->width, p->frame->height,
                      sq_lav_pix_name((enum AVPixelFormat)p->frame->format), in->info.format.width,
                      in->info.format.height, sq_lav_pix_name(p->pix));
}

/* Packs the decoded planes into in->buf, the layout the other readers use. */
static void copy_frame(SqInput *in, const AVFrame *f)
{
    const SpeedqaFormat *fmt = &in->info.format;
    const int planes = fmt->fmt == SPEEDQA_PIX_400 ? 1 : 3;
    for (int i = 0; i < planes; i++) {
        int h = fmt->height;
        if (i > 0 && fmt->fmt == SPEEDQA_PIX_420)
            h = (h + 1) >> 1;
        const size_t row = (size_t)in->stride[i];
        unsigned char *dst = in->buf + in->plane_off[i];
        for (int y = 0; y < h; y++)
            memcpy(dst + (size_t)y * row, f->data[i] + (ptrdiff_t)y * f->linesize[i], row);
    }
}

static void set_info(SqInput *in, const LavPriv *p)
{
    const AVStream *st = p->fmt->streams[p->stream];
    AVRational r = st->avg_frame_rate.num > 0 ? st->avg_frame_rate : st->r_frame_rate;
    if (r.num > 0 && r.den > 0) {
        in->info.fps_num = r.num;
        in->info.fps_den = r.den;
    }
    /* Container counts are hints (used for progress), not promises. */
    if (st->nb_frames > 0)
        in->info.frames = st->nb_frames;
    else if (st->duration > 0 && r.num > 0 && r.den > 0)
        in->info.frames = sq_lav.av_rescale_q(st->duration, st->time_base, av_inv_q(r));
    else if (p->fmt->duration > 0 && r.num > 0 && r.den > 0)
        in->info.frames = sq_lav.av_rescale_q(p->fmt->duration, AV_TIME_BASE_Q, av_inv_q(r));
}

static void lav_close(SqInput *in);

static int lav_open_once(SqInput *in, int hw);

/*
 * With --hwaccel, a stream NVDEC cannot decode (a codec or profile it
 * lacks, 4:2:2, a size beyond it) is decoded in software from the start
 * again, with the decoder's threads, and info.note says so. A pipe cannot
 * be read again: there the frames the hwaccel attempt gave in software are
 * kept when it gave any.
 */
static int lav_open(SqInput *in, const SqRawParams *raw)
{
    (void)raw; /* geometry comes from the stream */
    int r = lav_open_once(in, in->hw_device >= 0);
    if (r != LAV_RETRY_SOFTWARE)
        return r;
    const off_t base = ((LavPriv *)in->priv)->base;
    lav_close(in);
    speedqa_buffer_free(in->buf);
    in->buf = NULL;
    in->info.device_frames = 0;
    in->layout = SPEEDQA_LAYOUT_PLANAR;
    in->msb_aligned = 0;
    if (!in->seekable)
        return sq_in_fail(in, -EINVAL, "NVDEC cannot decode this stream, and a pipe cannot be "
                          "read again in software: drop --hwaccel");
    clearerr(in->f);
    if (fseeko(in->f, base, SEEK_SET) != 0)
        return sq_in_fail(in, -EIO, "cannot rewind to decode in software");
    in->pb_len = in->pb_pos = 0; /* the peeked bytes are read from the file again */
    in->msg[0] = '\0';
    char note[sizeof in->note];
    snprintf(note, sizeof note, "%s", in->note);
    r = lav_open_once(in, 0);
    snprintf(in->note, sizeof in->note, "%s", note);
    in->info.note = in->note[0] ? in->note : NULL;
    return r;
}

static int lav_open_once(SqInput *in, int hw)
{
    char eb[128], hw_why[160] = "";
    /* First compressed input of the process: load libav now. A missing
     * library is an error, never a silent fallback to raw (an mp4 read
     * as raw YUV would give scores, just meaningless ones). */
    const char *why;
    if (sq_lav_load(&why) < 0)
        return sq_in_fail(in, -ENOSYS, "%s", why);
    LavPriv *p = calloc(1, sizeof *p);
    if (!p)
        return sq_in_fail(in, -ENOMEM, "out of memory");
    in->priv = p;
    p->stream = -1;
    /* The CLI's promise is one clear line per error: libav's own chatter
     * would break it, and every failure it reports reaches us as a code. */
    sq_lav.av_log_set_level(AV_LOG_QUIET);

    if (in->seekable)
        p->base = ftello(in->f) - (off_t)in->pb_len;
    unsigned char *iobuf = sq_lav.av_malloc(LAV_IO_BUF);
    if (!iobuf)
        return sq_in_fail(in, -ENOMEM, "out of memory");
    p->io = sq_lav.avio_alloc_context(iobuf, LAV_IO_BUF, 0, in, sq_lav_io_read, NULL,
                                      in->seekable ? sq_lav_io_seek : NULL);
    if (!p->io) {
        sq_lav.av_free(iobuf);
        return sq_in_fail(in, -ENOMEM, "out of memory");
    }
    p->fmt = sq_lav.avformat_alloc_context();
    if (!p->fmt)
        return sq_in_fail(in, -ENOMEM, "out of memory");
    p->fmt->pb = p->io;
    p->fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
    /* Only the containers video is scored from are probed: libav has hundreds of
     * demuxers, and some loop forever on crafted input (5.1's NUT demuxer spins in
     * find_stream_info on a 1.7 KB file the fuzzer made, ffprobe too; no read or
     * interrupt callback runs there), which would hang a whole batch. */
    AVDictionary *fo = NULL;
    int r = sq_lav.av_dict_set(&fo, "format_whitelist", LAV_CONTAINERS, 0);
    /* The name only serves as a probing hint (its extension). */
    if (r >= 0)
        r = sq_lav.avformat_open_input(&p->fmt, strcmp(in->name, "<stdin>") ? in->name : "",
                                       NULL, &fo);
    sq_lav.av_dict_free(&fo);
    if (r < 0) {
        /* avformat_open_input freed the context on failure */
        if (sq_in_ioerror(in))
            return sq_in_fail(in, -EIO, "read error: %s", sq_lav_msg(r, eb, sizeof eb));
        sq_in_fail(in, -EINVAL, "not a Y4M file and no raw geometry given (-w -h -p -b), "
                   "and not a container speedqa decodes (mp4/mov, mkv/webm, avi, ts, ps, mxf, "
                   "flv, ivf, raw H.264/HEVC/AV1/MPEG video)");
        return -ENOEXEC;
    }
    r = sq_lav.avformat_find_stream_info(p->fmt, NULL);
    if (r < 0)
        return sq_in_fail(in, -EINVAL, "cannot find the streams (%s)", sq_lav_msg(r, eb, sizeof eb));
    if (strstr(p->fmt->iformat->name, "matroska") && (r = sq_lav_mkv_cut(in, p)) < 0)
        return r;
    const AVCodec *codec = NULL;
    r = sq_lav.av_find_best_stream(p->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (r == AVERROR_STREAM_NOT_FOUND)
        return sq_in_fail(in, -EINVAL, "no video stream (%s container)", p->fmt->iformat->name);
    if (r < 0 || !codec) {
        enum AVCodecID id = AV_CODEC_ID_NONE;
        for (unsigned i = 0; i < p->fmt->nb_streams; i++)
            if (p->fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO)
                id = p->fmt->streams[i]->codecpar->codec_id;
        return sq_in_fail(in, -EINVAL, "no decoder for the %s video stream in this ffmpeg build",
                          sq_lav.avcodec_get_name(id));
    }
    p->stream = r;
    for (unsigned i = 0; i < p->fmt->nb_streams; i++)
        if ((int)i != p->stream)
            p->fmt->streams[i]->discard = AVDISCARD_ALL;

    const AVCodec *sw_codec = codec;
    if (hw) {
        const AVCodec *c = sq_lav_hw_codec(codec);
        if (!c) {
            snprintf(in->note, sizeof in->note, "%s: libav has no CUDA decoding for %s: "
                     "decoding in software", in->name, codec->name);
            in->info.note = in->note;
            hw = 0;
        } else {
            codec = c;
            char dev[16];
            snprintf(dev, sizeof dev, "%d", in->hw_device);
            AVDictionary *o = NULL;
            /* the device's primary context: the CUDA backend's, so that its
             * copies read the decoder's surfaces in the same context */
            r = sq_lav.av_dict_set(&o, "primary_ctx", "1", 0);
            if (r >= 0)
                r = sq_lav.av_hwdevice_ctx_create(&p->hwdev, AV_HWDEVICE_TYPE_CUDA, dev, o, 0);
            sq_lav.av_dict_free(&o);
            if (r < 0)
                return sq_in_fail(in, -ENODEV, "--hwaccel cuda: no usable CUDA device %d (libav: %s; "
                                  "NVDEC needs an NVIDIA GPU and its driver's libcuda.so.1)",
                                  in->hw_device, sq_lav_msg(r, eb, sizeof eb));
            for (int i = 0; i < SQ_INPUT_HW_HELD; i++)
                if (!(p->held[i].frame = sq_lav.av_frame_alloc()))
                    return sq_in_fail(in, -ENOMEM, "out of memory");
        }
    }
    p->hw = hw;

    p->dec = sq_lav.avcodec_alloc_context3(codec);
    p->pkt = sq_lav.av_packet_alloc();
    p->frame = sq_lav.av_frame_alloc();
    if (!p->dec || !p->pkt || !p->frame)
        return sq_in_fail(in, -ENOMEM, "out of memory");
    r = sq_lav.avcodec_parameters_to_context(p->dec, p->fmt->streams[p->stream]->codecpar);
    if (r >= 0 && hw) {
        if (!(p->dec->hw_device_ctx = sq_lav.av_buffer_ref(p->hwdev)))
            return sq_in_fail(in, -ENOMEM, "out of memory");
        p->dec->get_format = sq_lav_pick_format;
        /* Surfaces for the frames we hold (the read-ahead; the CUDA backend
         * gives a frame back as soon as its copy is queued). libav's CUDA
         * frame pool grows on demand and a returned frame holds no NVDEC
         * decode surface, so this cannot deadlock; asking for these keeps
         * the pool from growing in steady state. (NVDEC caps its decode
         * surfaces at 32, so not more: HEVC's DPB takes 17 of them.) */
        p->dec->extra_hw_frames = SQ_INPUT_HW_AHEAD;
        /* NVDEC does the work: frame threads would only hold more surfaces */
        p->dec->thread_count = 1;
    } else if (r >= 0) {
        p->dec->thread_count = in->decode_threads; /* 0: libav's; the output is the same */
        /* One thread flags every concealed frame, and explode is safe there
         * (with frame threads it can abort libavcodec 5.1: see below) */
        if (in->decode_threads == 1)
            p->dec->err_recognition |= AV_EF_EXPLODE;
    }
    /* Not AV_EF_EXPLODE by default, though libav's corrupt-frame flag is a race
     * with frame threads (one run exits 3, the next 0): with frame threads,
     * explode reaches an assertion in libavcodec 5.1 that aborts the
     * process (tests/fuzz/corpus/lav/explode-abort-m4v, a crafted MPEG-4
     * stream). A crash is worse than an exit code that varies. */
    if (r >= 0)
        r = sq_lav.avcodec_open2(p->dec, codec, NULL);
    if (r < 0 && hw) {
        snprintf(hw_why, sizeof hw_why, "the decoder did not open: %s", sq_lav_msg(r, eb, sizeof eb));
        goto software;
    }
    if (r < 0)
        return sq_in_fail(in, -EINVAL, "cannot open the %s decoder (%s)", codec->name,
                          sq_lav_msg(r, eb, sizeof eb));

    /* The first frame says what the decoder really outputs. */
    r = decode(in, p);
    if (hw && (r != 1 || p->frame->format != AV_PIX_FMT_CUDA)) {
        if (r == 1)
            snprintf(hw_why, sizeof hw_why, "its first frame came in %s", sq_lav_pix_name(p->frame->format));
        else
            snprintf(hw_why, sizeof hw_why, "%.150s", r < 0 && in->msg[0] ? in->msg : "no first frame");
        /* on a pipe, keep the software frames the native decoder gave */
        if (!(r == 1 && !in->seekable && codec == sw_codec))
            goto software;
        hw = 0;
        snprintf(in->note, sizeof in->note, "%s: NVDEC cannot decode this %s stream (%s): "
                 "decoding in software", in->name, codec->name, hw_why);
        in->info.note = in->note;
    }
    if (r < 0)
        return r;
    if (r == 0)
        return sq_in_fail(in, -EINVAL, "the %s stream has no decodable frame", codec->name);
    p->pending = 1;
    p->pix = (enum AVPixelFormat)p->frame->format;
    SpeedqaFormat f = { p->frame->width, p->frame->height, SPEEDQA_PIX_420, 0 };
    if (p->pix == AV_PIX_FMT_CUDA && sq_lav_device_format(in, p, &f) < 0) {
        snprintf(in->note, sizeof in->note, "%s: NVDEC gives %s surfaces for this %s stream, "
                 "which speedqa does not read: decoding in software", in->name,
                 sq_lav_pix_name(sq_lav_surface_format(p->frame)), codec->name);
        return LAV_RETRY_SOFTWARE;
    }
    for (size_t i = 0; i < sizeof pix_map / sizeof pix_map[0]; i++)
        if (pix_map[i].pix == p->pix) {
            f.fmt = pix_map[i].fmt;
            f.bpc = pix_map[i].bpc;
        }
    if (!f.bpc)
        return sq_in_fail(in, -EINVAL, "pixel format '%s' (%s) is not supported: need planar "
                          "YUV 4:2:0, 4:2:2, 4:4:4 or gray at 8, 10, 12 or 16 bits",
                          sq_lav_pix_name(p->pix), codec->name);
    r = sq_in_set_format(in, &f);
    if (r < 0)
        return r;
    set_info(in, p);
    /* AVColorRange and AVColorSpace use the ISO/IEC 23091-2 numbers too */
    const enum AVPixelFormat sp = p->pix == AV_PIX_FMT_CUDA ? p->dec->sw_pix_fmt : p->pix;
    const int jpeg = sp == AV_PIX_FMT_YUVJ420P || sp == AV_PIX_FMT_YUVJ422P ||
                     sp == AV_PIX_FMT_YUVJ444P;
    in->info.range = jpeg ? SQ_RANGE_FULL : p->frame->color_range == AVCOL_RANGE_JPEG ? SQ_RANGE_FULL
                   : p->frame->color_range == AVCOL_RANGE_MPEG ? SQ_RANGE_LIMITED : SQ_RANGE_UNKNOWN;
    in->info.matrix = (int)p->frame->colorspace;
    return 0;

software:
    if (!in->note[0]) {
        snprintf(in->note, sizeof in->note, "%s: NVDEC cannot decode this %s stream (%s): "
                 "decoding in software", in->name, codec->name, hw_why);
        in->info.note = in->note;
    }
    return LAV_RETRY_SOFTWARE;
}

static int next_frame(SqInput *in, LavPriv *p)
{
    if (p->pending) {
        p->pending = 0;
        return 1;
    }
    int r = decode(in, p);
    if (r == 1)
        r = check_shape(in, p) < 0 ? -EINVAL : 1;
    return r;
}

static int lav_read(SqInput *in)
{
    LavPriv *p = in->priv;
    int r = next_frame(in, p);
    if (r == 1 && p->pix == AV_PIX_FMT_CUDA)
        return sq_lav_lend_frame(in, p);
    /* the decoder's own buffer, lent: its reference goes back at release */
    if (r == 1 && in->lend && sq_lav_lend_frame(in, p) == 1)
        return 1;
    if (r == 1) {
        copy_frame(in, p->frame);
        sq_lav.av_frame_unref(p->frame);
    }
    return r;
}

static int lav_skip(SqInput *in)
{
    LavPriv *p = in->priv;
    int r = next_frame(in, p);
    if (r == 1)
        sq_lav.av_frame_unref(p->frame);
    return r;
}

static void lav_close(SqInput *in)
{
    LavPriv *p = in->priv;
    if (!p)
        return;
    sq_lav.av_frame_free(&p->frame);
    sq_lav.av_frame_free(&p->host);
    /* frames read ahead and never handed out; lent ones are all back (the
     * CUDA backend gives a device picture back once its copy is queued) */
    for (int i = 0; i < SQ_INPUT_HW_HELD; i++)
        sq_lav.av_frame_free(&p->held[i].frame);
    sq_lav.av_packet_free(&p->pkt);
    sq_lav.avcodec_free_context(&p->dec);
    sq_lav.av_buffer_unref(&p->hwdev);
    if (p->fmt)
        sq_lav.avformat_close_input(&p->fmt);
    if (p->io) {
        sq_lav.av_freep(&p->io->buffer);
        sq_lav.avio_context_free(&p->io);
    }
    free(p);
    in->priv = NULL;
}

const SqReader sq_reader_lav = {
    .name = "lav",
    .open = lav_open,
    .read = lav_read,
    .skip = lav_skip,
    .close = lav_close,
};
