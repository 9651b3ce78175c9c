/*
 * The thread of a mapped input that maps the pages of the next frames
 * before the library's threads read them (only the rows they read, once
 * sq_input_rows_read says which), and, when pinning (sq_input_pin),
 * registers the mapping's windows ahead of the reader and unregisters each
 * once its frames are back. Apart from map.c, which maps and lends, because
 * this is the part that runs beside the reader, under a lock.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* madvise */
#endif

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "map_priv.h"

/* Registered windows: at least this, and PIN_FRAMES frames (only a frame
 * lying in one window goes up from it: one in every PIN_FRAMES is staged). */
#define PIN_MIN ((size_t)64 << 20)
#define PIN_FRAMES 4

/* The pages of the rows read of the frame whose payload starts at p. */
void sq_map_populate_frame(const SqMap *m, size_t p)
{
    for (int i = 0; i < m->nrng; i++) {
        const size_t s = p + m->rng[i].off;
        if (s >= m->len)
            break;
        const size_t e = s + m->rng[i].len < m->len ? s + m->rng[i].len : m->len;
        const size_t a = s / m->page * m->page;
        madvise((void *)(m->base + a), e - a, MADV_POPULATE_READ);
    }
}

/* The window at pin_end registered (its pages read in first): 0, or < 0. */
static int pin_next(SqMap *m)
{
    const size_t end = (m->len + m->page - 1) / m->page * m->page;
    const size_t a = m->pin_end, n = end - a < m->pin_win ? end - a : m->pin_win;
    madvise((void *)(m->base + a), n, MADV_POPULATE_READ);
    return m->pin.reg(m->pin.opaque, m->base + a, n);
}

/* One step of pinning (mu held, dropped around the driver's calls): 1 done, 0 idle. */
static int pin_step(SqMap *m)
{
    const size_t lo = atomic_load(&m->pin_lo);
    if (lo < m->pin_end && m->pin_done >= lo + m->pin_win) {
        pthread_mutex_unlock(&m->mu);
        m->pin.unreg(m->pin.opaque, m->base + lo);
        pthread_mutex_lock(&m->mu);
        atomic_store(&m->pin_lo, lo + m->pin_win);
        return 1;
    }
    if (m->pin_end < m->pin_want && m->pin_end < m->len) {
        pthread_mutex_unlock(&m->mu);
        const int r = pin_next(m);
        pthread_mutex_lock(&m->mu);
        if (r < 0)
            m->pin_want = 0; /* the driver said no: frames are staged from here on */
        else
            m->pin_end += m->pin_win;
        return 1;
    }
    return 0;
}

