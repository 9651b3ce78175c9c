#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "common/frame_map.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HEAD 100 /* the stream header before frame 0 */
#define GAP 6    /* "FRAME\n" */

size_t fm_offset(const FrameMap *m, int f)
{
    return HEAD + (size_t)f * (m->fb + GAP);
}

static void fm_release(void *opaque, const void *data0)
{
    FrameMap *m = opaque;
    const long f = ((const unsigned char *)data0 - m->map - HEAD) / (long)(m->fb + GAP);
    pthread_mutex_lock(&m->mu);
    if (f >= 0 && f < m->nf) {
        m->back[f]++;
        m->in_send[f] += m->sending == f;
        memset(m->map + fm_offset(m, (int)f), 0x5A, m->fb);
    }
    pthread_mutex_unlock(&m->mu);
}

int fm_init(FrameMap *m, int w, int h, int nf, int side)
{
    memset(m, 0, sizeof *m);
    m->w = w;
    m->h = h;
    m->nf = nf < FM_MAX ? nf : FM_MAX;
    m->fb = (size_t)w * (size_t)h * 3 / 2;
    m->sending = -1;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    m->len = (fm_offset(m, m->nf) + page - 1) / page * page;
    m->map = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m->map == MAP_FAILED) {
        m->map = NULL;
        return -1;
    }
    if (!(m->keep = malloc(m->len)) || pthread_mutex_init(&m->mu, NULL) != 0) {
        munmap(m->map, m->len);
        free(m->keep);
        m->map = m->keep = NULL;
        return -1;
    }
    for (int f = 0; f < m->nf; f++)
        for (size_t i = 0; i < m->fb; i++) {
            const int x = (int)(i % (size_t)w), y = (int)(i / (size_t)w);
            unsigned v = (unsigned)((x * x + 3 * y * y + 7 * f * (x + 1)) >> 5) % 200;
            v += (unsigned)((x * 31 + y * 17 + f * 13 + side * 5) % 23) * (unsigned)(side + 1);
            m->map[fm_offset(m, f) + i] = (unsigned char)v;
        }
    memcpy(m->keep, m->map, m->len);
    return 0;
}

void fm_reset(FrameMap *m)
{
    memcpy(m->map, m->keep, m->len);
    memset(m->back, 0, sizeof m->back);
    memset(m->in_send, 0, sizeof m->in_send);
}

void fm_free(FrameMap *m)
{
    if (!m->map)
        return;
    munmap(m->map, m->len);
    free(m->keep);
    pthread_mutex_destroy(&m->mu);
    m->map = m->keep = NULL;
}

void fm_picture(FrameMap *m, int f, int lend, SpeedqaPicture *pic)
{
    const unsigned char *b = (lend ? m->map : m->keep) + fm_offset(m, f);
    const size_t y = (size_t)m->w * (size_t)m->h;
    memset(pic, 0, sizeof *pic);
    pic->format = (SpeedqaFormat){ m->w, m->h, SPEEDQA_PIX_420, 8 };
    pic->data[0] = b;
    pic->data[1] = b + y;
    pic->data[2] = b + y + y / 4;
    pic->stride[0] = m->w;
    pic->stride[1] = pic->stride[2] = m->w / 2;
    if (lend) {
        pic->release = fm_release;
        pic->release_opaque = m;
    }
}

void fm_sending(FrameMap *m, int f)
{
    pthread_mutex_lock(&m->mu);
    m->sending = f;
    pthread_mutex_unlock(&m->mu);
}
