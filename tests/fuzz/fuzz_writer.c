/*
 * Report writers and the -o file under failure. Input: a 6-byte header,
 * then 8 bytes per value (any double bit pattern: NaN, infinities,
 * subnormals).
 *   writer byte (mod 4: xml, json, csv, sub), flags byte (bit 0 --precision max,
 *   bit 1 the failure is EPIPE instead of ENOSPC, bit 2 abort the -o file
 *   instead of committing it), nscores byte (1..8), nframes byte (0..63),
 *   fail_after u16 LE: bytes the output accepts before every write fails
 *   (0xffff: never)
 * Promises checked: a writer whose output lost bytes never reports success
 * (write or fflush fails), what reached the output is a prefix of the whole
 * report, JSON never prints nan or inf, and the -o file protocol
 * (sq_outfile_open / commit / abort) leaves an existing destination either
 * untouched (abort) or holding exactly the new report (commit), with no
 * temporary file left in its folder.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "outfile.h"
#include "writer.h"

#define MAX_SCORES 8
#define MAX_FRAMES 64

typedef struct Sink {
    char *buf;
    size_t len, cap, limit;
    int err;
} Sink;

static ssize_t sink_write(void *cookie, const char *p, size_t n)
{
    Sink *s = cookie;
    size_t room = s->limit > s->len ? s->limit - s->len : 0;
    size_t take = n < room ? n : room;
    if (s->len + take > s->cap)
        take = s->cap - s->len;
    memcpy(s->buf + s->len, p, take);
    s->len += take;
    if (take < n) {
        errno = s->err;
        return take ? (ssize_t)take : -1;
    }
    return (ssize_t)n;
}

/* Runs the writer into a sink accepting limit bytes; 0 when it reported success. */
static int write_into(const SqWriter *w, const SqReport *r, Sink *s)
{
    cookie_io_functions_t io = { NULL, sink_write, NULL, NULL };
    FILE *f = fopencookie(s, "w", io);
    if (!f)
        return -2;
    int ok = w->write(f, r) == 0;
    ok &= fflush(f) == 0;
    ok &= fclose(f) == 0;
    return ok ? 0 : -1;
}

static char dir[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/sq-fuzz-writer-XXXXXX");
    if (!mkdtemp(dir))
        dir[0] = '\0';
    return 0;
}

static int entries(const char *path)
{
    DIR *d = opendir(path);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void outfile_protocol(const char *report, size_t len, int do_abort)
{
    if (!dir[0])
        return;
    char path[128], err[512];
    snprintf(path, sizeof path, "%s/report.out", dir);
    static const char old[] = "previous report\n";
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs(old, f);
    fclose(f);
    SqOutFile o;
    FUZZ_CHECK(sq_outfile_open(&o, path, err, sizeof err) == 0, "outfile open: %s", err);
    FUZZ_CHECK(entries(dir) == 2, "no temporary file next to the report");
    fwrite(report, 1, len, o.f);
    if (do_abort) {
        sq_outfile_abort(&o);
    } else {
        FUZZ_CHECK(sq_outfile_commit(&o, err, sizeof err) == 0, "commit: %s", err);
    }
    FUZZ_CHECK(entries(dir) == 1, "a temporary file was left behind");
    f = fopen(path, "rb");
    FUZZ_CHECK(f != NULL, "the report disappeared");
    char *got = malloc(len + sizeof old + 1);
    size_t n = fread(got, 1, len + sizeof old, f);
    fclose(f);
    if (do_abort)
        FUZZ_CHECK(n == sizeof old - 1 && !memcmp(got, old, n), "abort touched the report");
    else
        FUZZ_CHECK(n == len && !memcmp(got, report, len), "commit did not write the report whole");
    free(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 6)
        return 0;
    static const SqWriter *const ws[] = { &sq_writer_xml, &sq_writer_json, &sq_writer_csv,
                                          &sq_writer_sub };
    const SqWriter *w = ws[data[0] % 4];
    const unsigned flags = data[1];
    const int nscores = 1 + data[2] % MAX_SCORES;
    const size_t nframes = data[3] % MAX_FRAMES;
    const unsigned fail_after = data[4] | (unsigned)data[5] << 8;
    FuzzBytes b = { data + 6, size - 6 };

    static double values[MAX_FRAMES * MAX_SCORES];
    static unsigned long long fnum[MAX_FRAMES];
    static const char *const all_names[MAX_SCORES] = {
        "speed_chroma_u", "speed_chroma_v", "speed_chroma_uv", "speed_temporal",
        "speed_chroma_u_ks_0.5", "speed_temporal_ps_2_psm_bicubic", "speed_chroma_uv_mxv_5",
        "speed_temporal_urd",
    };
    for (size_t i = 0; i < nframes * (size_t)nscores; i++) {
        uint64_t bits = (uint64_t)fuzz_u32(&b) | (uint64_t)fuzz_u32(&b) << 32;
        memcpy(&values[i], &bits, sizeof bits);
    }
    for (size_t i = 0; i < nframes; i++)
        fnum[i] = i * (1 + (flags >> 4));
    SqPooled pooled[MAX_SCORES];
    for (int k = 0; k < nscores; k++)
        pooled[k] = nframes ? sq_report_pool(values, nframes, nscores, k) : (SqPooled){ 0, 0, 0, 0 };
    const SqReport rep = {
        .version = "fuzz", .width = 1920, .height = 1080, .fps = (double)fail_after / 7.0,
        .precision_max = flags & 1, .nscores = nscores, .names = all_names, .nframes = nframes,
        .frame_num = fnum, .values = values, .pooled = pooled,
    };

    Sink full = { malloc(1 << 20), 0, 1 << 20, (size_t)-1, ENOSPC };
    FUZZ_CHECK(full.buf != NULL, "sink");
    FUZZ_CHECK(write_into(w, &rep, &full) == 0, "%s writer failed with room to spare", w->name);
    FUZZ_CHECK(full.len < full.cap, "report larger than the sink");
    if (w == &sq_writer_json)
        FUZZ_CHECK(!memmem(full.buf, full.len, "nan", 3) && !memmem(full.buf, full.len, "inf", 3),
                   "JSON holds a non-finite number");

    if (fail_after != 0xffff) {
        Sink cut = { malloc(full.len + 1), 0, full.len + 1, fail_after, flags & 2 ? EPIPE : ENOSPC };
        FUZZ_CHECK(cut.buf != NULL, "sink");
        const int r = write_into(w, &rep, &cut);
        if (fail_after < full.len)
            FUZZ_CHECK(r != 0, "%s writer reported success after losing bytes (%u of %zu)", w->name,
                       fail_after, full.len);
        else
            FUZZ_CHECK(r == 0, "%s writer failed with room (%u >= %zu)", w->name, fail_after, full.len);
        FUZZ_CHECK(!memcmp(cut.buf, full.buf, cut.len), "what was written is not a prefix");
        free(cut.buf);
    }
    outfile_protocol(full.buf, full.len, flags & 4);
    free(full.buf);
    return 0;
}
