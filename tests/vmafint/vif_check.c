/*
 * Integer VIF (math/vmaf_vif.h) against libvmaf's "vif" extractor, with the
 * library's host side (feature/vif.c: the log2 table, the scores from the
 * raw per-scale num and den, the size rule) and its scratch (cpu/vif.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/vif.h"
#include "feature/vif.h"
#include "vmafint.h"

typedef struct VifSet {
    double egl;
    int skip0, debug;
    const char *suffix;
} VifSet;

/* v0.6.1's defaults; the v1.0.16-style limit of 1; scale 0 skipped; a non-integer
 * limit. Debug outputs only where a suffix keeps them apart from the defaults' names. */
static const VifSet sets[] = {
    { 100.0, 0, 0, "" },
    { 100.0, 1, 1, "_ssclz" },
    { 1.0, 0, 0, "_egl_1" },
    { 1.5, 0, 1, "_egl_1.5" },
};
const ViUse vi_vif_uses[] = {
    { "vif", { { NULL, NULL } } },
    { "vif", { { "vif_skip_scale0", "true" }, { "debug", "true" } } },
    { "vif", { { "vif_enhn_gain_limit", "1" } } },
    { "vif", { { "vif_enhn_gain_limit", "1.5" }, { "debug", "true" } } },
};
const int vi_vif_n_uses = (int)(sizeof vi_vif_uses / sizeof vi_vif_uses[0]);

static void out_name(const VifSet *a, int k, char *buf, size_t len)
{
    static const char *const dbg[3] = { "integer_vif", "integer_vif_num", "integer_vif_den" };
    if (k < 4 && !a->suffix[0])
        snprintf(buf, len, "VMAF_integer_feature_vif_scale%d_score", k);
    else if (k < 4)
        snprintf(buf, len, "integer_vif_scale%d%s", k, a->suffix);
    else if (k < 7)
        snprintf(buf, len, "%s%s", dbg[k - 4], a->suffix);
    else
        snprintf(buf, len, "integer_vif_%s_scale%d%s", (k - 7) & 1 ? "den" : "num", (k - 7) / 2,
                 a->suffix);
}

static int check_set(VmafContext *ctx, const ViSeq *s, const VifSet *a, const uint16_t *lt,
                     const SqViBufs *bf)
{
    const int nk = a->debug ? 15 : 4;
    double *v = malloc((size_t)s->n * 15 * sizeof *v);
    uint16_t *x = malloc((size_t)s->w * (size_t)s->h * 2), *y = malloc((size_t)s->w * (size_t)s->h * 2);
    for (int i = 0; i < s->n; i++) {
        /* the math reads u16 planes: the 8-bit samples widened */
        for (int r = 0; r < s->h; r++)
            for (int c = 0; c < s->w; c++) {
                const uint8_t *pr = s->ref[i] + (ptrdiff_t)r * s->stride;
                const uint8_t *pd = s->dis[i] + (ptrdiff_t)r * s->stride;
                x[(size_t)r * s->w + c] = s->bpc > 8 ? ((const uint16_t *)pr)[c] : pr[c];
                y[(size_t)r * s->w + c] = s->bpc > 8 ? ((const uint16_t *)pd)[c] : pd[c];
            }
        SqViRaw raw;
        double o[15];
        sq_vi_frame(x, s->w, y, s->w, s->w, s->h, s->bpc, a->egl, a->skip0, lt, bf, &raw);
        sq_vif_scores(&raw, a->skip0, a->debug, o);
        for (int k = 0; k < nk; k++)
            v[(size_t)k * s->n + i] = o[k];
    }
    int bad = 0;
    for (int k = 0; k < nk; k++) {
        char name[200];
        out_name(a, k, name, sizeof name);
        bad += vi_check(ctx, s, "vif", name, v + (size_t)k * s->n);
    }
    free(x);
    free(y);
    free(v);
    return bad;
}

void vi_seq_random16(ViSeq *s, uint64_t seed, int min_side, int max_side)
{
    ViSeq b;
    uint64_t st = seed ^ 0x16;
    vi_seq_random(&b, seed, min_side, max_side);
    memset(s, 0, sizeof *s);
    vi_seq_alloc(s, b.w, b.h, 16, b.n, b.fmt);
    snprintf(s->name, sizeof s->name, "%.140s as 16-bit", b.name);
    for (int f = 0; f < b.n; f++)
        for (int y = 0; y < b.h; y++)
            for (int x = 0; x < b.w; x++)
                for (int side = 0; side < 2; side++) {
                    const uint8_t *src = (side ? b.dis[f] : b.ref[f]) + (size_t)y * (size_t)b.stride;
                    const int v = b.bpc > 8 ? ((const uint16_t *)src)[x] : src[x];
                    /* the content at the top bits, noise below: every bit of the depth is used */
                    vi_put(s, side ? s->dis[f] : s->ref[f], x, y,
                           (v << (16 - b.bpc)) | (int)(vi_rnd(&st) & ((1u << (16 - b.bpc)) - 1)));
                }
    vi_seq_free(&b);
}

int vi_vif_check(VmafContext *ctx, const ViSeq *s)
{
    if (sq_vif_size_ok(s->w, s->h) < 0) {
        printf("FAIL %s: %dx%d is below vif's size\n", s->name, s->w, s->h);
        return 1;
    }
    SqViBufs bf;
    const SqAlloc al = { 0 };
    uint16_t *lt = calloc(SQ_VI_LT_ALLOC, sizeof *lt);
    int bad = 0;
    if (!lt || sq_cpu_vi_alloc(&bf, s->w, s->h, &al, NULL)) {
        printf("FAIL out of memory\n");
        bad = 1;
    } else {
        sq_vif_log_table(lt);
        for (int k = 0; k < vi_vif_n_uses; k++)
            bad += check_set(ctx, s, &sets[k], lt, &bf);
    }
    sq_cpu_vi_free(&bf, &al);
    free(lt);
    return bad;
}
