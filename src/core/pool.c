#include "core/pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

typedef struct Item {
    SqPoolFn fn;
    void *ctx;
    int64_t arg;
    int done;
} Item;

typedef struct Thread {
    pthread_t th;
    int index;
    unsigned long long helped; /* the help round this thread joined last */
    SqPool *p;
} Thread;

/* A help round (sq_pool_help), on its opener's stack while it is open. */
typedef struct Round {
    SqPoolFn fn;
    void *ctx;
    unsigned long long id;
    int helping;             /* threads inside fn besides the opener */
    int most;                /* how many may help (sq_pool_help's helpers) */
    struct Round *next;
} Round;

struct SqPool {
    SqAlloc a;
    pthread_mutex_t mu;
    /* done: an item finished (collectors wait); left: a helper left a round
     * (its opener waits), apart so that a round's helpers do not wake a
     * caller waiting for a frame once per helper */
    pthread_cond_t work, done, left;
    int nthreads, depth, quit;
    Thread *th;
    /* A ring: items [collected, submitted) are uncollected, of which
     * [started, submitted) wait for a thread. An item keeps its place until
     * collected, so a thread can mark it done without holding it. */
    Item *q;
    uint64_t collected, started, submitted;
    /* sq_pool_help: the open rounds, oldest first (a round leaves the list
     * when its opener's own call returns: no thread joins it later) */
    Round *rounds;
    unsigned long long round_id;
    atomic_int idle;         /* threads waiting for work: none, and a round runs alone */
    /* sq_pool_collect_run: the caller runs an item, so pool threads help
     * only while fewer than nthreads - 1 do (busy: those inside a round) */
    int caller_runs, busy;
};

/* Under p->mu: the oldest open round newer than any this idle thread has
 * joined (so it joins each round at most once, and never spins on one)
 * that has room for it. */
static Round *help_wanted(const SqPool *p, const Thread *t)
{
    if (p->caller_runs && p->busy >= p->nthreads - 1)
        return NULL;
    for (Round *r = p->rounds; r; r = r->next)
        if (r->id > t->helped && r->helping < r->most)
            return r;
    return NULL;
}

