/* What the files of libspeedqa_io share: the parsed flags behind a handle. */
#ifndef SQ_IO_PRIV_H
#define SQ_IO_PRIV_H

#include "cli_parse.h"
#include "speedqa/speedqa_io.h"

struct SpeedqaIo {
    CliSettings cfg; /* points into argv, and into models */
    SqModel *models; /* --model's, this handle's own copy */
    char **argv;
    int argc;
};

/* s into buf (len bytes, NUL-terminated, cut to fit). */
void sq_io_copy(char *buf, size_t len, const char *s);

#endif
