/*
 * The state of a mapped input (struct SqMap), shared by map.c (the mapping,
 * lending and unmapping) and map_ahead.c (the thread that maps pages
 * ahead and registers windows). Not used outside them.
 */
#ifndef SQ_INPUT_MAP_PRIV_H
#define SQ_INPUT_MAP_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "input_priv.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

/* Frames lent at once, at most: far above any library queue. */
#define RING 4096

/* Bytes of a frame's payload that the features read (sq_input_rows_read). */
typedef struct MapRange {
    size_t off, len;
} MapRange;

typedef struct MapEntry {
    struct SqMap *m;
    atomic_int lent;
    size_t end;          /* offset just past the frame's payload */
} MapEntry;

struct SqMap {
    /* the input's reference plus one per frame lent: the last one unmaps,
     * so a context closed after its input still gives frames back safely */
    atomic_long refs;
    const unsigned char *base;
    size_t len;
    size_t page;
    unsigned long long next, low; /* ring: entries [low, next) may be lent */
    size_t done_end;      /* every frame ending at or before this is given back */
    size_t dropped;       /* [0, dropped) is unmapped (page multiple) */
    size_t drop_step;
    int small_pages;      /* tmpfs: its page cache holds 4 KiB pages */
    /*
     * populate 1: a thread maps the pages of the next frames (one call per
     * frame, MADV_POPULATE_READ) before the library's threads read them, so
     * they do not take a page fault per 64 KiB on the scoring path; 2: the
     * reader does it itself before lending; 0: neither; -1: as the caller
     * says (sq_input_prefault). SPEEDQA_MAP_POPULATE=0/1/2 overrides it;
     * bench/cli_throughput.py measures them.
     */
    int populate;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t want, mapped;  /* populate [mapped, want); the reader raises want */
    /* Only the rows read: per frame, the ranges rng of its payload. The
     * frames from payload start pop_next to pop_until, rec bytes apart (the
     * record size, from the first two frames: a prediction, so a FRAME line
     * of another length only costs the pages it misses). */
    MapRange *rng;
    int nrng;
    size_t rec, last_payload, pop_next, pop_until;
    int quit, started;
    /* Pinning (sq_input_pin): windows of pin_win bytes from pin_lo to
     * pin_end are registered (pin.reg); the reader asks for them up to
     * pin_want, and frames below done_end are back. pin_lo only moves up
     * once a window is unregistered, so drop_done never unmaps a pinned one. */
    SqPinOps pin; /* pin.reg NULL: not pinning */
    size_t pin_win, pin_want, pin_done;
    _Atomic size_t pin_lo;
    size_t pin_end;
    MapEntry ring[RING];
};

/* map_ahead.c: the populating thread (0, or -1 when it cannot start) and
 * the pages of the rows read of the frame whose payload starts at p. */
int sq_map_start_populating(SqMap *m);
void sq_map_stop_populating(SqMap *m);
void sq_map_populate_frame(const SqMap *m, size_t p);

#endif
