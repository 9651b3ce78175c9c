/*
 * Frames laid out as a mapped Y4M file holds them (issue #12, registered
 * ranges): 8-bit 4:2:0 frames back to back in one anonymous mapping, 6
 * bytes apart after a 100-byte header, so most frames share a page with a
 * neighbour. The release callback counts each frame's releases (and those
 * that came while that frame was being sent) and poisons the frame's bytes,
 * so a read after a release changes a score. keep holds a pristine copy.
 */
#ifndef SQ_TEST_FRAME_MAP_H
#define SQ_TEST_FRAME_MAP_H

#include <pthread.h>
#include <stddef.h>

#include "speedqa/speedqa.h"

#define FM_MAX 64

typedef struct FrameMap {
    int w, h, nf;
    size_t fb, len;
    unsigned char *map, *keep;
    pthread_mutex_t mu;
    int back[FM_MAX];
    int in_send[FM_MAX];
    int sending; /* frame being sent, -1 none */
} FrameMap;

/* nf <= FM_MAX frames of side `side`'s pattern: 0, or -1 out of memory. */
int fm_init(FrameMap *m, int w, int h, int nf, int side);
/* The mapping back to the pristine frames, the counts zeroed. */
void fm_reset(FrameMap *m);
void fm_free(FrameMap *m);
size_t fm_offset(const FrameMap *m, int f);
/* Frame f of the mapping (lend: with the release callback) or of the copy. */
void fm_picture(FrameMap *m, int f, int lend, SpeedqaPicture *pic);
void fm_sending(FrameMap *m, int f);

#endif
