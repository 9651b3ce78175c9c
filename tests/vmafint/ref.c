/* libvmaf's side of the vmafint tests: its extractors over a sequence, read back per frame. */
#include <stdio.h>
#include <string.h>

#include <libvmaf/feature.h>

#include "vmafint.h"

/* A luma plane into a new libvmaf picture, chroma flat mid grey (never read). */
static int to_vmaf(VmafPicture *dst, const ViSeq *s, const uint8_t *luma)
{
    if (vmaf_picture_alloc(dst, s->fmt, (unsigned)s->bpc, (unsigned)s->w, (unsigned)s->h))
        return -1;
    const size_t bps = s->bpc > 8 ? 2 : 1;
    for (unsigned y = 0; y < dst->h[0]; y++)
        memcpy((uint8_t *)dst->data[0] + (size_t)y * (size_t)dst->stride[0],
               luma + (size_t)y * (size_t)s->stride, (size_t)s->w * bps);
    for (int p = 1; p < 3 && s->fmt != VMAF_PIX_FMT_YUV400P; p++)
        for (unsigned y = 0; y < dst->h[p]; y++) {
            uint8_t *row = (uint8_t *)dst->data[p] + (size_t)y * (size_t)dst->stride[p];
            for (unsigned x = 0; x < dst->w[p]; x++) {
                if (bps == 2) {
                    uint16_t v = (uint16_t)(1u << (s->bpc - 1));
                    memcpy(row + 2 * x, &v, 2);
                } else {
                    row[x] = 128;
                }
            }
        }
    return 0;
}

VmafContext *vi_vmaf_run(const ViSeq *s, const ViUse *uses, int n_uses, uint64_t cpumask)
{
    VmafContext *ctx;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = 0,
                              .cpumask = cpumask };
    if (vmaf_init(&ctx, cfg)) {
        printf("FAIL vmaf_init\n");
        return NULL;
    }
    for (int u = 0; u < n_uses; u++) {
        VmafFeatureDictionary *d = NULL;
        for (int k = 0; k < 8 && uses[u].opt[k][0]; k++)
            vmaf_feature_dictionary_set(&d, uses[u].opt[k][0], uses[u].opt[k][1]);
        if (vmaf_use_feature(ctx, uses[u].extractor, d)) {
            printf("FAIL vmaf_use_feature %s (use %d)\n", uses[u].extractor, u);
            return NULL;
        }
    }
    for (int i = 0; i < s->n; i++) {
        VmafPicture r, d;
        if (to_vmaf(&r, s, s->ref[i]) || to_vmaf(&d, s, s->dis[i])) {
            printf("FAIL vmaf_picture_alloc\n");
            return NULL;
        }
        int e = vmaf_read_pictures(ctx, &r, &d, (unsigned)i);
        if (e) {
            printf("FAIL %s: libvmaf refused frame %d (%d)\n", s->name, i, e);
            return NULL;
        }
    }
    if (vmaf_read_pictures(ctx, NULL, NULL, 0)) {
        printf("FAIL %s: libvmaf flush\n", s->name);
        return NULL;
    }
    return ctx;
}

int vi_check(VmafContext *ctx, const ViSeq *s, const char *tag, const char *feature,
             const double *ours)
{
    int bad = 0;
    for (int i = 0; i < s->n; i++) {
        double v;
        if (vmaf_feature_score_at_index(ctx, feature, &v, (unsigned)i)) {
            printf("FAIL %s [%s] frame %d: libvmaf has no %s\n", s->name, tag, i, feature);
            return bad + 1;
        }
        if (memcmp(&v, &ours[i], sizeof v)) {
            if (bad < 5)
                printf("FAIL %s [%s] frame %d %s: libvmaf %.17g speedqa %.17g\n", s->name, tag, i,
                       feature, v, ours[i]);
            bad++;
        }
    }
    return bad;
}
