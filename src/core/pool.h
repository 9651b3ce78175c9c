/*
 * One small thread pool for every backend's host threads: the CPU
 * backend's frame workers (queued items, collected in submission order,
 * and idle workers' help with the copies of a send and with the planes of
 * a frame) and the GPU pipeline's
 * staging helpers (a parallel loop). No global
 * state: each context owns its pool.
 */
#ifndef SQ_CORE_POOL_H
#define SQ_CORE_POOL_H

#include <stdint.h>

#include "core/mem.h"

typedef struct SqPool SqPool;

/* thread: 0 .. sq_pool_threads() - 1 for a pool thread, sq_pool_threads()
 * for the caller of sq_pool_for, so per-thread scratch can be indexed. */
typedef void (*SqPoolFn)(void *ctx, int64_t arg, int thread);

/*
 * Start up to nthreads (>= 1) threads and a queue of depth (>= 1) items.
 * Fewer threads start when pthread_create fails: a thread limit only costs
 * speed. -ENOMEM: no memory; the negative pthread error when no thread
 * started. On failure nothing stays allocated.
 */
int sq_pool_start(SqPool **out, int nthreads, int depth, const SqAlloc *a);

/*
 * The one "automatic" thread count (SpeedqaSettings.n_threads 0): one per
 * online core, at most SQ_AUTO_THREADS_MAX (past that, frame copies in
 * flight grow while the read floor stays), at least 1.
 */
#define SQ_AUTO_THREADS_MAX 64
int sq_auto_threads(void);
int sq_pool_threads(const SqPool *p);

/* Queue fn(ctx, arg, thread): 0, or -EAGAIN when depth items are uncollected. */
int sq_pool_submit(SqPool *p, SqPoolFn fn, void *ctx, int64_t arg);

/*
 * Release the oldest uncollected item once it has run: 0, or -EAGAIN when
 * block == 0 and it has not. Whatever it wrote is visible to the caller.
 * Only called with an item uncollected.
 */
int sq_pool_collect(SqPool *p, int block);
/*
 * sq_pool_collect(p, 1), except that when the oldest item is the only one
 * uncollected and no thread has started it, the caller runs it itself
 * (thread sq_pool_threads()), and meanwhile at most sq_pool_threads() - 1
 * pool threads help in rounds: a caller that waits for each item saves
 * handing it to a thread and back, and the threads computing stay as many.
 */
int sq_pool_collect_run(SqPool *p);

/*
 * fn(ctx, k, thread) for every k in 0 .. nparts - 1, spread over the pool
 * threads and the caller; returns when all have run. p == NULL runs them all
 * in the caller. Only on a pool with no uncollected items.
 */
void sq_pool_for(SqPool *p, int nparts, SqPoolFn fn, void *ctx);

/*
 * fn(ctx, 0, self) on the calling thread, and fn(ctx, 0, thread) on pool
 * threads that are idle now (up to helpers of them are woken, and no more
 * join) or become idle before the caller's own call returns (a thread busy
 * with an item never helps); returns when all of them have returned. fn
 * must claim its work itself (an atomic counter) and return when none is
 * left. self: the caller's thread index (a pool thread's own inside an
 * item or inside another round's fn: a round may open a round,
 * cpu/backend.c's solves, sq_pool_threads() outside the pool); helpers:
 * how many other threads could take a part (0: the caller runs fn alone).
 * Items may be uncollected meanwhile: queued items keep their order; several
 * rounds may be open at once (an idle thread joins the oldest it has not
 * joined, each at most once). p == NULL runs fn on the caller alone.
 */
void sq_pool_help(SqPool *p, SqPoolFn fn, void *ctx, int self, int helpers);
/*
 * sq_pool_help whose round is open even when no thread is idle now: a
 * thread that runs out of queued items before the caller's own call
 * returns joins it (a job's last frames, whose parts the threads done
 * with their own frames take).
 */
void sq_pool_offer(SqPool *p, SqPoolFn fn, void *ctx, int self, int helpers);

/* Items submitted and not yet collected (running, queued or done). */
int sq_pool_uncollected(SqPool *p);

/* Whether some thread waits for work now (no lock: a hint, as in sq_pool_help). */
int sq_pool_idle(SqPool *p);

/* Queued items that have not started never run; running ones finish. */
void sq_pool_stop(SqPool **p);

#endif
