/* The tests' CAMBI scratch (the parameters are the library's, feature/cambi_params.c). */
#include <stdlib.h>
#include <string.h>

#include "cambi_params.h"

int vc_bufs_alloc(SqVcBufs *b, int w, int h, int nd, const float *recip)
{
    const SqVcSizes z = sq_vc_sizes(w, h, nd);
    memset(b, 0, sizeof *b);
    b->img = malloc((size_t)z.img * sizeof *b->img);
    b->zero = malloc((size_t)z.zero);
    b->mask = malloc((size_t)z.mask);
    b->colsum = malloc((size_t)z.colsum * sizeof *b->colsum);
    b->mode = malloc((size_t)z.mode * sizeof *b->mode);
    b->hist = malloc((size_t)z.hist * sizeof *b->hist);
    b->c = malloc((size_t)z.c * sizeof *b->c);
    b->cnt = malloc((size_t)z.cnt * sizeof *b->cnt);
    b->first = malloc((size_t)z.first);
    b->recip = recip;
    return b->img && b->zero && b->mask && b->colsum && b->mode && b->hist && b->c && b->cnt && b->first ? 0 : -1;
}

void vc_bufs_free(SqVcBufs *b)
{
    free(b->img);
    free(b->zero);
    free(b->mask);
    free(b->colsum);
    free(b->mode);
    free(b->hist);
    free(b->c);
    free(b->cnt);
    free(b->first);
    memset(b, 0, sizeof *b);
}
