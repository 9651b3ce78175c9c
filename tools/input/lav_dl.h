/*
 * libav loaded on demand: the CLI's start-up and its Y4M/YUV runs never
 * touch libavformat/libavcodec/libavutil (over a hundred shared libraries
 * with their dependencies), and the binary runs where they are missing.
 *
 * The headers are those the tool was built with; the libraries opened are
 * their sonames (libavformat.so.<LIBAVFORMAT_VERSION_MAJOR> ...), so the
 * struct layouts compiled into lav.c match the runtime ABI.
 */
#ifndef SQ_LAV_DL_H
#define SQ_LAV_DL_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>

/* Every libav function lav.c calls, with the library that exports it.
 * (av_inv_q is inline in the headers and needs no entry.) */
#define SQ_LAV_FUNCS(X)                          \
    X(SQ_LAV_UTIL, av_buffer_ref)                \
    X(SQ_LAV_UTIL, av_buffer_unref)              \
    X(SQ_LAV_UTIL, av_dict_free)                 \
    X(SQ_LAV_UTIL, av_dict_set)                  \
    X(SQ_LAV_UTIL, av_frame_move_ref)            \
    X(SQ_LAV_UTIL, av_hwdevice_ctx_create)       \
    X(SQ_LAV_UTIL, av_hwframe_transfer_data)     \
    X(SQ_LAV_UTIL, av_pix_fmt_desc_get)          \
    X(SQ_LAV_UTIL, av_free)                      \
    X(SQ_LAV_UTIL, av_freep)                     \
    X(SQ_LAV_UTIL, av_malloc)                    \
    X(SQ_LAV_UTIL, av_frame_alloc)               \
    X(SQ_LAV_UTIL, av_frame_free)                \
    X(SQ_LAV_UTIL, av_frame_unref)               \
    X(SQ_LAV_UTIL, av_get_pix_fmt_name)          \
    X(SQ_LAV_UTIL, av_log_set_level)             \
    X(SQ_LAV_UTIL, av_rescale_q)                 \
    X(SQ_LAV_UTIL, av_strerror)                  \
    X(SQ_LAV_CODEC, av_packet_alloc)             \
    X(SQ_LAV_CODEC, av_packet_free)              \
    X(SQ_LAV_CODEC, av_packet_unref)             \
    X(SQ_LAV_CODEC, avcodec_alloc_context3)      \
    X(SQ_LAV_CODEC, avcodec_find_decoder_by_name) \
    X(SQ_LAV_CODEC, avcodec_free_context)        \
    X(SQ_LAV_CODEC, avcodec_get_hw_config)       \
    X(SQ_LAV_CODEC, avcodec_get_name)            \
    X(SQ_LAV_CODEC, avcodec_open2)               \
    X(SQ_LAV_CODEC, avcodec_parameters_to_context) \
    X(SQ_LAV_CODEC, avcodec_receive_frame)       \
    X(SQ_LAV_CODEC, avcodec_send_packet)         \
    X(SQ_LAV_FORMAT, av_find_best_stream)        \
    X(SQ_LAV_FORMAT, av_read_frame)              \
    X(SQ_LAV_FORMAT, avformat_alloc_context)     \
    X(SQ_LAV_FORMAT, avformat_close_input)       \
    X(SQ_LAV_FORMAT, avformat_find_stream_info)  \
    X(SQ_LAV_FORMAT, avformat_open_input)        \
    X(SQ_LAV_FORMAT, avio_alloc_context)         \
    X(SQ_LAV_FORMAT, avio_context_free)

/* Pointer types come from the headers' own prototypes (__typeof__, which
 * GCC and Clang accept in strict C11), so a signature cannot drift. */
typedef struct SqLavFns {
#define SQ_LAV_MEMBER(lib, fn) __typeof__(fn) *fn;
    SQ_LAV_FUNCS(SQ_LAV_MEMBER)
#undef SQ_LAV_MEMBER
} SqLavFns;

/* Filled by a successful sq_lav_load(); read-only after that. */
extern SqLavFns sq_lav;

/*
 * Opens the three libraries and resolves every entry of sq_lav, once per
 * process (later calls return the first result). 0 on success; otherwise
 * -ENOSYS and *why (if non-NULL) points to a static one-line reason naming
 * the dlerror and the packages that provide libav.
 */
int sq_lav_load(const char **why);

#endif
