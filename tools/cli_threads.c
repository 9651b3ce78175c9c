/* The library thread count of a run (batch.h); in its own file so that the
 * CLI and libspeedqa_io share it without main. */
#include <unistd.h>

#include "batch.h"

int sq_cli_threads(const CliSettings *cfg)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    ncpu = ncpu > SPEEDQA_MAX_THREADS ? SPEEDQA_MAX_THREADS : ncpu;
    return ncpu > 0 && (cfg->threads == 0 || cfg->threads > ncpu) ? (int)ncpu : cfg->threads;
}
