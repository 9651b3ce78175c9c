/*
 * Y4M reader. Input: one mode byte, then the file.
 *   mode bit 0: open with kind NULL (detection) when the data starts with
 *               the Y4M signature, else kind "y4m"
 *   mode bit 1: feed through a pipe (not seekable) instead of a file
 *   mode bits 2-3: 0 read every frame, 1 skip frame 0 then read,
 *                  2 alternate skip and read, 3 skip 1000 then read
 * Promises checked: open fails with a negative errno and a message and
 * *out NULL, or succeeds with a format within the hard limits; reads return
 * 1/0/negative; errors are sticky and repeat the same code; end of stream
 * stays 0; pictures lie within the reader's buffer; nothing leaks.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_input_check.h"

#define MAX_FRAMES 64

static void check_err(int r, const char *err)
{
    FUZZ_CHECK(r == -EINVAL || r == -EIO || r == -ENOMEM,
               "unexpected error code %d (%s)", r, err);
    FUZZ_CHECK(err[0] != '\0', "error %d without a message", r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const unsigned mode = data[0];
    data++;
    size--;

    char path[64], err[512];
    int pfd = -1;
    if ((mode & 2) && fuzz_pipe(data, size, path, sizeof path, &pfd) < 0)
        pfd = -1;
    if (pfd < 0 && fuzz_file(data, size, path, sizeof path) < 0)
        return 0;
    const int detect = (mode & 1) && size >= 10 && memcmp(data, "YUV4MPEG2 ", 10) == 0;

    SqInput *in = (SqInput *)&err; /* must become NULL on failure */
    err[0] = '\0';
    int r = sq_input_open(&in, path, detect ? NULL : "y4m", NULL, err, sizeof err);
    fuzz_pipe_close(pfd); /* the reader holds its own descriptor */
    if (fuzz_verbose())
        fprintf(stderr, "  open %d %s\n", r, r < 0 ? err : "");
    if (r < 0) {
        FUZZ_CHECK(in == NULL, "failed open left *out set");
        check_err(r, err);
        return 0;
    }
    FUZZ_CHECK(r == 0 && in, "open returned %d", r);
    const SqInputInfo *info = sq_input_info(in);
    fuzz_check_info(info);
    FUZZ_CHECK(info->frames == -1, "y4m frame count %lld", info->frames);

    const int pattern = (mode >> 2) & 3;
    long long frames;
    const int last = fuzz_input_frames(in, info, pattern, MAX_FRAMES, &frames, err, sizeof err);
    if (last < 0)
        check_err(last, err);
    fuzz_input_end(&in, info, last, err);
    return 0;
}
