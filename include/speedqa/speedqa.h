/*
 * speedqa: SpEED-QA video quality features (speed_chroma, speed_temporal)
 * with the numbers Netflix libvmaf produces.
 *
 * Usage, in short:
 *   SpeedqaSettings s;
 *   speedqa_default_settings(&s);
 *   s.format = (SpeedqaFormat){ 1920, 1080, SPEEDQA_PIX_420, 8 };
 *   SpeedqaContext *ctx;
 *   if (speedqa_open(&ctx, &s) < 0) ...;
 *   for each frame:
 *     speedqa_send(ctx, &ref, &dis);   (-EAGAIN: queue full, receive first)
 *     while (speedqa_receive(ctx, &sc, 1, 0) == 0) use sc;
 *   speedqa_flush(ctx); while (speedqa_receive(ctx, &sc, 1, 0) == 0) use sc;
 *   speedqa_close(&ctx);
 *
 * Errors are negative errno values (SPEEDQA_ERR(EINVAL) ...). Every failing
 * call also passes one line describing the cause to the settings' logger.
 *
 * Every score speedqa_receive() returns is finite, or the call fails: a
 * frame whose samples exceed the declared bit depth fails with -ERANGE, a
 * speed_temporal or adm scale score the model leaves undefined with -EDOM. A chroma
 * score that is undefined (NaN) before the speed_max_val clip is published
 * as speed_max_val, the number libvmaf publishes, and flagged in
 * SpeedqaScores.undefined.
 *
 * Threading: a context is used by one thread at a time; distinct contexts
 * are independent (the library has no global mutable state).
 *
 * Growth: every public struct a later version may extend ends in reserved
 * room of a fixed size. A struct the caller passes in (SpeedqaSettings, its
 * sub-structs, SpeedqaPicture) must have that room zeroed, or the call
 * fails with -EINVAL, so that a field given a meaning later reads as its
 * default (0) for a caller built before it: zero-initialise them
 * (speedqa_default_settings(), SpeedqaPicture p = { 0 }). A struct the
 * library fills (SpeedqaScores, SpeedqaPooled) has its room written as
 * zeros. While the version is 0.x, a minor version may change any of
 * this, and the shared library's soname (libspeedqa.so.0.MINOR) changes
 * with it.
 */
#ifndef SPEEDQA_SPEEDQA_H
#define SPEEDQA_SPEEDQA_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* SPEEDQA_VERSION_MAJOR, _MINOR, _PATCH and SPEEDQA_VERSION_STRING, written
 * by meson from the project version (the one place it is set). */
#include "speedqa/version.h"
#define SPEEDQA_VERSION_INT(a, b, c) (((a) << 16) | ((b) << 8) | (c))
#define SPEEDQA_VERSION SPEEDQA_VERSION_INT(SPEEDQA_VERSION_MAJOR, \
    SPEEDQA_VERSION_MINOR, SPEEDQA_VERSION_PATCH)

/* SPEEDQA_BUILDING: set by the build for the library's own sources only
 * (exports). Clients of a Windows DLL get dllimport; clients of the static
 * library define SPEEDQA_STATIC. Elsewhere the public functions simply keep
 * default visibility (the library is built with -fvisibility=hidden). */
#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(SPEEDQA_BUILDING)
#define SPEEDQA_API __declspec(dllexport)
#elif defined(SPEEDQA_STATIC)
#define SPEEDQA_API
#else
#define SPEEDQA_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define SPEEDQA_API __attribute__((visibility("default")))
#else
#define SPEEDQA_API
#endif

/** Errors are returned as negative errno values. */
#define SPEEDQA_ERR(e) (-(e))

/** Largest number of feature instances one context runs. */
#define SPEEDQA_MAX_FEATURES 8
/** Largest number of distorted streams one ladder context scores. */
#define SPEEDQA_MAX_DISTORTED 16
/** Largest n_threads: each thread keeps scratch and frames of its own. */
#define SPEEDQA_MAX_THREADS 256

typedef enum SpeedqaPixelFormat {
    SPEEDQA_PIX_400 = 0, /**< luma only */
    SPEEDQA_PIX_420 = 1, /**< chroma planes (w >> 1) x (h >> 1) */
    SPEEDQA_PIX_422 = 2, /**< chroma planes (w >> 1) x h */
    SPEEDQA_PIX_444 = 3, /**< chroma planes w x h */
} SpeedqaPixelFormat;

