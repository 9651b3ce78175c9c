/*
 * Memory-mapped reading of Y4M and raw files (issue #12): a frame is a
 * pointer into the mapping, lent to the library (SpeedqaPicture.release),
 * so no byte is copied by read() or by send(), the library's workers fault
 * in only the pages the features read, and they do it in parallel. Each
 * frame read gets an entry of a ring that the release marks done; the
 * reader unmaps the pages of the frames all given back (MADV_DONTNEED:
 * the page cache keeps them), so the resident size stays flat however
 * long the file. Pages mapped ahead are those of the rows scoring reads
 * (sq_input_rows_read). The mapping asks for huge pages, so what it reads in
 * from storage is cached in 2 MiB folios, each mapped and unmapped at
 * once; it unmaps at 2 MiB boundaries, so no such folio is split.
 * SPEEDQA_IO=read selects the read() path instead.
 *
 * For a GPU backend the mapping can be registered with the context in
 * windows (sq_input_pin, speedqa_cuda_host_register) a window ahead of the
 * reader, so lent frames go up by DMA from the page cache with no staging
 * copy; the populating thread registers them and unregisters each once
 * every frame in it is back. A frame across two windows is staged as
 * before. The CLI pins only with SPEEDQA_PIN=1 for now (tools/job_open.c).
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* madvise */
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif
#include <unistd.h>

#include "map_priv.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994 /* linux/magic.h */
#endif

/* The populating thread keeps this many frames ahead of the reader mapped. */
#define AHEAD_FRAMES 3
/* Unmap given-back frames in steps of 8 frames, within these bounds: each
 * step's TLB flush interrupts every core scoring (2 cores, 1080p, --threads
 * 2: 1-2% faster than steps of 8 MiB), and resident memory grows by a step. */
#define DROP_MIN ((size_t)8 << 20)
#define DROP_MAX ((size_t)64 << 20)

static int mapping_wanted(const SqInput *in)
{
    const char *io = getenv("SPEEDQA_IO");
    if (in->no_map || (io && !strcmp(io, "read")))
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
    /* Shared, not private: the bytes read are the same, but with SPEEDQA_PIN the
     * driver pins these pages long-term, and on Linux 6.18 + NVIDIA that spun in
     * the kernel for a private mapping of a file written in large chunks (stop 30).
     * Some file systems map files privately only (FUSE with direct I/O): then the
     * library refuses the windows, and the frames are staged. */
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        free(m);
        return;
    }
#ifdef MADV_HUGEPAGE
    /* Pages this mapping reads in from storage come in 2 MiB folios that
     * the kernel maps whole (one entry instead of 512): mapping and
     * unmapping a 1080p file so read back cost 10-30x and 30-70x less
     * kernel time than in the 64-170 KiB folios of a plain read-back,
     * time that every scoring core pays when all of
     * them score. Pages already cached keep the size they have. */
    madvise(p, (size_t)st.st_size, MADV_HUGEPAGE);
#endif
    atomic_init(&m->refs, 1);
    m->base = p;
    m->len = (size_t)st.st_size;
    m->page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t step = in->frame_bytes > DROP_MAX / 8 ? DROP_MAX : 8 * in->frame_bytes;
    m->drop_step = step < DROP_MIN ? DROP_MIN : step;
#ifdef __linux__
    struct statfs sfs;
    m->small_pages = fstatfs(fd, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC;
#endif
    const char *pop = getenv("SPEEDQA_MAP_POPULATE");
    m->populate = !pop ? -1 : !strcmp(pop, "2") ? 2 : !strcmp(pop, "0") ? 0 : 1;
    for (int i = 0; i < RING; i++)
        m->ring[i].m = m;
    in->map = m;
    /* peeked bytes not yet consumed are read again from the mapping */
    in->map_pos = (size_t)pos - (in->pb_len - in->pb_pos);
    in->pb_pos = in->pb_len;
    m->mapped = in->map_pos / m->page * m->page;
    if (m->populate == 1 && sq_map_start_populating(m) != 0)
        m->populate = 0; /* the pages fault in as usual */
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
    sq_input_unpin(in);
    sq_map_stop_populating(in->map);
    free(in->map->rng);
    in->map->rng = NULL;
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
    /* a second release (a caller unsure whether a failed send took it) is a no-op */
    if (atomic_exchange_explicit(&e->lent, 0, memory_order_acq_rel))
        map_unref(m);
}

