/*
 * The thread pool's help rounds (sq_pool_help, core/pool.c), which the CPU
 * backend uses to share a send's copies and a frame's planes with idle
 * workers: every part runs exactly once, the call returns only when every
 * thread that joined has left, and it keeps working while items are queued
 * or running (a busy thread finishes its item; every item runs once and is
 * collected), also when items open rounds of their own, several at once;
 * no more threads join a round than its helpers; a lone item collected with
 * sq_pool_collect_run runs on the caller, with no more threads than the
 * pool's computing at once; a round offered while every thread is busy
 * (sq_pool_offer) is joined by threads as they finish their items. Also
 * run under TSan by .ci/reliability.sh.
 *
 *   test_thread_pool [rounds]
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/pool.h"

#define PARTS 257

static int fails;

static void check(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL %s\n", what);
        fails++;
    }
}

typedef struct Round {
    atomic_int next, inside, most_inside;
    atomic_int runs[PARTS];
    atomic_int threads_seen[64];
    int nparts;
    int nap; /* µs each part takes (0: a nap every 64 parts) */
} Round;

static void nap_us(long us)
{
    struct timespec t = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&t, NULL);
}

static void part_fn(void *ctx, int64_t arg, int thread)
{
    (void)arg;
    Round *r = ctx;
    const int in = atomic_fetch_add(&r->inside, 1) + 1;
    for (int m = atomic_load(&r->most_inside); in > m &&
         !atomic_compare_exchange_weak(&r->most_inside, &m, in);)
        ;
    if (thread >= 0 && thread < 64)
        atomic_store(&r->threads_seen[thread], 1);
    for (int i; (i = atomic_fetch_add(&r->next, 1)) < r->nparts;) {
        atomic_fetch_add(&r->runs[i], 1);
        if (r->nap)
            nap_us(r->nap);
        else if (i % 64 == 0)
            nap_us(50); /* long enough for idle threads to join */
    }
    atomic_fetch_sub(&r->inside, 1);
}

/* Run one help round and check it; busy: every pool thread has a 20 ms
 * item running, so none may join. */
static void help_round(SqPool *p, int nparts, int busy, const char *what)
{
    Round *r = calloc(1, sizeof(*r));
    if (!r) {
        check(0, "out of memory");
        return;
    }
    r->nparts = nparts;
    sq_pool_help(p, part_fn, r, sq_pool_threads(p), nparts - 1);
    int once = 1;
    for (int i = 0; i < nparts; i++)
        once &= atomic_load(&r->runs[i]) == 1;
    char msg[160];
    snprintf(msg, sizeof msg, "%s: every part ran once", what);
    check(once, msg);
    snprintf(msg, sizeof msg, "%s: no thread still inside when the call returns", what);
    check(atomic_load(&r->inside) == 0, msg);
    snprintf(msg, sizeof msg, "%s: the caller took part (thread index %d)", what,
             sq_pool_threads(p));
    check(!p || atomic_load(&r->threads_seen[sq_pool_threads(p)]) == 1, msg);
    int others = 0;
    for (int t = 0; t < sq_pool_threads(p); t++)
        others += atomic_load(&r->threads_seen[t]);
    snprintf(msg, sizeof msg, "%s: no thread busy with an item joined", what);
    check(!busy || others == 0, msg);
    free(r);
}

typedef struct Slow {
    atomic_int ran[4]; /* per item (its arg): how many times it ran */
    atomic_int started; /* items that began */
} Slow;

static void slow_item(void *ctx, int64_t arg, int thread)
{
    (void)thread;
    Slow *s = ctx;
    nap_us(20000);
    atomic_fetch_add(&s->ran[arg & 3], 1);
}

static void short_item(void *ctx, int64_t arg, int thread)
{
    (void)thread;
    Slow *s = ctx;
    atomic_fetch_add(&s->started, 1);
    nap_us(1000);
    atomic_fetch_add(&s->ran[arg & 3], 1);
}

/* Items that open rounds of their own (a frame's planes shared). */
typedef struct Nested {
    SqPool *p;
    Round *r[4];
    atomic_int opener_ok[4];
    atomic_int opener[4]; /* the thread index the item ran under */
} Nested;

