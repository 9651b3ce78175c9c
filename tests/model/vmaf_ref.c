/*
 * libvmaf's own run of a model, for the model tests: every feature by
 * libvmaf (vmaf_use_features_from_model), as the vmaf tool does it, but
 * with the scores printed at %.17g through the API. Independent of
 * speedqa's model code: only the Y4M reader is shared.
 *
 *   vmaf_ref REF.y4m DIS.y4m MODEL.json LIBVMAF_OUT.json MAX_FRAMES [THREADS]
 *
 * stdout: {"frames": [vmaf of each frame], "pooled": {"min": .., "max": ..,
 * "mean": .., "harmonic_mean": ..}}; LIBVMAF_OUT.json: libvmaf's own JSON
 * report (its feature names, 6 decimals). Exit 3 with "refused: ..." on
 * stderr when libvmaf refuses the input or the model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvmaf/libvmaf.h>

#include "input.h"

static int refused(const char *what, int e)
{
    fprintf(stderr, "refused: %s (%d)\n", what, e);
    return 3;
}

static enum VmafPixelFormat pix(SpeedqaPixelFormat f)
{
    return f == SPEEDQA_PIX_420 ? VMAF_PIX_FMT_YUV420P : f == SPEEDQA_PIX_422 ? VMAF_PIX_FMT_YUV422P
         : f == SPEEDQA_PIX_444 ? VMAF_PIX_FMT_YUV444P : VMAF_PIX_FMT_YUV400P;
}

static int copy_in(VmafPicture *dst, const SpeedqaPicture *src)
{
    const SpeedqaFormat *f = &src->format;
    if (vmaf_picture_alloc(dst, pix(f->fmt), (unsigned)f->bpc, (unsigned)f->width,
                           (unsigned)f->height))
        return -1;
    const size_t bps = f->bpc > 8 ? 2 : 1;
    for (int p = 0; p < (f->fmt == SPEEDQA_PIX_400 ? 1 : 3); p++)
        for (unsigned y = 0; y < dst->h[p]; y++)
            memcpy((char *)dst->data[p] + (size_t)y * (size_t)dst->stride[p],
                   (const char *)src->data[p] + (size_t)y * (size_t)src->stride[p],
                   dst->w[p] * bps);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: vmaf_ref REF DIS MODEL.json OUT.json MAX_FRAMES [THREADS]\n");
        return 2;
    }
    char err[1200];
    SqInput *in[2] = { NULL, NULL };
    for (int i = 0; i < 2; i++)
        if (sq_input_open(&in[i], argv[1 + i], NULL, NULL, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
    const long max = atol(argv[5]);
    VmafContext *vmaf;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE,
                              .n_threads = argc > 6 ? (unsigned)atoi(argv[6]) : 0 };
    VmafModel *model;
    VmafModelConfig mc = { .name = "vmaf" };
    if (vmaf_init(&vmaf, cfg))
        return 1;
    if (vmaf_model_load_from_path(&model, &mc, argv[3]))
        return refused("model load", 0);
    int e = vmaf_use_features_from_model(vmaf, model);
    if (e)
        return refused("features of the model", e);
    unsigned n = 0;
    for (; (long)n < max; n++) {
        SpeedqaPicture p[2];
        int r0 = sq_input_read(in[0], &p[0], err, sizeof err);
        int r1 = r0 == 1 ? sq_input_read(in[1], &p[1], err, sizeof err) : 0;
        if (r0 != 1 || r1 != 1)
            break;
        VmafPicture v[2];
        if (copy_in(&v[0], &p[0]) || copy_in(&v[1], &p[1]))
            return refused("picture alloc", 0);
        if ((e = vmaf_read_pictures(vmaf, &v[0], &v[1], n)))
            return refused("read pictures", e);
    }
    if ((e = vmaf_read_pictures(vmaf, NULL, NULL, 0)))
        return refused("flush", e);
    printf("{\"frames\": [");
    for (unsigned i = 0; i < n; i++) {
        double s;
        if ((e = vmaf_score_at_index(vmaf, model, &s, i)))
            return refused("score", e);
        printf("%s%.17g", i ? ", " : "", s);
    }
    static const char *const pn[4] = { "min", "max", "mean", "harmonic_mean" };
    static const enum VmafPoolingMethod pm[4] = { VMAF_POOL_METHOD_MIN, VMAF_POOL_METHOD_MAX,
        VMAF_POOL_METHOD_MEAN, VMAF_POOL_METHOD_HARMONIC_MEAN };
    printf("], \"pooled\": {");
    for (int k = 0; k < 4; k++) {
        double s;
        if ((e = vmaf_score_pooled(vmaf, model, pm[k], &s, 0, n - 1)))
            return refused("pool", e);
        printf("%s\"%s\": %.17g", k ? ", " : "", pn[k], s);
    }
    printf("}}\n");
    if (vmaf_write_output(vmaf, argv[4], VMAF_OUTPUT_FORMAT_JSON))
        return 1;
    vmaf_model_destroy(model);
    vmaf_close(vmaf);
    sq_input_close(&in[0]);
    sq_input_close(&in[1]);
    return 0;
}