/** Where a picture's planes live. */
typedef enum SpeedqaMemory {
    SPEEDQA_MEM_HOST = 0, /**< ordinary host memory */
    /**
     * CUdeviceptr values cast to pointers, in the primary context of the
     * chosen device (CUDA backend only). The device-to-device copy is queued
     * on the backend's stream before speedqa_send() returns and is ordered
     * before later work on the legacy default stream; a caller that writes
     * the planes from its own non-blocking stream must synchronise first.
     */
    SPEEDQA_MEM_CUDA = 1,
} SpeedqaMemory;

/**
 * Geometry of a video: luma size, chroma layout and bits per sample. A
 * value embedded in other structs: it keeps these four fields (what later
 * describes a picture further goes into the reserved room of the struct
 * holding it).
 */
typedef struct SpeedqaFormat {
    int width, height;     /**< luma size, 1 .. 65536 */
    SpeedqaPixelFormat fmt;
    int bpc;               /**< 8 .. 16 */
} SpeedqaFormat;

/**
 * How a picture's chroma planes are stored (SpeedqaPicture.layout).
 */
typedef enum SpeedqaLayout {
    /** Three planes: Y in data[0], U in data[1], V in data[2] (I420, I444 ...). */
    SPEEDQA_LAYOUT_PLANAR = 0,
    /**
     * Two planes: Y in data[0]; U and V interleaved (U first) in data[1],
     * stride[1], each row holding 2 x the chroma width samples (NV12,
     * P010, P016; NV16/NV24 for 4:2:2/4:4:4). data[2], stride[2] are
     * ignored. For 4:0:0 the layout changes nothing.
     */
    SPEEDQA_LAYOUT_SEMI_PLANAR = 1,
} SpeedqaLayout;

/**
 * One picture. Samples are uint8_t when bpc == 8, otherwise native-endian
 * uint16_t holding values below 2^bpc, LSB-aligned (a larger value in a row
 * a feature reads fails the frame with -ERANGE), or, with msb_aligned, in
 * the top bpc bits of each uint16_t (value = sample >> (16 - bpc); the low
 * bits are padding and ignored, so no value can be out of range and such
 * pictures are never range-checked).
 *   NV12: bpc 8, 4:2:0, SPEEDQA_LAYOUT_SEMI_PLANAR.
 *   P010: bpc 10, 4:2:0, SPEEDQA_LAYOUT_SEMI_PLANAR, msb_aligned = 1.
 *   P016: bpc 16, 4:2:0, SPEEDQA_LAYOUT_SEMI_PLANAR.
 * The settings' SpeedqaFormat is the same for every layout (a P010 video is
 * opened as 4:2:0 10-bit), and pictures of one context may mix layouts;
 * the scores of a picture equal, bit for bit, those of its planar,
 * LSB-aligned equivalent on every backend. Host planes and strides
 * may have any alignment, odd addresses of 16-bit samples included (a
 * frame in a mapped file); device planes need even ones.
 * Strides are in bytes and may be negative; |stride| must be at least the row's size in bytes
 * (-EINVAL otherwise; a semi-planar chroma row is 2 x the chroma width samples).
 *
 * Ownership. Without a release callback (release == NULL, the slow path)
 * the caller keeps the planes and the library copies what it needs before
 * speedqa_send() returns. With one, a send that succeeds lends the planes
 * to the library: it reads them in place (no copy) for as long as it needs
 * them (the frame's own scoring, and the next frame's speed_temporal, which
 * reads this one as its previous frame), then calls
 * release(release_opaque, data[0]) exactly once. The caller must not
 * change the planes until then. release may run on any library thread,
 * before or after speedqa_send() returns; every lent picture is released
 * by speedqa_flush()'s end of sequence once scored, and at the latest by
 * speedqa_close(). A send that fails reads the planes no more once it
 * returns: either no release comes (-EAGAIN, -EINVAL) or it has come
 * already (a failure after the frame was taken).
 *
 * Zero-initialise pictures (SpeedqaPicture p = { 0 }): a nonzero reserved
 * byte fails the send with -EINVAL (see Growth above).
 */
typedef void (*SpeedqaRelease)(void *opaque, const void *data0);

