/*
 * Command line of the speedqa tool: flags compatible with Netflix's vmaf
 * where they apply, parsed with getopt_long and checked number parsing.
 */
#ifndef SQ_CLI_PARSE_H
#define SQ_CLI_PARSE_H

#include "input.h"
#include "model.h"
#include "speedqa/speedqa.h"

/* Exit codes, listed in --help and doc/cli.md. */
enum {
    SQ_EXIT_OK = 0,
    SQ_EXIT_INTERNAL = 1, /* out of memory, unexpected library failure */
    SQ_EXIT_USAGE = 2,    /* bad flag, value, feature or option */
    SQ_EXIT_INPUT = 3,    /* unreadable, malformed or mismatched input */
    SQ_EXIT_BACKEND = 4,  /* backend not built, no device, device failure */
    SQ_EXIT_OUTPUT = 5,   /* the output file cannot be written */
};

/* Most -d one command takes (scored as ladders of SPEEDQA_MAX_DISTORTED). */
#define SQ_CLI_MAX_DIS 64

typedef struct CliSettings {
    const char *ref_path, *dis_path;  /* dis_path: dis_paths[0] */
    const char *dis_paths[SQ_CLI_MAX_DIS];
    int n_dis;
    SqRawParams raw;
    int have_raw;               /* all of -w -h -p -b given */
    const char *features[SPEEDQA_MAX_FEATURES + 1]; /* NULL-terminated */
    int n_features;             /* 0: the library's default pair */
    const char *output_path;    /* NULL: stdout */
    const char *format;         /* writer name; NULL: from -o's extension, else xml */
    int threads;
    long long frame_cnt;        /* -1: all */
    long long skip_ref, skip_dis;
    long long subsample;        /* >= 1 */
    int quiet;
    SpeedqaBackend backend;
    int device;
    const char *device_name;    /* --device NAME: substring of the device name */
    unsigned cpu_mask;          /* SPEEDQA_CPU_* levels allowed (--cpumask) */
    int precision_max;          /* --precision max: %.17g instead of %.6f */
    int read_only;              /* --read-only: read both inputs, score nothing */
    const char *batch_path;     /* --batch MANIFEST */
    int resume;                 /* --resume */
    int scale;                  /* --scale: distorted frames scaled to the reference size */
    int device_all;             /* --device all: a batch spreads its pairs over every GPU */
    int hwaccel;                /* --hwaccel cuda: compressed inputs decode on NVDEC (device) */
    int decode_threads;         /* --decode-threads: 0 libav's choice; 1 strict (every concealed frame fails) */
    int backend_set;            /* --backend was given */
    int backend_auto;           /* --backend auto, resolved by the CLI's rule (cli_auto.c) */
    const SqModel *models;      /* --model, loaded (process lifetime); n_models of them */
    int n_models;
    const char *model_specs[SQ_MODEL_MAX]; /* --model's values as given (the results' settings) */
    int no_prediction;          /* -n: with --model, its features only */
    const char *vmaf_features[SPEEDQA_MAX_FEATURES + 1]; /* --feature for libvmaf's extractors */
    int n_vmaf_features;
    int vmaf_features_at[SPEEDQA_MAX_FEATURES]; /* of each: how many of features[] came before it */
    /* Set by the I/O library (tools/io), never by a flag: */
    int io_read;                /* read() the inputs, never map them: a shrinking file is a read
                                 * error (exit 3), not a SIGBUS that ends the host process */
    const int *batch_only;      /* score only these pairs (0-based manifest order), no results file */
    int batch_nonly;
    void *batch_lines;          /* FILE *: the result lines written go here too (batch_only: only here) */
    /* the pairs left to score run elsewhere (tools/io/io_batch.c): exec delivers their lines
     * through sq_batch_deliver(sink, ...) and returns 0, or < 0 when it gave up */
    int (*batch_exec)(void *opaque, void *sink, const int *pairs, int n);
    void *batch_exec_opaque;
} CliSettings;

/*
 * Fills *cfg from argv. Returns -1 to run, or an exit code: SQ_EXIT_OK
 * after --help or --version (already printed), SQ_EXIT_USAGE after printing
 * one error line to stderr.
 */
int cli_parse(CliSettings *cfg, int argc, char *const *argv);

/*
 * After --help, --version or --list-devices: SQ_EXIT_OK once stdout is
 * flushed, else SQ_EXIT_OUTPUT (one error line, none for a closed pipe).
 */
int cli_finish_stdout(void);

/*
 * This thread's error lines (cli_error) are kept in buf (the first one
 * since buf was emptied), and printed too when echo, until
 * cli_capture(NULL, 0, 0); warnings always print.
 */
void cli_capture(char *buf, size_t len, int echo);

/* Why cfg's flags cannot score a VMAF model (--hwaccel, --read-only), or
 * NULL: the rule for --model and for a batch manifest's model column. */
const char *cli_model_refused(const CliSettings *cfg);

/* Prints "speedqa: error: " + message + newline to stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* 1 when features a and b are the same (the library's -EEXIST: one name
 * with the same options, the same outputs): a repeat is scored once, as
 * vmaf does (cli_values.c). */
int cli_same_feature(const char *a, const char *b);

/* Same with "warning:"; callers decide about --quiet. */
void cli_warning(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
