/*
 * Every entry point against what an outsider passes it (issue #10): option
 * values with trailing garbage, strides smaller than a row, nonzero
 * reserved bytes, NULL arguments, and a thread limit at open. Each failing
 * call must return a documented code and log exactly one line.
 */
#include <limits.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"

#define W 320
#define H 180

static int fails;

static void report(int ok, const char *what, int ret, const LogCapture *log)
{
    printf("%s %-52s -> %d \"%s\"\n", ok ? "ok  " : "FAIL", what, ret, log->last);
    fails += !ok;
}

static void base(SpeedqaSettings *s, LogCapture *log, const char **feats)
{
    speedqa_default_settings(s);
    s->format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, 8 };
    s->features = feats;
    s->logger = log_capture;
    s->log_cookie = log;
}

/* open must fail with want and one log line holding substr, or succeed when want == 0. */
static void open_case(const char *what, const char *feat, int want, const char *substr)
{
    LogCapture log = { .quiet = 1 };
    SpeedqaSettings s;
    const char *feats[] = { feat, NULL };
    base(&s, &log, feats);
    SpeedqaContext *ctx = NULL;
    int ret = speedqa_open(&ctx, &s);
    int ok = ret == want && (want == 0 ? ctx != NULL && log.count == 0
                                       : ctx == NULL && log.count == 1 && strstr(log.last, substr));
    report(ok, what, ret, &log);
    speedqa_close(&ctx);
}

typedef struct Pic {
    unsigned char buf[W * H * 3 / 2];
    SpeedqaPicture pic;
} Pic;

static void make_pic(Pic *p, unsigned seed)
{
    for (size_t i = 0; i < sizeof(p->buf); i++) {
        seed = seed * 1664525u + 1013904223u;
        size_t x = i % W, y = i / W;
        p->buf[i] = (unsigned char)(((x * x + 3 * y * y + x * y) >> 5) % 200 + (seed >> 28) + 20);
    }
    memset(&p->pic, 0, sizeof(p->pic));
    p->pic.format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, 8 };
    p->pic.data[0] = p->buf;
    p->pic.data[1] = p->buf + W * H;
    p->pic.data[2] = p->buf + W * H + (W / 2) * (H / 2);
    p->pic.stride[0] = W;
    p->pic.stride[1] = p->pic.stride[2] = W / 2;
}

/* Scores of one pair on a fresh context with n_threads; 0 or the failing code. */
static int score_pair(const SpeedqaPicture *r, const SpeedqaPicture *d, int threads,
                      TestScores *out, LogCapture *log)
{
    SpeedqaSettings s;
    base(&s, log, NULL);
    s.n_threads = threads;
    SpeedqaContext *ctx = NULL;
    int ret = speedqa_open(&ctx, &s);
    if (!ret)
        ret = speedqa_send(ctx, r, d);
    if (!ret)
        ret = speedqa_flush(ctx);
    if (!ret)
        ret = test_receive(ctx, out, 1, 0);
    speedqa_close(&ctx);
    return ret;
}