typedef struct SpeedqaPicture {
    const void *data[3];   /**< Y, U, V (U and V ignored for 4:0:0; semi-planar: Y, UV) */
    ptrdiff_t stride[3];
    SpeedqaFormat format;
    SpeedqaMemory memory;
    SpeedqaRelease release; /**< NULL: copied at send (see above) */
    void *release_opaque;
    /** SPEEDQA_LAYOUT_PLANAR (0, default) or SPEEDQA_LAYOUT_SEMI_PLANAR. */
    SpeedqaLayout layout;
    /**
     * 0 (default) or 1: bpc-bit values in the top bits of 16-bit samples
     * (P010 style). Only for bpc 9..15 (-EINVAL otherwise).
     */
    int msb_aligned;
    uint8_t reserved[32];   /**< must be zero (-EINVAL otherwise), for later use */
} SpeedqaPicture;

typedef enum SpeedqaBackend {
    SPEEDQA_BACKEND_AUTO = 0, /**< best available: a GPU backend if one works, else CPU */
    SPEEDQA_BACKEND_CPU = 1,
    SPEEDQA_BACKEND_CUDA = 2,
    SPEEDQA_BACKEND_HIP = 3,
    SPEEDQA_BACKEND_OPENCL = 4,
} SpeedqaBackend;

typedef enum SpeedqaLogLevel {
    SPEEDQA_LOG_ERROR = 0,
    SPEEDQA_LOG_WARNING = 1,
    SPEEDQA_LOG_INFO = 2,
    SPEEDQA_LOG_DEBUG = 3,
} SpeedqaLogLevel;

/** Receives one message line (no trailing newline). */
typedef void (*SpeedqaLogger)(void *cookie, SpeedqaLogLevel level, const char *msg);

/**
 * CPU instruction set levels, for SpeedqaSettings.cpu_mask. Each
 * level replaces only its own functions: AVX2 alone is cpu_mask
 * SPEEDQA_CPU_AVX2, C only is 0. The numbers never depend on the mask.
 */
#define SPEEDQA_CPU_AVX2 (1u << 0)   /**< x86-64 AVX2 */
#define SPEEDQA_CPU_AVX512 (1u << 1) /**< x86-64 AVX-512 F/BW/DQ/VL */
#define SPEEDQA_CPU_NEON (1u << 2)   /**< arm64 Advanced SIMD */

/**
 * Settings only the CUDA backend reads, and HIP, which runs the same
 * runtime code; the other backends ignore them. Zero is every default.
 */
typedef struct SpeedqaCudaSettings {
    /**
     * 1 = speedqa_close() leaves the device's primary context retained,
     * and the driver loaded, until the process exits (as the CUDA runtime
     * keeps them), instead of tearing them down: a later open in the same
     * process finds the context made. The device memory the context itself
     * takes stays taken until exit. 0 (default) or 1, else -EINVAL.
     */
    int keep_device;
    uint8_t reserved[28];    /**< must be zero (-EINVAL otherwise), for later use */
} SpeedqaCudaSettings;

/** Settings only the OpenCL backend reads; the others ignore them. */
typedef struct SpeedqaOpenclSettings {
    /**
     * 1 = build the kernels on the library's integer (soft) doubles even
     * on a device with cl_khr_fp64, as a device without it always is (the
     * same numbers; for testing that path). 0 (default) or 1, else -EINVAL.
     */
    int soft_f64;
    uint8_t reserved[28];    /**< must be zero (-EINVAL otherwise), for later use */
} SpeedqaOpenclSettings;

