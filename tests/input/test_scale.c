/*
 * tools/input/scale.c against ffmpeg itself: for each case, ffmpeg makes a
 * Y4M source (testsrc2, and an x264 rendition of a 1080p source decoded
 * back, the real use case), then scales it with
 *   -vf scale=W:H:flags=bicubic -f rawvideo
 * and every frame sq_scaler_run makes from the same Y4M must equal
 * ffmpeg's byte for byte. The destination planes are written through odd
 * or negative strides, so the caller's layout cannot matter either.
 *
 * Usage: test_scale WORKDIR. Exit 77 (skip) without ffmpeg or libswscale.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input.h"
#include "scale.h"

static int failures;
static const char *workdir;

static int sh(const char *cmd)
{
    int r = system(cmd);
    if (r != 0)
        fprintf(stderr, "command failed (%d): %s\n", r, cmd);
    return r;
}

static const char *pix_name(SpeedqaPixelFormat fmt, int bpc, char *buf, size_t len)
{
    static const char *const base[] = { "gray", "yuv420p", "yuv422p", "yuv444p" };
    if (bpc == 8)
        snprintf(buf, len, "%s", base[fmt]);
    else
        snprintf(buf, len, "%s%dle", base[fmt], bpc);
    return buf;
}

static void plane_size(SpeedqaPixelFormat fmt, int i, int w, int h, int *pw, int *ph)
{
    *pw = i && (fmt == SPEEDQA_PIX_420 || fmt == SPEEDQA_PIX_422) ? (w + 1) >> 1 : w;
    *ph = i && fmt == SPEEDQA_PIX_420 ? (h + 1) >> 1 : h;
}

/* A testsrc2 Y4M of the given format, made once per name (testsrc2 rounds
 * sizes to even ones: odd sizes are cropped from the next even one). */
static void make_src(char *path, size_t len, int w, int h, const char *pix)
{
    snprintf(path, len, "%s/src_%dx%d_%s.y4m", workdir, w, h, pix);
    struct stat st;
    if (stat(path, &st) == 0)
        return;
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc2=size=%dx%d:rate=25 "
             "-frames:v 5 -vf crop=%d:%d:0:0:exact=1 -pix_fmt %s -strict -1 '%s'", (w + 1) & ~1,
             (h + 1) & ~1, w, h, pix, path);
    if (sh(cmd) != 0)
        exit(1);
}

/*
 * Scale src (Y4M) to w x h with ffmpeg (extra: more ffmpeg options) and
 * with the scaler, and compare. dst_sign < 0 writes our planes bottom-up.
 */
static void check_vf(const char *label, const char *src, int w, int h, const char *extra,
                     const char *vfopt, int dst_sign)
{
    char err[256] = "", ref[600], cmd[2048], pix[32];
    SqInput *in = NULL;
    if (sq_input_open(&in, src, "y4m", NULL, err, sizeof err) < 0) {
        printf("FAIL %s: %s\n", label, err);
        failures++;
        return;
    }
    const SpeedqaFormat f = sq_input_info(in)->format;
    pix_name(f.fmt, f.bpc, pix, sizeof pix);
    snprintf(ref, sizeof ref, "%s/ref.raw", workdir);
    snprintf(cmd, sizeof cmd,
             "ffmpeg -nostdin -loglevel error -y %s -i '%s' -vf scale=%d:%d:flags=bicubic%s "
             "-pix_fmt %s -f rawvideo '%s'", extra, src, w, h, vfopt, pix, ref);
    FILE *rf = NULL;
    SqScaler *s = NULL;
    int bps = f.bpc > 8 ? 2 : 1, np = f.fmt == SPEEDQA_PIX_400 ? 1 : 3;
    uint8_t *mem[3] = { 0 }, *row = NULL;
    int frames = 0, bad = 0, r;
    if (sh(cmd) != 0 || !(rf = fopen(ref, "rb"))) {
        snprintf(err, sizeof err, "ffmpeg failed");
        bad = 1;
        goto done;
    }
    if ((r = sq_scaler_open(&s, &f, w, h, err, sizeof err)) < 0) {
        bad = 1;
        goto done;
    }
    uint8_t *dst[3] = { 0 };
    ptrdiff_t stride[3] = { 0 };
    int pw[3] = { 0 }, ph[3] = { 0 };
    for (int i = 0; i < np; i++) {
        plane_size(f.fmt, i, w, h, &pw[i], &ph[i]);
        ptrdiff_t st = (ptrdiff_t)pw[i] * bps + 3; /* odd: no alignment to rely on */
        if (!(mem[i] = malloc((size_t)st * ph[i] + 1)))
            abort();
        dst[i] = mem[i] + 1;
        stride[i] = st;
        if (dst_sign < 0) {
            dst[i] += (ptrdiff_t)(ph[i] - 1) * st;
            stride[i] = -st;
        }
    }
    if (!(row = malloc((size_t)pw[0] * bps)))
        abort();
    SpeedqaPicture pic;
    while ((r = sq_input_read(in, &pic, err, sizeof err)) == 1 && !bad) {
        if ((r = sq_scaler_run(s, &pic, dst, stride, err, sizeof err)) < 0) {
            bad = 1;
            break;
        }
        for (int i = 0; i < np && !bad; i++) {
            for (int y = 0; y < ph[i]; y++) {
                size_t n = (size_t)pw[i] * bps;
                if (fread(row, 1, n, rf) != n) {
                    snprintf(err, sizeof err, "ffmpeg wrote fewer frames (%d)", frames);
                    bad = 1;
                    break;
                }
                const uint8_t *ours = dst[i] + y * stride[i];
                if (memcmp(row, ours, n) != 0) {
                    size_t x = 0;
                    while (row[x] == ours[x])
                        x++;
                    snprintf(err, sizeof err,
                             "frame %d plane %d row %d byte %zu: ffmpeg %u, ours %u", frames, i,
                             y, x, row[x], ours[x]);
                    bad = 1;
                    break;
                }
            }
        }
        frames++;
    }
    if (r < 0)
        bad = 1;
    if (!bad && fgetc(rf) != EOF) {
        snprintf(err, sizeof err, "ffmpeg wrote more frames than the %d read", frames);
        bad = 1;
    }
    if (!bad && frames == 0) {
        snprintf(err, sizeof err, "no frames");
        bad = 1;
    }
done:
    if (bad) {
        printf("FAIL %s (%s %dx%d -> %dx%d): %s\n", label, pix, f.width, f.height, w, h, err);
        failures++;
    } else {
        printf("ok   %s (%s %dx%d -> %dx%d, %d frames)\n", label, pix, f.width, f.height, w, h,
               frames);
    }
    if (rf)
        fclose(rf);
    free(row);
    for (int i = 0; i < 3; i++)
        free(mem[i]);
    sq_scaler_close(&s);
    sq_input_close(&in);
}

