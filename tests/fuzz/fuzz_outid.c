/*
 * The output identity rule (tools/output/identity.h) against the file
 * system itself. Input: bytes that build a small tree in a fresh folder
 * (files, a hard link, a symlink to a folder, a symlink that may dangle,
 * an open descriptor) and 2..6 path spellings over it: relative or
 * absolute, through /dev/fd/N and /proc/self/fd/N, with ".", "..", "//".
 *
 * Ground truth: every path is written as the -o file protocol writes it
 * (an existing file: the file; else a new file renamed into its folder),
 * one after the other, and what each then names is compared by
 * (st_dev, st_ino). Promises checked, for every two paths:
 *   - two outputs that reach one file are refused (no lost file), and two
 *     that are refused reach one file or one of them cannot be written;
 *   - an output refused as an existing input is that input's file, and an
 *     output that is an existing input's file is refused.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "identity.h"

#define MAXP 6

static char base[PATH_MAX]; /* the fuzzer's own folder, made once */
static int base_fd = -1;
static int home_fd = -1;    /* the folder libFuzzer runs in: its corpus paths are relative */
static char why[2 * PATH_MAX + 200]; /* the broken promise, reported from home */

#define EXPECT(cond, ...)                                  \
    do {                                                   \
        if (!(cond)) {                                     \
            snprintf(why, sizeof why, __VA_ARGS__);        \
            goto out;                                      \
        }                                                  \
    } while (0)

