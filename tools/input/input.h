/*
 * Video readers shared by the CLI and the tests: Y4M and raw planar YUV.
 * Each reader fills a SpeedqaPicture whose planes point into the reader's
 * own buffer, valid until the next read or close (or, for a mapped file,
 * into the mapping: see sq_input_mapped).
 */
#ifndef SQ_INPUT_H
#define SQ_INPUT_H

#include <stddef.h>
#include <stdio.h>

#include "speedqa/speedqa.h"

/* Hard limits, checked before anything is allocated. */
#define SQ_INPUT_MAX_DIM 16384
#define SQ_INPUT_MAX_FRAME_BYTES ((size_t)1 << 30)

typedef struct SqInput SqInput;

enum { SQ_RANGE_UNKNOWN = 0, SQ_RANGE_LIMITED = 1, SQ_RANGE_FULL = 2 };

typedef struct SqInputInfo {
    SpeedqaFormat format;
    int fps_num, fps_den;  /* 0/0 when unknown */
    long long frames;      /* -1 when unknown (pipe, y4m) */
    const char *reader;    /* what reads it: "y4m", "yuv" or "lav" */
    int range;             /* SQ_RANGE_*: what the file says of its sample range */
    int matrix;            /* YCbCr matrix as ISO/IEC 23091-2 codes (1 BT.709, 5/6 BT.601,
                            * 9 BT.2020 ...); 2 = unspecified */
    char interlace;        /* Y4M 'I' tag: 't', 'b', 'm' (mixed), or 0 for progressive */
    int device_frames;     /* 1: pictures are SPEEDQA_MEM_CUDA (NVDEC, sq_input_open_dec) */
    const char *note;      /* a line worth a warning ("decoding in software: ..."), or NULL */
    int stream;            /* 1: a pipe, FIFO or device: its next frame may never come */
} SqInputInfo;

/* Raw-YUV parameters: required for .yuv, ignored for y4m. */
typedef struct SqRawParams {
    int width, height;
    SpeedqaPixelFormat fmt;
    int bpc;
    /* semi-planar files (NV12, P010, P016 ...): Y, then U and V interleaved;
     * msb_aligned: bpc-bit values in the top bits of 16-bit words (P010) */
    SpeedqaLayout layout;
    int msb_aligned;
} SqRawParams;

/*
 * Open path ("-" = stdin). kind: "y4m", "yuv", or NULL to detect (a file
 * starting with "YUV4MPEG2 " is Y4M, otherwise raw when raw != NULL).
 * Returns 0 or a negative errno; on failure writes one line naming the file
 * and the cause to err (errlen bytes) and *out is NULL.
 */
int sq_input_open(SqInput **out, const char *path, const char *kind,
                  const SqRawParams *raw, char *err, size_t errlen);

/*
 * Same, decoding compressed input on CUDA device cuda_device (-1: in
 * software, which is sq_input_open) through libav's NVDEC hwaccel, in the
 * device's primary context (the one the CUDA backend uses). Frames then
 * come out as lent SPEEDQA_MEM_CUDA pictures (NV12, P010/P016 MSB-aligned,
 * or planar 4:4:4) that only the CUDA backend reads; they hold one of the
 * decoder's surfaces each until released (at most SQ_INPUT_HW_HELD at
 * once: one more read fails with -EBUSY), and every one must be released
 * before the input is closed. A stream NVDEC cannot decode (codec,
 * profile, chroma format) is decoded in software (host pictures) and
 * info.note says so; no usable device fails with -ENODEV. Y4M and raw
 * inputs are read as always.
 *
 * decode_threads: a software decoder's threads (0: libav's choice). With 1,
 * any error the decoder detects or conceals fails the read, on every run;
 * with frame threads libav's corrupt-frame flag is a race.
 */
int sq_input_open_dec(SqInput **out, const char *path, const char *kind, const SqRawParams *raw,
                      int cuda_device, int decode_threads, char *err, size_t errlen);
#define SQ_INPUT_HW_HELD 16

/* Same, and with no_map the file is read, never mapped: a library inside
 * another process (Python) must not turn a file shrinking under it into
 * SIGBUS; the read fails instead (a truncated frame). */
int sq_input_open_ex(SqInput **out, const char *path, const char *kind, const SqRawParams *raw,
                     int cuda_device, int decode_threads, int no_map, char *err, size_t errlen);
/* GPU frames a read-ahead holds at most (prefetch.c), and the extra surfaces
 * the decoder is asked for (lav.c) */
#define SQ_INPUT_HW_AHEAD 8

const SqInputInfo *sq_input_info(const SqInput *in);

/*
 * Read the next frame: 1 = a frame in *pic, 0 = clean end of stream,
 * negative = error (truncated frame, bad FRAME line, I/O), message in err.
 */
