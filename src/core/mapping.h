/*
 * What kind of mapping caller memory lies in, for speedqa_cuda_host_register:
 * NVIDIA's driver pinning pages of a private (copy-on-write) file mapping
 * spun in the kernel, unkillable by SIGTERM, on Linux 6.18 (stop 30, H200),
 * while shared file mappings and anonymous memory pinned fine.
 */
#ifndef SQ_CORE_MAPPING_H
#define SQ_CORE_MAPPING_H

#include <stddef.h>

/* 1 when some byte of [p, p + n) lies in a private mapping of a file,
 * 0 when none does or it cannot be told (no /proc/self/maps). */
int sq_mem_in_private_file(const void *p, size_t n);

#endif
