/*
 * The CLI's pinned windows (sq_input_pin, tools/input/map.c) against a fake
 * registry that checks what speedqa_cuda_host_register asks of its caller: each
 * range whole pages inside the file's mapping, none overlapping another,
 * unregistered exactly once (and only the start of a registered range),
 * never while a frame lying in it is still lent; a frame read lying in a
 * registered range is counted (the windows must run ahead of the reader).
 * Frames are given back in order and out of order, some on another thread
 * (as the library's workers do). Runs: unpinned before closing; closed
 * without unpinning (a context that outlives its input); a registry that
 * refuses every range after the question (frames are then simply lent).
 *
 * usage: test_pin TMPDIR
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "input.h"
#include "common/check.h"

#define W 64
#define H 48
#define FB (W * H * 3 / 2)
#define NF 300
#define DEPTH 7 /* frames lent at once */
#define MAXR 256

static int fails;

typedef struct Fake {
    pthread_mutex_t mu;
    int refuse;
    uintptr_t lo[MAXR], hi[MAXR];
    int n, regs, unregs, most, bad;
    /* frames lent and not back: their first byte (0: free) */
    uintptr_t lent[NF];
    size_t page;
} Fake;

static int fake_reg(void *opaque, const void *p, size_t bytes)
{
    Fake *f = opaque;
    const uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
    if (!p)
        return bytes ? -22 : 0;
    pthread_mutex_lock(&f->mu);
    int ret = f->refuse ? -95 : 0;
    if (!ret) {
        if (lo % f->page || !bytes || f->n == MAXR) {
            printf("  bad range %#lx + %zu\n", (unsigned long)lo, bytes);
            f->bad++;
        }
        for (int i = 0; i < f->n; i++)
            if (lo < f->hi[i] && f->lo[i] < hi) {
                printf("  range %#lx + %zu overlaps a registered one\n", (unsigned long)lo, bytes);
                f->bad++;
            }
        if (f->n < MAXR) {
            f->lo[f->n] = lo;
            f->hi[f->n++] = hi;
        }
        f->regs++;
        f->most = f->n > f->most ? f->n : f->most;
    }
    pthread_mutex_unlock(&f->mu);
    return ret;
}

static int fake_unreg(void *opaque, const void *p)
{
    Fake *f = opaque;
    pthread_mutex_lock(&f->mu);
    int i = 0;
    while (i < f->n && f->lo[i] != (uintptr_t)p)
        i++;
    if (i == f->n) {
        printf("  unregistering %p, never registered\n", p);
        f->bad++;
    } else {
        for (int k = 0; k < NF; k++)
            if (f->lent[k] && f->lent[k] >= f->lo[i] && f->lent[k] + FB <= f->hi[i]) {
                printf("  range of frame %d unregistered while it is lent\n", k);
                f->bad++;
            }
        f->lo[i] = f->lo[f->n - 1];
        f->hi[i] = f->hi[--f->n];
        f->unregs++;
    }
    pthread_mutex_unlock(&f->mu);
    return 0;
}

static int registered(Fake *f, const void *p)
{
    const uintptr_t a = (uintptr_t)p;
    pthread_mutex_lock(&f->mu);
    int in = 0;
    for (int i = 0; i < f->n && !in; i++)
        in = a >= f->lo[i] && a + FB <= f->hi[i];
    pthread_mutex_unlock(&f->mu);
    return in;
}

typedef struct Lent {
    SpeedqaPicture pic;
    int frame;
} Lent;

static void give_back(Fake *f, Lent *l)
{
    pthread_mutex_lock(&f->mu);
    f->lent[l->frame] = 0;
    pthread_mutex_unlock(&f->mu);
    l->pic.release(l->pic.release_opaque, l->pic.data[0]);
}

static void *give_back_thread(void *arg)
{
    void **a = arg;
    give_back(a[0], a[1]);
    return NULL;
}

static void pause_us(long us)
{
    struct timespec ts = { 0, us * 1000 };
    nanosleep(&ts, NULL);
}

