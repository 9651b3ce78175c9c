/*
 * Test inputs for the GPU parity checks: random cases (geometry, formats,
 * bit depths, options, textures that range from busy to flat/singular,
 * strides, sequences) from a printed, replayable seed, and the synthetic
 * golden cases.
 */
#ifndef SQ_TESTS_GPU_CASES_H
#define SQ_TESTS_GPU_CASES_H

#include <stdint.h>

#include "speedqa/speedqa.h"

#define CASE_MAX_FRAMES 8

typedef struct Case {
    char name[96];
    SpeedqaFormat fmt;
    int nframes;
    int nfeat;
    char feat[SPEEDQA_MAX_FEATURES][320];
    const char *featp[SPEEDQA_MAX_FEATURES + 1];
    int new_seq[CASE_MAX_FRAMES];
    int neg_stride;          /* pictures stored bottom-up with negative strides */
    int device;              /* pictures to be put in device memory */
    uint8_t *buf[2];         /* ref, dis: all frames */
    size_t frame_bytes;
    SpeedqaPicture ref[CASE_MAX_FRAMES], dis[CASE_MAX_FRAMES];
} Case;

/* Deterministic generator (splitmix64). */
uint64_t rng_next(uint64_t *s);
double rng_unit(uint64_t *s);
int rng_int(uint64_t *s, int lo, int hi); /* inclusive */

/* Random case with luma at most max_w x max_h. 0 or -ENOMEM. */
int case_random(Case *c, uint64_t *rng, int index, int max_w, int max_h);

/* Textured frames of a fixed geometry (benchmarks), tight strides. */
int case_fixed(Case *c, const SpeedqaFormat *fmt, int nframes, uint64_t seed);

/* Frames of a raw planar file (as gen_synth writes them), host memory. */
int case_from_file(Case *c, const char *name, const SpeedqaFormat *fmt, const char *ref_path,
                   const char *dis_path, int nframes, const char *feature);

void case_free(Case *c);

/* Human-readable one-liner. */
void case_describe(const Case *c, char *buf, size_t len);

#endif