typedef struct SpeedqaSettings {
    /**
     * The geometry of the reference and of every distorted stream (one
     * format: pictures of both sides must match it). Default unset: the
     * caller must fill it.
     */
    SpeedqaFormat format;
    /**
     * Feature instances, libvmaf syntax "name" or "name=opt=value:opt=value"
     * with full option names (e.g. "speed_chroma=speed_kernelscale=0.5").
     * NULL-terminated; NULL (default) means speed_chroma and speed_temporal
     * with default options.
     */
    const char *const *features;
    /**
     * Threads, 0 .. SPEEDQA_MAX_THREADS; 0 = speedqa_auto_threads()
     * (default 1). The CPU backend scores that many frames in parallel, and
     * a frame alone in flight (a caller that waits for each frame's scores)
     * has its planes shared by the idle threads; GPU backends use them to
     * copy host pictures into pinned staging. Scores never depend on it. A
     * CPU worker keeps about two frames in flight: lent pictures in place,
     * others as copies (at most 1 GiB of them in all).
     */
    int n_threads;
    SpeedqaBackend backend;  /**< default SPEEDQA_BACKEND_CPU */
    /**
     * Ladder: the number of distorted streams scored against the one
     * reference, 1 .. SPEEDQA_MAX_DISTORTED (0 = 1, default). Above 1, frames
     * go in with speedqa_send_ladder() and come out n at a time from
     * speedqa_receive(); the reference side of every feature is computed
     * once per frame and shared, and each stream's scores are bit for bit
     * those of its own single-stream context. Ladders run on the CPU
     * backend (AUTO picks it; a GPU backend answers -ENOSYS).
     */
    int n_distorted;
    unsigned cpu_mask;       /**< allowed SPEEDQA_CPU_* levels (default all) */
    int device;              /**< GPU index for GPU backends, -1 = first usable (default) */
    const char *device_name; /**< if set: first GPU whose name contains this (case-insensitive) */
    /**
     * GPU backends: frames per batch, 1 .. 32; 0 = the backend's choice
     * (default). The pinned staging and the device arena, and so a
     * context's open and close time, scale with it; the scores never
     * depend on it.
     */
    int gpu_batch;
    SpeedqaLogLevel log_level; /**< default SPEEDQA_LOG_WARNING */
    SpeedqaLogger logger;    /**< NULL: messages are dropped (default) */
    void *log_cookie;
    /**
     * Host memory allocator for every allocation the library makes, or NULL
     * for malloc/free (default). alloc returns memory aligned to at least
     * 64 bytes or NULL; the library handles NULL as -ENOMEM everywhere.
     * Both or neither (-EINVAL).
     */
    void *(*alloc)(void *opaque, size_t size);
    void (*free)(void *opaque, void *ptr);
    void *alloc_opaque;
    SpeedqaCudaSettings cuda;
    SpeedqaOpenclSettings opencl;
    uint8_t reserved[88];    /**< must be zero (-EINVAL otherwise), for later use */
} SpeedqaSettings;

/**
 * Scores of one frame of one stream, in the order speedqa_score_name()
 * lists them. The values belong to the context: values and undefined point
 * into it and stay valid until the next speedqa_receive() or
 * speedqa_close() on that context (copy what must outlive it). Their
 * number is speedqa_score_count(), which no constant of this header
 * bounds.
 */
typedef struct SpeedqaScores {
    unsigned frame;          /**< 0-based index of the frame pair, in send order since open */
    /**
     * A flush ends a sequence: the next frame sent starts the next one.
     * sequence: 0-based number of the frame's sequence; sequence_frame: its
     * index within it (speed_temporal is 0 exactly when this is 0).
     */
    unsigned sequence, sequence_frame;
    /** speedqa_score_count(), or 0 for a ladder stream that had ended (NULL arrays). */
    int count;
    const double *values;
    /**
     * undefined[i] == 1: score i is undefined on this frame (NaN before the
     * speed_max_val clip of speed_chroma) and values[i] holds that
     * feature's speed_max_val, as libvmaf publishes it; or adm's aim and
     * adm3 on a frame whose CSF denominator is 0, which libvmaf leaves
     * uninitialised (values[i]: aim 0, adm3 from it); else 0. Only those
     * outputs can be flagged; values[i] is finite regardless.
     */
    const uint8_t *undefined;
    uint8_t reserved[32];    /**< written as zero */
} SpeedqaScores;

typedef struct SpeedqaContext SpeedqaContext;

/** Library version string, e.g. "0.1.0". */
SPEEDQA_API const char *speedqa_version(void);

/**
 * Version of the library in use as SPEEDQA_VERSION_INT(major, minor, patch),
 * to compare with the SPEEDQA_VERSION a program was built against.
 */
SPEEDQA_API unsigned speedqa_version_int(void);

/** "420", "422", "444", "400" (vmaf's -p spelling), or "unknown". Never NULL. */
SPEEDQA_API const char *speedqa_pix_fmt_name(SpeedqaPixelFormat fmt);

/**
 * Check feature strings (SpeedqaSettings.features syntax) without a
 * context: 0 when every name and option is valid, else one line in err and
 * -ENOTSUP for a feature or option speedqa does not implement (libvmaf may:
 * an unknown name or option, cambi's encode-size and full-reference
 * options), -EEXIST for a feature given twice (the same name and
 * options, which would give the same outputs), -EINVAL for anything else (a
 * bad value, an option set with no result). A speedqa_open that fails
 * with -EINVAL on features this accepts failed on the format (4:0:0 with
 * speed_chroma, a plane too small).
 */
