/*
 * Read-ahead for one input: a thread reads the next frames into a ring of
 * buffers while the caller scores, so reading (the kernel's copies,
 * decoding) overlaps scoring, and the two inputs of a job are read in
 * parallel. The frames it hands out are lent (SpeedqaPicture.release): the
 * library reads them in place, and a buffer is read into again once its
 * frame was given back.
 */
#ifndef SQ_INPUT_PREFETCH_H
#define SQ_INPUT_PREFETCH_H

#include <stddef.h>

#include "input.h"

typedef struct SqPrefetch SqPrefetch;

/*
 * Starts reading in (already opened, skips done) into depth buffers (at
 * least 3; fewer when frames are large): frames ahead and frames lent. 0, or a negative errno with
 * one line in err. The input must not be used directly until stop.
 */
int sq_prefetch_start(SqPrefetch **out, SqInput *in, int depth, char *err, size_t errlen);

/*
 * The next frame, as sq_input_read: 1 with *pic lent (valid until its
 * release is called, which must happen before stop), 0 at the end,
 * negative on error (message in err, sticky). Frames that are not given
 * back only slow the reader down, down to a stop when none is left.
 */
int sq_prefetch_next(SqPrefetch *p, SpeedqaPicture *pic, char *err, size_t errlen);
/* The same, waiting at most ms milliseconds: -ETIMEDOUT when nothing came (a pipe left open). */
int sq_prefetch_next_within(SqPrefetch *p, SpeedqaPicture *pic, char *err, size_t errlen, int ms);

/* Stops the reader (even one blocked on a pipe that never delivers), frees everything. */
void sq_prefetch_stop(SqPrefetch **p);

/* The input's own picture behind one sq_prefetch_next handed out (valid
 * while that one is lent), or pic itself when it is not the read-ahead's:
 * what the input knows, e.g. for a host copy of a GPU frame. */
const SpeedqaPicture *sq_prefetch_origin(const SpeedqaPicture *pic);

#endif
