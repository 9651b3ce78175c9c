/*
 * Tests of the Y4M and raw YUV readers: sample-exact round trips for every
 * chroma tag and bit depth, stdin (a real pipe and a redirected file),
 * skipping, and a corpus of malformed inputs that must fail cleanly with a
 * message naming the file.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* mkdtemp, fork, pipe, dup2 */
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "input.h"

#define MAX_FILES 128

typedef struct Ctx {
    const char *dir;         /* separate object: -Wrestrict with snprintf */
    char files[MAX_FILES][600];
    int nfiles;
    int failures;
} Ctx;

static void report(Ctx *c, int good, const char *name, const char *detail)
{
    if (good) {
        printf("ok   %s\n", name);
    } else {
        c->failures++;
        printf("FAIL %s: %s\n", name, detail ? detail : "");
    }
}

/* Path of a new file in the temp dir, remembered for cleanup. */
static const char *tmp_path(Ctx *c, const char *name)
{
    if (c->nfiles == MAX_FILES) {
        fprintf(stderr, "too many temp files\n");
        exit(2);
    }
    char *p = c->files[c->nfiles++];
    snprintf(p, sizeof c->files[0], "%s/%s", c->dir, name);
    return p;
}

/* ---- sample patterns ------------------------------------------------ */

/* Hash of the position so that any swapped plane, row, byte or frame shows;
 * spans the full range of the bit depth, high byte included. */
static unsigned sample(int frame, int plane, int x, int y, int bpc)
{
    uint32_t v = (uint32_t)frame * 2654435761u ^ (uint32_t)plane * 40503u ^
                 (uint32_t)x * 2246822519u ^ (uint32_t)y * 3266489917u;
    v ^= v >> 15;
    v *= 0x2c1b3c6du;
    v ^= v >> 12;
    return v & ((1u << bpc) - 1);
}

/* Plane size as stored in files: chroma rounded up for odd sizes. */
static void plane_dims(int w, int h, SpeedqaPixelFormat fmt, int plane, int *pw, int *ph)
{
    *pw = w;
    *ph = h;
    if (plane == 0)
        return;
    switch (fmt) {
    case SPEEDQA_PIX_400: *pw = *ph = 0; break;
    case SPEEDQA_PIX_420: *pw = (w + 1) >> 1; *ph = (h + 1) >> 1; break;
    case SPEEDQA_PIX_422: *pw = (w + 1) >> 1; break;
    case SPEEDQA_PIX_444: break;
    }
}

static void write_payload(FILE *f, int w, int h, SpeedqaPixelFormat fmt, int bpc, int frame)
{
    for (int p = 0; p < 3; p++) {
        int pw, ph;
        plane_dims(w, h, fmt, p, &pw, &ph);
        for (int y = 0; y < ph; y++)
            for (int x = 0; x < pw; x++) {
                unsigned v = sample(frame, p, x, y, bpc);
                fputc((int)(v & 0xff), f);
                if (bpc > 8)
                    fputc((int)(v >> 8), f); /* little-endian in files */
            }
    }
}

/* Returns NULL when pic holds frame `frame`, else what differs. */
static const char *check_pic(const SpeedqaPicture *pic, int w, int h,
                             SpeedqaPixelFormat fmt, int bpc, int frame,
                             char *buf, size_t len)
{
    if (pic->format.width != w || pic->format.height != h || pic->format.fmt != fmt ||
        pic->format.bpc != bpc) {
        snprintf(buf, len, "format %dx%d fmt %d bpc %d", pic->format.width,
                 pic->format.height, (int)pic->format.fmt, pic->format.bpc);
        return buf;
    }
    if (pic->memory != SPEEDQA_MEM_HOST)
        return "memory is not HOST";
    if (fmt == SPEEDQA_PIX_400 &&
        (pic->data[1] || pic->data[2] || pic->stride[1] || pic->stride[2]))
        return "mono picture has chroma pointers or strides";
    for (int p = 0; p < 3; p++) {
        int pw, ph;
        plane_dims(w, h, fmt, p, &pw, &ph);
        if (pw == 0)
            continue;
        if (!pic->data[p]) {
            snprintf(buf, len, "plane %d is NULL", p);
            return buf;
        }
        for (int y = 0; y < ph; y++) {
            const unsigned char *row = (const unsigned char *)pic->data[p] + y * pic->stride[p];
            for (int x = 0; x < pw; x++) {
                uint16_t v16 = row[x];
                if (bpc > 8) /* a mapped frame's samples may sit at odd addresses */
                    memcpy(&v16, row + 2 * x, 2);
                const unsigned got = v16;
                unsigned want = sample(frame, p, x, y, bpc);
                if (got != want) {
                    snprintf(buf, len, "frame %d plane %d (%d,%d): got %u want %u",
                             frame, p, x, y, got, want);
                    return buf;
                }
            }
        }
    }
    return NULL;
}

