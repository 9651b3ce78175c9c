/*
 * Memory-mapped reading of Y4M and raw files (issue #12): a frame is a
 * pointer into the mapping, lent to the library (SpeedqaPicture.release),
 * so no byte is copied by read() or by send(), the library's workers fault
 * in only the pages the features read, and they do it in parallel. Each
 * frame read gets an entry of a ring that the release marks done; the
 * reader unmaps the pages of the frames all given back (MADV_DONTNEED:
 * the page cache keeps them), so the resident size stays flat however
 * long the file. SPEEDQA_IO=read selects the read() path instead.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* madvise */
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_priv.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

/* Frames lent at once, at most: far above any library queue. */
#define RING 4096
/* Unmap given-back frames in steps of at least this many bytes. */
#define DROP_STEP ((size_t)8 << 20)

typedef struct MapEntry {
    struct SqMap *m;
    atomic_int lent;
    size_t end;          /* offset just past the frame's payload */
} MapEntry;

struct SqMap {
    /* the input's reference plus one per frame lent: the last one unmaps,
     * so a context closed after its input still gives frames back safely */
    atomic_long refs;
    const unsigned char *base;
    size_t len;
    size_t page;
    unsigned long long next, low; /* ring: entries [low, next) may be lent */
    size_t done_end;      /* every frame ending at or before this is given back */
    size_t dropped;       /* [0, dropped) is unmapped (page multiple) */
    int populate;         /* map each frame's pages before lending it */
    MapEntry ring[RING];
};

static int mapping_wanted(const SqInput *in)
{
    const char *io = getenv("SPEEDQA_IO");
    if (io && !strcmp(io, "read"))
        return 0;
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    if (in->info.format.bpc > 8)
        return 0; /* little-endian samples must be swapped: read() into a buffer */
#endif
    /* stdin stays a stream: whoever reads it next finds it where reading left it */
    return in->seekable && in->own_f && in->rd != NULL &&
           (in->rd == &sq_reader_y4m || in->rd == &sq_reader_yuv);
}

void sq_in_map(SqInput *in)
{
    if (!mapping_wanted(in))
        return;
    struct stat st;
    const int fd = fileno(in->f);
    const off_t pos = ftello(in->f);
    if (fd < 0 || pos < 0 || fstat(fd, &st) != 0 || st.st_size <= 0 ||
        (uint64_t)st.st_size > (uint64_t)SIZE_MAX)
        return;
    SqMap *m = calloc(1, sizeof *m);
    if (!m)
        return; /* reading works without it */
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        free(m);
        return;
    }
    atomic_init(&m->refs, 1);
    m->base = p;
    m->len = (size_t)st.st_size;
    m->page = (size_t)sysconf(_SC_PAGESIZE);
    /* One call maps a frame's pages instead of a fault per 64 KiB in the
     * library's threads: it pays where many threads stage one frame at a
     * time (GPU backends) and the faults contend (bench/cli_throughput.py). */
    const char *pop = getenv("SPEEDQA_MAP_POPULATE");
    m->populate = pop && !strcmp(pop, "1");
    for (int i = 0; i < RING; i++)
        m->ring[i].m = m;
    in->map = m;
    /* peeked bytes not yet consumed are read again from the mapping */
    in->map_pos = (size_t)pos - (in->pb_len - in->pb_pos);
    in->pb_pos = in->pb_len;
}

static void map_unref(SqMap *m)
{
    if (atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) == 1) {
        munmap((void *)m->base, m->len);
        free(m);
    }
}

void sq_in_unmap(SqInput *in)
{
    if (!in->map)
        return;
    map_unref(in->map);
    in->map = NULL;
}

int sq_in_map_getc(SqInput *in)
{
    return in->map_pos < in->map->len ? in->map->base[in->map_pos++] : EOF;
}

size_t sq_in_map_skip(SqInput *in, size_t n)
{
    const size_t left = in->map->len - in->map_pos;
    n = n < left ? n : left;
    in->map_pos += n;
    return n;
}

size_t sq_in_map_copy(SqInput *in, void *dst, size_t n)
{
    const size_t pos = in->map_pos;
    n = sq_in_map_skip(in, n);
    memcpy(dst, in->map->base + pos, n);
    return n;
}

size_t sq_in_map_payload(SqInput *in)
{
    const size_t left = in->map->len - in->map_pos;
    if (left < in->frame_bytes) {
        in->map_pos = in->map->len;
        return left;
    }
    in->frame = in->map->base + in->map_pos;
    in->map_pos += in->frame_bytes;
    return in->frame_bytes;
}

static void map_release(void *opaque, const void *data0)
{
    MapEntry *e = opaque;
    (void)data0;
    SqMap *m = e->m;
    atomic_store_explicit(&e->lent, 0, memory_order_release);
    map_unref(m);
}

/* Frames given back since the last call: unmap their pages once enough are. */
static void drop_done(SqMap *m)
{
    while (m->low < m->next &&
           !atomic_load_explicit(&m->ring[m->low % RING].lent, memory_order_acquire))
        m->done_end = m->ring[m->low++ % RING].end;
    const size_t to = m->done_end / m->page * m->page;
    if (to >= m->dropped + DROP_STEP) {
        madvise((void *)(m->base + m->dropped), to - m->dropped, MADV_DONTNEED);
        m->dropped = to;
    }
}

void sq_in_map_lend(SqInput *in, SpeedqaPicture *pic)
{
    SqMap *m = in->map;
    drop_done(m);
    MapEntry *e = &m->ring[m->next % RING];
    if (m->next - m->low >= RING)
        return; /* no entry free: the library copies this one (never in practice) */
    e->end = in->map_pos;
    if (m->populate) {
        const size_t a = (size_t)(in->frame - m->base) / m->page * m->page;
        /* an old kernel says EINVAL: the pages fault in as usual */
        madvise((void *)(m->base + a), in->map_pos - a, MADV_POPULATE_READ);
    }
    atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
    atomic_store_explicit(&e->lent, 1, memory_order_relaxed);
    m->next++;
    pic->release = map_release;
    pic->release_opaque = e;
}

unsigned sq_input_touch(const SpeedqaPicture *pic)
{
    unsigned sum = 0;
    const int planes = pic->format.fmt == SPEEDQA_PIX_400 ? 1 : 3;
    const int bps = pic->format.bpc > 8 ? 2 : 1;
    for (int c = 0; c < planes; c++) {
        const int cw = c && pic->format.fmt != SPEEDQA_PIX_444 ? (pic->format.width + 1) >> 1
                                                               : pic->format.width;
        const int ch = c && pic->format.fmt == SPEEDQA_PIX_420 ? (pic->format.height + 1) >> 1
                                                               : pic->format.height;
        const size_t row = (size_t)cw * (size_t)bps;
        for (int y = 0; y < ch; y++) {
            const unsigned char *r = (const unsigned char *)pic->data[c] + (ptrdiff_t)y * pic->stride[c];
            for (size_t x = 0; x < row; x += 64)
                sum += r[x];
        }
    }
    return sum;
}
