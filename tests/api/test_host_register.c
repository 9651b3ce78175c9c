/*
 * speedqa_cuda_host_register (issue #12): on a GPU backend a lent picture lying
 * in one registered range goes up by DMA from there, and every score equals,
 * bit for bit, the CPU backend's copy-on-send run of the same frames.
 *
 * Frames lie back to back in one anonymous mapping per side, 6 bytes apart
 * (a Y4M file's layout: most frames share a page with a neighbour), and
 * windows of whole pages are registered over the first part of it: most
 * frames lie in one window, some across two, the last ones in none. The
 * release callback poisons the frame's own bytes, so a read after a release
 * changes a score. With one thread a staged frame is given back inside its
 * send and one uploaded from a range only once its batch is scored: the test
 * checks which path each frame took against the rule. One window is
 * unregistered while its frames are in flight (the call waits for their
 * uploads), and a second run registers windows on another thread while the
 * main one sends. Also the error codes, close unregistering what is left,
 * and -ENOTSUP on backends without DMA from caller memory (the CPU); a
 * private file mapping refused, a shared one taken.
 *
 * usage: test_host_register [cpu|cuda|opencl|hip] (77 when no device)
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/file_map.h"
#include "common/frame_map.h"
#include "common/util.h"
#include "common/check.h"

#define W 352
#define H 288
#define NF 40
#define NREG 30 /* frames [0, NREG) lie in the registered windows */

static int fails;

typedef FrameMap Side;

static size_t page;
static size_t win; /* window bytes: whole pages, a few frames */

/* Whether frame f lies in one of the windows over [0, NREG frames). */
static int in_window(const Side *sd, int f)
{
    const size_t a = fm_offset(sd, f), b = a + sd->fb, top = fm_offset(sd, NREG) / win * win;
    return b <= top && a / win == (b - 1) / win;
}

static int open_ctx(SpeedqaContext **ctx, SpeedqaBackend be, int threads)
{
    SpeedqaSettings st;
    speedqa_default_settings(&st);
    test_env_settings(&st);
    st.format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, 8 };
    st.backend = be;
    st.n_threads = threads;
    return speedqa_open(ctx, &st);
}

/* Every frame's scores; lend: from the mappings, with releases. */
static int score_all(SpeedqaContext *ctx, Side *sd, int lend, TestScores *out,
                     void (*between)(SpeedqaContext *, int, void *), void *arg)
{
    int got = 0, ret = 0;
    for (int f = 0; f < NF && ret == 0; f++) {
        SpeedqaPicture pic[2];
        for (int s = 0; s < 2; s++) {
            fm_picture(&sd[s], f, lend, &pic[s]);
            fm_sending(&sd[s], f);
        }
        while ((ret = speedqa_send(ctx, &pic[0], &pic[1])) == SPEEDQA_ERR(EAGAIN))
            if ((ret = test_receive(ctx, &out[got], 1, 0)) == 0)
                got++;
            else if (ret != SPEEDQA_ERR(EAGAIN))
                return ret;
        for (int s = 0; s < 2; s++)
            fm_sending(&sd[s], -1);
        if (between && ret == 0)
            between(ctx, f, arg);
    }
    if (ret == 0)
        ret = speedqa_flush(ctx);
    while (ret == 0 && got < NF)
        if ((ret = test_receive(ctx, &out[got], 1, 0)) == 0)
            got++;
    return ret < 0 ? ret : got == NF ? 0 : -EIO;
}

static void same_scores(const char *what, const TestScores *want, const TestScores *got)
{
    int diff = -1;
    for (int f = 0; f < NF && diff < 0; f++)
        if (want[f].count != got[f].count || got[f].frame != (unsigned)f ||
            memcmp(want[f].values, got[f].values, sizeof(double) * (size_t)want[f].count))
            diff = f;
    CHECK(diff < 0, "%s: frame %d scores differ from the CPU's", what, diff);
    printf("%s %s\n", diff < 0 ? "ok  " : "FAIL", what);
}

static int register_windows(SpeedqaContext *ctx, Side *sd)
{
    const size_t top = fm_offset(sd, NREG) / win * win;
    for (int s = 0; s < 2; s++)
        for (size_t a = 0; a < top; a += win) {
            const int r = speedqa_cuda_host_register(ctx, sd[s].map + a, win);
            if (r < 0)
                return r;
        }
    return 0;
}

