// Compile check: the shared math core must build as CUDA device code
// (nvcc -x cu -arch=sm_90 -c). Every entry point is instantiated in a kernel.
#include "math/est.h"
#include "math/filter.h"
#include "math/opimg.h"
#include "math/prescale.h"

__global__ void sq_core_compile_check(const uint8_t *raw, float *img, double *wsd, float *wsf,
                                      float *e, float *s, const float *g, const int32_t *idx,
                                      const float *w, float *out)
{
    SqDims d;
    sq_dims_est(&d, 120, 67, SQ_BLOCK);
    out[0] = sq_vfilter_raw(raw, 1920, raw, 1920, 0, 1.0f, 1080, g, 9, 0, threadIdx.x);
    out[1] = sq_vfilter_f32(img, 120, 67, g, 9, 0, 0);
    out[2] = sq_local_mean_at(img, 120, img, g, 3, 1);
    out[3] = sq_prescale_at(img, 120, SQ_PS_LANCZOS4, idx, w, idx, w);
    out[4] = (float)sq_est_params(img, 120, &d, 0.29f, wsd, wsf, e, s);
    out[5] = sq_pool(e, s, e, s, d.n, d.nb, 0.29f, 0.0f, 3);
    out[6] = sq_chroma_uv(out[4], 0, out[5], 1);
    const SqOpFilter f = { SQ_PS_BICUBIC, 9, 3, g, g, idx, idx, w, w };
    sq_operating_image(raw, 1920, raw, 1920, 1, 0.25f, &d, &f, img, out + 7);
}
