/*
 * The OpenCL program-binary cache as untrusted input. Each case puts
 * something hostile where the cache entry lives, then opens an OpenCL
 * context: the open must succeed (rebuilding from source), its scores must
 * equal the CPU backend's bit for bit, and afterwards the entry must be a
 * valid regular file again (except where a non-empty directory blocks the
 * name: then caching is skipped) with nothing else left in the folder.
 *
 * Well-formed entries are written with the library's own writer
 * (gpu/opencl/cachefmt.h), so the test follows the format. Every case runs
 * in a child process under an alarm: a driver crash or a hang in open()
 * fails that case instead of killing or blocking the whole test. The
 * parent never touches OpenCL, so forking it is safe.
 *
 * usage: test_cl_cache WORK_DIR
 * SPEEDQA_OPENCL_DEVICE=substring picks the device. Exit 77 without one.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "gpu/opencl/cachefmt.h"
#include "speedqa/speedqa.h"

#define W 320
#define H 240
#define NFRAMES 3
/* A cold PoCL compile under ASan takes minutes: generous, since a hang
 * (the FIFO case before the fix) only needs to end, not to end fast. */
#define CASE_SECONDS 400

typedef struct Scores {
    int count, got;
    double v[NFRAMES][TEST_MAX_SCORES];
} Scores;

typedef struct Good {
    char name[256];      /* the entry's file name, the same in every cache folder */
    unsigned char *file; /* a valid entry as the library wrote it */
    size_t len;
    uint64_t ident[4];
    const unsigned char *bin;
    size_t binlen;
} Good;

static unsigned char frames[2][NFRAMES][W * H * 3 / 2];

static void make_frames(void)
{
    uint32_t s = 12345;
    for (int side = 0; side < 2; side++)
        for (int f = 0; f < NFRAMES; f++)
            for (int i = 0; i < W * H * 3 / 2; i++) {
                s = s * 1103515245u + 12345u;
                frames[side][f][i] = (unsigned char)(side ? frames[0][f][i] ^ ((s >> 16) & 7) : s >> 16);
            }
}

static void picture(SpeedqaPicture *p, const unsigned char *buf)
{
    memset(p, 0, sizeof(*p));
    p->format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, 8 };
    p->data[0] = buf;
    p->data[1] = buf + W * H;
    p->data[2] = buf + W * H + (W / 2) * (H / 2);
    p->stride[0] = W;
    p->stride[1] = p->stride[2] = W / 2;
    p->memory = SPEEDQA_MEM_HOST;
}

static void keep(Scores *r, const TestScores *sc)
{
    if (sc->frame < NFRAMES)
        memcpy(r->v[sc->frame], sc->values, sizeof(double) * (size_t)sc->count);
    r->got++;
}

/* Open on backend be and score every frame; 0 or the error code. */
static int score(SpeedqaBackend be, Scores *r)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, 8 };
    s.backend = be;
    if (be == SPEEDQA_BACKEND_OPENCL)
        s.device_name = getenv("SPEEDQA_OPENCL_DEVICE");
    memset(r, 0, sizeof(*r));
    SpeedqaContext *ctx;
    int ret = speedqa_open(&ctx, &s);
    if (ret < 0)
        return ret;
    r->count = speedqa_score_count(ctx);
    TestScores sc;
    for (int i = 0; i < NFRAMES && ret >= 0; i++) {
        SpeedqaPicture ref, dis;
        picture(&ref, frames[0][i]);
        picture(&dis, frames[1][i]);
        while ((ret = speedqa_send(ctx, &ref, &dis)) == SPEEDQA_ERR(EAGAIN)) {
            if ((ret = test_receive(ctx, &sc, 1, 0)) == 0)
                keep(r, &sc);
            else if (ret != SPEEDQA_ERR(EAGAIN))
                break;
        }
    }
    if (ret >= 0) {
        speedqa_flush(ctx);
        while (r->got < NFRAMES && (ret = test_receive(ctx, &sc, 1, 0)) == 0)
            keep(r, &sc);
        if (ret >= 0 && r->got != NFRAMES)
            ret = SPEEDQA_ERR(EIO);
    }
    speedqa_close(&ctx);
    return ret < 0 ? ret : 0;
}

static int write_file(const char *path, const void *a, size_t alen, const void *b, size_t blen)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int bad = fwrite(a, 1, alen, f) != alen || (blen && fwrite(b, 1, blen, f) != blen);
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    long n = -1;
    if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* A well-formed entry (header by the library's writer) holding bin. */
static int write_entry(const char *path, const Good *g, const unsigned char *bin, size_t binlen)
{
    unsigned char hdr[SQ_CL_CACHE_HDR];
    sq_cl_cache_header(hdr, g->ident, bin, binlen);
    return write_file(path, hdr, sizeof(hdr), bin, binlen);
}

/* Removes dir and what the cases put in it (two levels at most). */
static void remove_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[1400];
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof(p), "%.1000s/%.300s", dir, e->d_name);
        struct stat st;
        if (!lstat(p, &st) && S_ISDIR(st.st_mode) && depth < 3)
            remove_tree(p, depth + 1);
        else
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