static void strides(void)
{
    static Pic a, b, flip;
    make_pic(&a, 1);
    make_pic(&b, 2);
    TestScores want, got;
    LogCapture log = { .quiet = 1 };
    if (score_pair(&a.pic, &b.pic, 1, &want, &log)) {
        report(0, "strides: reference scores", -1, &log);
        return;
    }
    static const struct { int plane; ptrdiff_t stride; const char *what; } bad[] = {
        { 0, 0, "luma stride 0" },
        { 0, W - 1, "luma stride width - 1" },
        { 1, W / 2 - 1, "chroma stride width - 1" },
        { 2, -(W / 2 - 1), "chroma stride -(width - 1)" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        SpeedqaPicture d = b.pic;
        d.stride[bad[i].plane] = bad[i].stride;
        LogCapture l = { .quiet = 1 };
        int ret = score_pair(&a.pic, &d, 1, &got, &l);
        report(ret == SPEEDQA_ERR(EINVAL) && l.count == 1 && strstr(l.last, "smaller than a row"),
               bad[i].what, ret, &l);
    }
    /* a negative stride (bottom-up rows) is a valid picture: same scores */
    memcpy(flip.buf, b.buf, sizeof(b.buf));
    SpeedqaPicture d = b.pic;
    const int ph[3] = { H, H / 2, H / 2 }, pw[3] = { W, W / 2, W / 2 };
    for (int p = 0; p < 3; p++) {
        unsigned char *base_p = flip.buf + ((const unsigned char *)b.pic.data[p] - b.buf);
        for (int y = 0; y < ph[p]; y++)
            memcpy(base_p + (size_t)(ph[p] - 1 - y) * pw[p],
                   (const unsigned char *)b.pic.data[p] + (size_t)y * pw[p], (size_t)pw[p]);
        d.data[p] = base_p + (size_t)(ph[p] - 1) * pw[p];
        d.stride[p] = -pw[p];
    }
    LogCapture l = { .quiet = 1 };
    int ret = score_pair(&a.pic, &d, 1, &got, &l);
    report(ret == 0 && !memcmp(got.values, want.values, sizeof(double) * (size_t)want.count),
           "negative strides: same scores as top-down", ret, &l);
}

static void entry_points(void)
{
    LogCapture log = { .quiet = 1 };
    SpeedqaSettings s;
    base(&s, &log, NULL);
    s.reserved[17] = 1;
    SpeedqaContext *ctx = NULL;
    int ret = speedqa_open(&ctx, &s);
    report(ret == SPEEDQA_ERR(EINVAL) && !ctx && log.count == 1 && strstr(log.last, "reserved"),
           "nonzero reserved settings byte", ret, &log);

    LogCapture lk = { .quiet = 1 };
    base(&s, &lk, NULL);
    s.cuda.keep_device = 2;
    ret = speedqa_open(&ctx, &s);
    report(ret == SPEEDQA_ERR(EINVAL) && !ctx && lk.count == 1 && strstr(lk.last, "keep_device"),
           "keep_device outside 0..1", ret, &lk);

    /* the sub-structs' room is checked too, whichever backend reads them */
    for (int k = 0; k < 2; k++) {
        LogCapture lr = { .quiet = 1 };
        base(&s, &lr, NULL);
        if (k)
            s.opencl.reserved[27] = 1;
        else
            s.cuda.reserved[0] = 1;
        ret = speedqa_open(&ctx, &s);
        report(ret == SPEEDQA_ERR(EINVAL) && !ctx && lr.count == 1 &&
                   strstr(lr.last, k ? "reserved opencl settings byte 27" : "reserved cuda settings byte 0"),
               k ? "nonzero reserved opencl settings byte" : "nonzero reserved cuda settings byte", ret, &lr);
    }
    const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const int want_auto = ncpu < 1 ? 1 : ncpu > 64 ? 64 : (int)ncpu;
    report(speedqa_auto_threads() == want_auto, "speedqa_auto_threads: the online cores, 1..64",
           speedqa_auto_threads(), &lk);

    LogCapture l2 = { .quiet = 1 };
    base(&s, &l2, NULL);
    if ((ret = speedqa_open(&ctx, &s)) != 0) {
        report(0, "open for the NULL-argument checks", ret, &l2);
        return;
    }
    SpeedqaScores sc[2];
    ret = speedqa_receive(ctx, NULL, 1, 0);
    report(ret == SPEEDQA_ERR(EINVAL) && l2.count == 1 && strstr(l2.last, "NULL"),
           "receive(ctx, NULL) logs one line", ret, &l2);
    l2.count = 0;
    ret = speedqa_receive(ctx, NULL, 1, SPEEDQA_RECEIVE_WAIT);
    report(ret == SPEEDQA_ERR(EINVAL) && l2.count == 1 && strstr(l2.last, "NULL"),
           "receive(ctx, NULL, 1, WAIT) logs one line", ret, &l2);
    l2.count = 0;
    ret = speedqa_receive(ctx, sc, 2, SPEEDQA_RECEIVE_WAIT);
    report(ret == SPEEDQA_ERR(EINVAL) && l2.count == 1 && strstr(l2.last, "context of 1"),
           "receive of 2 streams on a context of 1", ret, &l2);
    l2.count = 0;
    ret = speedqa_receive(ctx, sc, 1, SPEEDQA_RECEIVE_WAIT << 1);
    report(ret == SPEEDQA_ERR(EINVAL) && l2.count == 1 && strstr(l2.last, "unknown flags 0x2"),
           "receive with an unknown flag bit", ret, &l2);
    l2.count = 0;
    ret = speedqa_receive(ctx, sc, 1, SPEEDQA_RECEIVE_WAIT);
    report(ret == SPEEDQA_ERR(EAGAIN) && l2.count == 0,
           "receive(WAIT) with no frame in flight: -EAGAIN, no log", ret, &l2);
    report(speedqa_receive(NULL, sc, 1, SPEEDQA_RECEIVE_WAIT) == SPEEDQA_ERR(EINVAL),
           "receive(NULL, ...)", SPEEDQA_ERR(EINVAL), &l2);
    static Pic a;
    make_pic(&a, 3);
    l2.count = 0;
    ret = speedqa_send(ctx, &a.pic, NULL);
    report(ret == SPEEDQA_ERR(EINVAL) && l2.count == 1 && strstr(l2.last, "NULL"),
           "send(ctx, ref, NULL) logs one line", ret, &l2);
    SpeedqaPicture rsv = a.pic;
    rsv.reserved[31] = 4;
    l2.count = 0;
    ret = speedqa_send(ctx, &a.pic, &rsv);
    report(ret == SPEEDQA_ERR(EINVAL) && l2.count == 1 &&
               strstr(l2.last, "distorted picture: reserved byte 31 is 4"),
           "send with a nonzero reserved picture byte logs one line", ret, &l2);
    SpeedqaPicture nop = a.pic;
    nop.data[1] = NULL;
    l2.count = 0;
    ret = speedqa_send(ctx, &a.pic, &nop);
    report(ret == SPEEDQA_ERR(EINVAL) && l2.count == 1 && strstr(l2.last, "NULL"),
           "send with a NULL plane logs one line", ret, &l2);
    speedqa_close(&ctx);
    /* each score's feature, by its name's family, in the order the features were given */
    const char *three[] = { "speed_temporal", "motion", "speed_chroma", NULL };
    base(&s, &l2, three);
    int owners = -1;
    if ((ret = speedqa_open(&ctx, &s)) == 0) {
        const int n = speedqa_score_count(ctx);
        owners = n == 7 && speedqa_score_feature(ctx, n) == SPEEDQA_ERR(EINVAL) &&
                 speedqa_score_feature(ctx, -1) == SPEEDQA_ERR(EINVAL);
        for (int k = 0; k < n; k++) {
            const char *nm = speedqa_score_name(ctx, k);
            const int want = !strncmp(nm, "speed_temporal", 14) ? 0 : strstr(nm, "motion") ? 1
                           : !strncmp(nm, "speed_chroma", 12) ? 2 : -1;
            owners &= speedqa_score_feature(ctx, k) == want;
        }
        speedqa_close(&ctx);
    }
    report(owners == 1, "speedqa_score_feature: each score's feature", ret, &l2);
    report(speedqa_score_feature(NULL, 0) == SPEEDQA_ERR(EINVAL) &&
           speedqa_score_name(NULL, 0) == NULL && speedqa_score_count(NULL) == 0 &&
           speedqa_flush(NULL) == SPEEDQA_ERR(EINVAL) && speedqa_send(NULL, NULL, NULL) < 0 &&
           speedqa_list_devices((SpeedqaBackend)77, NULL, 0) == SPEEDQA_ERR(EINVAL),
           "NULL contexts and unknown backends are refused", 0, &l2);
    report(strcmp(speedqa_strerror(SPEEDQA_ERR(ENOMEM)), "unknown error") != 0,
           "ENOMEM has a message", 0, &l2);
    /* any int: the sanitizer builds catch an overflow negating INT_MIN */
    report(!strcmp(speedqa_strerror(INT_MIN), "unknown error") &&
               !strcmp(speedqa_strerror(INT_MAX), "unknown error") &&
               !strcmp(speedqa_strerror(-4096), "unknown error"),
           "codes outside the errno range are unknown errors", 0, &l2);
}

/*
 * A low address-space limit makes pthread_create fail (each thread stack is
 * a mapping) while small allocations still succeed. Over a sweep of limits,
 * open must give 0 (with the workers that could start, same scores) or
 * -ENOMEM with one line, never the undocumented -EAGAIN.
 */
static void thread_limit(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    printf("skip thread limit under a sanitizer (it reserves the address space)\n");
    return;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    printf("skip thread limit under a sanitizer (it reserves the address space)\n");
    return;
#endif
#endif
    static Pic a, b;
    make_pic(&a, 5);
    make_pic(&b, 6);
    TestScores want;
    LogCapture log = { .quiet = 1 };
    if (score_pair(&a.pic, &b.pic, 1, &want, &log)) {
        report(0, "thread limit: reference scores", -1, &log);
        return;
    }
    int seen_nomem = 0, seen_ok = 0, bad = 0;
    for (int extra_mb = 1; extra_mb <= 512 && !seen_ok; extra_mb += extra_mb < 32 ? 3 : 32) {
        int fd[2];
        if (pipe(fd))
            break;
        pid_t pid = fork();
        if (pid == 0) {
            close(fd[0]);
            FILE *st = fopen("/proc/self/statm", "r");
            unsigned long pages = 0;
            if (!st || fscanf(st, "%lu", &pages) != 1)
                _exit(3);
            fclose(st);
            struct rlimit rl;
            rl.rlim_cur = rl.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) +
                                        (rlim_t)extra_mb * 1024 * 1024;
            if (setrlimit(RLIMIT_AS, &rl))
                _exit(3);
            TestScores got;
            LogCapture l = { .quiet = 1 };
            int r = score_pair(&a.pic, &b.pic, 32, &got, &l);
            int code = r == 0 ? (memcmp(got.values, want.values, sizeof(double) * (size_t)want.count) ? 4 : 0)
                       : r == SPEEDQA_ERR(ENOMEM) && l.count >= 1 ? 1 : 2;
            if (write(fd[1], l.last, strlen(l.last) + 1) < 0)
                code = 3;
            _exit(code);
        }
        close(fd[1]);
        char msg[512] = "";
        ssize_t n = read(fd[0], msg, sizeof(msg) - 1);
        msg[n > 0 ? n : 0] = '\0';
        close(fd[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 9;
        if (code == 1)
            seen_nomem++;
        else if (code == 0)
            seen_ok++;
        else if (code != 3) {
            printf("     limit +%d MiB: code %d \"%s\"\n", extra_mb, code, msg);
            bad++;
        }
    }
    printf("%s 32 threads under address-space limits: %d -ENOMEM, %d scored, %d wrong\n",
           bad || !seen_ok ? "FAIL" : "ok  ", seen_nomem, seen_ok, bad);
    fails += bad || !seen_ok;
}

/*
 * End of stream and sequences: after flush, receive drains the frames, then
 * says SPEEDQA_EOF (not -EAGAIN); frames keep their send index, and
 * sequence / sequence_frame restart at each flush with speed_temporal 0 on
 * a sequence's first frame. Threads and one thread alike.
 */
static void eof_and_sequences(int threads)
{
    static Pic a[3], b[3];
    for (int i = 0; i < 3; i++) {
        make_pic(&a[i], 20u + (unsigned)i);
        make_pic(&b[i], 40u + (unsigned)i);
    }
    LogCapture log = { .quiet = 1 };
    SpeedqaSettings s;
    base(&s, &log, NULL);
    s.n_threads = threads;
    SpeedqaContext *ctx = NULL;
    if (speedqa_open(&ctx, &s) < 0) {
        report(0, "open for the end-of-stream checks", -1, &log);
        return;
    }
    /* sequence 0: frames 0, 1; flush; sequence 1: frames 2, 3, 4; flush */
    static const int seq_of[5] = { 0, 0, 1, 1, 1 }, idx_of[5] = { 0, 1, 0, 1, 2 };
    int ok = test_receive(ctx, &(TestScores){ 0 }, 1, 0) == SPEEDQA_ERR(EAGAIN);
    int got = 0, eof_seen = 0;
    for (int f = 0; f < 5; f++) {
        TestScores sc;
        int r;
        while ((r = speedqa_send(ctx, &a[f % 3].pic, &b[f % 3].pic)) == SPEEDQA_ERR(EAGAIN))
            if (test_receive(ctx, &sc, 1, 0) == 0)
                got++; /* checked below, in the second pass over the values */
        ok &= r == 0;
        const int flush = f == 1 || f == 4;
        if (flush)
            ok &= speedqa_flush(ctx) == 0;
        while ((r = test_receive(ctx, &sc, 1, 0)) == 0) {
            ok &= sc.frame == (unsigned)got && sc.sequence == (unsigned)seq_of[got] &&
                  sc.sequence_frame == (unsigned)idx_of[got] &&
                  (sc.values[3] == 0.0) == (idx_of[got] == 0);
            got++;
        }
        /* not flushed: more may come (-EAGAIN); flushed and drained: the end */
        ok &= r == (flush ? SPEEDQA_EOF : SPEEDQA_ERR(EAGAIN));
        eof_seen += r == SPEEDQA_EOF;
        if (flush)
            ok &= test_receive(ctx, &sc, 1, 0) == SPEEDQA_EOF;
    }
    ok &= got == 5 && eof_seen == 2 && log.count == 0;
    speedqa_close(&ctx);
    char what[80];
    snprintf(what, sizeof(what), "EOF after flush, sequence numbers (%d thread%s)", threads,
             threads > 1 ? "s" : "");
    report(ok, what, got, &log);
}

/* The helpers a client needs without a context. */
static void helpers(void)
{
    LogCapture none = { .quiet = 1 };
    char err[300];
    const char *good[] = { "speed_chroma=speed_kernelscale=0.5", "speed_temporal", NULL };
    const char *unknown[] = { "speed_luma", NULL };
    const char *badopt[] = { "speed_chroma=speed_prescale=2,5", NULL };
    const char *twice[] = { "speed_temporal", "speed_temporal", NULL };
    report(speedqa_check_features(good, err, sizeof(err)) == 0 &&
           speedqa_check_features(NULL, err, sizeof(err)) == 0,
           "check_features: valid lists pass", 0, &none);
    int r = speedqa_check_features(unknown, err, sizeof(err));
    report(r == SPEEDQA_ERR(ENOTSUP) && strstr(err, "unknown feature"), "check_features: unknown name",
           r, &none);
    r = speedqa_check_features(badopt, err, sizeof(err));
    report(r == SPEEDQA_ERR(EINVAL) && strstr(err, "not a number"), "check_features: bad value", r,
           &none);
    r = speedqa_check_features(twice, err, sizeof(err));
    report(r == SPEEDQA_ERR(EEXIST) && strstr(err, "twice"), "check_features: the same feature twice",
           r, &none);
    report(speedqa_check_features(unknown, NULL, 0) == SPEEDQA_ERR(ENOTSUP),
           "check_features: no message buffer", 0, &none);
    report(!strcmp(speedqa_pix_fmt_name(SPEEDQA_PIX_420), "420") &&
           !strcmp(speedqa_pix_fmt_name(SPEEDQA_PIX_400), "400") &&
           !strcmp(speedqa_pix_fmt_name((SpeedqaPixelFormat)9), "unknown"),
           "pix_fmt_name: vmaf's spellings", 0, &none);
    unsigned char *b = speedqa_buffer_alloc((size_t)8 << 20), *t = speedqa_buffer_alloc(100);
    const int aligned = b && t && !((uintptr_t)b & 63) && !((uintptr_t)t & 63);
    if (b)
        memset(b, 1, (size_t)8 << 20);
    speedqa_buffer_free(b);
    speedqa_buffer_free(t);
    speedqa_buffer_free(NULL);
    report(aligned, "buffer_alloc: 64-byte aligned, frame-sized and small", 0, &none);
    report(!strcmp(speedqa_version(), SPEEDQA_VERSION_STRING), "version string from the one place",
           0, &none);
}

int main(void)
{
    helpers();
    report(speedqa_version_int() == SPEEDQA_VERSION &&
           SPEEDQA_VERSION == SPEEDQA_VERSION_INT(SPEEDQA_VERSION_MAJOR, SPEEDQA_VERSION_MINOR,
                                                   SPEEDQA_VERSION_PATCH),
           "speedqa_version_int() is the header's SPEEDQA_VERSION", 0, &(LogCapture){ .quiet = 1 });
    eof_and_sequences(1);
    eof_and_sequences(3);
    /* option values are whole numbers or errors (libvmaf's atof would take a prefix) */
    open_case("prescale 2,5", "speed_chroma=speed_prescale=2,5", -EINVAL, "not a number");
    open_case("kernelscale 1abc", "speed_chroma=speed_kernelscale=1abc", -EINVAL, "not a number");
    open_case("weight_var_mode 1.9", "speed_chroma=speed_weight_var_mode=1.9", -EINVAL,
              "not an integer");
    open_case("sigma_nn ' 0.3' (leading space)", "speed_chroma=speed_sigma_nn= 0.3", -EINVAL,
              "not a number");
    open_case("max_val 1e3x", "speed_temporal=speed_max_val=1e3x", -EINVAL, "not a number");
    open_case("kernelscale -0: out of range, not 'not a number'",
              "speed_chroma=speed_kernelscale=-0", -EINVAL, "outside");
    open_case("nn_floor -0 is 0", "speed_chroma=speed_nn_floor=-0", 0, "");
    open_case("weight_var_mode 2.0 is 2", "speed_chroma=speed_weight_var_mode=2.0", 0, "");
    open_case("prescale 2 still fine", "speed_chroma=speed_prescale=2", 0, "");
    strides();
    entry_points();
    thread_limit();
    printf("%d failed\n", fails);
    return fails ? 1 : 0;
}