/* ---- file builders ---------------------------------------------------- */

typedef struct Y4mSpec {
    const char *header;      /* full header line without newline */
    int w, h;
    SpeedqaPixelFormat fmt;
    int bpc;
    int frames;
    const char *const *frame_lines; /* NULL: plain "FRAME" */
} Y4mSpec;

static void write_y4m(FILE *f, const Y4mSpec *s)
{
    fprintf(f, "%s\n", s->header);
    for (int i = 0; i < s->frames; i++) {
        fprintf(f, "%s\n", s->frame_lines ? s->frame_lines[i] : "FRAME");
        write_payload(f, s->w, s->h, s->fmt, s->bpc, i);
    }
}

static const char *make_y4m(Ctx *c, const char *name, const Y4mSpec *s)
{
    const char *path = tmp_path(c, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(2);
    }
    write_y4m(f, s);
    fclose(f);
    return path;
}

static const char *make_raw(Ctx *c, const char *name, int w, int h,
                            SpeedqaPixelFormat fmt, int bpc, int frames, int extra)
{
    const char *path = tmp_path(c, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(2);
    }
    for (int i = 0; i < frames; i++)
        write_payload(f, w, h, fmt, bpc, i);
    for (int i = 0; i < extra; i++)
        fputc(0x5a, f);
    fclose(f);
    return path;
}

static const char *make_bytes(Ctx *c, const char *name, const void *data, size_t len)
{
    const char *path = tmp_path(c, name);
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len)) {
        perror(path);
        exit(2);
    }
    fclose(f);
    return path;
}

/* ---- round trips ------------------------------------------------------- */

/* Opens path, checks the info and every frame, then the clean end. */
static void expect_frames(Ctx *c, const char *name, const char *path, const char *kind,
                          const SqRawParams *raw, int w, int h, SpeedqaPixelFormat fmt,
                          int bpc, int frames, long long info_frames, int fps_num, int fps_den)
{
    char err[512] = "", why[700];
    SqInput *in = NULL;
    int r = sq_input_open(&in, path, kind, raw, err, sizeof err);
    if (r < 0) {
        report(c, 0, name, err);
        return;
    }
    const SqInputInfo *info = sq_input_info(in);
    const char *bad = NULL;
    if (info->format.width != w || info->format.height != h || info->format.fmt != fmt ||
        info->format.bpc != bpc || info->frames != info_frames ||
        info->fps_num != fps_num || info->fps_den != fps_den) {
        snprintf(why, sizeof why, "info %dx%d fmt %d bpc %d frames %lld fps %d/%d",
                 info->format.width, info->format.height, (int)info->format.fmt,
                 info->format.bpc, info->frames, info->fps_num, info->fps_den);
        bad = why;
    }
    for (int i = 0; i < frames && !bad; i++) {
        SpeedqaPicture pic;
        r = sq_input_read(in, &pic, err, sizeof err);
        if (r != 1) {
            snprintf(why, sizeof why, "read %d returned %d: %s", i, r, err);
            bad = why;
        } else {
            bad = check_pic(&pic, w, h, fmt, bpc, i, why, sizeof why);
        }
    }
    if (!bad) {
        SpeedqaPicture pic;
        if ((r = sq_input_read(in, &pic, err, sizeof err)) != 0 ||
            (r = sq_input_read(in, &pic, err, sizeof err)) != 0) {
            snprintf(why, sizeof why, "read after the last frame returned %d: %s", r, err);
            bad = why;
        }
    }
    sq_input_close(&in);
    if (!bad && in)
        bad = "close did not clear the pointer";
    report(c, !bad, name, bad);
}

