/*
 * libspeedqa_io's entry points (speedqa_io.h) against the CLI's rules, on
 * the bundled sample pair: flags, scoring into memory, failures with one
 * line and the CLI's exit codes, manifests (a key twice refused), video
 * reading, a batch subset and a batch whose pairs an executor delivers.
 * Under ASan (.ci/run) every path here is also checked for leaks.
 * argv[1]: the source root (samples/), argv[2]: a scratch directory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "speedqa/speedqa_io.h"

static int fails;
static char ref[4096], dis[4096], dir[4096];

static SpeedqaIo *io_of(int argc, const char *const *argv)
{
    SpeedqaIo *io = NULL;
    char err[1200];
    const int r = speedqa_io_new(&io, argc, argv, err, sizeof err);
    CHECK(r == 0 && io, "speedqa_io_new: %d %s", r, err);
    return io;
}

static void test_flags_and_score(void)
{
    char err[1200];
    SpeedqaIo *io = NULL;
    const char *bad[] = { "-r", ref, "-d", dis, "--threads", "-2" };
    CHECK(speedqa_io_new(&io, 6, bad, err, sizeof err) == 2 && !io && strstr(err, "--threads"),
          "bad flag: %s", err);
    const char *help[] = { "--help" };
    CHECK(speedqa_io_new(&io, 1, help, err, sizeof err) == 2 && !io, "--help taken");
    const char *ok[] = { "-r", ref, "-d", dis, "--precision", "max" };
    io = io_of(6, ok);
    SpeedqaIoReport rep[2]; /* the second call passes two (one too many for its one -d) */
    CHECK(speedqa_io_score(io, rep, 1) == 0 && rep[0].text && strstr(rep[0].text, "\"frameNum\": 4")
          && !rep[0].error[0], "score: %d %s", rep[0].exit, rep[0].error);
    speedqa_io_reports_free(rep, 1);
    CHECK(speedqa_io_score(io, rep, 2) == 2 && rep[0].exit == 2, "two reports for one -d");
    speedqa_io_reports_free(rep, 2);
    speedqa_io_free(&io);
    CHECK(!io, "freed handle left");
    char none[4200];
    snprintf(none, sizeof none, "%s/none.y4m", dir);
    const char *miss[] = { "-r", ref, "-d", none };
    io = io_of(4, miss);
    CHECK(speedqa_io_score(io, rep, 1) == 3 && strstr(rep[0].error, "none.y4m") && !rep[0].text,
          "missing input: %d %s", rep[0].exit, rep[0].error);
    speedqa_io_reports_free(rep, 1);
    speedqa_io_free(&io);
    char buf[64];
    CHECK(!strcmp(speedqa_io_format_value(buf, sizeof buf, 1.0 / 3, 0), "0.333333") &&
          !strcmp(speedqa_io_format_value(buf, sizeof buf, 1.0 / 3, 1), "0.33333333333333331"),
          "format");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "write %s", path);
}

static void test_manifest_and_video(void)
{
    char path[4200], text[20000], err[1200];
    snprintf(path, sizeof path, "%s/dup.jsonl", dir);
    write_file(path, "{\"ref\": \"a\", \"dis\": \"b\", \"dis\": \"c\"}\n");
    SpeedqaIoManifest *m = NULL;
    CHECK(speedqa_io_manifest_load(&m, path, err, sizeof err) == 2 && !m && strstr(err, "twice") &&
          strstr(err, ":1:"), "duplicate key: %s", err);
    snprintf(path, sizeof path, "%s/m.csv", dir);
    snprintf(text, sizeof text, "# pairs\nref,dis,features\n%s,%s,\n%s,%s,speed_temporal\n", ref,
             dis, dis, ref);
    write_file(path, text);
    CHECK(speedqa_io_manifest_load(&m, path, err, sizeof err) == 0, "manifest: %s", err);
    CHECK(speedqa_io_manifest_count(m) == 2 && speedqa_io_manifest_line(m, 1) == 4 &&
          !strcmp(speedqa_io_manifest_get(m, 1, "features"), "speed_temporal") &&
          !speedqa_io_manifest_get(m, 0, "output") && !speedqa_io_manifest_get(m, 2, "ref"),
          "manifest fields");
    speedqa_io_manifest_free(&m);
    SpeedqaIoVideo *v = NULL;
    SpeedqaIoVideoInfo info;
    snprintf(path, sizeof path, "%s/none.y4m", dir);
    CHECK(speedqa_io_video_open(&v, path, NULL, &info, err, sizeof err) == -ENOENT && !v,
          "missing video: %s", err);
    CHECK(speedqa_io_video_open(&v, ref, NULL, &info, err, sizeof err) == 0, "video: %s", err);
    CHECK(info.format.width == 576 && info.frame_bytes == 576 * 324 * 3 / 2 &&
          !strcmp(info.reader, "y4m"), "video info");
    unsigned char *buf = malloc(info.frame_bytes);
    int n = 0, r;
    while (buf && (r = speedqa_io_video_read(v, buf, info.frame_bytes, err, sizeof err)) == 1)
        n++;
    CHECK(n == 5 && r == 0, "frames %d, end %d", n, r);
    free(buf);
    speedqa_io_video_close(&v);
}

