/*
 * Shared helpers of the fuzz targets (tests/fuzz/fuzz_*.c).
 *
 * Every target defines LLVMFuzzerTestOneInput and is built twice: as a
 * libFuzzer binary (clang, -fsanitize=fuzzer) and as a plain "replay"
 * program (replay_main.c) that runs it over every file of a corpus folder,
 * so each build, gcc included, replays the committed seeds and crashers.
 *
 * A target reports a broken promise (wrong return code, leak, non-finite
 * score, ...) with FUZZ_CHECK, which prints the reason and aborts: a crash
 * for libFuzzer, a failed test for the replay program.
 */
#ifndef SQ_FUZZ_COMMON_H
#define SQ_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

void fuzz_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4), noreturn))
#endif
    ;

#define FUZZ_CHECK(cond, ...)                                  \
    do {                                                       \
        if (!(cond))                                           \
            fuzz_fail(__FILE__, __LINE__, __VA_ARGS__);        \
    } while (0)

/* 1 when FUZZ_VERBOSE is set: targets then describe each input on stderr. */
int fuzz_verbose(void);

/* Consumes fuzzer bytes front to back; zeros once they run out. */
typedef struct FuzzBytes {
    const uint8_t *p;
    size_t n;
} FuzzBytes;

unsigned fuzz_u8(FuzzBytes *b);
unsigned fuzz_u16(FuzzBytes *b);
uint32_t fuzz_u32(FuzzBytes *b);

/*
 * Puts data in a file that can be opened by path (written into path): a
 * memfd reached through /proc/self/fd, reused between calls; a temp file
 * where memfd is missing. Returns 0, or -1 (the target then skips the input).
 */
int fuzz_file(const uint8_t *data, size_t size, char *path, size_t pathlen);

/*
 * Same data behind a pipe (not seekable, no size): the write end is closed
 * after the data, the read end *fd stays open until fuzz_pipe_close. Returns
 * -1 when the data does not fit the pipe buffer (the caller falls back to
 * fuzz_file).
 */
int fuzz_pipe(const uint8_t *data, size_t size, char *path, size_t pathlen, int *fd);
void fuzz_pipe_close(int fd);

/* Allocator for SpeedqaSettings.alloc that counts and can fail once. */
typedef struct FuzzAlloc {
    long allocs, frees;
    long fail_at;   /* 1-based allocation that fails; 0 never; -1 after it failed */
    size_t live_bytes, peak_bytes;
} FuzzAlloc;
void *fuzz_alloc(void *opaque, size_t size);
void fuzz_free(void *opaque, void *ptr);

#endif