static void *thread_main(void *arg)
{
    Thread *t = arg;
    SqPool *p = t->p;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        Round *r = NULL;
        while (!p->quit && p->started == p->submitted && !(r = help_wanted(p, t))) {
            atomic_fetch_add_explicit(&p->idle, 1, memory_order_relaxed);
            pthread_cond_wait(&p->work, &p->mu);
            atomic_fetch_sub_explicit(&p->idle, 1, memory_order_relaxed);
        }
        if (p->quit)
            break;
        if (p->started == p->submitted) {
            /* r stays valid: its opener waits for helping to drop to 0 */
            t->helped = r->id;
            r->helping++;
            p->busy++;
            pthread_mutex_unlock(&p->mu);
            r->fn(r->ctx, 0, t->index);
            pthread_mutex_lock(&p->mu);
            p->busy--;
            if (!--r->helping)
                pthread_cond_broadcast(&p->left);
            continue;
        }
        Item *it = &p->q[p->started++ % (uint64_t)p->depth];
        pthread_mutex_unlock(&p->mu);
        it->fn(it->ctx, it->arg, t->index);
        pthread_mutex_lock(&p->mu);
        it->done = 1;
        /* collectors wait for the oldest item only: a later one wakes
         * nobody (one wake-up per frame, not one per thread's frame) */
        if (it == &p->q[p->collected % (uint64_t)p->depth])
            pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void pool_free(SqPool *p)
{
    const SqAlloc a = p->a;
    sq_free(&a, p->th);
    sq_free(&a, p->q);
    sq_free(&a, p);
}

int sq_pool_start(SqPool **out, int nthreads, int depth, const SqAlloc *a)
{
    *out = NULL;
    SqPool *p = sq_calloc(a, 1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    atomic_init(&p->idle, 0);
    p->a = *a;
    p->depth = depth;
    p->th = sq_calloc(a, (size_t)nthreads, sizeof(*p->th));
    p->q = sq_calloc(a, (size_t)depth, sizeof(*p->q));
    if (!p->th || !p->q) {
        pool_free(p);
        return -ENOMEM;
    }
    if (pthread_mutex_init(&p->mu, NULL)) {
        pool_free(p);
        return -ENOMEM;
    }
    if (pthread_cond_init(&p->work, NULL)) {
        pthread_mutex_destroy(&p->mu);
        pool_free(p);
        return -ENOMEM;
    }
    if (pthread_cond_init(&p->done, NULL)) {
        pthread_cond_destroy(&p->work);
        pthread_mutex_destroy(&p->mu);
        pool_free(p);
        return -ENOMEM;
    }
    if (pthread_cond_init(&p->left, NULL)) {
        pthread_cond_destroy(&p->done);
        pthread_cond_destroy(&p->work);
        pthread_mutex_destroy(&p->mu);
        pool_free(p);
        return -ENOMEM;
    }
    int e = 0;
    for (int i = 0; i < nthreads; i++) {
        p->th[i].index = i;
        p->th[i].p = p;
        if ((e = pthread_create(&p->th[i].th, NULL, thread_main, &p->th[i])) != 0)
            break;
        p->nthreads++;
    }
    if (!p->nthreads) {
        sq_pool_stop(&p);
        return -e;
    }
    *out = p;
    return 0;
}

int sq_pool_threads(const SqPool *p)
{
    return p ? p->nthreads : 0;
}

/* Under p->mu: queue one item if there is room. 1 queued, 0 full. */
static int enqueue(SqPool *p, SqPoolFn fn, void *ctx, int64_t arg)
{
    if (p->submitted - p->collected >= (uint64_t)p->depth)
        return 0;
    Item *it = &p->q[p->submitted++ % (uint64_t)p->depth];
    it->fn = fn;
    it->ctx = ctx;
    it->arg = arg;
    it->done = 0;
    return 1;
}

int sq_pool_submit(SqPool *p, SqPoolFn fn, void *ctx, int64_t arg)
{
    pthread_mutex_lock(&p->mu);
    if (!enqueue(p, fn, ctx, arg)) {
        pthread_mutex_unlock(&p->mu);
        return -EAGAIN;
    }
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

int sq_pool_collect_run(SqPool *p)
{
    pthread_mutex_lock(&p->mu);
    Item *it = &p->q[p->collected % (uint64_t)p->depth];
    if (p->submitted - p->collected == 1 && p->started == p->collected) {
        p->started++;
        p->caller_runs = 1;
        pthread_mutex_unlock(&p->mu);
        it->fn(it->ctx, it->arg, p->nthreads);
        pthread_mutex_lock(&p->mu);
        p->caller_runs = 0;
        it->done = 1;
    }
    while (!it->done)
        pthread_cond_wait(&p->done, &p->mu);
    p->collected++;
    pthread_mutex_unlock(&p->mu);
    return 0;
}

int sq_pool_collect(SqPool *p, int block)
{
    pthread_mutex_lock(&p->mu);
    Item *it = &p->q[p->collected % (uint64_t)p->depth];
    while (!it->done && block)
        pthread_cond_wait(&p->done, &p->mu);
    const int done = it->done;
    if (done)
        p->collected++;
    pthread_mutex_unlock(&p->mu);
    return done ? 0 : -EAGAIN;
}

void sq_pool_for(SqPool *p, int nparts, SqPoolFn fn, void *ctx)
{
    const int caller = sq_pool_threads(p);
    if (!p || nparts <= 1) {
        for (int k = 0; k < nparts; k++)
            fn(ctx, k, caller);
        return;
    }
    /* One lock and one wake-up for all the parts: a loop runs per frame, so
     * a signal and a lock round trip per part would cost more than a part. */
    pthread_mutex_lock(&p->mu);
    int queued = 0;
    while (1 + queued < nparts && enqueue(p, fn, ctx, 1 + queued))
        queued++;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int k = 1 + queued; k < nparts; k++) /* more parts than queue room */
        fn(ctx, k, caller);
    fn(ctx, 0, caller);
    pthread_mutex_lock(&p->mu);
    for (; queued; queued--) {
        Item *it = &p->q[p->collected % (uint64_t)p->depth];
        while (!it->done)
            pthread_cond_wait(&p->done, &p->mu);
        p->collected++;
    }
    pthread_mutex_unlock(&p->mu);
}

static void help_round(SqPool *p, SqPoolFn fn, void *ctx, int self, int helpers, int later)
{
    /* with every thread busy (a thread that idles a moment later misses
     * this round: helping is optional), no lock and no wake-up */
    if (!p || helpers < 1 || (!later && !atomic_load_explicit(&p->idle, memory_order_relaxed))) {
        fn(ctx, 0, self);
        return;
    }
    Round r = { .fn = fn, .ctx = ctx, .most = helpers };
    pthread_mutex_lock(&p->mu);
    r.id = ++p->round_id;
    Round **end = &p->rounds;
    while (*end)
        end = &(*end)->next;
    *end = &r;
    /* wake no more threads than can take a part (16 threads, 6 planes);
     * all of them with one call, and after the unlock, so that none wakes
     * only to wait for the lock (the round is listed: none can miss it) */
    const int idle = atomic_load_explicit(&p->idle, memory_order_relaxed);
    const int room = p->caller_runs ? p->nthreads - 1 - p->busy : helpers;
    const int wake = helpers < room ? helpers : room;
    pthread_mutex_unlock(&p->mu);
    if (!idle)
        ; /* none to wake: a thread that idles later finds the round listed */
    else if (wake >= idle)
        pthread_cond_broadcast(&p->work);
    else
        for (int i = 0; i < wake; i++)
            pthread_cond_signal(&p->work);
    fn(ctx, 0, self);
    pthread_mutex_lock(&p->mu);
    for (Round **q = &p->rounds; *q; q = &(*q)->next)
        if (*q == &r) {
            *q = r.next;
            break;
        }
    while (r.helping)
        pthread_cond_wait(&p->left, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void sq_pool_help(SqPool *p, SqPoolFn fn, void *ctx, int self, int helpers)
{
    help_round(p, fn, ctx, self, helpers, 0);
}

void sq_pool_offer(SqPool *p, SqPoolFn fn, void *ctx, int self, int helpers)
{
    help_round(p, fn, ctx, self, helpers, 1);
}

int sq_pool_idle(SqPool *p)
{
    return atomic_load_explicit(&p->idle, memory_order_relaxed) > 0;
}

int sq_pool_uncollected(SqPool *p)
{
    pthread_mutex_lock(&p->mu);
    const int n = (int)(p->submitted - p->collected);
    pthread_mutex_unlock(&p->mu);
    return n;
}

void sq_pool_stop(SqPool **pp)
{
    SqPool *p = *pp;
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->th[i].th, NULL);
    pthread_cond_destroy(&p->left);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    pool_free(p);
    *pp = NULL;
}

int sq_auto_threads(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > SQ_AUTO_THREADS_MAX ? SQ_AUTO_THREADS_MAX : (int)n;
}
