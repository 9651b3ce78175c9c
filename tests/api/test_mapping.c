/*
 * sq_mem_in_private_file, which keeps speedqa_cuda_host_register from pinning a
 * private file mapping (that spun in the kernel on the H200): private file
 * mappings, read-only or writable, whole or in part, are found; shared file
 * mappings, anonymous memory, the heap and the stack are not, nor memory
 * next to a private file mapping.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/check.h"
#include "common/file_map.h"
#include "core/mapping.h"

static int fails;

int main(void)
{
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *priv = tmp_file_map(4 * pg, MAP_PRIVATE);
    unsigned char *shared = tmp_file_map(4 * pg, MAP_SHARED);
    unsigned char *anon = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (priv == MAP_FAILED || shared == MAP_FAILED || anon == MAP_FAILED) {
        printf("FAIL: no temporary file or mapping\n");
        return 1;
    }
    CHECK(sq_mem_in_private_file(priv, 4 * pg) == 1, "private file mapping");
    CHECK(sq_mem_in_private_file(priv + pg + 7, 1) == 1, "one byte of it");
    CHECK(sq_mem_in_private_file(shared, 4 * pg) == 0, "shared file mapping");
    CHECK(sq_mem_in_private_file(anon, 4 * pg) == 0, "anonymous mapping");
    /* the upper half of anon becomes a private file mapping (moved over it) */
    unsigned char *f2 = tmp_file_map(2 * pg, MAP_PRIVATE);
    CHECK(f2 != MAP_FAILED, "second file");
    if (f2 != MAP_FAILED) {
        void *moved = mremap(f2, 2 * pg, 2 * pg, MREMAP_MAYMOVE | MREMAP_FIXED, anon + 2 * pg);
        CHECK(moved == anon + 2 * pg, "mremap: %s", moved == MAP_FAILED ? strerror(errno) : "elsewhere");
        CHECK(sq_mem_in_private_file(anon, 2 * pg) == 0, "memory next to a private file mapping");
        CHECK(sq_mem_in_private_file(anon + pg, 2 * pg) == 1, "a range reaching into it");
    }
    unsigned char *heap = malloc(1 << 20);
    unsigned char stack[256];
    CHECK(heap && sq_mem_in_private_file(heap, 1 << 20) == 0, "heap");
    CHECK(sq_mem_in_private_file(stack, sizeof stack) == 0, "stack");
    /* the program's read-only data is a private mapping of its file */
    static const char rodata[] = "read-only data";
    CHECK(sq_mem_in_private_file(rodata, sizeof rodata) == 1, "the executable's mapping");
    free(heap);
    munmap(priv, 4 * pg);
    munmap(shared, 4 * pg);
    munmap(anon, 4 * pg);
    printf("%s\n", fails ? "FAIL" : "all passed");
    return fails != 0;
}
