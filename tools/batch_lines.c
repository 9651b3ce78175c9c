/*
 * A batch's lines as they come (batch_priv.h): written and flushed to the
 * results at once, kept for the file in manifest order at the end, shown
 * on the progress line; and the lines an executor delivers (the Dask
 * client: its workers score chunks of pairs through the same batch code).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "batch_priv.h"
#include "results.h"

double sq_batch_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Under mu: one line, flushed at once, so that an interrupted batch keeps it. */
void sq_batch_write_line(Batch *b, const char *line)
{
    if (b->out && !b->write_failed && (fprintf(b->out, "%s\n", line) < 0 || fflush(b->out) != 0))
        b->write_failed = errno ? errno : EIO;
}

/* Under mu: pair i's line is done (taken, NULL: out of memory). */
void sq_batch_take_line(Batch *b, int i, char *l)
{
    sq_batch_write_line(b, l ? l : "{\"error\": \"out of memory\"}");
    if (!b->line[i])
        b->line[i] = l;
    else
        free(l);
}

/* Under mu: pairs done of the total, frames, the time left at this rate. */
void sq_batch_progress(Batch *b)
{
    const double now = sq_batch_now();
    if (!b->progress || (now - b->shown < 0.25 && b->done < b->todo))
        return; /* at most four times a second, as a single run's */
    b->shown = now;
    const double el = now - b->t0;
    char eta[32] = "?";
    if (b->done > 0 && b->done < b->todo) {
        const double left = el / b->done * (b->todo - b->done);
        snprintf(eta, sizeof eta, "%dm%02ds", (int)(left / 60), (int)left % 60);
    } else if (b->done == b->todo) {
        snprintf(eta, sizeof eta, "0s");
    }
    fprintf(stderr, "\rspeedqa: batch: %d/%d pairs, %lld frames, %.0f s, ETA %s\033[K",
            b->done, b->todo, b->frames, el, eta);
    fflush(stderr);
}

/*
 * cfg->batch_exec: the pairs left to score go to the executor (the Dask
 * client: chunks of them through sq_batch_run with batch_only on its
 * workers), which hands their lines back through sq_batch_deliver; the
 * results file, --resume and the exit code stay this run's. A pair the
 * executor never delivered fails.
 */
void sq_batch_exec(Batch *b)
{
    int *todo = malloc(sizeof(int) * (size_t)(b->npairs ? b->npairs : 1)), n = 0;
    for (int i = 0; todo && i < b->npairs; i++)
        if (!b->kept[i])
            todo[n++] = i;
    if (todo && n)
        b->cfg->batch_exec(b->cfg->batch_exec_opaque, b, todo, n);
    pthread_mutex_lock(&b->mu);
    for (int k = 0; k < n; k++) {
        if (b->line[todo[k]])
            continue;
        SqJobStream st = { .exit = SQ_EXIT_INTERNAL };
        snprintf(st.err, sizeof st.err, "not scored: the executor failed");
        sq_batch_take_line(b, todo[k], sq_results_line(&b->pairs[todo[k]], &st, b->settings,
                                              b->cfg->precision_max));
        b->nfailed++;
        b->failed = SQ_EXIT_INTERNAL > b->failed ? SQ_EXIT_INTERNAL : b->failed;
        b->done++;
    }
    pthread_mutex_unlock(&b->mu);
    free(todo);
}

int sq_batch_deliver(void *sink, const int *pairs, int n, const char *lines, int exit_code)
{
    Batch *b = sink;
    int bad = 0;
    pthread_mutex_lock(&b->mu);
    for (int i = 0; i < n; i++) {
        const char *e = lines ? strchr(lines, '\n') : NULL;
        if (!e || pairs[i] < 0 || pairs[i] >= b->npairs || b->line[pairs[i]] || b->kept[pairs[i]]) {
            bad = -EINVAL;
            break;
        }
        char *l = strndup(lines, (size_t)(e - lines));
        if (!l) {
            bad = -ENOMEM;
            break;
        }
        /* the line's own "error" key: strings escape their quotes, so only it matches */
        b->nfailed += strstr(l, ", \"error\": \"") != NULL;
        sq_batch_take_line(b, pairs[i], l);
        b->done++;
        lines = e + 1;
    }
    if (exit_code > b->failed)
        b->failed = exit_code;
    sq_batch_progress(b);
    pthread_mutex_unlock(&b->mu);
    return bad;
}