static void nested_item(void *ctx, int64_t arg, int thread)
{
    Nested *n = ctx;
    Round *r = n->r[arg];
    atomic_store(&n->opener[arg], thread);
    sq_pool_help(n->p, part_fn, r, thread, r->nparts - 1);
    int once = atomic_load(&r->inside) == 0;
    for (int i = 0; i < r->nparts; i++)
        once &= atomic_load(&r->runs[i]) == 1;
    /* the opener ran fn under its own index, so its parts' scratch is its own */
    atomic_store(&n->opener_ok[arg], once && atomic_load(&r->threads_seen[thread]) == 1);
}

/* k items at once on a pool of 4 threads, each item a round of its own;
 * returns whether a thread other than an opener joined some round. */
static int nested_rounds(SqPool *p, int k, int nparts)
{
    Nested n = { .p = p };
    int helped = 0;
    for (int i = 0; i < k; i++) {
        n.r[i] = calloc(1, sizeof(*n.r[i]));
        if (!n.r[i]) {
            check(0, "out of memory");
            k = i;
            break;
        }
        n.r[i]->nparts = nparts;
    }
    for (int i = 0; i < k; i++)
        check(sq_pool_submit(p, nested_item, &n, i) == 0, "submit a round-opening item");
    for (int i = 0; i < k; i++)
        check(sq_pool_collect(p, 1) == 0, "collect a round-opening item");
    for (int i = 0; i < k; i++) {
        check(atomic_load(&n.opener_ok[i]) == 1,
              "a round opened inside an item: every part once, the opener took part, "
              "nobody left inside");
        int seen = 0;
        for (int t = 0; t < sq_pool_threads(p); t++)
            seen += atomic_load(&n.r[i]->threads_seen[t]);
        helped |= seen > 1;
        free(n.r[i]);
    }
    return helped;
}

/*
 * sq_pool_collect_run: with two items in flight the caller only waits (the
 * first ran on a pool thread); a lone item no thread has started runs on
 * the caller, and its round then has at most threads - 1 helpers inside at
 * once. Returns whether the caller ran the lone item (a woken thread may
 * start it first: both are right).
 */
static int collect_run(SqPool *p, int nparts)
{
    const int nt = sq_pool_threads(p);
    Nested n = { .p = p };
    int ran_here = 0;
    for (int i = 0; i < 3; i++) {
        if (!(n.r[i] = calloc(1, sizeof(*n.r[i])))) {
            check(0, "out of memory");
            for (int k = 0; k < i; k++)
                free(n.r[k]);
            return 0;
        }
        n.r[i]->nparts = nparts;
    }
    check(sq_pool_submit(p, nested_item, &n, 0) == 0, "submit an item");
    check(sq_pool_submit(p, nested_item, &n, 1) == 0, "submit a second item");
    check(sq_pool_collect_run(p) == 0 && sq_pool_collect_run(p) == 0, "collect_run two items");
    check(atomic_load(&n.opener[0]) < nt, "with two items in flight the first runs on a pool thread");
    check(sq_pool_submit(p, nested_item, &n, 2) == 0, "submit a lone item");
    check(sq_pool_collect_run(p) == 0, "collect_run a lone item");
    for (int i = 0; i < 3; i++)
        check(atomic_load(&n.opener_ok[i]) == 1, "collect_run: every part once, nobody left inside");
    if (atomic_load(&n.opener[2]) == nt) {
        ran_here = 1;
        check(atomic_load(&n.r[2]->most_inside) <= nt,
              "a lone item run by the caller: at most the pool's thread count inside its round");
    }
    for (int i = 0; i < 3; i++)
        free(n.r[i]);
    return ran_here;
}

/*
 * A round of 64 parts of 200 µs with `helpers` helpers, opened (offer:
 * offered, once every item has begun) beside `items` short items: every
 * part and item runs once, at most `helpers` threads join. Returns how many
 * pool threads joined.
 */
