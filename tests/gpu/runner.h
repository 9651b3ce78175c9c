/*
 * Drive one backend (the CPU, the CUDA backend, or the generic GPU pipeline
 * on any SqGpuFns) through the SqBackend interface the library uses, with
 * features parsed and planned exactly as speedqa_open does, and assemble
 * the final scores (uv rule, clipping) with the library's own function.
 */
#ifndef SQ_TESTS_GPU_RUNNER_H
#define SQ_TESTS_GPU_RUNNER_H

#include <stddef.h>

#include "core/backend.h"
#include "feature/feature.h"
#include "gpu/gpu.h"

typedef struct Runner {
    const SqBackend *be;     /* or NULL with fns */
    const SqGpuFns *fns;     /* pipeline over these (be == NULL) */
    void *priv;
    int nfeat, nscores;
    SqFeature feat[SPEEDQA_MAX_FEATURES];
    SqBackendParams bp;
    unsigned long long sent, received;
} Runner;

/* The SqGpuFns of a runtime: null (the emulator), cuda, hip, opencl; NULL if not built. */
const SqGpuFns *runner_gpu_fns(const char *name);
/* Its public API backend (SPEEDQA_BACKEND_*), or -1 for the emulator. */
int runner_api_backend(const char *name);

/* Device of the GPU pipeline runs (runner_open with fns): by name substring, or NULL: the first. */
extern const char *runner_device_name;

/* 0, or the backend's/planner's negative errno with the message in err. */
int runner_open(Runner *r, const SqBackend *be, const SqGpuFns *fns, const SpeedqaFormat *fmt,
                const char *const *features, int n_threads, const SqAlloc *alloc, char *err,
                size_t errlen);
void runner_close(Runner *r);

/*
 * Score nframes pairs (frame i: ref[i], dis[i]; new_seq[i] != 0 starts a
 * sequence, frame 0 always does). out: nframes x nscores doubles. Respects
 * the backend's capacity and receives without blocking while it can.
 * Fails as speedqa_receive does: -ERANGE (message in err) for samples above
 * the depth, -EDOM for a score that would be published non-finite.
 */
int runner_run(Runner *r, const SpeedqaPicture *ref, const SpeedqaPicture *dis, int nframes,
               const int *new_seq, double *out, char *err, size_t errlen);

#endif