/* Frames given back since the last call: unmap their pages once enough are. */
static void drop_done(SqMap *m)
{
    while (m->low < m->next &&
           !atomic_load_explicit(&m->ring[m->low % RING].lent, memory_order_acquire))
        m->done_end = m->ring[m->low++ % RING].end;
    size_t to = m->done_end / m->page * m->page;
    if (m->pin.reg) {
        const size_t lo = atomic_load(&m->pin_lo);
        to = to < lo ? to : lo;
    }
    /* at a 2 MiB boundary: unmapping part of a large folio queues it to be
     * split (the next job would map it in small pieces again) */
    const uintptr_t huge = (uintptr_t)2 << 20, at = (uintptr_t)(m->base + to) & ~(huge - 1);
    if (at > (uintptr_t)m->base + m->dropped)
        to = (size_t)(at - (uintptr_t)m->base);
    if (to >= m->dropped + m->drop_step) {
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
    const size_t payload = (size_t)(in->frame - m->base);
    const size_t rec = m->next && payload > m->last_payload ? payload - m->last_payload : 0;
    m->last_payload = payload;
    if (m->pin.reg) {
        pthread_mutex_lock(&m->mu);
        const size_t lo = atomic_load(&m->pin_lo);
        const int work = (m->pin_want && in->map_pos + m->pin_win > m->pin_end) ||
                         (m->done_end >= lo + m->pin_win && lo < m->pin_end);
        if (m->pin_want && in->map_pos + m->pin_win > m->pin_want)
            m->pin_want = in->map_pos + m->pin_win;
        m->pin_done = m->done_end;
        if (work)
            pthread_cond_signal(&m->cv);
        pthread_mutex_unlock(&m->mu);
    } else if (m->populate == 2 && m->nrng) {
        sq_map_populate_frame(m, payload);
    } else if (m->populate == 2) {
        const size_t a = payload / m->page * m->page;
        madvise((void *)(m->base + a), in->map_pos - a, MADV_POPULATE_READ);
    } else if (m->populate == 1 && m->nrng && rec) {
        pthread_mutex_lock(&m->mu);
        if (!m->rec)
            m->rec = rec;
        if (m->pop_next < payload + m->rec)
            m->pop_next = payload + m->rec; /* fell behind (or starts): from the next frame */
        const size_t until = payload + (AHEAD_FRAMES + 1) * m->rec;
        if (until > m->pop_until) {
            m->pop_until = until;
            pthread_cond_signal(&m->cv);
        }
        pthread_mutex_unlock(&m->mu);
    } else if (m->populate == 1) {
        size_t ahead = in->map_pos + AHEAD_FRAMES * in->frame_bytes;
        ahead = ahead < m->len ? ahead / m->page * m->page : m->len;
        pthread_mutex_lock(&m->mu);
        if (m->mapped < in->map_pos / m->page * m->page)
            m->mapped = in->map_pos / m->page * m->page; /* fell behind: skip to here */
        if (ahead > m->want) {
            m->want = ahead;
            pthread_cond_signal(&m->cv);
        }
        pthread_mutex_unlock(&m->mu);
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
    if (pic->memory != SPEEDQA_MEM_HOST)
        return 0; /* a GPU frame (--hwaccel): decoded is all there is to read */
    const int semi = pic->layout == SPEEDQA_LAYOUT_SEMI_PLANAR;
    const int planes = pic->format.fmt == SPEEDQA_PIX_400 ? 1 : semi ? 2 : 3;
    const int bps = pic->format.bpc > 8 ? 2 : 1;
    for (int c = 0; c < planes; c++) {
        const int cw = (c && pic->format.fmt != SPEEDQA_PIX_444 ? (pic->format.width + 1) >> 1
                                                                : pic->format.width) *
                       (semi && c ? 2 : 1);
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
