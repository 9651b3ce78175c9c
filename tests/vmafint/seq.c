/* Sequences for the vmafint tests: golden Y4M clips and random content. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input.h"
#include "vmafint.h"

void vi_seq_free(ViSeq *s)
{
    for (int i = 0; i < s->n && s->ref; i++) {
        free(s->ref[i]);
        free(s->dis[i]);
    }
    free(s->ref);
    free(s->dis);
    s->ref = s->dis = NULL;
    s->n = 0;
}

int vi_seq_alloc(ViSeq *s, int w, int h, int bpc, int n, enum VmafPixelFormat fmt)
{
    s->w = w;
    s->h = h;
    s->bpc = bpc;
    s->n = n;
    s->fmt = fmt;
    s->stride = (ptrdiff_t)w * (bpc > 8 ? 2 : 1);
    s->ref = calloc((size_t)n, sizeof *s->ref);
    s->dis = calloc((size_t)n, sizeof *s->dis);
    if (!s->ref || !s->dis)
        return -1;
    for (int i = 0; i < n; i++) {
        s->ref[i] = malloc((size_t)s->stride * (size_t)h);
        s->dis[i] = malloc((size_t)s->stride * (size_t)h);
        if (!s->ref[i] || !s->dis[i])
            return -1;
    }
    return 0;
}

/* clips/NAME.xz unpacked into work once; plain files are used where they lie. */
static int unpack(const char *golden, const char *work, const char *rel, char *out, size_t len)
{
    char src[1024], cmd[3300];
    snprintf(src, sizeof src, "%s/%s", golden, rel);
    size_t n = strlen(rel);
    if (n < 3 || strcmp(rel + n - 3, ".xz")) {
        snprintf(out, len, "%s", src);
        return 0;
    }
    const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    snprintf(out, len, "%s/%.*s", work, (int)(strlen(base) - 3), base);
    struct stat st;
    if (!stat(out, &st) && st.st_size > 0)
        return 0;
    /* tests side by side may unpack the same clip: each into its own temporary ($$) */
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && xz -dc '%s' > '%s.$$.tmp' && mv '%s.$$.tmp' '%s'", work,
             src, out, out, out);
    if (system(cmd)) {
        printf("FAIL cannot decompress %s\n", src);
        return -1;
    }
    return 0;
}

static enum VmafPixelFormat vmaf_fmt(SpeedqaPixelFormat f)
{
    return f == SPEEDQA_PIX_420 ? VMAF_PIX_FMT_YUV420P : f == SPEEDQA_PIX_422 ? VMAF_PIX_FMT_YUV422P
         : f == SPEEDQA_PIX_444 ? VMAF_PIX_FMT_YUV444P : VMAF_PIX_FMT_YUV400P;
}

static int read_all(const char *path, uint8_t ***planes, int *n, SpeedqaFormat *fmt, int max)
{
    char err[1200];
    SqInput *in = NULL;
    if (sq_input_open(&in, path, NULL, NULL, err, sizeof err) < 0) {
        printf("FAIL %s\n", err);
        return -1;
    }
    int cap = 0;
    *n = 0;
    *planes = NULL;
    SpeedqaPicture p;
    while ((max <= 0 || *n < max) && sq_input_read(in, &p, err, sizeof err) == 1) {
        *fmt = p.format;
        const size_t row = (size_t)p.format.width * (p.format.bpc > 8 ? 2 : 1);
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *planes = realloc(*planes, (size_t)cap * sizeof **planes);
        }
        uint8_t *y = malloc(row * (size_t)p.format.height);
        for (int r = 0; r < p.format.height; r++)
            memcpy(y + row * (size_t)r, (const uint8_t *)p.data[0] + p.stride[0] * r, row);
        (*planes)[(*n)++] = y;
    }
    sq_input_close(&in);
    return *n > 0 ? 0 : -1;
}

int vi_seq_read(ViSeq *s, const char *golden, const char *work, const char *ref_rel,
                const char *dis_rel, int max_frames)
{
    char rp[1300], dp[1300];
    memset(s, 0, sizeof *s);
    if (unpack(golden, work, ref_rel, rp, sizeof rp) || unpack(golden, work, dis_rel, dp, sizeof dp))
        return -1;
    SpeedqaFormat fr, fd;
    int nr, nd;
    if (read_all(rp, &s->ref, &nr, &fr, max_frames) || read_all(dp, &s->dis, &nd, &fd, max_frames))
        return -1;
    s->n = nr < nd ? nr : nd;
    s->w = fr.width;
    s->h = fr.height;
    s->bpc = fr.bpc;
    s->fmt = vmaf_fmt(fr.fmt);
    s->stride = (ptrdiff_t)s->w * (s->bpc > 8 ? 2 : 1);
    const char *b = strrchr(dis_rel, '/');
    snprintf(s->name, sizeof s->name, "%s", b ? b + 1 : dis_rel);
    return 0;
}

