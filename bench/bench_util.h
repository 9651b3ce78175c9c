/*
 * What the C benches share: a monotonic clock, the release callback of
 * pictures the bench keeps alive itself, and a clip held in memory, read
 * through the CLI's own input layer (so a bench reads what `speedqa -r`
 * reads: Y4M, raw YUV with a size, and compressed files where libav is).
 */
#ifndef SQ_BENCH_UTIL_H
#define SQ_BENCH_UTIL_H

#include <stddef.h>

#include "speedqa/speedqa.h"

double bench_now(void);
void bench_no_release(void *opaque, const void *data0);

typedef struct BenchClip {
    SpeedqaFormat format;
    int n;                  /* frames held */
    ptrdiff_t stride[3];    /* bytes per row of each plane, rows packed */
    size_t offset[3];       /* of each plane in a frame */
    size_t frame_bytes;
    unsigned char *data;
} BenchClip;

/* Up to max_frames (0: all) frames of path into memory; 0, or -1 after one line on stderr. */
int bench_clip_load(BenchClip *c, const char *path, int max_frames);
/* Frame i as a picture lent to the library (release: bench_no_release). */
void bench_clip_picture(const BenchClip *c, int i, SpeedqaPicture *p);
void bench_clip_free(BenchClip *c);

#endif