/* mode 0: unpin, then close; 1: close only; 2: ranges refused */
static void run(const char *path, int mode)
{
    static Fake f;
    memset(&f, 0, sizeof f);
    pthread_mutex_init(&f.mu, NULL);
    f.page = (size_t)sysconf(_SC_PAGESIZE);
    f.refuse = mode == 2;
    SqInput *in = NULL;
    char err[300];
    if (sq_input_open(&in, path, NULL, NULL, err, sizeof err) < 0) {
        CHECK(0, "open: %s", err);
        return;
    }
    CHECK(sq_input_mapped(in), "the file is not mapped");
    sq_input_lend(in);
    const SqPinOps ops = { fake_reg, fake_unreg, &f, 4 * f.page };
    CHECK(sq_input_pin(in, &ops) == 1, "not pinning");
    static Lent ring[DEPTH];
    int n = 0, inwin = 0, r;
    SpeedqaPicture pic;
    while ((r = sq_input_read(in, &pic, err, sizeof err)) == 1) {
        CHECK(pic.release != NULL, "frame %d not lent", n);
        if (n >= DEPTH) { /* the oldest back, every third from another thread */
            Lent *old = &ring[n % DEPTH];
            if (n % 3 == 0) {
                void *a[2] = { &f, old };
                pthread_t th;
                if (pthread_create(&th, NULL, give_back_thread, a) == 0)
                    pthread_join(th, NULL);
                else
                    give_back(&f, old);
            } else {
                give_back(&f, old);
            }
        }
        inwin += registered(&f, pic.data[0]);
        pthread_mutex_lock(&f.mu);
        f.lent[n] = (uintptr_t)pic.data[0];
        pthread_mutex_unlock(&f.mu);
        ring[n % DEPTH] = (Lent){ pic, n };
        n++;
        pause_us(200); /* a scoring loop's pace, so the windows can run ahead */
    }
    CHECK(r == 0 && n == NF, "read %d frames (%d): %s", n, r, r < 0 ? err : "");
    for (int k = n - 1; k >= 0 && k >= n - DEPTH; k--) /* the rest back, newest first */
        give_back(&f, &ring[k % DEPTH]);
    if (mode != 1)
        sq_input_unpin(in);
    sq_input_close(&in);
    CHECK(f.bad == 0, "%d broken rules", f.bad);
    CHECK(f.n == 0 && f.regs == f.unregs, "%d ranges left, %d registered, %d unregistered",
          f.n, f.regs, f.unregs);
    if (mode == 2) {
        CHECK(f.regs == 0 && inwin == 0, "refused ranges: %d registered", f.regs);
    } else {
        CHECK(f.regs > NF * (FB + 6) / (int)(4 * f.page) / 2, "only %d windows", f.regs);
        CHECK(inwin > 0, "no frame lay in a registered window when read");
        CHECK(f.most <= 8, "%d ranges registered at once", f.most);
    }
    printf("%s %s: %d frames, %d windows, %d frames read inside one, at most %d at once\n",
           fails ? "FAIL" : "ok  ", mode == 0 ? "unpinned, closed" : mode == 1 ? "closed"
           : "ranges refused", n, f.regs, inwin, f.most);
    pthread_mutex_destroy(&f.mu);
}

int main(int argc, char **argv)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pin-%ld.y4m", argc > 1 ? argv[1] : "/tmp", (long)getpid());
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        printf("FAIL: cannot write %s\n", path);
        return 1;
    }
    fprintf(fp, "YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n", W, H);
    static unsigned char frame[FB];
    for (int k = 0; k < NF; k++) {
        for (int i = 0; i < FB; i++)
            frame[i] = (unsigned char)(i * 7 + k * 13);
        fputs("FRAME\n", fp);
        fwrite(frame, 1, FB, fp);
    }
    fclose(fp);
    for (int mode = 0; mode < 3; mode++)
        run(path, mode);
    remove(path);
    printf("%s\n", fails ? "FAILED" : "all passed");
    return fails ? 1 : 0;
}