typedef enum Kind { K_ZERO, K_CUT100, K_CUTHALF, K_FIFO, K_SYMLINK, K_DIR, K_FULLDIR } Kind;

static const struct {
    Kind kind;
    const char *name, *what;
} cases[] = {
    { K_ZERO, "zero", "well-formed entry, zero-length binary" },
    { K_CUT100, "cut100", "well-formed entry, binary cut to 100 bytes" },
    { K_CUTHALF, "cuthalf", "well-formed entry, binary cut in half (a driver crash must not repeat)" },
    { K_FIFO, "fifo", "a FIFO in place of the entry" },
    { K_SYMLINK, "symlink", "a symlink to a valid entry in place of the entry" },
    { K_DIR, "dir", "an empty directory in place of the entry" },
    { K_FULLDIR, "fulldir", "a non-empty directory in place of the entry (caching skipped)" },
};

/* Opens once in a fresh process; its fate (driver crash or not) is only reported. */
static void open_in_grandchild(void)
{
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        alarm(CASE_SECONDS);
        Scores r;
        _exit(score(SPEEDQA_BACKEND_OPENCL, &r) == 0 ? 0 : 3);
    }
    int st = 0;
    if (pid > 0 && waitpid(pid, &st, 0) == pid)
        printf("     first open after the damage: %s %d\n",
               WIFSIGNALED(st) ? "killed by signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

/* Child: damage, open, check. 0 when every promise holds. */
static int run_case(Kind kind, const char *dir, const Good *g)
{
    char sub[1100], entry[1400], other[1400];
    snprintf(sub, sizeof(sub), "%.1000s/speedqa", dir);
    snprintf(entry, sizeof(entry), "%s/%.250s", sub, g->name);
    snprintf(other, sizeof(other), "%s/decoy.bin", sub);
    if ((mkdir(dir, 0700) && errno != EEXIST) || (mkdir(sub, 0700) && errno != EEXIST))
        return printf("     cannot make %s\n", sub), 1;
    setenv("XDG_CACHE_HOME", dir, 1);

    int setup = 0;
    switch (kind) {
    case K_ZERO:
        setup = write_entry(entry, g, g->bin, 0);
        break;
    case K_CUT100:
        setup = write_entry(entry, g, g->bin, g->binlen < 100 ? g->binlen : 100);
        break;
    case K_CUTHALF:
        setup = write_entry(entry, g, g->bin, g->binlen / 2);
        break;
    case K_FIFO:
        setup = mkfifo(entry, 0600);
        break;
    case K_SYMLINK:
        setup = write_file(other, g->file, g->len, NULL, 0) || symlink(other, entry);
        break;
    case K_DIR:
        setup = mkdir(entry, 0700);
        break;
    case K_FULLDIR:
        snprintf(other, sizeof(other), "%.1300s/keep", entry);
        setup = mkdir(entry, 0700) || write_file(other, "x", 1, NULL, 0);
        break;
    }
    if (setup)
        return printf("     cannot set the case up: %s\n", strerror(errno)), 1;

    Scores cpu, cl;
    if (score(SPEEDQA_BACKEND_CPU, &cpu))
        return printf("     the CPU backend failed\n"), 1;
    if (kind == K_CUTHALF)
        open_in_grandchild();
    const int ret = score(SPEEDQA_BACKEND_OPENCL, &cl);
    if (ret)
        return printf("     OpenCL open/score failed (%d)\n", ret), 1;
    int fails = 0;
    if (cl.count != cpu.count || memcmp(cl.v, cpu.v, sizeof(cl.v)))
        fails += printf("     OpenCL scores differ from the CPU backend's\n") > 0;

    struct stat st;
    if (kind == K_FULLDIR) {
        if (lstat(entry, &st) || !S_ISDIR(st.st_mode) || access(other, F_OK))
            fails += printf("     the blocking directory was not left alone\n") > 0;
    } else if (lstat(entry, &st) || !S_ISREG(st.st_mode)) {
        fails += printf("     the entry is not a regular file afterwards\n") > 0;
    } else {
        size_t len = 0, binlen;
        const unsigned char *bin;
        unsigned char *buf = read_file(entry, &len);
        if (!buf || sq_cl_cache_parse(buf, len, g->ident, &bin, &binlen))
            fails += printf("     the entry is not valid afterwards\n") > 0;
        free(buf);
    }
    /* the fresh entry serves the next open, and is put back after it */
    if (kind != K_FULLDIR) {
        Scores warm;
        if (score(SPEEDQA_BACKEND_OPENCL, &warm) || warm.count != cpu.count ||
            memcmp(warm.v, cpu.v, sizeof(warm.v)))
            fails += printf("     a second open (from the fresh entry) failed or differs\n") > 0;
        if (lstat(entry, &st) || !S_ISREG(st.st_mode))
            fails += printf("     the entry is gone after a second open\n") > 0;
    }
    if (kind == K_SYMLINK) {
        size_t len = 0;
        unsigned char *buf = read_file(other, &len);
        if (!buf || len != g->len || memcmp(buf, g->file, len))
            fails += printf("     the symlink's target was changed\n") > 0;
        free(buf);
    }
    /* nothing else may be left behind: no temp or quarantined files */
    DIR *d = opendir(sub);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, g->name) &&
            !(kind == K_SYMLINK && !strcmp(e->d_name, "decoy.bin")))
            fails += printf("     left behind: %s\n", e->d_name) > 0;
    if (d)
        closedir(d);
    return fails != 0;
}

