#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* mkstemp, realpath */
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity.h"
#include "outfile.h"

/*
 * The temporary reports the signal handler removes. They are process state
 * by nature (a signal has no context argument). A ladder or a batch has
 * several reports open at once, from several threads: each takes a free
 * slot atomically, in blocks of slots chained as needed (a block is never
 * freed, so the handler can walk the chain at any moment with atomic loads
 * only: async-signal-safe), so every live temporary file has a slot.
 */
#define SIG_TMP_BLOCK 256
typedef struct TmpBlock {
    _Atomic(char *) t[SIG_TMP_BLOCK];
    _Atomic(struct TmpBlock *) next;
} TmpBlock;
static TmpBlock sig_tmp;

static void unlink_tmps(void)
{
    for (TmpBlock *b = &sig_tmp; b; b = atomic_load(&b->next))
        for (int i = 0; i < SIG_TMP_BLOCK; i++) {
            char *t = atomic_load(&b->t[i]);
            if (t)
                unlink(t);
        }
}

static void on_signal(int sig)
{
    unlink_tmps();
    signal(sig, SIG_DFL);
    raise(sig);
}

/*
 * Every signal whose default ends the process, when it still has that
 * default (an ignored SIGPIPE stays ignored: a closed stdout is a write
 * error, exit 5; a handler installed by someone else stays). Crash signals
 * are left alone: sanitizers and core dumps own them.
 */
static void catch_signals(void)
{
    static const int term[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
                                SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGPIPE, SIGPOLL,
#ifdef SIGPWR
                                SIGPWR,
#endif
#ifdef SIGSTKFLT
                                SIGSTKFLT,
#endif
                                SIGABRT };
    const int nterm = (int)(sizeof term / sizeof term[0]);
    for (int i = 0; i < nterm + (SIGRTMAX - SIGRTMIN + 1); i++) {
        const int sig = i < nterm ? term[i] : SIGRTMIN + (i - nterm);
        struct sigaction old, sa;
        if (sigaction(sig, NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, NULL);
    }
}

static const char *volatile exit_line;
static volatile int exit_code;

static void on_exit_signal(int sig)
{
    (void)sig;
    unlink_tmps();
    const char *l = exit_line;
    if (l) {
        ssize_t ignored = write(STDERR_FILENO, l, strlen(l));
        (void)ignored;
    }
    _exit(exit_code);
}

void sq_outfile_exit_on(int sig, const char *line, int code)
{
    exit_line = line;
    exit_code = code;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_exit_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* add: register t in a free slot (a new block when all are taken); else forget it. */
static int set_sig_tmp(char *t, int add)
{
    for (TmpBlock *b = &sig_tmp; t && b;) {
        for (int i = 0; i < SIG_TMP_BLOCK; i++) {
            char *expect = add ? NULL : t;
            if (atomic_compare_exchange_strong(&b->t[i], &expect, add ? t : NULL))
                return 0;
        }
        TmpBlock *next = atomic_load(&b->next);
        if (!next && add) {
            TmpBlock *nb = calloc(1, sizeof *nb);
            if (!nb)
                return -ENOMEM;
            TmpBlock *expect = NULL;
            if (atomic_compare_exchange_strong(&b->next, &expect, nb))
                next = nb;
            else {
                free(nb); /* another thread chained one first */
                next = expect;
            }
        }
        b = next;
    }
    return 0;
}

static void fail(char *err, size_t errlen, const char *path, const char *what, int e)
{
    if (err && errlen)
        snprintf(err, errlen, "%s: %s: %s", path, what, strerror(e));
}

int sq_outfile_is_input(const char *path, const char *const *inputs, int n)
{
    struct stat so, si;
    if (stat(path, &so) != 0)
        return 0;
    for (int i = 0; i < n; i++) {
        int r = strcmp(inputs[i], "-") ? stat(inputs[i], &si) : fstat(STDIN_FILENO, &si);
        if (r == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
            return 1;
    }
    return 0;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* The umask, read once: reading it means setting it, and two threads doing
 * that at once could leave it 0 (every later file world-writable). */
static mode_t process_umask;

static void read_umask(void)
{
    process_umask = umask(0);
    umask(process_umask);
}

int sq_outfile_open(SqOutFile *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            fail(err, errlen, path, "cannot create the output file", EISDIR);
            return -EISDIR;
        }
        /* a device or FIFO: nothing to protect, and rename cannot replace it */
        o->f = fopen(path, "w");
        if (!o->f) {
            int e = errno;
            fail(err, errlen, path, "cannot open the output", e);
            return -e;
        }
        return 0;
    }
    /* a report without write permission is kept: the user protected it */
    if (exists && !(st.st_mode & 0222)) {
        if (err && errlen)
            snprintf(err, errlen, "%s: the report is read-only; refusing to replace it", path);
        return -EACCES;
    }
    o->existed = exists;
    /* Through a symlink, replace the file it names, not the link (a
     * dangling one: create the file it names, as the identity rule says). */
    char *real = exists ? realpath(path, NULL) : sq_id_follow(path);
    o->dest = real ? real : dup_str(path);
    if (!o->dest) {
        fail(err, errlen, path, "cannot create the output file", ENOMEM);
        return -ENOMEM;
    }
    const char *slash = strrchr(o->dest, '/');
    size_t dlen = slash ? (size_t)(slash - o->dest) + 1 : 0;
    static const char pat[] = ".speedqa-XXXXXX";
    o->tmp = malloc(dlen + sizeof pat);
    if (!o->tmp) {
        sq_outfile_abort(o);
        fail(err, errlen, path, "cannot create the output file", ENOMEM);
        return -ENOMEM;
    }
    memcpy(o->tmp, o->dest, dlen);
    memcpy(o->tmp + dlen, pat, sizeof pat);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        sq_outfile_abort(o);
        fail(err, errlen, path, "cannot create the output file", e);
        return -e;
    }
    /* The mode the file would have had from fopen, or the one it has. */
    static pthread_once_t mask_once = PTHREAD_ONCE_INIT;
    pthread_once(&mask_once, read_umask);
    fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~process_umask);
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, catch_signals);
    if (set_sig_tmp(o->tmp, 1) < 0) {
        close(fd);
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        sq_outfile_abort(o);
        fail(err, errlen, path, "cannot create the output file", ENOMEM);
        return -ENOMEM;
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        close(fd);
        sq_outfile_abort(o);
        fail(err, errlen, path, "cannot create the output file", e);
        return -e;
    }
    return 0;
}

int sq_outfile_commit(SqOutFile *o, char *err, size_t errlen)
{
    const char *name = o->dest ? o->dest : "output";
    int e = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = errno ? errno : EIO;
    if (!e && o->tmp && fsync(fileno(o->f)) != 0 && errno != EINVAL)
        e = errno;
    if (fclose(o->f) != 0 && !e)
        e = errno ? errno : EIO;
    o->f = NULL;
    if (!e && o->tmp && rename(o->tmp, o->dest) != 0)
        e = errno;
    if (e) {
        fail(err, errlen, name, "write failed", e);
        sq_outfile_abort(o);
        return -e;
    }
    set_sig_tmp(o->tmp, 0);
    free(o->tmp);
    free(o->dest);
    o->tmp = o->dest = NULL;
    return 0;
}

void sq_outfile_abort(SqOutFile *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp) {
        set_sig_tmp(o->tmp, 0);
        unlink(o->tmp);
    }
    free(o->tmp);
    free(o->dest);
    o->tmp = o->dest = NULL;
}