static void check(const char *label, const char *src, int w, int h, const char *extra,
                  int dst_sign)
{
    check_vf(label, src, w, h, extra, "", dst_sign);
}

/* Failures that must be clean: a negative errno, a message, no scaler. */
static void check_errors(void)
{
    char err[256];
    SqScaler *s = (SqScaler *)&err; /* must be reset to NULL */
    SpeedqaFormat f = { 960, 540, SPEEDQA_PIX_420, 11 };
    int r = sq_scaler_open(&s, &f, 1920, 1080, err, sizeof err);
    int good = r == -ENOTSUP && !s && err[0];
    printf("%s 11-bit has no libswscale format: %d %s\n", good ? "ok  " : "FAIL", r, err);
    failures += !good;

    f.bpc = 8;
    err[0] = 0;
    r = sq_scaler_open(&s, &f, 0, 1080, err, sizeof err);
    good = r == -EINVAL && !s && err[0];
    printf("%s zero width refused: %d %s\n", good ? "ok  " : "FAIL", r, err);
    failures += !good;

    r = sq_scaler_open(&s, &f, 1920, 1080, err, sizeof err);
    good = r == 0 && s;
    if (good) {
        /* a picture of another size than the scaler's */
        static uint8_t plane[1920 * 1080];
        SpeedqaPicture p = { 0 };
        p.format = (SpeedqaFormat){ 1920, 1080, SPEEDQA_PIX_420, 8 };
        p.data[0] = p.data[1] = p.data[2] = plane;
        p.stride[0] = 1920;
        p.stride[1] = p.stride[2] = 960;
        uint8_t *dst[3] = { plane, plane, plane };
        ptrdiff_t st[3] = { 1920, 960, 960 };
        r = sq_scaler_run(s, &p, dst, st, err, sizeof err);
        good = r == -EINVAL;
        printf("%s wrong picture size refused: %d %s\n", good ? "ok  " : "FAIL", r, err);
    } else {
        printf("FAIL open 960x540 -> 1920x1080: %d %s\n", r, err);
    }
    failures += !good;
    sq_scaler_close(&s);
    sq_scaler_close(&s); /* twice is a no-op */
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_scale WORKDIR\n");
        return 2;
    }
    workdir = argv[1];
    mkdir(workdir, 0777);
    if (system("ffmpeg -hide_banner -version >/dev/null 2>&1") != 0) {
        printf("skip: no ffmpeg in PATH\n");
        return 77;
    }
    {
        char err[256];
        SqScaler *s = NULL;
        SpeedqaFormat f = { 64, 64, SPEEDQA_PIX_420, 8 };
        int r = sq_scaler_open(&s, &f, 32, 32, err, sizeof err);
        sq_scaler_close(&s);
        if (r == -ENOSYS) {
            printf("skip: %s\n", err);
            return 77;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    check_errors();

    char p[600], cmd[2048];
    /* 8-bit 4:2:0: the rendition case up, then down and odd sizes both ways */
    make_src(p, sizeof p, 960, 540, "yuv420p");
    check("420 up", p, 1920, 1080, "", 1);
    check("420 up, ffmpeg 1 thread", p, 1920, 1080, "-filter_threads 1", 1);
    check("420 up, bottom-up dst", p, 1920, 1080, "", -1);
    check("420 down", p, 640, 360, "", 1);
    check("420 odd down", p, 641, 359, "", 1);
    check("420 odd up", p, 1281, 721, "", 1);
    check("420 same size", p, 960, 540, "", 1);
    make_src(p, sizeof p, 641, 359, "yuv420p");
    check("420 odd source up", p, 1920, 1080, "", 1);
    check("420 odd source odd", p, 963, 541, "", 1);

    /* the real use case: a 1080p source, encoded at 960x540, decoded back */
    char rend[600];
    snprintf(rend, sizeof rend, "%s/rendition_960x540_x264.y4m", workdir);
    snprintf(cmd, sizeof cmd,
             "ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc2=size=1920x1080:rate=25 "
             "-frames:v 5 -vf scale=960:540 -pix_fmt yuv420p -c:v libx264 -preset veryfast "
             "-crf 35 '%s/rendition.mp4' && ffmpeg -nostdin -loglevel error -y -i "
             "'%s/rendition.mp4' '%s'", workdir, workdir, rend);
    if (sh(cmd) == 0) {
        check("x264 rendition up", rend, 1920, 1080, "", 1);
        check("x264 rendition up, ffmpeg 1 thread", rend, 1920, 1080, "-filter_threads 1", 1);
    } else {
        printf("FAIL x264 rendition: ffmpeg could not make it\n");
        failures++;
    }

    /* the same at 10 bits */
    snprintf(rend, sizeof rend, "%s/rendition_960x540_x264_10bit.y4m", workdir);
    snprintf(cmd, sizeof cmd,
             "ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc2=size=1920x1080:rate=25 "
             "-frames:v 5 -vf scale=960:540 -pix_fmt yuv420p10le -c:v libx264 -preset veryfast "
             "-crf 35 '%s/rendition10.mp4' && ffmpeg -nostdin -loglevel error -y -i "
             "'%s/rendition10.mp4' -strict -1 '%s'", workdir, workdir, rend);
    if (sh(cmd) == 0)
        check("x264 10-bit rendition up", rend, 1920, 1080, "", 1);
    else
        printf("skip x264 10-bit rendition: this libx264 has no 10-bit encoder\n");

    /* 10-bit 4:2:0 (ffmpeg leaves its chroma siting at libswscale's default) */
    make_src(p, sizeof p, 960, 540, "yuv420p10le");
    check("420p10 up", p, 1920, 1080, "", 1);
    check("420p10 odd down", p, 333, 187, "", 1);
    check("420p10 odd up", p, 1283, 723, "", -1);
    make_src(p, sizeof p, 640, 360, "yuv420p12le");
    check("420p12 up", p, 1280, 720, "", 1);

    /* 4:4:4 and 4:2:2, 8-bit and more */
    make_src(p, sizeof p, 960, 540, "yuv444p");
    check("444 up", p, 1920, 1080, "", 1);
    check("444 odd down", p, 517, 301, "", 1);
    make_src(p, sizeof p, 960, 540, "yuv422p");
    check("422 up", p, 1920, 1080, "", 1);
    check("422 odd down", p, 719, 405, "", 1);
    check("422 odd up", p, 1001, 1003, "", -1);
    make_src(p, sizeof p, 640, 360, "yuv422p10le");
    check("422p10 up", p, 1280, 720, "", 1);
    make_src(p, sizeof p, 640, 360, "yuv444p16le");
    check("444p16 odd up", p, 1279, 719, "", 1);

    /* 4:0:0 */
    make_src(p, sizeof p, 640, 360, "gray");
    check("gray up", p, 1280, 720, "", 1);
    make_src(p, sizeof p, 640, 360, "gray10le");
    check("gray10 odd down", p, 427, 241, "", 1);
    make_src(p, sizeof p, 333, 187, "yuv444p10le");
    check("444p10 odd source up", p, 1920, 1080, "", 1);
    make_src(p, sizeof p, 481, 271, "yuv422p");
    check("422 odd source up", p, 960, 540, "", 1);

    /* A source tagged full range: ffmpeg 5.1 would squeeze it to limited
     * range unless told to keep it (scale.h); told so, it equals ours. */
    make_src(p, sizeof p, 960, 540, "yuv420p");
    snprintf(cmd, sizeof cmd, "sed '1s/$/ XCOLORRANGE=FULL/' '%s' > '%s/full.y4m'", p, workdir);
    if (sh(cmd) != 0)
        return 1;
    snprintf(p, sizeof p, "%s/full.y4m", workdir);
    check_vf("420 full range, ffmpeg out_range=full", p, 1920, 1080, "", ":out_range=full", 1);

    printf("%s\n", failures ? "FAILED" : "all passed");
    /* a passing run leaves no files behind (CI disks can be small); a failing one keeps them */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", workdir);
    if (!failures && sh(cmd) != 0)
        return 1;
    return failures ? 1 : 0;
}