/* After frame 3 is sent: window 0 goes while its frames are in flight. */
static void drop_first(SpeedqaContext *ctx, int f, void *arg)
{
    Side *sd = arg;
    if (f == 3)
        for (int s = 0; s < 2; s++)
            CHECK(speedqa_cuda_host_unregister(ctx, sd[s].map) == 0, "unregister in flight");
}

typedef struct Pinner {
    SpeedqaContext *ctx;
    Side *sd;
    int ret;
} Pinner;

static void *pin_thread(void *arg)
{
    Pinner *p = arg;
    p->ret = register_windows(p->ctx, p->sd);
    return NULL;
}

static void errors(SpeedqaBackend be)
{
    SpeedqaContext *ctx = NULL;
    if (open_ctx(&ctx, be, 2) < 0) {
        CHECK(0, "open");
        return;
    }
    const size_t n = 65 * page;
    unsigned char *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED, "mmap");
    if (m == MAP_FAILED)
        return;
    CHECK(speedqa_cuda_host_register(NULL, m, page) == SPEEDQA_ERR(EINVAL), "NULL context");
    CHECK(speedqa_cuda_host_register(ctx, NULL, page) == SPEEDQA_ERR(EINVAL), "NULL with a size");
    CHECK(speedqa_cuda_host_register(ctx, m, 0) == SPEEDQA_ERR(EINVAL), "size 0");
    CHECK(speedqa_cuda_host_unregister(NULL, m) == SPEEDQA_ERR(EINVAL), "unregister, NULL context");
    CHECK(speedqa_cuda_host_unregister(ctx, NULL) == SPEEDQA_ERR(EINVAL), "unregister NULL");
    const int can = speedqa_cuda_host_register(ctx, NULL, 0) == 0;
    CHECK(can || speedqa_cuda_host_register(ctx, NULL, 0) == SPEEDQA_ERR(ENOTSUP), "query");
    CHECK(!can || be != SPEEDQA_BACKEND_CPU, "the CPU takes ranges");
    if (!can) {
        CHECK(speedqa_cuda_host_register(ctx, m, page) == SPEEDQA_ERR(ENOTSUP), "register");
        CHECK(speedqa_cuda_host_unregister(ctx, m) == SPEEDQA_ERR(ENOTSUP), "unregister");
    } else {
        CHECK(speedqa_cuda_host_register(ctx, m, 2 * page) == 0, "register");
        CHECK(speedqa_cuda_host_register(ctx, m + page, 2 * page) == SPEEDQA_ERR(EINVAL), "overlap");
        CHECK(speedqa_cuda_host_unregister(ctx, m + page) == SPEEDQA_ERR(EINVAL), "not a start");
        CHECK(speedqa_cuda_host_unregister(ctx, m) == 0, "unregister");
        CHECK(speedqa_cuda_host_unregister(ctx, m) == SPEEDQA_ERR(EINVAL), "twice");
        int r = 0, k = 0;
        for (; k < SPEEDQA_CUDA_MAX_HOST_RANGES && r == 0; k++)
            r = speedqa_cuda_host_register(ctx, m + (size_t)k * page, page);
        CHECK(r == 0 && k == SPEEDQA_CUDA_MAX_HOST_RANGES, "%d ranges: %d", k, r);
        CHECK(speedqa_cuda_host_register(ctx, m + 64 * page, page) == SPEEDQA_ERR(ENOSPC), "one more");
        CHECK(speedqa_cuda_host_unregister(ctx, m + 5 * page) == 0, "one less");
        CHECK(speedqa_cuda_host_register(ctx, m + 64 * page, page) == 0, "then one more");
        /* pinning a private file mapping spun in the kernel on the H200 */
        unsigned char *pv = tmp_file_map(2 * page, MAP_PRIVATE);
        unsigned char *sh = tmp_file_map(2 * page, MAP_SHARED);
        CHECK(pv != MAP_FAILED && sh != MAP_FAILED, "file mappings");
        if (pv != MAP_FAILED && sh != MAP_FAILED) {
            CHECK(speedqa_cuda_host_register(ctx, pv, 2 * page) == SPEEDQA_ERR(EINVAL), "private file mapping");
            CHECK(speedqa_cuda_host_unregister(ctx, m + 6 * page) == 0, "room for one");
            CHECK(speedqa_cuda_host_register(ctx, sh, 2 * page) == 0, "shared file mapping");
        }
        if (pv != MAP_FAILED)
            munmap(pv, 2 * page);
        if (sh != MAP_FAILED) {
            CHECK(speedqa_cuda_host_unregister(ctx, sh) == 0, "unregister the shared one");
            munmap(sh, 2 * page);
        }
    }
    speedqa_close(&ctx); /* unregisters what is left: a new context may pin it again */
    if (can && open_ctx(&ctx, be, 1) == 0) {
        CHECK(speedqa_cuda_host_register(ctx, m, n) == 0, "close left a range registered");
        speedqa_close(&ctx);
    }
    munmap(m, n);
    printf("%s error codes (%s)\n", fails ? "FAIL" : "ok  ", can ? "ranges taken" : "-ENOTSUP");
}

