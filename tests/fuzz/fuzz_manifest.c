/*
 * Batch manifests and resumed result lines (tools/manifest.c). Input: the
 * bytes of a manifest file (CSV with a header, or JSON lines), read through
 * a memfd path as --batch reads a file; then the same bytes as one results
 * line. Promises checked: a manifest loads with at least one pair, every
 * pair with a non-empty ref and dis, at most SPEEDQA_MAX_FEATURES non-empty
 * features, a NULL-terminated list, a line number inside the file; or it
 * fails with a negative errno and a one-line message naming the file; a
 * results line parses to NUL-terminated strings or is refused; no leak, no
 * read past the input. A loaded manifest's pairs selected (the Dask chunks'
 * sq_manifest_select) are those pairs; and JSON lines that loaded, given a
 * second "ref" in their first record, are refused with a line saying so.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "manifest.h"

static int load_bytes(const uint8_t *data, size_t size, SqPair **p, int *n, char *err,
                      size_t errlen, char *path, size_t pathlen)
{
    int fd = memfd_create("manifest", 0);
    FUZZ_CHECK(fd >= 0, "memfd_create");
    FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "write");
    snprintf(path, pathlen, "/proc/self/fd/%d", fd);
    const int r = sq_manifest_load(path, p, n, err, errlen);
    close(fd);
    return r;
}

/* The last pair and the first, selected: the same strings. */
static void check_select(SqPair **p, int *n)
{
    char *last = strdup((*p)[*n - 1].ref), *first = strdup((*p)[0].dis);
    FUZZ_CHECK(last && first, "strdup");
    const int idx[2] = { *n - 1, 0 }, k = *n > 1 ? 2 : 1;
    char err[200];
    FUZZ_CHECK(sq_manifest_select(p, n, idx, k, err, sizeof err) == 0, "select: %s", err);
    FUZZ_CHECK(*n == k && !strcmp((*p)[0].ref, last) && !strcmp((*p)[k - 1].dis, first), "select");
    free(last);
    free(first);
}

/* JSON lines that loaded: their first record with "ref" twice must not. */
static void check_duplicate_refused(const uint8_t *data, size_t size)
{
    const uint8_t *brace = memchr(data, '{', size);
    for (size_t i = 0; brace && i < (size_t)(brace - data); i++)
        if (data[i] != ' ' && data[i] != '\t' && data[i] != '\n' && data[i] != '\r')
            return; /* a comment first: leave it */
    if (!brace)
        return;
    static const char dup[] = "\"ref\": \"z\", ";
    const size_t at = (size_t)(brace - data) + 1, n2 = size + sizeof dup - 1;
    uint8_t *d2 = malloc(n2);
    FUZZ_CHECK(d2, "malloc");
    memcpy(d2, data, at);
    memcpy(d2 + at, dup, sizeof dup - 1);
    memcpy(d2 + at + sizeof dup - 1, data + at, size - at);
    SqPair *p;
    int n;
    char err[1200] = "", path[64];
    const int r = load_bytes(d2, n2, &p, &n, err, sizeof err, path, sizeof path);
    FUZZ_CHECK(r < 0 && strstr(err, "twice"), "a record with \"ref\" twice was taken: %s", err);
    free(d2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], err[1200] = "";
    SqPair *p;
    int n, lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    const int r = load_bytes(data, size, &p, &n, err, sizeof err, path, sizeof path);
    if (r == 0) {
        FUZZ_CHECK(n >= 1 && p, "success without pairs");
        for (int i = 0; i < n; i++) {
            FUZZ_CHECK(p[i].ref && p[i].ref[0] && p[i].dis && p[i].dis[0], "pair %d: empty path", i);
            FUZZ_CHECK(p[i].nfeat >= 0 && p[i].nfeat <= SPEEDQA_MAX_FEATURES &&
                       !p[i].features[p[i].nfeat], "pair %d: features", i);
            for (int k = 0; k < p[i].nfeat; k++)
                FUZZ_CHECK(p[i].features[k][0], "pair %d: empty feature", i);
            FUZZ_CHECK(!p[i].output || p[i].output[0], "pair %d: empty output", i);
            FUZZ_CHECK(p[i].line >= 1 && p[i].line <= lines, "pair %d: line %d of %d", i,
                       p[i].line, lines);
        }
        check_select(&p, &n);
        sq_manifest_free(&p, n);
        check_duplicate_refused(data, size);
    } else {
        FUZZ_CHECK(r < 0 && err[0] && !strchr(err, '\n'),
                   "failure %d without a message", r);
        FUZZ_CHECK(strstr(err, path), "message does not name the file: %s", err);
        FUZZ_CHECK(!p, "pairs left after a failure");
    }
    char *line = malloc(size + 1);
    FUZZ_CHECK(line, "malloc");
    memcpy(line, data, size);
    line[size] = '\0';
    char ref[256], dis[256], out[256], feat[256], model[256];
    int failed = -1;
    if (sq_result_line_parse(line, ref, dis, out, feat, model, sizeof ref, &failed) == 0)
        FUZZ_CHECK(memchr(ref, 0, sizeof ref) && memchr(dis, 0, sizeof dis) &&
                   memchr(model, 0, sizeof model) && memchr(out, 0, sizeof out) &&
                   memchr(feat, 0, sizeof feat) &&
                   (failed == 0 || failed == 1), "result line");
    free(line);
    return 0;
}