static int round_beside_items(SqPool *p, int items, int helpers, int offer)
{
    Round *r = calloc(1, sizeof(*r));
    if (!r) {
        check(0, "out of memory");
        return 0;
    }
    r->nparts = 64;
    r->nap = 200;
    Slow q;
    memset(&q, 0, sizeof q);
    for (int i = 0; i < items; i++)
        check(sq_pool_submit(p, short_item, &q, i) == 0, "submit a short item");
    if (offer) {
        /* every thread inside its item: none idle when the round opens */
        while (atomic_load(&q.started) < items)
            nap_us(20);
        sq_pool_offer(p, part_fn, r, sq_pool_threads(p), helpers);
    } else {
        sq_pool_help(p, part_fn, r, sq_pool_threads(p), helpers);
    }
    int once = atomic_load(&r->inside) == 0;
    for (int i = 0; i < r->nparts; i++)
        once &= atomic_load(&r->runs[i]) == 1;
    check(once, "a round beside items: every part once, nobody left inside");
    for (int i = 0; i < items; i++)
        check(sq_pool_collect(p, 1) == 0, "collect a short item");
    for (int i = 0; i < items; i++)
        check(atomic_load(&q.ran[i]) == 1, "every short item ran once");
    int seen = 0;
    for (int t = 0; t < sq_pool_threads(p); t++)
        seen += atomic_load(&r->threads_seen[t]);
    check(seen <= helpers && atomic_load(&r->most_inside) <= helpers + 1,
          "a round beside items: at most its helpers join");
    free(r);
    return seen;
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 200;
    const SqAlloc a = { NULL, NULL, NULL }; /* malloc and free */

    help_round(NULL, 5, 0, "no pool");

    SqPool *p = NULL;
    if (sq_pool_start(&p, 4, 4, &a) < 0) {
        printf("FAIL cannot start a pool\n");
        return 1;
    }
    int joined = 0;
    for (int k = 0; k < rounds; k++) {
        Round *r = calloc(1, sizeof(*r));
        if (!r)
            break;
        r->nparts = 1 + k % PARTS;
        sq_pool_help(p, part_fn, r, sq_pool_threads(p), r->nparts - 1);
        int once = 1;
        for (int i = 0; i < r->nparts; i++)
            once &= atomic_load(&r->runs[i]) == 1;
        check(once && atomic_load(&r->inside) == 0, "idle pool: every part once, nobody left inside");
        for (int t = 0; t < sq_pool_threads(p); t++)
            joined |= atomic_load(&r->threads_seen[t]);
        free(r);
    }
    check(joined, "idle pool threads joined some round");

    /* Help while every thread runs an item: the caller does all the parts,
     * and every item still runs once and is collected. */
    Slow s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < 4; i++)
        check(sq_pool_submit(p, slow_item, &s, i) == 0, "submit an item");
    help_round(p, PARTS, 1, "items in flight");
    help_round(p, 3, 1, "items in flight, few parts");
    for (int i = 0; i < 4; i++)
        check(sq_pool_collect(p, 1) == 0, "collect an item");
    for (int i = 0; i < 4; i++)
        check(atomic_load(&s.ran[i]) == 1, "every item ran once");
    /* Rounds opened by items, 1 to 4 at once: with threads idle they help. */
    int nested_helped = 0;
    for (int k = 0; k < rounds / 4 + 1; k++)
        nested_helped |= nested_rounds(p, 1 + k % 4, 1 + (k * 37) % PARTS);
    check(nested_helped, "idle threads joined rounds opened by items");
    /* No more than helpers join a round: not those woken, nor threads that
     * finish an item meanwhile (3 items of 1 ms, a round of ~6 ms). */
    for (int k = 0; k < rounds / 20 + 1; k++)
        round_beside_items(p, 3, 1, 0);
    /* An offered round while every thread runs a short item: threads that
     * finish theirs join it (sq_pool_offer), no more than its helpers. */
    int late_joined = 0;
    for (int k = 0; k < rounds / 20 + 1; k++)
        late_joined |= round_beside_items(p, 4, 2, 1) > 0;
    check(late_joined, "threads done with their items joined an offered round");
    int caller_ran = 0;
    for (int k = 0; k < rounds / 4 + 1; k++)
        caller_ran += collect_run(p, 1 + (k * 53) % PARTS);
    check(caller_ran > 0, "collect_run ran some lone item on the caller");
    sq_pool_stop(&p);
    check(p == NULL, "pool stopped");
    printf("%s test_thread_pool (%d rounds)\n", fails ? "FAIL" : "ok", rounds);
    return fails ? 1 : 0;
}