static void *populating(void *arg)
{
    SqMap *m = arg;
    pthread_mutex_lock(&m->mu);
    while (!m->quit) {
        if (m->pin.reg) {
            if (!pin_step(m))
                pthread_cond_wait(&m->cv, &m->mu);
            continue;
        }
        if (m->rec && m->pop_next < m->pop_until) {
            const size_t rec = m->rec, lim = m->pop_until;
            size_t p = m->pop_next;
            pthread_mutex_unlock(&m->mu);
            for (; p < lim; p += rec)
                sq_map_populate_frame(m, p);
            pthread_mutex_lock(&m->mu);
            if (m->pop_next < lim)
                m->pop_next = lim;
            continue;
        }
        if (m->mapped >= m->want) {
            pthread_cond_wait(&m->cv, &m->mu);
            continue;
        }
        const size_t a = m->mapped, b = m->want;
        pthread_mutex_unlock(&m->mu);
        /* an old kernel says EINVAL: the pages fault in as usual */
        madvise((void *)(m->base + a), b - a, MADV_POPULATE_READ);
        pthread_mutex_lock(&m->mu);
        m->mapped = b;
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

int sq_map_start_populating(SqMap *m)
{
    if (pthread_mutex_init(&m->mu, NULL))
        return -1;
    if (pthread_cond_init(&m->cv, NULL)) {
        pthread_mutex_destroy(&m->mu);
        return -1;
    }
    m->quit = 0;
    if (pthread_create(&m->th, NULL, populating, m)) {
        pthread_cond_destroy(&m->cv);
        pthread_mutex_destroy(&m->mu);
        return -1;
    }
    m->started = 1;
    return 0;
}

void sq_map_stop_populating(SqMap *m)
{
    if (!m->started)
        return;
    pthread_mutex_lock(&m->mu);
    m->quit = 1;
    pthread_cond_signal(&m->cv);
    pthread_mutex_unlock(&m->mu);
    pthread_join(m->th, NULL);
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->mu);
    m->started = 0;
}

void sq_input_rows_read(SqInput *in, const uint8_t *const mark[3], const int rows[3])
{
    SqMap *m = in ? in->map : NULL;
    if (!m || m->nrng || in->layout == SPEEDQA_LAYOUT_SEMI_PLANAR)
        return; /* (semi-planar files map whole) */
    const int planes = in->info.format.fmt == SPEEDQA_PIX_400 ? 1 : 3;
    MapRange *r = NULL;
    int n = 0, cap = 0, all = 1;
    for (int c = 0; c < planes; c++) {
        if (!mark[c] || rows[c] < 0)
            return;
        for (int y = 0; y < rows[c];) {
            if (!mark[c][y]) {
                all = 0;
                y++;
                continue;
            }
            int y1 = y + 1;
            while (y1 < rows[c] && mark[c][y1])
                y1++;
            const size_t off = in->plane_off[c] + (size_t)y * (size_t)in->stride[c];
            const size_t len = (size_t)(y1 - y) * (size_t)in->stride[c];
            if (n && r[n - 1].off + r[n - 1].len == off) {
                r[n - 1].len += len;
            } else {
                if (n == cap) {
                    MapRange *g = realloc(r, sizeof(*r) * (size_t)(cap = cap ? 2 * cap : 64));
                    if (!g) {
                        free(r);
                        return; /* whole frames, as before */
                    }
                    r = g;
                }
                r[n++] = (MapRange){ off, len };
            }
            y = y1;
        }
    }
    if (all || !n) {
        free(r);
        return;
    }
    m->rng = r;
    m->nrng = n;
}

void sq_input_prefault(SqInput *in, SqPrefault want)
{
    SqMap *m = in ? in->map : NULL;
    if (!m || m->populate != -1)
        return;
    const int on = want == SQ_PREFAULT_SPARE || (want == SQ_PREFAULT_BUSY && m->small_pages);
    m->populate = on && sq_map_start_populating(m) == 0;
}

int sq_input_pin(SqInput *in, const SqPinOps *ops)
{
    SqMap *m = in ? in->map : NULL;
    if (!m || m->pin.reg || m->next || ops->reg(ops->opaque, NULL, 0) < 0)
        return 0;
    const size_t frames = PIN_FRAMES * in->frame_bytes;
    const size_t want = ops->window ? ops->window : frames > PIN_MIN ? frames : PIN_MIN;
    const size_t win = want < m->page ? m->page : want / m->page * m->page;
    const size_t at = in->map_pos / m->page * m->page;
    if (m->started)
        pthread_mutex_lock(&m->mu);
    m->pin = *ops;
    m->pin_win = win;
    m->pin_end = at;
    atomic_store(&m->pin_lo, at);
    m->pin_want = at + win; /* the first window, at once */
    if (m->started) {
        pthread_cond_signal(&m->cv);
        pthread_mutex_unlock(&m->mu);
    } else if (sq_map_start_populating(m) != 0) {
        m->pin.reg = NULL;
        return 0;
    }
    m->populate = 1; /* the pinning reads the pages in */
    return 1;
}

void sq_input_unpin(SqInput *in)
{
    SqMap *m = in ? in->map : NULL;
    if (!m || !m->pin.reg)
        return;
    sq_map_stop_populating(m);
    for (size_t a = atomic_load(&m->pin_lo); a < m->pin_end; a += m->pin_win)
        m->pin.unreg(m->pin.opaque, m->base + a);
    atomic_store(&m->pin_lo, m->pin_end);
    m->pin.reg = NULL;
    m->populate = 0; /* no thread any more */
}
