/* The library thread count of a run (batch.h); in its own file so that the
 * CLI and libspeedqa_io share it without main. */
#include "batch.h"

/* The library's automatic count is also the most that --threads asks for:
 * past the cores, threads only wait for one another. */
int sq_cli_threads(const CliSettings *cfg)
{
    const int n = speedqa_auto_threads();
    return cfg->threads == 0 || cfg->threads > n ? n : cfg->threads;
}