int sq_input_read(SqInput *in, SpeedqaPicture *pic, char *err, size_t errlen);

/*
 * A host copy of a device picture this input lent (a GPU frame of
 * sq_input_read, not yet released), for what reads host memory only
 * (libvmaf under --model): the same format, layout and alignment, in a
 * buffer of the input's, valid until the next call. A host picture comes
 * back as it is. 0, or a negative errno with the message in err. Call it
 * from one thread (the reading may go on beside it on a read-ahead).
 */
int sq_input_host_copy(SqInput *in, const SpeedqaPicture *pic, SpeedqaPicture *out, char *err,
                       size_t errlen);

/*
 * Regular Y4M and raw files are memory-mapped (unless SPEEDQA_IO=read):
 * sq_input_read returns pictures that point into the mapping, valid until
 * the input is closed. A file that shrinks while mapped raises SIGBUS on
 * access.
 */
int sq_input_mapped(const SqInput *in);

/*
 * From now on, frames of a mapped input, and frames decoded in software
 * (the decoder's own buffers, up to SQ_INPUT_HW_HELD at once; later ones
 * are copied), carry a release callback: they are lent (see speedqa.h),
 * and every one must be released, by the library after a send that took
 * it, or by the caller (releasing twice is harmless). The pages of mapped
 * frames given back are unmapped as reading goes on, and the mapping lasts
 * until the input is closed and every frame is back, so a context may be
 * closed after its inputs; a decoded frame must be back before its input
 * is closed.
 */
void sq_input_lend(SqInput *in);

/* What the scoring leaves of the machine (sq_input_prefault). */
typedef enum SqPrefault {
    SQ_PREFAULT_OFF,   /* nothing: a batch keeps every core busy with pairs */
    SQ_PREFAULT_SPARE, /* a core left free, or the scoring runs on a GPU */
    SQ_PREFAULT_BUSY,  /* every core scores */
} SqPrefault;

/*
 * A mapped input: start a thread that maps the pages of the next frames
 * before the library reads them (no page faults on the scoring path). It
 * pays when a core is left for it (SPARE). With every core scoring (BUSY)
 * it pays only for tmpfs files, whose 4 KiB pages make the workers' faults
 * dear; a disk file system's large folios fault in cheaper than the thread
 * maps them. Call before the first read. SPEEDQA_MAP_POPULATE=0/1 (2: in
 * the reader) overrides it.
 */
void sq_input_prefault(SqInput *in, SqPrefault want);

/*
 * A mapped planar input: mark[c][y] != 0 for each row y of plane c that
 * scoring reads (rows[c] of them: speedqa_rows_read), so that the pages
 * mapped ahead (sq_input_prefault) are only those rows'. Before the first
 * read; frames are still lent whole, and a row read unmarked only faults
 * in as usual.
 */
void sq_input_rows_read(SqInput *in, const uint8_t *const mark[3], const int rows[3]);

/*
 * A mapped input scored on a GPU backend: its mapping registered in windows
 * a window ahead of the reader (reg: speedqa_cuda_host_register's contract, and
 * reg(opaque, NULL, 0) tells whether ranges are taken at all), each
 * unregistered once every frame lying in it is back, so frames lying in one
 * go up by DMA from the page cache instead of through a staging copy.
 * window: bytes (rounded down to pages), 0: 64 MiB and at least 4 frames.
 * Before the first read; 1 when pinning, 0 when the input is not mapped or
 * reg says no. A thread does the registering. sq_input_unpin, while reg's
 * context lives, stops it and unregisters what is left (closing the input
 * does too, for a context that outlives it).
 */
typedef struct SqPinOps {
    int (*reg)(void *opaque, const void *p, size_t bytes);
    int (*unreg)(void *opaque, const void *p);
    void *opaque;
    size_t window;
} SqPinOps;
int sq_input_pin(SqInput *in, const SqPinOps *ops);
void sq_input_unpin(SqInput *in);

/* Read every cache line of pic's planes (a read-only floor); the sum. */
unsigned sq_input_touch(const SpeedqaPicture *pic);

/*
 * Same as sq_input_read, but into buf (sq_input_frame_bytes of them): the
 * picture points into buf, which stays the caller's (read-ahead rings).
 */
int sq_input_read_into(SqInput *in, unsigned char *buf, SpeedqaPicture *pic, char *err,
                       size_t errlen);

/* Bytes of one frame as the readers store it. */
size_t sq_input_frame_bytes(const SqInput *in);

/* Skip n frames (same return convention as read, 1 = all skipped). */
int sq_input_skip(SqInput *in, long long n, char *err, size_t errlen);

void sq_input_close(SqInput **in);

#endif