/* splitmix64 */
uint64_t vi_rnd(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int vi_urand(uint64_t *st, int lo, int hi)
{
    return lo + (int)(vi_rnd(st) % (uint64_t)(hi - lo + 1));
}

void vi_put(const ViSeq *s, uint8_t *p, int x, int y, int v)
{
    const int max = (1 << s->bpc) - 1;
    v = v < 0 ? 0 : v > max ? max : v;
    if (s->bpc > 8) {
        uint16_t u = (uint16_t)v;
        memcpy(p + (size_t)y * (size_t)s->stride + 2 * (size_t)x, &u, 2);
    } else {
        p[(size_t)y * (size_t)s->stride + (size_t)x] = (uint8_t)v;
    }
}

static int get(const ViSeq *s, const uint8_t *p, int x, int y)
{
    if (s->bpc > 8) {
        uint16_t u;
        memcpy(&u, p + (size_t)y * (size_t)s->stride + 2 * (size_t)x, 2);
        return u;
    }
    return p[(size_t)y * (size_t)s->stride + (size_t)x];
}

/*
 * Content kinds: 0 white noise over the full range, 1 moving gradient with
 * rectangles and mild noise, 2 extreme checkerboard (0 / max) with moving
 * phase, 3 flat with one moving edge (all-zero rows, zero bands). The
 * distorted side: 0 identical, 1 plus noise, 2 contrast scaled around mid
 * grey (gains above 1 reach the enhancement clamp), 3 box blur, 4 coarse
 * quantisation, 5 independent noise.
 */
static int ref_value(int kind, int x, int y, int f, int max, const int *par, uint64_t *st)
{
    switch (kind) {
    case 0:
        return (int)(vi_rnd(st) % (uint64_t)(max + 1));
    case 1: {
        int v = (x * par[0] + y * par[1] + f * par[2]) % (max + 1);
        if (x > par[3] + f * 3 && x < par[3] + par[4] + f * 3 && y > par[5] && y < par[5] + par[4])
            v = max - v / 2;
        return v + (int)(vi_rnd(st) % 9) - 4;
    }
    case 2:
        return (((x + f) / par[6] + y / par[6]) & 1) ? max : 0;
    default:
        return x < par[3] + 5 * f ? par[7] : max - par[7];
    }
}

static int dis_value(const ViSeq *s, int kind, const uint8_t *ref, int x, int y, int max,
                     uint64_t *st, int gain16)
{
    const int v = get(s, ref, x, y);
    switch (kind) {
    case 0:
        return v;
    case 1:
        return v + (int)(vi_rnd(st) % 33) - 16;
    case 2:
        return (max + 1) / 2 + (v - (max + 1) / 2) * gain16 / 16;
    case 3: {
        int sum = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int xx = x + dx < 0 ? 0 : x + dx >= s->w ? s->w - 1 : x + dx;
                int yy = y + dy < 0 ? 0 : y + dy >= s->h ? s->h - 1 : y + dy;
                sum += get(s, ref, xx, yy);
            }
        return sum / 9;
    }
    case 4:
        return v / gain16 * gain16;
    default:
        return (int)(vi_rnd(st) % (uint64_t)(max + 1));
    }
}

void vi_seq_random(ViSeq *s, uint64_t seed, int min_side, int max_side)
{
    uint64_t st = seed;
    static const enum VmafPixelFormat fmts[3] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                  VMAF_PIX_FMT_YUV444P };
    static const int depths[3] = { 8, 10, 12 };
    const int w = vi_urand(&st, min_side, max_side), h = vi_urand(&st, min_side, max_side);
    const int bpc = depths[vi_urand(&st, 0, 2)], n = vi_urand(&st, 1, 6); /* 1, 2: motion's stamp and window edges */
    memset(s, 0, sizeof *s);
    vi_seq_alloc(s, w, h, bpc, n, fmts[vi_urand(&st, 0, 2)]);
    const int max = (1 << bpc) - 1, rk = vi_urand(&st, 0, 3);
    int par[8];
    par[0] = vi_urand(&st, 0, max / 16 + 1);
    par[1] = vi_urand(&st, 0, max / 16 + 1);
    par[2] = vi_urand(&st, 0, max / 8 + 1);
    par[3] = vi_urand(&st, 0, w - 1);
    par[4] = vi_urand(&st, 2, w / 2 + 2);
    par[5] = vi_urand(&st, 0, h - 1);
    par[6] = vi_urand(&st, 1, 9);
    par[7] = vi_urand(&st, 0, max);
    snprintf(s->name, sizeof s->name, "random seed=%llu %dx%d bpc%d n%d ref%d",
             (unsigned long long)seed, w, h, bpc, n, rk);
    for (int f = 0; f < n; f++) {
        const int dk = vi_urand(&st, 0, 5), gain = vi_urand(&st, 1, 40);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                vi_put(s, s->ref[f], x, y, ref_value(rk, x, y, f, max, par, &st));
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                vi_put(s, s->dis[f], x, y, dis_value(s, dk, s->ref[f], x, y, max, &st, gain));
    }
}
