/*
 * Input selection: sq_input_open with no kind, as the CLI opens every
 * input: Y4M by signature, raw by name or when not seekable, else libav
 * (when built) and, when libav gives up on a file with raw geometry, a
 * rewind to raw. Input: a 4-byte header, then the file.
 *   mode byte: bit 0 feed through a pipe, bits 1-2 the name's ending
 *              (0 ".bin", 1 ".yuv", 2 none, 3 ".raw"), bit 3 no raw geometry
 *   width - 1 byte, height - 1 byte (1..256), format byte (bits 0-1) with
 *   bit 2 meaning 10-bit instead of 8
 * Promises checked (issue #10 finding 1 and its class): whenever the raw
 * reader is chosen, the frames it returns are exactly the file's bytes,
 * frame after frame from byte 0 (nothing peeked is lost or read twice);
 * a file starting with the Y4M signature goes to the Y4M reader; errors
 * are clean (message, *out NULL); nothing leaks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "fuzz_input_check.h"

#define MAX_FRAMES 16

static char dir[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/sq-fuzz-probe-XXXXXX");
    if (!mkdtemp(dir))
        dir[0] = '\0';
    return 0;
}

/* Named file holding data (the name's ending matters to the probe). */
static int named_file(const uint8_t *data, size_t size, const char *ending, char *path, size_t len)
{
    snprintf(path, len, "%s/input%s", dir, ending);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    close(fd);
    return 0;
}

/* Bytes of the frame picture as the file stores them (LE 16-bit samples). */
static int same_as_file(const SqInputInfo *info, const SpeedqaPicture *pic, const uint8_t *file)
{
    const SpeedqaFormat *f = &info->format;
    const int semi = pic->layout == SPEEDQA_LAYOUT_SEMI_PLANAR; /* U, V interleaved in plane 1 */
    const int planes = f->fmt == SPEEDQA_PIX_400 ? 1 : semi ? 2 : 3, bps = f->bpc > 8 ? 2 : 1;
    size_t off = 0;
    for (int p = 0; p < planes; p++) {
        int w, h;
        fuzz_plane_size(f, p, &w, &h);
        w *= semi && p == 1 ? 2 : 1;
        for (int y = 0; y < h; y++) {
            const uint8_t *row = (const uint8_t *)pic->data[p] + (ptrdiff_t)y * pic->stride[p];
            for (int x = 0; x < w * bps; x++) {
                uint8_t v = row[x];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
                if (bps == 2)
                    v = row[x ^ 1];
#endif
                if (v != file[off++])
                    return 0;
            }
        }
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4 || !dir[0])
        return 0;
    static const char *const endings[] = { ".bin", ".yuv", "", ".raw" };
    const unsigned mode = data[0];
    /* bit 3: semi-planar (Y, then U and V interleaved); bit 4: 10-bit MSB-aligned (P010) */
    SqRawParams raw = { data[1] + 1, data[2] + 1, (SpeedqaPixelFormat)(data[3] & 3),
                        data[3] & 4 ? 10 : 8,
                        data[3] & 8 ? SPEEDQA_LAYOUT_SEMI_PLANAR : SPEEDQA_LAYOUT_PLANAR,
                        (data[3] & 20) == 20 };
    data += 4;
    size -= 4;

    char path[128], err[1100];
    int pfd = -1;
    if ((mode & 1) && fuzz_pipe(data, size, path, sizeof path, &pfd) < 0)
        pfd = -1;
    if (pfd < 0 && named_file(data, size, endings[(mode >> 1) & 3], path, sizeof path) < 0)
        return 0;
    const int seekable = pfd < 0;
    const int have_raw = !(mode & 8);

    SqInput *in = (SqInput *)&err;
    int r = sq_input_open(&in, path, NULL, have_raw ? &raw : NULL, err, sizeof err);
    if (fuzz_verbose())
        fprintf(stderr, "  %s raw %d: open %d %s\n", path, have_raw, r, r < 0 ? err : "");
    if (r < 0) {
        fuzz_pipe_close(pfd);
        FUZZ_CHECK(in == NULL, "failed open left *out set");
        FUZZ_CHECK(err[0] != '\0', "error %d without a message", r);
        FUZZ_CHECK(r != -ENOEXEC, "the probe's internal -ENOEXEC escaped");
        return 0;
    }
    const SqInputInfo *info = sq_input_info(in);
    fuzz_check_info(info);
    FUZZ_CHECK(info->reader != NULL, "no reader name");
    const int is_y4m = size >= 10 && !memcmp(data, "YUV4MPEG2 ", 10);
    FUZZ_CHECK(!is_y4m || !strcmp(info->reader, "y4m"), "a Y4M signature read by %s", info->reader);
    FUZZ_CHECK(have_raw || strcmp(info->reader, "yuv"), "raw reader without geometry");
    if (!seekable && have_raw && !is_y4m)
        FUZZ_CHECK(!strcmp(info->reader, "yuv"), "a pipe with raw geometry read by %s", info->reader);

    size_t consumed = 0;
    for (int i = 0; i < MAX_FRAMES; i++) {
        SpeedqaPicture pic;
        r = sq_input_read(in, &pic, err, sizeof err);
        if (r != 1)
            break;
        (void)fuzz_touch_picture(info, &pic);
        if (!strcmp(info->reader, "yuv")) {
            const size_t fb = fuzz_frame_bytes(&info->format);
            FUZZ_CHECK(consumed + fb <= size, "raw frame %d reaches past the %zu-byte file", i, size);
            FUZZ_CHECK(same_as_file(info, &pic, data + consumed),
                       "raw frame %d differs from the file's bytes at %zu", i, consumed);
            consumed += fb;
        }
    }
    FUZZ_CHECK(r == 1 || r == 0 || (r < 0 && err[0]), "read %d without a message", r);
    fuzz_pipe_close(pfd);
    sq_input_close(&in);
    FUZZ_CHECK(in == NULL, "close did not clear the pointer");
    return 0;
}