/* The executor of test_batch: scores its pairs here, in two chunks, last first. */
static int exec_here(void *opaque, void *sink, const int *pairs, int n)
{
    const SpeedqaIo *io = opaque;
    for (int half = 1; half >= 0; half--) {
        const int at = half ? n / 2 : 0, k = half ? n - n / 2 : n / 2;
        if (!k)
            continue;
        char *lines = NULL, err[1200];
        size_t len = 0;
        const int r = speedqa_io_batch_pairs(io, pairs + at, k, &lines, &len, err, sizeof err);
        CHECK(speedqa_io_batch_deliver(sink, pairs + at, k, lines, r) == 0, "deliver");
        CHECK(speedqa_io_batch_deliver(sink, pairs + at, k, lines, r) == -EINVAL, "twice taken");
        speedqa_io_free_buf(lines);
    }
    return 0;
}

static void test_batch(void)
{
    char man[4200], res[4200], err[1200];
    snprintf(man, sizeof man, "%s/m.csv", dir);
    snprintf(res, sizeof res, "%s/res.jsonl", dir);
    const char *a[] = { "--batch", man, "-o", res, "--threads", "2" };
    SpeedqaIo *io = io_of(6, a);
    char *all = NULL, *mine = NULL, *sub = NULL;
    size_t n1 = 0, n2 = 0, n3 = 0;
    CHECK(speedqa_io_batch(io, &all, &n1, err, sizeof err) == 0 && n1 && all[n1 - 1] == '\n',
          "batch: %s", err);
    CHECK(speedqa_io_batch_exec(io, exec_here, io, &mine, &n2, err, sizeof err) == 0 && all && mine &&
          n2 == n1 && !memcmp(all, mine, n1), "executor's lines differ: %s", err);
    const int one[] = { 1 };
    CHECK(speedqa_io_batch_pairs(io, one, 1, &sub, &n3, err, sizeof err) == 0 && sub &&
          !strncmp(sub, strchr(all, '\n') + 1, n3) && n3, "pair 1 alone");
    const int out_of_range[] = { 2 };
    speedqa_io_free_buf(sub);
    CHECK(speedqa_io_batch_pairs(io, out_of_range, 1, &sub, &n3, err, sizeof err) == 2 &&
          strstr(err, "pair 2"), "pair 2 of 2 taken: %s", err);
    speedqa_io_free_buf(sub);
    speedqa_io_free_buf(all);
    speedqa_io_free_buf(mine);
    speedqa_io_free(&io);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_io SOURCE_ROOT SCRATCH_DIR\n");
        return 2;
    }
    snprintf(ref, sizeof ref, "%s/samples/ref.y4m", argv[1]);
    snprintf(dis, sizeof dis, "%s/samples/dis.y4m", argv[1]);
    snprintf(dir, sizeof dir, "%s", argv[2]);
    test_flags_and_score();
    test_manifest_and_video();
    test_batch();
    printf("%s: %d failure%s\n", argv[0], fails, fails == 1 ? "" : "s");
    return fails ? 1 : 0;
}