/* Child: a cold open in dir, so that the library writes a valid entry. */
static int make_entry(const char *dir)
{
    if (mkdir(dir, 0700) && errno != EEXIST)
        return 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    if (speedqa_list_devices(SPEEDQA_BACKEND_OPENCL, NULL, 0) <= 0)
        return 77;
    Scores r;
    const int ret = score(SPEEDQA_BACKEND_OPENCL, &r);
    if (ret)
        printf("     cold OpenCL open/score: %d\n", ret);
    return ret == SPEEDQA_ERR(ENODEV) ? 77 : ret ? 1 : 0;
}

/* Runs fn in a child under an alarm; its exit code, or -signal. */
static int in_child(int (*fn)(Kind, const char *, const Good *), Kind kind, const char *dir,
                    const Good *g)
{
    fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        alarm(CASE_SECONDS);
        const int r = fn ? fn(kind, dir, g) : make_entry(dir);
        fflush(stdout);
        _exit(r);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 1;
    return WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st);
}

static int find_entry(const char *dir, Good *g)
{
    char sub[1100], path[1400];
    snprintf(sub, sizeof(sub), "%.1000s/speedqa", dir);
    DIR *d = opendir(sub);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const size_t n = strlen(e->d_name);
        if (!strncmp(e->d_name, "opencl-", 7) && n > 4 && !strcmp(e->d_name + n - 4, ".bin"))
            snprintf(g->name, sizeof(g->name), "%.250s", e->d_name);
    }
    if (d)
        closedir(d);
    if (!g->name[0])
        return -1;
    snprintf(path, sizeof(path), "%s/%s", sub, g->name);
    if (!(g->file = read_file(path, &g->len)) || sq_cl_cache_ident(g->file, g->len, g->ident) ||
        sq_cl_cache_parse(g->file, g->len, g->ident, &g->bin, &g->binlen))
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s WORK_DIR\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    make_frames();
    char root[1024], dir[1100];
    mkdir(argv[1], 0755);
    snprintf(root, sizeof(root), "%.900s/cache-%ld", argv[1], (long)getpid());
    if (mkdir(root, 0700)) {
        printf("FAIL cannot make %s\n", root);
        return 1;
    }
    Good g;
    memset(&g, 0, sizeof(g));
    snprintf(dir, sizeof(dir), "%s/make", root);
    const int made = in_child(NULL, 0, dir, &g);
    if (made == 77) {
        printf("no usable OpenCL device: skipped\n");
        remove_tree(root, 0);
        return 77;
    }
    if (made != 0 || find_entry(dir, &g)) {
        printf("FAIL a cold open must write a valid cache entry (%d)\n", made);
        remove_tree(root, 0);
        free(g.file);
        return 1;
    }
    printf("ok   cold open wrote %s: %zu bytes, binary %zu bytes\n", g.name, g.len, g.binlen);
    int fails = 0;
    const int only = argc > 2; /* further arguments: run only the cases named */
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int want = !only;
        for (int a = 2; a < argc; a++)
            want |= !strcmp(argv[a], cases[i].name);
        if (!want)
            continue;
        snprintf(dir, sizeof(dir), "%s/%s", root, cases[i].name);
        const int r = in_child(run_case, cases[i].kind, dir, &g);
        if (r == 0)
            printf("ok   %-8s %s\n", cases[i].name, cases[i].what);
        else if (r == -SIGALRM)
            printf("FAIL %-8s %s: hung (no answer in %d s)\n", cases[i].name, cases[i].what, CASE_SECONDS);
        else if (r < 0)
            printf("FAIL %-8s %s: killed by signal %d\n", cases[i].name, cases[i].what, -r);
        else
            printf("FAIL %-8s %s\n", cases[i].name, cases[i].what);
        fails += r != 0;
    }
    remove_tree(root, 0);
    free(g.file);
    printf("%d cache cases failed\n", fails);
    return fails != 0;
}
