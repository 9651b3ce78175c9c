#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/file_map.h"

void *tmp_file_map(size_t n, int flags)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    if (strlen(dir ? dir : "/tmp") > sizeof path - 32)
        return MAP_FAILED;
    strcpy(path, dir ? dir : "/tmp");
    strcat(path, "/sq-file-map-XXXXXX");
    const int fd = mkstemp(path);
    if (fd < 0)
        return MAP_FAILED;
    unlink(path);
    void *m = ftruncate(fd, (off_t)n) == 0 ? mmap(NULL, n, PROT_READ, flags, fd, 0) : MAP_FAILED;
    close(fd);
    return m;
}
