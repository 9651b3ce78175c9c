/*
 * Batch manifests and resumed result lines (tools/manifest.c). Input: the
 * bytes of a manifest file (CSV with a header, or JSON lines), read through
 * a memfd path as --batch reads a file; then the same bytes as one results
 * line. Promises checked: a manifest loads with at least one pair, every
 * pair with a non-empty ref and dis, at most SPEEDQA_MAX_FEATURES non-empty
 * features, a NULL-terminated list, a line number inside the file; or it
 * fails with a negative errno and a one-line message naming the file; a
 * results line parses to NUL-terminated strings or is refused; no leak, no
 * read past the input.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("manifest", 0);
    FUZZ_CHECK(fd >= 0, "memfd_create");
    FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "write");
    char path[64], err[1200] = "";
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    SqPair *p;
    int n, lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    const int r = sq_manifest_load(path, &p, &n, err, sizeof err);
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
        sq_manifest_free(&p, n);
    } else {
        FUZZ_CHECK(r < 0 && err[0] && !strchr(err, '\n'),
                   "failure %d without a message", r);
        FUZZ_CHECK(strstr(err, path), "message does not name the file: %s", err);
        FUZZ_CHECK(!p, "pairs left after a failure");
    }
    close(fd);
    char *line = malloc(size + 1);
    FUZZ_CHECK(line, "malloc");
    memcpy(line, data, size);
    line[size] = '\0';
    char ref[256], dis[256], out[256], feat[256];
    int failed = -1;
    if (sq_result_line_parse(line, ref, dis, out, feat, sizeof ref, &failed) == 0)
        FUZZ_CHECK(memchr(ref, 0, sizeof ref) && memchr(dis, 0, sizeof dis) &&
                   memchr(out, 0, sizeof out) && memchr(feat, 0, sizeof feat) &&
                   (failed == 0 || failed == 1), "result line");
    free(line);
    return 0;
}
