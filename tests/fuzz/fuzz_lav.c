/*
 * Compressed input through libav (built when libavformat is found).
 * Input: one mode byte, then the file.
 *   mode bits 0-2: file name extension, the demuxer's probing hint:
 *                  none .mkv .mp4 .avi .nut .ivf .h264 .y4m
 *   mode bit 3:    feed through a pipe (not seekable, no name hint)
 *   mode bit 4:    skip every other frame
 *   mode bit 6:    one decoder thread (--decode-threads 1: libav's explode mode)
 * Promises checked: as for the other readers (clean errors with a message
 * and *out NULL, formats within the limits, pictures inside the buffer,
 * sticky errors, end stays 0); libav's own leaks show under LSan too.
 * The crashes this can find inside libav itself are libav's: report them
 * with the input, they are not ours to fix.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "fuzz_input_check.h"

#define MAX_FRAMES 16

static int write_named(const uint8_t *data, size_t size, const char *ext, char *path, size_t len)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, len, "%s/speedqa-fuzz-lav-%ld%s", dir, (long)getpid(), ext);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    while (size) {
        ssize_t n = write(fd, data, size);
        if (n <= 0) {
            close(fd);
            unlink(path);
            return -1;
        }
        data += n;
        size -= (size_t)n;
    }
    close(fd);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const ext[8] = { "", ".mkv", ".mp4", ".avi", ".nut", ".ivf", ".h264", ".y4m" };
    if (size < 1 || size > (1 << 20))
        return 0;
    const unsigned mode = data[0];
    data++;
    size--;

    char path[128], err[512];
    int pfd = -1, named = 0;
    if ((mode & 8) && fuzz_pipe(data, size, path, sizeof path, &pfd) < 0)
        pfd = -1;
    if (pfd < 0) {
        if (write_named(data, size, ext[mode & 7], path, sizeof path) < 0)
            return 0;
        named = 1;
    }

    SqInput *in = (SqInput *)&err;
    err[0] = '\0';
    int r = sq_input_open_dec(&in, path, "lav", NULL, -1, (mode & 64) ? 1 : 0, err, sizeof err);
    fuzz_pipe_close(pfd);
    if (named)
        unlink(path); /* the reader keeps its descriptor */
    if (fuzz_verbose())
        fprintf(stderr, "  open %d %s\n", r, r < 0 ? err : "");
    if (r < 0) {
        FUZZ_CHECK(in == NULL, "failed open left *out set");
        FUZZ_CHECK(r == -EINVAL || r == -EIO || r == -ENOMEM, "unexpected error %d (%s)", r, err);
        FUZZ_CHECK(err[0] != '\0', "error %d without a message", r);
        return 0;
    }
    const SqInputInfo *info = sq_input_info(in);
    fuzz_check_info(info);

    long long frames;
    const int last = fuzz_input_frames(in, info, mode & 16 ? 2 : 0, MAX_FRAMES, &frames, err,
                                       sizeof err);
    if (last < 0)
        FUZZ_CHECK(last == -EINVAL || last == -EIO || last == -ENOMEM, "read error %d (%s)", last, err);
    fuzz_input_end(&in, info, last, err);
    return 0;
}