static void test_y4m_odd_420(Ctx *c)
{
    /* No C tag (means 4:2:0 8-bit), X/I/A tags, FRAME parameters. */
    static const char *const lines[] = { "FRAME Ip XFOO=bar", "FRAME", "FRAME A1:1 Xz" };
    Y4mSpec s = { "YUV4MPEG2 W17 H9 F30000:1001 It A0:0 XYSCSS=420JPEG XCOLORRANGE=LIMITED",
                  17, 9, SPEEDQA_PIX_420, 8, 3, lines };
    const char *p = make_y4m(c, "odd420.y4m", &s);
    expect_frames(c, "y4m 17x9 420 8-bit, X tags, FRAME params", p, NULL, NULL,
                  17, 9, SPEEDQA_PIX_420, 8, 3, -1, 30000, 1001);

    /* Strides address the ceil-sized chroma planes of the file. */
    char err[256];
    SqInput *in = NULL;
    SpeedqaPicture pic;
    int good = sq_input_open(&in, p, "y4m", NULL, err, sizeof err) == 0 &&
               sq_input_read(in, &pic, err, sizeof err) == 1 &&
               pic.stride[0] == 17 && pic.stride[1] == 9 && pic.stride[2] == 9 &&
               (const unsigned char *)pic.data[1] == (const unsigned char *)pic.data[0] + 17 * 9 &&
               (const unsigned char *)pic.data[2] == (const unsigned char *)pic.data[1] + 9 * 5;
    sq_input_close(&in);
    report(c, good, "y4m 17x9 420 plane layout", "strides or plane offsets");
}