SPEEDQA_API int speedqa_check_features(const char *const *features, char *err, size_t errlen);

/**
 * Memory for picture planes the caller fills: 64-byte aligned, on huge
 * pages when it is frame-sized. NULL on failure. Free with
 * speedqa_buffer_free (NULL is fine).
 */
SPEEDQA_API void *speedqa_buffer_alloc(size_t size);
SPEEDQA_API void speedqa_buffer_free(void *ptr);

/**
 * Library pictures, the fast path for a caller that writes its frames
 * itself (a decoder's output, a generator). speedqa_picture_alloc() fills
 * *pic with a planar, LSB-aligned picture of the context's format whose
 * planes the library owns: page-locked (pinned) host memory on the GPU
 * backends, uploaded by DMA straight from the planes (no staging copy, no
 * host CPU time), and 64-byte aligned, huge-page memory on the CPU backend,
 * read in place. Rows start 64-byte aligned (stride[] gives the pitch).
 * The picture holds one reference, and its release callback drops one:
 * sending it hands that reference to the library, which drops it once it
 * has read the planes (see Ownership above); speedqa_picture_unref() drops
 * it without sending; speedqa_picture_ref() takes one more (to send the
 * picture again, to another context too, or to keep reading it after
 * sending). The last reference gives the planes back to the context, whose
 * next speedqa_picture_alloc() reuses them, so the steady state allocates
 * nothing. Not concurrently with another call on the same context. After
 * speedqa_close() a picture still referenced may only be unreferenced.
 * Returns 0, -EINVAL or -ENOMEM (pic zeroed).
 */
SPEEDQA_API int speedqa_picture_alloc(SpeedqaContext *ctx, SpeedqaPicture *pic);
/** One reference more on a library picture: 0, or -EINVAL for another picture. */
SPEEDQA_API int speedqa_picture_ref(const SpeedqaPicture *pic);
/** Drop the caller's reference (any picture with a release callback: release it) and zero *pic. */
SPEEDQA_API void speedqa_picture_unref(SpeedqaPicture *pic);

/**
 * Number of threads n_threads = 0 asks for: one per online CPU core, at
 * least 1 and at most 64 (past that, the frames a CPU context keeps in
 * flight grow while no more of them can be read at once).
 */
SPEEDQA_API int speedqa_auto_threads(void);

/** Returned by speedqa_receive once everything flushed has been received. */
#define SPEEDQA_EOF SPEEDQA_ERR(ENODATA)

/** Readable text for a negative error code. Never NULL. */
SPEEDQA_API const char *speedqa_strerror(int err);

/** Fill *s with defaults (format zeroed: the caller must set it). */
SPEEDQA_API void speedqa_default_settings(SpeedqaSettings *s);

/**
 * Validate the settings, parse the features and allocate everything the
 * frames need. On success *out owns a context (free with speedqa_close).
 * On failure *out is NULL and nothing is leaked.
 *
 * Errors: -EINVAL bad settings or option value, format unusable for
 *         a feature (4:0:0 with speed_chroma, plane too small after
 *         prescale, bpc outside 8..16, nonzero reserved bytes);
 *         -ENOTSUP a feature or option speedqa does not implement, -EEXIST
 *         a feature twice (speedqa_check_features);
 *         -ENOMEM out of memory, or no CPU worker thread could be started
 *         (a thread or address-space limit); -ENOSYS backend not built;
 *         -ENODEV backend has no device.
 */
SPEEDQA_API int speedqa_open(SpeedqaContext **out, const SpeedqaSettings *s);

/** Number of scores per frame (>= 1 for an open context). */
SPEEDQA_API int speedqa_score_count(const SpeedqaContext *ctx);

/**
 * The rows of plane `plane` (0 Y, 1 U, 2 V) that the context's features
 * read, in every picture sent, as the current or as the previous frame:
 * mark[y] becomes 1 for a row read and 0 for a row never read, for y in
 * 0 .. rows - 1, where rows must be the plane's height. A reader that
 * fetches only the rows read (maps, prefetches or uploads them) loses
 * nothing: no other sample changes a score or is range-checked.
 *
 * @return the number of rows read (0: the plane is not read), or
 *         -EINVAL (NULL ctx or mark, plane outside 0..2, rows not the
 *         plane's height), -ENOMEM.
 */
