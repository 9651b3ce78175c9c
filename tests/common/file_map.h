/*
 * A read-only mapping of a fresh file of n bytes (unlinked once mapped), for
 * the tests of which memory speedqa_cuda_host_register takes: flags MAP_PRIVATE
 * or MAP_SHARED. MAP_FAILED when the file cannot be made.
 */
#ifndef SQ_TEST_FILE_MAP_H
#define SQ_TEST_FILE_MAP_H

#include <stddef.h>

void *tmp_file_map(size_t n, int flags);

#endif