static void test_y4m_formats(Ctx *c)
{
    static const struct {
        const char *tag;
        SpeedqaPixelFormat fmt;
        int bpc;
    } t[] = {
        { "C420", SPEEDQA_PIX_420, 8 },      { "C420jpeg", SPEEDQA_PIX_420, 8 },
        { "C420paldv", SPEEDQA_PIX_420, 8 }, { "C420mpeg2", SPEEDQA_PIX_420, 8 },
        { "C420p9", SPEEDQA_PIX_420, 9 },    { "C420p10", SPEEDQA_PIX_420, 10 },
        { "C420p12", SPEEDQA_PIX_420, 12 },  { "C420p14", SPEEDQA_PIX_420, 14 },
        { "C420p16", SPEEDQA_PIX_420, 16 },  { "C422", SPEEDQA_PIX_422, 8 },
        { "C422p10", SPEEDQA_PIX_422, 10 },  { "C422p16", SPEEDQA_PIX_422, 16 },
        { "C444", SPEEDQA_PIX_444, 8 },      { "C444p9", SPEEDQA_PIX_444, 9 },
        { "C444p12", SPEEDQA_PIX_444, 12 },  { "C444p16", SPEEDQA_PIX_444, 16 },
        { "Cmono", SPEEDQA_PIX_400, 8 },     { "Cmono10", SPEEDQA_PIX_400, 10 },
        { "Cmono12", SPEEDQA_PIX_400, 12 },  { "Cmono16", SPEEDQA_PIX_400, 16 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char header[128], name[64], title[96];
        /* C first and an odd size: tag order and ceil chroma both matter */
        snprintf(header, sizeof header, "YUV4MPEG2 %s W11 H7 F25:1 Ip", t[i].tag);
        Y4mSpec s = { header, 11, 7, t[i].fmt, t[i].bpc, 2, NULL };
        snprintf(name, sizeof name, "fmt_%s.y4m", t[i].tag + 1);
        snprintf(title, sizeof title, "y4m %s 11x7", t[i].tag);
        expect_frames(c, title, make_y4m(c, name, &s), NULL, NULL, 11, 7, t[i].fmt,
                      t[i].bpc, 2, -1, 25, 1);
    }
    Y4mSpec s = { "YUV4MPEG2 W64 H32 C420p10", 64, 32, SPEEDQA_PIX_420, 10, 2, NULL };
    expect_frames(c, "y4m 64x32 420p10, no F tag", make_y4m(c, "even10.y4m", &s), NULL,
                  NULL, 64, 32, SPEEDQA_PIX_420, 10, 2, -1, 0, 0);
}

static void test_raw(Ctx *c)
{
    SqRawParams r8 = { 17, 9, SPEEDQA_PIX_420, 8, SPEEDQA_LAYOUT_PLANAR, 0 };
    const char *p8 = make_raw(c, "r8.yuv", 17, 9, SPEEDQA_PIX_420, 8, 4, 0);
    expect_frames(c, "raw 17x9 420 8-bit (detected)", p8, NULL, &r8, 17, 9,
                  SPEEDQA_PIX_420, 8, 4, 4, 0, 0);
    expect_frames(c, "raw 17x9 420 8-bit (kind yuv)", p8, "yuv", &r8, 17, 9,
                  SPEEDQA_PIX_420, 8, 4, 4, 0, 0);

    SqRawParams r10 = { 20, 6, SPEEDQA_PIX_422, 10, SPEEDQA_LAYOUT_PLANAR, 0 };
    expect_frames(c, "raw 20x6 422 10-bit",
                  make_raw(c, "r10.yuv", 20, 6, SPEEDQA_PIX_422, 10, 3, 0), NULL, &r10,
                  20, 6, SPEEDQA_PIX_422, 10, 3, 3, 0, 0);

    SqRawParams r16 = { 9, 5, SPEEDQA_PIX_400, 16, SPEEDQA_LAYOUT_PLANAR, 0 };
    expect_frames(c, "raw 9x5 mono 16-bit",
                  make_raw(c, "r16.yuv", 9, 5, SPEEDQA_PIX_400, 16, 2, 0), NULL, &r16,
                  9, 5, SPEEDQA_PIX_400, 16, 2, 2, 0, 0);

    /* A raw file that happens to start like Y4M is still raw when forced. */
    char err[256];
    SqInput *in = NULL;
    SqRawParams rb = { 4, 4, SPEEDQA_PIX_400, 8, SPEEDQA_LAYOUT_PLANAR, 0 };
    const char *py = make_bytes(c, "looks_y4m.yuv", "YUV4MPEG2 W4 H4", 16);
    int r = sq_input_open(&in, py, "yuv", &rb, err, sizeof err);
    report(c, r == 0 && sq_input_info(in)->frames == 1, "raw forced on Y4M-looking bytes", err);
    sq_input_close(&in);
}

static void test_skip(Ctx *c)
{
    Y4mSpec s = { "YUV4MPEG2 W8 H6 C444p12", 8, 6, SPEEDQA_PIX_444, 12, 5, NULL };
    const char *py = make_y4m(c, "skip.y4m", &s);
    SqRawParams raw = { 8, 6, SPEEDQA_PIX_420, 8, SPEEDQA_LAYOUT_PLANAR, 0 };
    const char *pr = make_raw(c, "skip.yuv", 8, 6, SPEEDQA_PIX_420, 8, 5, 0);

    for (int k = 0; k < 2; k++) {
        const char *path = k ? pr : py;
        SpeedqaPixelFormat fmt = k ? SPEEDQA_PIX_420 : SPEEDQA_PIX_444;
        int bpc = k ? 8 : 12;
        char err[256] = "", why[256];
        const char *bad = NULL;
        SqInput *in = NULL;
        SpeedqaPicture pic;
        if (sq_input_open(&in, path, NULL, &raw, err, sizeof err) < 0)
            bad = err;
        else if (sq_input_skip(in, 0, err, sizeof err) != 1 ||
                 sq_input_skip(in, 2, err, sizeof err) != 1)
            bad = "skip 0 / skip 2";
        else if (sq_input_read(in, &pic, err, sizeof err) != 1)
            bad = err;
        else if ((bad = check_pic(&pic, 8, 6, fmt, bpc, 2, why, sizeof why)) != NULL)
            ;
        else if (sq_input_skip(in, 1, err, sizeof err) != 1 ||
                 sq_input_read(in, &pic, err, sizeof err) != 1)
            bad = "skip 1 then read";
        else if ((bad = check_pic(&pic, 8, 6, fmt, bpc, 4, why, sizeof why)) != NULL)
            ;
        else if (sq_input_skip(in, 10, err, sizeof err) != 0)
            bad = "skip past the end did not return 0";
        sq_input_close(&in);
        report(c, !bad, k ? "raw skip (seek)" : "y4m skip (seek)", bad);
    }

    /* Truncated last frame must be reported by skip too (seek path). */
    static const unsigned char part[] = "YUV4MPEG2 W4 H4 Cmono\nFRAME\n0123456789abcdefFRAME\n0123";
    const char *pt = make_bytes(c, "skip_trunc.y4m", part, sizeof part - 1);
    char err[256] = "";
    SqInput *in = NULL;
    int r = sq_input_open(&in, pt, NULL, NULL, err, sizeof err);
    if (r == 0)
        r = sq_input_skip(in, 5, err, sizeof err);
    sq_input_close(&in);
    report(c, r == -EINVAL && strstr(err, "truncated frame 1: got 4 of 16 bytes") &&
                  strstr(err, pt),
           "skip reports a truncated frame", err);
}

/* ---- stdin ------------------------------------------------------------ */

/* Points fd 0 at a pipe fed by a child that writes len bytes of data. */
static pid_t feed_stdin(const void *data, size_t len)
{
    int fds[2];
    if (pipe(fds) != 0) {
        perror("pipe");
        exit(2);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        close(fds[0]);
        const unsigned char *p = data;
        while (len) {
            ssize_t n = write(fds[1], p, len);
            if (n <= 0)
                _exit(1);
            p += n;
            len -= (size_t)n;
        }
        _exit(0);
    }
    close(fds[1]);
    if (dup2(fds[0], 0) < 0) {
        perror("dup2");
        exit(2);
    }
    close(fds[0]);
    clearerr(stdin);
    return pid;
}

static void *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        exit(2);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
        exit(2);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void test_stdin(Ctx *c)
{
    int saved = dup(0);
    if (saved < 0) {
        perror("dup");
        exit(2);
    }
    static const char *const lines[] = { "FRAME Ixyz", "FRAME", "FRAME" };
    Y4mSpec s = { "YUV4MPEG2 W13 H5 F24:1 C422p10 XYSCSS=422P10", 13, 5,
                  SPEEDQA_PIX_422, 10, 3, lines };
    const char *py = make_y4m(c, "stdin.y4m", &s);
    size_t ylen, rlen;
    unsigned char *ydata = slurp(py, &ylen);
    SqRawParams raw = { 10, 4, SPEEDQA_PIX_444, 16, SPEEDQA_LAYOUT_PLANAR, 0 };
    const char *pr = make_raw(c, "stdin.yuv", 10, 4, SPEEDQA_PIX_444, 16, 3, 0);
    unsigned char *rdata = slurp(pr, &rlen);
    int st;

    /* y4m through a pipe, detected from the peeked bytes */
    pid_t pid = feed_stdin(ydata, ylen);
    expect_frames(c, "stdin pipe: y4m detected", "-", NULL, &raw, 13, 5, SPEEDQA_PIX_422,
                  10, 3, -1, 24, 1);
    waitpid(pid, &st, 0);

    /* skipping on a pipe reads and discards */
    pid = feed_stdin(ydata, ylen);
    {
        char err[256] = "", why[256];
        const char *bad = NULL;
        SqInput *in = NULL;
        SpeedqaPicture pic;
        if (sq_input_open(&in, "-", NULL, NULL, err, sizeof err) < 0)
            bad = err;
        else if (sq_input_skip(in, 2, err, sizeof err) != 1 ||
                 sq_input_read(in, &pic, err, sizeof err) != 1)
            bad = "skip 2 then read";
        else
            bad = check_pic(&pic, 13, 5, SPEEDQA_PIX_422, 10, 2, why, sizeof why);
        if (!bad && sq_input_read(in, &pic, err, sizeof err) != 0)
            bad = "no clean end";
        sq_input_close(&in);
        report(c, !bad, "stdin pipe: y4m skip", bad);
    }
    waitpid(pid, &st, 0);

    /* raw through a pipe: frame count unknown */
    pid = feed_stdin(rdata, rlen);
    expect_frames(c, "stdin pipe: raw 444 16-bit", "-", NULL, &raw, 10, 4, SPEEDQA_PIX_444,
                  16, 3, -1, 0, 0);
    waitpid(pid, &st, 0);

    /* truncated frame through a pipe */
    pid = feed_stdin(ydata, ylen - 7);
    {
        char err[256] = "";
        SqInput *in = NULL;
        SpeedqaPicture pic;
        int r = sq_input_open(&in, "-", NULL, NULL, err, sizeof err);
        while (r >= 0 && (r = sq_input_read(in, &pic, err, sizeof err)) == 1)
            ;
        sq_input_close(&in);
        report(c, r == -EINVAL && strstr(err, "<stdin>") && strstr(err, "truncated frame 2: got 263 of 270 bytes"),
               "stdin pipe: truncated frame", err);
    }
    waitpid(pid, &st, 0);

    /* stdin redirected from a regular file: seekable, raw frames counted */
    int fd = open(pr, O_RDONLY);
    if (fd < 0 || dup2(fd, 0) < 0) {
        perror(pr);
        exit(2);
    }
    close(fd);
    clearerr(stdin);
    expect_frames(c, "stdin file: raw, frames counted", "-", NULL, &raw, 10, 4,
                  SPEEDQA_PIX_444, 16, 3, 3, 0, 0);

    fd = open(py, O_RDONLY);
    if (fd < 0 || dup2(fd, 0) < 0) {
        perror(py);
        exit(2);
    }
    close(fd);
    clearerr(stdin);
    {
        char err[256] = "", why[256];
        const char *bad = NULL;
        SqInput *in = NULL;
        SpeedqaPicture pic;
        if (sq_input_open(&in, "-", NULL, NULL, err, sizeof err) < 0)
            bad = err;
        else if (sq_input_skip(in, 1, err, sizeof err) != 1 ||
                 sq_input_read(in, &pic, err, sizeof err) != 1)
            bad = "skip 1 then read";
        else
            bad = check_pic(&pic, 13, 5, SPEEDQA_PIX_422, 10, 1, why, sizeof why);
        sq_input_close(&in);
        report(c, !bad, "stdin file: y4m skip (seek)", bad);
    }

    dup2(saved, 0);
    close(saved);
    clearerr(stdin);
    free(ydata);
    free(rdata);
}

/* ---- malformed inputs --------------------------------------------------- */

typedef struct Bad {
    const char *name;
    const char *data;       /* NULL: path is used as is (missing file, dir) */
    const char *kind;
    const SqRawParams *raw;
    int code;               /* expected return */
    const char *expect;     /* substring of the message */
} Bad;

static void run_bad(Ctx *c, const Bad *b, const char *path)
{
    char err[512] = "", why[700];
    SqInput *in = (SqInput *)(uintptr_t)1; /* must come back NULL on failure */
    SpeedqaPicture pic;
    int r = sq_input_open(&in, path, b->kind, b->raw, err, sizeof err);
    int at_open = r < 0;
    if (at_open && in != NULL) {
        report(c, 0, b->name, "failed open left *out non-NULL");
        return;
    }
    int frames = 0;
    while (r >= 0 && frames < 100 && (r = sq_input_read(in, &pic, err, sizeof err)) == 1)
        frames++;
    int again = 0;
    if (!at_open && r < 0) {
        /* errors are sticky: the next read says the same */
        char err2[512] = "";
        again = sq_input_read(in, &pic, err2, sizeof err2);
        if (again != r || strcmp(err, err2) != 0)
            again = 1;
        else
            again = 0;
    }
    sq_input_close(&in);
    int good = r == b->code && err[0] && strstr(err, path) && strstr(err, b->expect) &&
               !strchr(err, '\n') && !again;
    snprintf(why, sizeof why, "returned %d (want %d), sticky %s, message \"%s\"", r, b->code,
             again ? "no" : "yes", err);
    report(c, good, b->name, why);
}

static void test_malformed(Ctx *c)
{
    static const SqRawParams raw_w0 = { 0, 16, SPEEDQA_PIX_420, 8, SPEEDQA_LAYOUT_PLANAR, 0 };
    static const SqRawParams raw_hneg = { 16, -3, SPEEDQA_PIX_420, 8, SPEEDQA_LAYOUT_PLANAR, 0 };
    static const SqRawParams raw_bpc7 = { 16, 16, SPEEDQA_PIX_420, 7, SPEEDQA_LAYOUT_PLANAR, 0 };
    static const SqRawParams raw_bpc17 = { 16, 16, SPEEDQA_PIX_420, 17, SPEEDQA_LAYOUT_PLANAR, 0 };
    static const SqRawParams raw_fmt9 = { 16, 16, (SpeedqaPixelFormat)9, 8, SPEEDQA_LAYOUT_PLANAR, 0 };
    static const SqRawParams raw_huge = { 16384, 16384, SPEEDQA_PIX_444, 16, SPEEDQA_LAYOUT_PLANAR, 0 };
    static const SqRawParams raw_ok = { 4, 4, SPEEDQA_PIX_400, 8, SPEEDQA_LAYOUT_PLANAR, 0 };
    static const SqRawParams raw_big = { 1920, 1080, SPEEDQA_PIX_420, 8, SPEEDQA_LAYOUT_PLANAR, 0 };
    static const Bad t[] = {
        { "truncated header", "YUV4MPEG2 W16 H16", NULL, NULL, -EINVAL, "truncated Y4M header" },
        { "header over 4096 bytes", NULL, NULL, NULL, -EINVAL, "longer than 4096" },
        { "garbage, no raw params", "hello, this is not a video file\n", NULL, NULL, -EINVAL,
          "not a Y4M file and no raw geometry given" },
        { "short garbage", "abc", NULL, NULL, -EINVAL, "not a Y4M file" },
        { "forced y4m on garbage", "RIFF....WAVEfmt \n", "y4m", NULL, -EINVAL, "not a Y4M file" },
        { "lowercase magic", "yuv4mpeg2 W4 H4\n", NULL, NULL, -EINVAL, "not a Y4M file" },
        { "W0", "YUV4MPEG2 W0 H16\n", NULL, NULL, -EINVAL, "width 0" },
        { "H0", "YUV4MPEG2 W16 H0\n", NULL, NULL, -EINVAL, "height 0" },
        { "W-5", "YUV4MPEG2 W-5 H16\n", NULL, NULL, -EINVAL, "width -5" },
        { "Wabc", "YUV4MPEG2 Wabc H16\n", NULL, NULL, -EINVAL, "bad width 'abc'" },
        { "W empty", "YUV4MPEG2 W H16\n", NULL, NULL, -EINVAL, "bad width ''" },
        { "W16x", "YUV4MPEG2 W16x H16\n", NULL, NULL, -EINVAL, "bad width '16x'" },
        { "W100000", "YUV4MPEG2 W100000 H16\n", NULL, NULL, -EINVAL, "width 100000" },
        { "W 30 digits", "YUV4MPEG2 W999999999999999999999999999999 H16\n", NULL, NULL,
          -EINVAL, "outside 1..16384" },
        { "H100000", "YUV4MPEG2 W16 H100000\n", NULL, NULL, -EINVAL, "height 100000" },
        { "missing W", "YUV4MPEG2 H16 F25:1\n", NULL, NULL, -EINVAL, "no W" },
        { "missing H", "YUV4MPEG2 W16 F25:1\n", NULL, NULL, -EINVAL, "no H" },
        { "no tags", "YUV4MPEG2 \n", NULL, NULL, -EINVAL, "no W" },
        { "frame over the cap", "YUV4MPEG2 W16384 H16384 C444p16\nFRAME\n", NULL, NULL,
          -EINVAL, "exceeds the limit" },
        { "bad F", "YUV4MPEG2 W16 H16 F30:0\n", NULL, NULL, -EINVAL, "bad frame rate" },
        { "bad F no colon", "YUV4MPEG2 W16 H16 F30\n", NULL, NULL, -EINVAL, "bad frame rate" },
        { "C411", "YUV4MPEG2 W16 H16 C411\n", NULL, NULL, -EINVAL, "C411" },
        { "C420p8", "YUV4MPEG2 W16 H16 C420p8\n", NULL, NULL, -EINVAL, "C420p8" },
        { "C420p17", "YUV4MPEG2 W16 H16 C420p17\n", NULL, NULL, -EINVAL, "C420p17" },
        { "C420p", "YUV4MPEG2 W16 H16 C420p\n", NULL, NULL, -EINVAL, "C420p" },
        { "Cmono7", "YUV4MPEG2 W16 H16 Cmono7\n", NULL, NULL, -EINVAL, "Cmono7" },
        { "C444alpha", "YUV4MPEG2 W16 H16 C444alpha\n", NULL, NULL, -EINVAL, "alpha" },
        { "truncated frame 0", "YUV4MPEG2 W4 H4 Cmono\nFRAME\n0123456", NULL, NULL, -EINVAL,
          "truncated frame 0: got 7 of 16 bytes" },
        { "FRAME then EOF", "YUV4MPEG2 W4 H4 Cmono\nFRAME\n", NULL, NULL, -EINVAL,
          "truncated frame 0: got 0 of 16 bytes" },
        { "truncated frame 1", "YUV4MPEG2 W4 H4 Cmono\nFRAME\n0123456789abcdefFRAME x\n01",
          NULL, NULL, -EINVAL, "truncated frame 1: got 2 of 16 bytes" },
        { "FRAMX", "YUV4MPEG2 W4 H4 Cmono\nFRAMX\n0123456789abcdef", NULL, NULL, -EINVAL,
          "bad FRAME marker at frame 0" },
        { "FRAMES", "YUV4MPEG2 W4 H4 Cmono\nFRAMES\n0123456789abcdef", NULL, NULL, -EINVAL,
          "bad FRAME marker at frame 0" },
        { "FRAME marker cut", "YUV4MPEG2 W4 H4 Cmono\nFRAME\n0123456789abcdefFRA", NULL,
          NULL, -EINVAL, "bad FRAME marker at frame 1" },
        { "junk after a frame", "YUV4MPEG2 W4 H4 Cmono\nFRAME\n0123456789abcdef\n", NULL,
          NULL, -EINVAL, "bad FRAME marker at frame 1" },
        { "FRAME params no newline", "YUV4MPEG2 W4 H4 Cmono\nFRAME Ixx", NULL, NULL, -EINVAL,
          "truncated FRAME line of frame 0" },
        { "empty file", "", NULL, NULL, -EINVAL, "empty file" },
        { "empty file, raw", "", "yuv", &raw_ok, -EINVAL, "empty file" },
        { "raw size not a multiple", "0123456789", NULL, &raw_big, -EINVAL,
          "size 10 is not a multiple of the frame size 3110400 (1920x1080 420 8-bit)" },
        { "raw w=0", "0123456789abcdef", "yuv", &raw_w0, -EINVAL, "width 0" },
        { "raw h=-3", "0123456789abcdef", "yuv", &raw_hneg, -EINVAL, "height -3" },
        { "raw bpc 7", "0123456789abcdef", "yuv", &raw_bpc7, -EINVAL, "bit depth 7" },
        { "raw bpc 17", "0123456789abcdef", "yuv", &raw_bpc17, -EINVAL, "bit depth 17" },
        { "raw fmt 9", "0123456789abcdef", "yuv", &raw_fmt9, -EINVAL, "pixel format 9" },
        { "raw over the cap", "0123456789abcdef", "yuv", &raw_huge, -EINVAL,
          "exceeds the limit" },
        { "raw kind without params", "0123456789abcdef", "yuv", NULL, -EINVAL, "geometry" },
        { "unknown kind", "0123456789abcdef", "mp4", &raw_ok, -EINVAL, "unknown input kind" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "bad%02zu.bin", i);
        const char *path;
        if (t[i].data) {
            path = make_bytes(c, name, t[i].data, strlen(t[i].data));
        } else {
            /* the long header: magic, then 5000 bytes of X tag, no newline */
            char *big = malloc(5011);
            if (!big)
                exit(2);
            memcpy(big, "YUV4MPEG2 ", 10);
            memset(big + 10, 'X', 5000);
            path = make_bytes(c, name, big, 5010);
            free(big);
        }
        run_bad(c, &t[i], path);
    }

    static const Bad missing = { "missing file", NULL, NULL, NULL, -ENOENT,
                                 "No such file or directory" };
    run_bad(c, &missing, tmp_path(c, "does-not-exist.y4m"));
    static const Bad dir = { "directory", NULL, NULL, NULL, -EISDIR, "directory" };
    const char *d = tmp_path(c, "a-directory");
    if (mkdir(d, 0700) != 0) {
        perror(d);
        exit(2);
    }
    run_bad(c, &dir, d);

    /* A NULL or zero-length message buffer must be tolerated. */
    SqInput *in = NULL;
    int r = sq_input_open(&in, c->files[c->nfiles - 2], NULL, NULL, NULL, 0);
    report(c, r == -ENOENT && !in, "error with no message buffer", NULL);
}

/* ---- main --------------------------------------------------------------- */

static void cleanup(Ctx *c)
{
    for (int i = 0; i < c->nfiles; i++)
        if (remove(c->files[i]) != 0 && errno != ENOENT)
            fprintf(stderr, "cannot remove %s\n", c->files[i]);
    if (rmdir(c->dir) != 0)
        fprintf(stderr, "cannot remove %s\n", c->dir);
}

int main(void)
{
    static Ctx c; /* large: keep it off the stack */
    static char dir[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/sq_input_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    c.dir = dir;

    test_y4m_odd_420(&c);
    test_y4m_formats(&c);
    test_raw(&c);
    test_skip(&c);
    test_stdin(&c);
    test_malformed(&c);

    cleanup(&c);
    if (c.failures) {
        printf("%d test(s) failed\n", c.failures);
        return 1;
    }
    printf("all input tests passed\n");
    return 0;
}