SPEEDQA_API int speedqa_rows_read(const SpeedqaContext *ctx, int plane, uint8_t *mark, int rows);

/**
 * libvmaf output name of score i, option suffixes included (e.g.
 * "speed_chroma_u_ks_0.5"). Valid until speedqa_close(). NULL if out of range.
 */
SPEEDQA_API const char *speedqa_score_name(const SpeedqaContext *ctx, int i);

/**
 * Which feature gives score i: its index in the settings' features (in the
 * default pair's order when they were NULL). A feature's scores are
 * consecutive, in the order of its features.
 *
 * @return the index, or -EINVAL for a NULL ctx or an i out of range.
 */
SPEEDQA_API int speedqa_score_feature(const SpeedqaContext *ctx, int i);

/** Name of the backend in use ("cpu", "cuda", ...). */
SPEEDQA_API const char *speedqa_backend_name(const SpeedqaContext *ctx);

/**
 * Submit the next frame pair. Both pictures must match the format given at open.
 * Errors: -EAGAIN the queue of unreceived scores is full: receive first
 *         (nothing consumed);
 *         -EINVAL picture does not match, NULL plane, stride smaller than a row
 *         (a semi-planar chroma row holds both U and V), unknown layout,
 *         msb_aligned other than 0 or 1 or with bpc 8 or 16, a nonzero
 *         reserved byte;
 *         -ENOMEM; -EIO backend failure (sticky: later calls fail too);
 *         -ERANGE (sticky) a sample of a row some feature reads is above
 *         (1 << bpc) - 1 (bpc 9..15, LSB-aligned), when the frame is scored inside
 *         send (CPU backend, one thread; otherwise speedqa_receive() of that
 *         frame reports it). The log line names the picture, the 0-based
 *         frame, the plane, the largest value and the depth, with a hint
 *         when the samples look MSB-aligned (P010 style). A feature reads
 *         whole rows: for speed_temporal the luma rows within the
 *         anti-alias radius of every 16th row (or the rows the prescaler
 *         reads for them), for speed_chroma the same rows of U and V. The
 *         previous picture that speed_temporal reads is named as the frame
 *         it belongs to (frame - 1).
 */
SPEEDQA_API int speedqa_send(SpeedqaContext *ctx, const SpeedqaPicture *ref,
                             const SpeedqaPicture *dis);

/**
 * Ladder send (SpeedqaSettings.n_distorted streams): ref and dis[0 .. n-1],
 * n == n_distorted. dis[d] == NULL: stream d has ended (it had fewer
 * frames); it stays ended until speedqa_flush() starts a new sequence, and
 * a picture for it before then is -EINVAL. At least one stream must have a
 * picture. Otherwise as speedqa_send(); a lent reference picture is released
 * once, like any other. speedqa_send() on a ladder context of n > 1 is
 * -EINVAL, as this is with n != n_distorted.
 */
SPEEDQA_API int speedqa_send_ladder(SpeedqaContext *ctx, const SpeedqaPicture *ref,
                                    const SpeedqaPicture *const *dis, int n);

/** speedqa_receive() flag: block until the oldest frame in flight is finished. */
#define SPEEDQA_RECEIVE_WAIT (1u << 0)

/**
 * Take the scores of the oldest frame not yet received (frames come out in
 * send order): out[d] for each stream d, n == n_distorted (1 for a context
 * that is not a ladder). Every out[d] carries the same frame and sequence
 * numbers; out[d].count is 0 for a ladder stream that had ended before that
 * frame. The values stay valid until the next receive (see SpeedqaScores).
 *
 * Without SPEEDQA_RECEIVE_WAIT in flags, the call blocks only when the
 * caller could not otherwise make progress (the queue is full, so send
 * would answer -EAGAIN, or speedqa_flush() was called) and otherwise
 * returns -EAGAIN while the frame is still being computed. With it, the
 * call blocks whenever a frame is in flight: for a caller that wants each
 * frame's scores before it sends the next (a live encoder's loop).
 *
 * With the "motion" feature (whose motion2 needs the next frame's SAD)
 * frame n is returned only once frame n+1 of its sequence has been scored,
 * or its sequence has ended (speedqa_flush(), or a frame of the next
 * sequence sent): until then -EAGAIN, with SPEEDQA_RECEIVE_WAIT too.
 *
 * Returns 0; SPEEDQA_EOF: speedqa_flush() was called and every frame sent
 * before it has been received (the end of the stream; a later send starts
 * a new sequence). Errors: -EINVAL NULL ctx or out, n other than
 * n_distorted, an unknown flag bit; -EAGAIN nothing to return now (send
 * more, or flush; with SPEEDQA_RECEIVE_WAIT: no frame in flight); -EIO
 * backend failure (sticky); -ERANGE (sticky) that frame read a sample
 * above the declared bit depth (see speedqa_send); -EDOM (sticky) a
 * speed_temporal or adm scale score of that frame is not finite (undefined
 * model: libvmaf would publish NaN or infinity). A ladder's failure names the stream
 * (1-based, "distorted 2"). On any error out[] is not a published frame.
 */
