/*
 * The context behind the public entry points, shared by lib.c (settings,
 * open, close, queries, pictures) and lib_frames.c (send, receive, flush:
 * the checks of what a caller passes, sticky errors, score assembly).
 */
#ifndef SQ_LIB_PRIV_H
#define SQ_LIB_PRIV_H

#include <stdint.h>

#include "core/backend.h"
#include "core/picture.h"
#include "feature/feature.h"
#include "speedqa/speedqa.h"

/* Scores of one stream: at most 7 per feature (speed_chroma's u, v, uv;
 * motion's motion2, motion3, SAD and, with debug, motion; adm's adm2, aim,
 * adm3 and four scales). */
#define SQ_MAX_SCORES (SPEEDQA_MAX_FEATURES * 7)

typedef struct SqHeld {
    int at;           /* its raw result: SpeedqaContext.raw[at] */
    unsigned ring[3]; /* its seq_ring entry */
    unsigned frame;   /* its send index */
} SqHeld;

struct SpeedqaContext {
    SpeedqaSettings s;
    int nfeat;
    SqFeature feat[SPEEDQA_MAX_FEATURES];
    int nscores;
    char names[SQ_MAX_SCORES][320];
    int name_feat[SQ_MAX_SCORES]; /* the feature (index in feat) giving each name */
    /* the last frame received, what its SpeedqaScores point at */
    double values[SPEEDQA_MAX_DISTORTED][SQ_MAX_SCORES];
    uint8_t undefined[SPEEDQA_MAX_DISTORTED][SQ_MAX_SCORES];
    int njobs;
    SqJob jobs[SQ_MAX_JOBS];
    int ndis;                /* distorted streams: > 1 is a ladder */
    uint32_t ended;          /* ladder streams that have ended in this sequence */
    const SqBackend *be;
    void *be_priv;
    unsigned sent, received;
    /* sequence, index in it and the streams present (bit d) of each frame
     * in flight, by send index % ring_len */
    unsigned (*seq_ring)[3];
    unsigned ring_len, cur_seq, next_seq_frame;
    int new_seq;
    int flushing;
    int sticky;
    /*
     * Look-ahead (sq_features_look_ahead: look_ahead frames): the frames the
     * backend gave back but that are not published yet, oldest first, each
     * with its raw result (raw[held[k].at]), ring entry and send index; a
     * frame is published once look_ahead frames of its sequence follow it
     * or its sequence has ended. fstate: each feature's state from frame to
     * frame, per stream.
     */
    int look_ahead, nheld;
    SqHeld held[SQ_LOOK_AHEAD_MAX + 1];
    SqRawResult raw[SQ_LOOK_AHEAD_MAX + 1];
    double fstate[SPEEDQA_MAX_DISTORTED][SPEEDQA_MAX_FEATURES][SQ_FEATURE_STATE];
    SqPicPool *pics;         /* speedqa_picture_alloc's, from the first call */
};

static inline int sq_same_format(const SpeedqaFormat *a, const SpeedqaFormat *b)
{
    return a->width == b->width && a->height == b->height && a->fmt == b->fmt && a->bpc == b->bpc;
}

#endif
