/*
 * The CLI's choice of backend: --backend auto resolved by where the frames
 * arrive, and what --hwaccel cuda requires of the other flags. Apart from
 * the parser because the rule is measured and retuned on its own.
 */
#include <sched.h>
#include <unistd.h>

#include "cli_priv.h"

/*
 * --backend auto picks the fastest backend for where the frames arrive.
 * Frames decoded on the GPU (--hwaccel cuda) stay there: CUDA. Frames in
 * host memory (files, pipes, software decoding) go to the CPU backend on a
 * machine of AUTO_CPU_CORES cores or more: a GPU fed from host memory is
 * bound by staging and upload, and 16 cores scored page-cached 1080p Y4M
 * about 8x faster than CUDA did in the same run. On fewer cores the
 * library's own rule stands (the first GPU backend that opens, else the CPU).
 */
#define AUTO_CPU_CORES 4
void cli_resolve_auto(CliSettings *cfg)
{
    if (cfg->backend != SPEEDQA_BACKEND_AUTO)
        return;
    cfg->backend_auto = 1;
    /* the cores this process may run on (taskset, a container's cpuset) */
    cpu_set_t set;
    const long ncpu = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                                 : sysconf(_SC_NPROCESSORS_ONLN);
    if (cfg->hwaccel)
        cfg->backend = SPEEDQA_BACKEND_CUDA;
    else if (ncpu >= AUTO_CPU_CORES)
        cfg->backend = SPEEDQA_BACKEND_CPU;
}

/* --hwaccel cuda: decoded frames stay in the GPU's memory, which only the
 * CUDA backend reads, in the primary context of the device decoding them. */
int cli_check_hwaccel(CliSettings *cfg)
{
#ifndef SQ_HAVE_LAV
    cli_error("--hwaccel cuda: compressed input is not built in (rebuild with "
              "libavformat-dev, libavcodec-dev and libavutil-dev installed)");
    return -1;
#endif
    if (cfg->backend_set && cfg->backend != SPEEDQA_BACKEND_CUDA &&
        cfg->backend != SPEEDQA_BACKEND_AUTO) {
        cli_error("--hwaccel cuda: decoded frames stay on the GPU, which only --backend cuda "
                  "reads");
        return -1;
    }
    if (cfg->device_name) {
        cli_error("--hwaccel cuda: name the GPU by its index (--device N), not '%s'",
                  cfg->device_name);
        return -1;
    }
    if (cfg->scale) {
        cli_error("--hwaccel cuda: --scale reads host frames; drop one of them");
        return -1;
    }
    cfg->backend = SPEEDQA_BACKEND_CUDA;
    /* decoder and scorer on one device: the library's "first usable" would be its own pick */
    if (cfg->device < 0 && !cfg->device_all)
        cfg->device = 0;
    return 0;
}