SPEEDQA_API int speedqa_receive(SpeedqaContext *ctx, SpeedqaScores *out, int n, unsigned flags);

/**
 * End of stream: every submitted frame becomes receivable and the temporal
 * history is reset, so the next frame sent starts a new sequence (its
 * speed_temporal is 0, like frame 0).
 */
SPEEDQA_API int speedqa_flush(SpeedqaContext *ctx);

/**
 * Describe the devices a backend sees, one line per device
 * ("<index>: <name> (<details>)"), into buf (always NUL-terminated when
 * len > 0). Returns the number of devices, 0 when the backend is built but
 * finds none or its runtime is missing, -ENOSYS when it is not built.
 */
SPEEDQA_API int speedqa_list_devices(SpeedqaBackend backend, char *buf, size_t len);

/** Pooled values of one score over frames, as libvmaf pools them. */
typedef struct SpeedqaPooled {
    double min, max;
    double mean;          /**< sum of x / n, summed in double in frame order */
    double harmonic_mean; /**< n / sum(1 / (x + 1)) - 1, libvmaf's definition */
    double reserved[4];   /**< written as zero */
} SpeedqaPooled;

/**
 * Pool values[0], values[stride], ... values[(n - 1) * stride] (stride in
 * elements, e.g. the score count when the values are frame-major rows of
 * copied SpeedqaScores.values). 0, or -EINVAL for NULL pointers, n == 0 or
 * stride < 1.
 */
SPEEDQA_API int speedqa_pool(const double *values, size_t n, ptrdiff_t stride, SpeedqaPooled *out);

/*
 * CUDA backend only. Other backends answer -ENOTSUP, so a caller may call
 * these on any context and fall back to plain sends.
 */

/**
 * Memory of the caller's that the CUDA backend may read by DMA, such as the
 * read-only, MAP_SHARED mapping of a file whose frames the caller lends
 * (pictures with a release callback). A lent host picture every plane of
 * which lies in one registered range goes up to the device straight from
 * there, as a library picture does, and is released once its frames are
 * scored; any other picture is copied as before, so scores never depend on
 * it. The range is page-locked read-only (the pages fault in: a file's
 * pages are read); it must stay mapped and unchanged until
 * speedqa_cuda_host_unregister(), or speedqa_close(), which unregisters
 * what is left. Ranges may not overlap, so register whole pages.
 * Unregistering waits for the uploads queued so far, so pictures of the
 * range may still be in flight. Unlike other calls on a context, both may
 * run on any thread while another sends.
 * Returns 0; -ENOTSUP when the backend has no use for it (every backend but
 * CUDA) or the driver refuses the memory; -EINVAL (NULL with a size, or a
 * size of 0, an overlap, an address not registered, a range in a private,
 * copy-on-write mapping of a file); data NULL and size 0 ask whether the
 * backend takes ranges at all (0 or -ENOTSUP, nothing pinned); -ENOSPC
 * beyond SPEEDQA_CUDA_MAX_HOST_RANGES ranges; -ENOMEM; -EIO.
 */
#define SPEEDQA_CUDA_MAX_HOST_RANGES 64
SPEEDQA_API int speedqa_cuda_host_register(SpeedqaContext *ctx, const void *data, size_t size);
SPEEDQA_API int speedqa_cuda_host_unregister(SpeedqaContext *ctx, const void *data);

/** Free everything; *ctx becomes NULL. Safe with NULL or *ctx == NULL. */
SPEEDQA_API void speedqa_close(SpeedqaContext **ctx);

#ifdef __cplusplus
}
#endif

#endif /* SPEEDQA_SPEEDQA_H */
