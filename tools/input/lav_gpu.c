/*
 * NVDEC's side of the libav reader (--hwaccel cuda): which decoder and
 * surface, frames lent as device pictures, and a host copy of a lent frame
 * for what reads host memory only (libvmaf's features under --model).
 */
#include <errno.h>
#include <string.h>

#include "lav_priv.h"

/* The layout of a GPU frame's surface (AV_PIX_FMT_NONE for a host frame). */
enum AVPixelFormat sq_lav_surface_format(const AVFrame *f)
{
    if (f->format != AV_PIX_FMT_CUDA || !f->hw_frames_ctx)
        return AV_PIX_FMT_NONE;
    return ((const AVHWFramesContext *)(const void *)f->hw_frames_ctx->data)->sw_format;
}

/* The decoder offers its formats: the GPU one when NVDEC can take the
 * stream (libav drops it and asks again when the hwaccel fails to start). */
enum AVPixelFormat sq_lav_pick_format(AVCodecContext *dec, const enum AVPixelFormat *fmts)
{
    (void)dec;
    for (const enum AVPixelFormat *f = fmts; *f != AV_PIX_FMT_NONE; f++)
        if (*f == AV_PIX_FMT_CUDA)
            return *f;
    for (const enum AVPixelFormat *f = fmts; *f != AV_PIX_FMT_NONE; f++) {
        const AVPixFmtDescriptor *d = sq_lav.av_pix_fmt_desc_get(*f);
        if (d && !(d->flags & AV_PIX_FMT_FLAG_HWACCEL))
            return *f;
    }
    return AV_PIX_FMT_NONE;
}

static int has_cuda(const AVCodec *c)
{
    const AVCodecHWConfig *h;
    for (int i = 0; (h = sq_lav.avcodec_get_hw_config(c, i)) != NULL; i++)
        if (h->device_type == AV_HWDEVICE_TYPE_CUDA &&
            (h->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX))
            return 1;
    return 0;
}

/* The decoder NVDEC works through: libav's own one (AV1's default is
 * libdav1d, which has no hwaccel; the native "av1" decodes only on one). */
const AVCodec *sq_lav_hw_codec(const AVCodec *codec)
{
    if (codec->id == AV_CODEC_ID_AV1) {
        const AVCodec *n = sq_lav.avcodec_find_decoder_by_name("av1");
        if (n)
            codec = n;
    }
    return has_cuda(codec) ? codec : NULL;
}

/* The first GPU frame's SpeedqaFormat and layout; 0, or -1 for a surface we do not know. */
int sq_lav_device_format(SqInput *in, LavPriv *p, SpeedqaFormat *f)
{
    const AVPixFmtDescriptor *d = sq_lav.av_pix_fmt_desc_get(p->dec->sw_pix_fmt);
    const int depth = d ? d->comp[0].depth : 8;
    p->sw = sq_lav_surface_format(p->frame);
    f->bpc = depth;
    /* NVDEC's 16-bit surfaces hold the samples in their top bits */
    in->msb_aligned = depth > 8 && depth < 16;
    switch (p->sw) {
    case AV_PIX_FMT_NV12: f->fmt = SPEEDQA_PIX_420; in->layout = SPEEDQA_LAYOUT_SEMI_PLANAR; break;
    case AV_PIX_FMT_P010:
    case AV_PIX_FMT_P016: f->fmt = SPEEDQA_PIX_420; in->layout = SPEEDQA_LAYOUT_SEMI_PLANAR; break;
    case AV_PIX_FMT_YUV444P:
    case AV_PIX_FMT_YUV444P16: f->fmt = SPEEDQA_PIX_444; in->layout = SPEEDQA_LAYOUT_PLANAR; break;
    default: return -1;
    }
    if ((depth > 8) != (p->sw == AV_PIX_FMT_P010 || p->sw == AV_PIX_FMT_P016 ||
                        p->sw == AV_PIX_FMT_YUV444P16))
        return -1;
    in->info.device_frames = 1;
    return 0;
}

/* A lent frame comes back (any thread; twice is harmless). */
static void held_release(void *opaque, const void *data0)
{
    Held *h = opaque;
    int lent = 1;
    (void)data0;
    if (!atomic_compare_exchange_strong(&h->busy, &lent, 2))
        return;
    sq_lav.av_frame_unref(h->frame);
    atomic_store(&h->busy, 0);
}

/* p->frame into in->devpic, lent: a GPU frame, or a software one when the
 * caller gives pictures back (sq_input_lend: no copy into in->buf). 0 when
 * every holder is out (a software frame is then copied), or -EBUSY for a
 * GPU frame. */
int sq_lav_lend_frame(SqInput *in, LavPriv *p)
{
    const int gpu = p->pix == AV_PIX_FMT_CUDA;
    Held *h = NULL;
    for (int i = 0; i < SQ_INPUT_HW_HELD && !h; i++)
        if (atomic_load(&p->held[i].busy) == 0)
            h = &p->held[i];
    if (h && !h->frame && !(h->frame = sq_lav.av_frame_alloc()))
        h = NULL;
    if (!h && !gpu)
        return 0;
    if (!h)
        return sq_in_fail(in, -EBUSY, "more than %d decoded GPU frames held at once",
                          SQ_INPUT_HW_HELD);
    sq_lav.av_frame_move_ref(h->frame, p->frame);
    atomic_store(&h->busy, 1);
    SpeedqaPicture *pic = &in->devpic;
    memset(pic, 0, sizeof *pic);
    pic->format = in->info.format;
    pic->memory = gpu ? SPEEDQA_MEM_CUDA : SPEEDQA_MEM_HOST;
    pic->layout = in->layout;
    pic->msb_aligned = in->msb_aligned;
    const int planes = in->layout == SPEEDQA_LAYOUT_SEMI_PLANAR ? 2
                     : in->info.format.fmt == SPEEDQA_PIX_400 ? 1 : 3;
    for (int i = 0; i < planes; i++) {
        pic->data[i] = h->frame->data[i];
        pic->stride[i] = h->frame->linesize[i];
    }
    pic->release = held_release;
    pic->release_opaque = h;
    in->devpic_ready = 1;
    return 1;
}

/* The host frame's buffers are allocated by the first copy and reused:
 * av_hwframe_transfer_data keeps a destination that has its buffers. */
int sq_lav_host_copy(SqInput *in, LavPriv *p, const SpeedqaPicture *pic, SpeedqaPicture *out)
{
    char eb[128];
    const Held *h = pic->release_opaque;
    if (pic->release != held_release || !h || atomic_load(&h->busy) != 1)
        return sq_in_fail(in, -EINVAL, "a host copy asked for a picture this input has not lent");
    if (!p->host && !(p->host = sq_lav.av_frame_alloc()))
        return sq_in_fail(in, -ENOMEM, "out of memory for a host copy of a GPU frame");
    const int r = sq_lav.av_hwframe_transfer_data(p->host, h->frame, 0);
    if (r < 0)
        return sq_in_fail(in, -EIO, "cannot copy GPU frame %lld to the host: %s", in->frame_no,
                          sq_lav_msg(r, eb, sizeof eb));
    *out = *pic;
    out->memory = SPEEDQA_MEM_HOST;
    out->release = NULL;
    out->release_opaque = NULL;
    for (int i = 0; i < 3; i++) {
        out->data[i] = pic->data[i] ? p->host->data[i] : NULL;
        out->stride[i] = pic->data[i] ? p->host->linesize[i] : 0;
    }
    return 0;
}