int main(int argc, char **argv)
{
    const char *bname = argc > 1 ? argv[1] : "cpu";
    const SpeedqaBackend be = backend_named(bname);
    page = (size_t)sysconf(_SC_PAGESIZE);
    win = (4 * (size_t)W * H * 3 / 2 + page - 1) / page * page;
    if (be != SPEEDQA_BACKEND_CPU) {
        char list[1024];
        if (speedqa_list_devices(be, list, sizeof list) <= 0) {
            printf("SKIP: no %s device\n", bname);
            return 77;
        }
    }
    errors(be);
    SpeedqaContext *q = NULL;
    if (be != SPEEDQA_BACKEND_CPU && open_ctx(&q, be, 1) == 0 &&
        speedqa_cuda_host_register(q, NULL, 0) < 0) {
        speedqa_close(&q);
        printf("%s: no ranges (error codes only)\n%s\n", bname, fails ? "FAILED" : "all passed");
        return fails ? 1 : 0;
    }
    speedqa_close(&q);
    if (be == SPEEDQA_BACKEND_CPU) {
        printf("%s\n", fails ? "FAILED" : "all passed");
        return fails ? 1 : 0;
    }

    static Side sd[2];
    static TestScores want[NF], got[NF];
    if (fm_init(&sd[0], W, H, NF, 0) < 0 || fm_init(&sd[1], W, H, NF, 1) < 0) {
        printf("FAIL: no memory\n");
        return 1;
    }
    SpeedqaContext *ctx = NULL;
    CHECK(open_ctx(&ctx, SPEEDQA_BACKEND_CPU, 1) == 0, "cpu open");
    CHECK(score_all(ctx, sd, 0, want, NULL, NULL) == 0, "cpu run");
    speedqa_close(&ctx);

    /* one thread: staged frames go back inside their send, uploaded ones later */
    CHECK(open_ctx(&ctx, be, 1) == 0, "open");
    CHECK(register_windows(ctx, sd) == 0, "register");
    CHECK(score_all(ctx, sd, 1, got, drop_first, sd) == 0, "run");
    speedqa_close(&ctx);
    same_scores("1 thread, windows registered, window 0 dropped in flight", want, got);
    int direct = 0, wrong = 0;
    for (int f = 0; f < NF; f++)
        for (int s = 0; s < 2; s++) {
            CHECK(sd[s].back[f] == 1, "frame %d side %d released %d times", f, s, sd[s].back[f]);
            const int up = sd[s].in_send[f] == 0;
            direct += up;
            if (up != in_window(&sd[s], f)) {
                printf("  frame %d side %d: %s, in a window: %d\n", f, s,
                       up ? "uploaded from its range" : "staged", in_window(&sd[s], f));
                wrong++;
            }
        }
    CHECK(!wrong && direct > 0 && direct < 2 * NF, "%d frames took the wrong path", wrong);
    printf("%s %d of %d pictures went up from a registered range\n", wrong ? "FAIL" : "ok  ",
           direct, 2 * NF);

    /* four threads, windows registered on another thread meanwhile */
    fm_reset(&sd[0]);
    fm_reset(&sd[1]);
    CHECK(open_ctx(&ctx, be, 4) == 0, "open");
    Pinner pn = { ctx, sd, 0 };
    pthread_t th;
    const int started = pthread_create(&th, NULL, pin_thread, &pn) == 0;
    CHECK(score_all(ctx, sd, 1, got, NULL, NULL) == 0, "run");
    if (started)
        pthread_join(th, NULL);
    CHECK(pn.ret == 0, "registering thread: %d", pn.ret);
    speedqa_close(&ctx); /* with every window still registered */
    same_scores("4 threads, windows registered while sending", want, got);
    for (int f = 0; f < NF; f++)
        for (int s = 0; s < 2; s++)
            CHECK(sd[s].back[f] == 1, "frame %d side %d released %d times", f, s, sd[s].back[f]);
    fm_free(&sd[0]);
    fm_free(&sd[1]);
    printf("%s\n", fails ? "FAILED" : "all passed");
    return fails ? 1 : 0;
}
