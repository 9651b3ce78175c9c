/*
 * What the files of the CLI's parser (cli_parse.c, cli_help.c,
 * cli_values.c, cli_auto.c) offer each other: the parser is split by what
 * each part holds, and these are its seams. Not used outside them.
 */
#ifndef SQ_CLI_PRIV_H
#define SQ_CLI_PRIV_H

#include <stdio.h>

#include "cli_parse.h"

/* cli_help.c */
void cli_usage(FILE *f);
void cli_list_devices(void);
void cli_version(void);

/* cli_values.c: 0, or -1 with the line printed */
int cli_parse_ll(const char *flag, const char *s, long long lo, long long hi, long long *out);
int cli_parse_int(const char *flag, const char *s, int lo, int hi, int *out);
int cli_parse_pixfmt(const char *s, SqRawParams *raw, int *bpc);
int cli_parse_backend(const char *s, SpeedqaBackend *out);
int cli_add_model(CliSettings *cfg, const char *spec);
int cli_split_features(CliSettings *cfg);

/* cli_auto.c */
void cli_resolve_auto(CliSettings *cfg);
int cli_check_hwaccel(CliSettings *cfg);

#endif
