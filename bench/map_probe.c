/*
 * map_probe: what mapping a page-cached input costs the kernel, outside
 * speedqa (the share of a whole job that --threads 1 leaves to an idle
 * core and --threads N on N cores cannot):
 *
 *   map_probe FILE [ROUNDS]
 *
 * Maps FILE whole (as tools/input/map.c does) and, each round, times
 * touching a byte of every 4 KiB page (page faults; the kernel maps a large
 * folio per fault), the same after MADV_POPULATE_READ in 3 MiB steps (a
 * frame's worth), touching again pages already mapped (the memory access
 * alone), and MADV_DONTNEED of the whole mapping (what keeping the
 * resident size flat costs). Also prints the faults counted and the share
 * of the mapping the kernel maps with 2 MiB entries (FilePmdMapped).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static long faults(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_minflt;
}

static unsigned touch(const volatile uint8_t *p, size_t n)
{
    unsigned s = 0;
    for (size_t o = 0; o < n; o += 4096)
        s += p[o];
    return s;
}

/* The FilePmdMapped line of the mapping that starts at base, in kB (-1: not found). */
static long pmd_kb(const void *base)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512], head[32];
    snprintf(head, sizeof head, "%lx-", (unsigned long)(uintptr_t)base);
    long kb = -1;
    int in = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, head, strlen(head)))
            in = 1;
        else if (in && sscanf(line, "FilePmdMapped: %ld", &kb) == 1)
            break;
    }
    fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: map_probe FILE [ROUNDS]\n");
        return 2;
    }
    const int rounds = argc > 2 ? atoi(argv[2]) : 3;
    const int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0) {
        fprintf(stderr, "map_probe: cannot open %s\n", argv[1]);
        return 1;
    }
    const size_t n = (size_t)st.st_size;
    uint8_t *p = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "map_probe: cannot map %s\n", argv[1]);
        return 1;
    }
    printf("%s: %.0f MiB mapped at %p\n", argv[1], (double)n / (1 << 20), (void *)p);
    unsigned sink = 0;
    for (int r = 0; r < rounds; r++) {
        madvise(p, n, MADV_DONTNEED);
        long f0 = faults();
        double t = now_ms();
        sink += touch(p, n);
        const double fault_ms = now_ms() - t;
        const long nf = faults() - f0;
        const long pmd = pmd_kb(p);
        madvise(p, n, MADV_DONTNEED);
        t = now_ms();
        for (size_t o = 0; o < n; o += (size_t)3 << 20)
            madvise(p + o, n - o < ((size_t)3 << 20) ? n - o : (size_t)3 << 20, MADV_POPULATE_READ);
        const double pop_ms = now_ms() - t;
        t = now_ms();
        sink += touch(p, n);
        const double access_ms = now_ms() - t;
        t = now_ms();
        madvise(p, n, MADV_DONTNEED);
        const double zap_ms = now_ms() - t;
        printf("round %d: faulting %.1f ms (%ld faults, %.0f KiB each), populating %.1f ms, "
               "touching mapped pages %.1f ms, unmapping %.1f ms; %ld of %.0f MiB PMD-mapped\n",
               r + 1, fault_ms, nf, nf ? (double)n / 1024 / (double)nf : 0.0, pop_ms, access_ms,
               zap_ms, pmd < 0 ? 0 : pmd >> 10, (double)n / (1 << 20));
    }
    munmap(p, n);
    close(fd);
    return sink == 0xdeadbeef; /* keeps the touches */
}