static void rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[PATH_MAX];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            rm_tree(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void remove_base(void)
{
    rm_tree(base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof base, "%s/fuzz_outid-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    FUZZ_CHECK(mkdtemp(base) != NULL, "mkdtemp: %s", strerror(errno));
    base_fd = open(base, O_RDONLY | O_DIRECTORY);
    home_fd = open(".", O_RDONLY | O_DIRECTORY);
    FUZZ_CHECK(base_fd >= 0 && home_fd >= 0, "open base");
    atexit(remove_base);
    return 0;
}

static void touch(const char *p)
{
    int fd = open(p, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0)
        close(fd);
}

/* The tree: bits of the first byte choose which files exist. */
static int build_tree(unsigned bits)
{
    rm_tree("t");
    if (mkdir("t", 0755) || mkdir("t/d0", 0755) || mkdir("t/d1", 0755) || mkdir("t/d1/e", 0755))
        return -1;
    if (bits & 1)
        touch("t/d0/f0");
    if (bits & 2)
        touch("t/d1/f1");
    if (bits & 4)
        touch("t/f2");
    if ((bits & 1) && (bits & 8) && link("t/d0/f0", "t/h") != 0)
        return -1;
    if (symlink("d1", "t/ld") != 0)
        return -1;
    if ((bits & 16) && symlink("d1/f1", "t/s") != 0) /* dangles unless f1 exists */
        return -1;
    return 0;
}

static const char *const comp[] = { ".", "..", "d0", "d1", "ld", "e", "f0", "f1", "f2", "h", "s",
                                    "new", "x.json" };

/* One spelling from the bytes, into out. */
static void make_path(FuzzBytes *b, char *out, size_t len, int file_fd)
{
    const unsigned how = fuzz_u8(b);
    size_t o;
    switch (how % 6) {
    case 0: o = (size_t)snprintf(out, len, "t"); break;
    case 1: o = (size_t)snprintf(out, len, "%s/t", base); break;
    case 2: o = (size_t)snprintf(out, len, "/dev/fd/%d/t", base_fd); break;
    case 3: o = (size_t)snprintf(out, len, "/proc/self/fd/%d/t", base_fd); break;
    case 4: o = (size_t)snprintf(out, len, "./t/"); break;
    default:
        if (file_fd >= 0) { /* an open file's descriptor, as /dev/stdout would be */
            snprintf(out, len, "%s/%d", how & 8 ? "/dev/fd" : "/proc/self/fd", file_fd);
            return;
        }
        o = (size_t)snprintf(out, len, "t");
    }
    const unsigned n = 1 + fuzz_u8(b) % 4;
    for (unsigned i = 0; i < n && o + 16 < len; i++) {
        const unsigned c = fuzz_u8(b);
        o += (size_t)snprintf(out + o, len - o, "%s%s", c & 0x80 ? "//" : "/",
                              comp[(c & 0x7f) % (sizeof comp / sizeof comp[0])]);
    }
}

/* What writing path reaches (an existing file, else the file open creates,
 * through a dangling symlink too): 1 with its id, 0 when it cannot be written. */
static int write_like_outfile(const char *path, struct stat *id)
{
    if (stat(path, id) == 0)
        return 1;
    const int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0)
        return 0;
    const int r = fstat(fd, id) == 0;
    close(fd);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (base_fd < 0)
        LLVMFuzzerInitialize(NULL, NULL);
    FuzzBytes b = { data, size };
    why[0] = '\0';
    FUZZ_CHECK(fchdir(base_fd) == 0, "chdir");
    if (build_tree(fuzz_u8(&b)) != 0) {
        FUZZ_CHECK(fchdir(home_fd) == 0, "chdir back");
        return 0;
    }
    const int file_fd = open("t/d0/f0", O_RDONLY); /* -1 when f0 was not made */
    const int n = 2 + (int)(fuzz_u8(&b) % (MAXP - 1));
    char path[MAXP][PATH_MAX];
    const char *pp[MAXP];
    for (int i = 0; i < n; i++) {
        make_path(&b, path[i], sizeof path[i], file_fd);
        pp[i] = path[i];
    }
    /* the rule, before anything is written */
    int out_clash[MAXP][MAXP] = { { 0 } }, in_clash[MAXP][MAXP] = { { 0 } };
    struct stat before[MAXP];
    int existed[MAXP];
    char err[512];
    for (int i = 0; i < n; i++) {
        existed[i] = stat(pp[i], &before[i]) == 0 && !S_ISCHR(before[i].st_mode);
        for (int j = 0; j < n; j++) {
            if (i == j)
                continue;
            const char *two[2] = { pp[i], pp[j] };
            const int r = sq_outputs_check(two, 2, NULL, 0, err, sizeof err);
            EXPECT(r == 0 || r == -2, "two outputs: %d (%s)", r, err);
            out_clash[i][j] = r == -2;
            const int s = sq_outputs_check(&pp[i], 1, &pp[j], 1, err, sizeof err);
            EXPECT(s == 0 || s == -1, "output and input: %d (%s)", s, err);
            in_clash[i][j] = s == -1;
        }
    }
    /* the truth: write them one after the other */
    struct stat id[MAXP];
    int ok[MAXP];
    for (int i = 0; i < n; i++)
        ok[i] = write_like_outfile(pp[i], &id[i]) && !S_ISCHR(id[i].st_mode);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j)
                continue;
            const int same = ok[i] && ok[j] && id[i].st_dev == id[j].st_dev &&
                             id[i].st_ino == id[j].st_ino;
            EXPECT(!same || out_clash[i][j], "%s and %s are one file, not refused", pp[i],
                       pp[j]);
            EXPECT(!out_clash[i][j] || same || !ok[i] || !ok[j],
                       "%s and %s refused, but they are two files", pp[i], pp[j]);
            /* as an input: refused exactly when it is that file (or when
             * the output cannot be written at all: a folder spelled through
             * a missing one, resolved by its spelling) */
            const int same_file = existed[i] && existed[j] &&
                                  before[i].st_dev == before[j].st_dev &&
                                  before[i].st_ino == before[j].st_ino;
            EXPECT(in_clash[i][j] == same_file || (!same_file && !existed[i] && !ok[i]),
                   "output %s, input %s: refused %d, same file %d", pp[i], pp[j],
                   in_clash[i][j], same_file);
        }
out:
    if (file_fd >= 0)
        close(file_fd);
    FUZZ_CHECK(fchdir(home_fd) == 0, "chdir back");
    FUZZ_CHECK(!why[0], "%s", why);
    return 0;
}
