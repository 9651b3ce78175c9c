/*
 * The command line of the speedqa tool: the option table and which flag
 * sets what. The flags' values are checked in cli_values.c, the backend
 * rule is cli_auto.c's, the texts cli_help.c's and the message lines
 * cli_msg.c's; this file says only which flag goes where.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_priv.h"

enum {
    ARG_REFERENCE = 'r',
    ARG_DISTORTED = 'd',
    ARG_WIDTH = 'w',
    ARG_HEIGHT = 'h',
    ARG_PIXEL_FORMAT = 'p',
    ARG_BITDEPTH = 'b',
    ARG_MODEL = 'm',
    ARG_OUTPUT = 'o',
    ARG_NO_PREDICTION = 'n',
    ARG_QUIET = 'q',
    ARG_VERSION = 'v',
    ARG_XML = 256,
    ARG_JSON,
    ARG_CSV,
    ARG_SUB,
    ARG_CPUMASK,
    ARG_FEATURE,
    ARG_THREADS,
    ARG_FRAME_CNT,
    ARG_FRAME_SKIP_REF,
    ARG_FRAME_SKIP_DIST,
    ARG_SUBSAMPLE,
    ARG_BACKEND,
    ARG_DEVICE,
    ARG_LIST_DEVICES,
    ARG_PRECISION,
    ARG_READ_ONLY,
    ARG_BATCH,
    ARG_RESUME,
    ARG_SCALE,
    ARG_HWACCEL,
    ARG_DECODE_THREADS,
    ARG_HELP,
};

static const struct option long_opts[] = {
    { "reference", required_argument, NULL, ARG_REFERENCE },
    { "distorted", required_argument, NULL, ARG_DISTORTED },
    { "width", required_argument, NULL, ARG_WIDTH },
    { "height", required_argument, NULL, ARG_HEIGHT },
    { "pixel_format", required_argument, NULL, ARG_PIXEL_FORMAT },
    { "bitdepth", required_argument, NULL, ARG_BITDEPTH },
    { "model", required_argument, NULL, ARG_MODEL },
    { "output", required_argument, NULL, ARG_OUTPUT },
    { "no_prediction", no_argument, NULL, ARG_NO_PREDICTION },
    { "quiet", no_argument, NULL, ARG_QUIET },
    { "version", no_argument, NULL, ARG_VERSION },
    { "xml", no_argument, NULL, ARG_XML },
    { "json", no_argument, NULL, ARG_JSON },
    { "csv", no_argument, NULL, ARG_CSV },
    { "sub", no_argument, NULL, ARG_SUB },
    { "cpumask", required_argument, NULL, ARG_CPUMASK },
    { "feature", required_argument, NULL, ARG_FEATURE },
    { "threads", required_argument, NULL, ARG_THREADS },
    { "frame_cnt", required_argument, NULL, ARG_FRAME_CNT },
    { "frame_skip_ref", required_argument, NULL, ARG_FRAME_SKIP_REF },
    { "frame_skip_dist", required_argument, NULL, ARG_FRAME_SKIP_DIST },
    { "subsample", required_argument, NULL, ARG_SUBSAMPLE },
    { "backend", required_argument, NULL, ARG_BACKEND },
    { "device", required_argument, NULL, ARG_DEVICE },
    { "list-devices", no_argument, NULL, ARG_LIST_DEVICES },
    { "precision", required_argument, NULL, ARG_PRECISION },
    { "read-only", no_argument, NULL, ARG_READ_ONLY },
    { "batch", required_argument, NULL, ARG_BATCH },
    { "resume", no_argument, NULL, ARG_RESUME },
    { "scale", no_argument, NULL, ARG_SCALE },
    { "hwaccel", required_argument, NULL, ARG_HWACCEL },
    { "decode-threads", required_argument, NULL, ARG_DECODE_THREADS },
    { "help", no_argument, NULL, ARG_HELP },
    { NULL, 0, NULL, 0 },
};

static const char short_opts[] = ":r:d:w:h:p:b:m:o:nqv";

/* The option as the user typed it, for messages. */
static const char *opt_text(char *const *argv, char *buf, size_t len)
{
    const char *a = optind > 0 ? argv[optind - 1] : "";
    if (strncmp(a, "--", 2) != 0 && optopt > 0 && optopt < 256) {
        snprintf(buf, len, "-%c", optopt);
        return buf;
    }
    const char *eq = strchr(a, '=');
    snprintf(buf, len, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
    return buf;
}

/* An option getopt_long did not take: a prefix of several long names is
 * ambiguous (their list), anything else unknown. */
static void unknown_option(const char *text)
{
    char cand[400] = "";
    size_t o = 0;
    int n = 0;
    if (!strncmp(text, "--", 2) && text[2])
        for (size_t i = 0; long_opts[i].name; i++)
            if (!strncmp(long_opts[i].name, text + 2, strlen(text + 2))) {
                o += (size_t)snprintf(cand + o, o < sizeof cand ? sizeof cand - o : 0, "%s--%s",
                                      n ? ", " : "", long_opts[i].name);
                n++;
            }
    if (n > 1)
        cli_error("ambiguous option '%s': could be %s", text, cand);
    else
        cli_error("unknown option '%s' (see --help)", text);
}

/* Which of -w -h -p -b were given (raw input needs all four), and the
 * depth a semi-planar -p implies. */
typedef struct RawSeen {
    int w, h, p, b, implied_bpc;
} RawSeen;

/* A flag whose value is a number or a name (c: getopt's code): 1 when c is
 * one of them (*bad set when its value is refused, the line printed), else 0. */
static int take_value(CliSettings *cfg, int c, RawSeen *seen, int *bad)
{
    switch (c) {
    case ARG_WIDTH:
        *bad = cli_parse_int("--width", optarg, 1, SQ_INPUT_MAX_DIM, &cfg->raw.width);
        seen->w = 1;
        break;
    case ARG_HEIGHT:
        *bad = cli_parse_int("--height", optarg, 1, SQ_INPUT_MAX_DIM, &cfg->raw.height);
        seen->h = 1;
        break;
    case ARG_PIXEL_FORMAT:
        *bad = cli_parse_pixfmt(optarg, &cfg->raw, &seen->implied_bpc);
        seen->p = 1;
        break;
    case ARG_BITDEPTH:
        *bad = cli_parse_int("--bitdepth", optarg, 8, 16, &cfg->raw.bpc);
        seen->b = 1;
        break;
    case ARG_CPUMASK: {
        /* vmaf: bits set = instruction sets disabled (x86: bit 3 AVX2,
         * bit 4 AVX-512; arm: bit 0 NEON) */
        char *end;
        errno = 0;
        long long m = strtoll(optarg, &end, 0);
        if (end == optarg || *end || errno) {
            cli_error("--cpumask: '%s' is not an integer", optarg);
            *bad = 1;
            return 1;
        }
        cfg->cpu_mask = ~0u;
        if ((unsigned long long)m & (1ull << 3))
            cfg->cpu_mask &= ~SPEEDQA_CPU_AVX2;
        if ((unsigned long long)m & (1ull << 4))
            cfg->cpu_mask &= ~SPEEDQA_CPU_AVX512;
        if ((unsigned long long)m & (1ull << 0))
            cfg->cpu_mask &= ~SPEEDQA_CPU_NEON;
        break;
    }
    case ARG_THREADS: *bad = cli_parse_int("--threads", optarg, 0, 1024, &cfg->threads); break;
    case ARG_FRAME_CNT:
        *bad = cli_parse_ll("--frame_cnt", optarg, 0, LLONG_MAX, &cfg->frame_cnt);
        if (!*bad && cfg->frame_cnt == 0)
            cfg->frame_cnt = -1; /* vmaf: 0 means every frame */
        break;
    case ARG_FRAME_SKIP_REF:
        *bad = cli_parse_ll("--frame_skip_ref", optarg, 0, LLONG_MAX, &cfg->skip_ref);
        break;
    case ARG_FRAME_SKIP_DIST:
        *bad = cli_parse_ll("--frame_skip_dist", optarg, 0, LLONG_MAX, &cfg->skip_dis);
        break;
    case ARG_SUBSAMPLE: *bad = cli_parse_ll("--subsample", optarg, 1, INT_MAX, &cfg->subsample); break;
    case ARG_BACKEND:
        *bad = cli_parse_backend(optarg, &cfg->backend);
        cfg->backend_set = 1;
        break;
    case ARG_DECODE_THREADS:
        *bad = cli_parse_int("--decode-threads", optarg, 0, SPEEDQA_MAX_THREADS, &cfg->decode_threads);
        break;
    case ARG_DEVICE:
        cfg->device_all = !strcmp(optarg, "all");
        if (cfg->device_all)
            cfg->device = -1;
        else if ((optarg[0] >= '0' && optarg[0] <= '9') || optarg[0] == '-')
            *bad = cli_parse_int("--device", optarg, -1, 1024, &cfg->device);
        else
            cfg->device_name = optarg;
        break;
    default:
        return 0;
    }
    return 1;
}

/* One flag (c: getopt's code): -1 to go on, else what cli_parse returns
 * (SQ_EXIT_OK after --help, --version and --list-devices). */
static int take_option(CliSettings *cfg, int c, char *const *argv, RawSeen *seen)
{
    int bad = 0;
    char ob[64];
    if (take_value(cfg, c, seen, &bad))
        return bad ? SQ_EXIT_USAGE : -1;
    switch (c) {
    case ARG_REFERENCE: cfg->ref_path = optarg; break;
    case ARG_DISTORTED:
        if (cfg->n_dis == SQ_CLI_MAX_DIS) {
            cli_error("-d/--distorted: at most %d distorted inputs (use --batch)",
                      SQ_CLI_MAX_DIS);
            return SQ_EXIT_USAGE;
        }
        cfg->dis_paths[cfg->n_dis++] = optarg;
        cfg->dis_path = cfg->dis_paths[0];
        break;
    case ARG_MODEL:
        if (cli_add_model(cfg, optarg) < 0)
            return SQ_EXIT_USAGE;
        break;
    case ARG_OUTPUT:
        if (!optarg[0]) {
            cli_error("--output: empty path (- is stdout)");
            return SQ_EXIT_USAGE;
        }
        cfg->output_path = strcmp(optarg, "-") ? optarg : NULL;
        break;
    case ARG_NO_PREDICTION: cfg->no_prediction = 1; break;
    case ARG_QUIET: cfg->quiet = 1; break;
    case ARG_READ_ONLY: cfg->read_only = 1; break;
    case ARG_BATCH: cfg->batch_path = optarg; break;
    case ARG_RESUME: cfg->resume = 1; break;
    case ARG_SCALE: cfg->scale = 1; break;
    case ARG_VERSION: cli_version(); return SQ_EXIT_OK;
    case ARG_HELP: cli_usage(stdout); return SQ_EXIT_OK;
    case ARG_XML: cfg->format = "xml"; break;
    case ARG_JSON: cfg->format = "json"; break;
    case ARG_CSV: cfg->format = "csv"; break;
    case ARG_SUB: cfg->format = "sub"; break;
    case ARG_FEATURE:
        if (cfg->n_features == SPEEDQA_MAX_FEATURES) {
            cli_error("--feature: at most %d features", SPEEDQA_MAX_FEATURES);
            return SQ_EXIT_USAGE;
        }
        if (!optarg[0]) {
            cli_error("--feature: empty feature name");
            return SQ_EXIT_USAGE;
        }
        cfg->features[cfg->n_features++] = optarg;
        break;
    case ARG_HWACCEL:
        if (!strcmp(optarg, "cuda") || !strcmp(optarg, "none")) {
            cfg->hwaccel = optarg[0] == 'c';
        } else {
            cli_error("--hwaccel: '%s' is not none or cuda", optarg);
            return SQ_EXIT_USAGE;
        }
        break;
    case ARG_LIST_DEVICES: cli_list_devices(); return SQ_EXIT_OK;
    case ARG_PRECISION:
        if (!strcmp(optarg, "max"))
            cfg->precision_max = 1;
        else if (!strcmp(optarg, "legacy"))
            cfg->precision_max = 0;
        else {
            cli_error("--precision: '%s' is not legacy or max", optarg);
            return SQ_EXIT_USAGE;
        }
        break;
    case ':':
        cli_error("%s needs a value (see --help)", opt_text(argv, ob, sizeof ob));
        return SQ_EXIT_USAGE;
    default:
        unknown_option(opt_text(argv, ob, sizeof ob));
        return SQ_EXIT_USAGE;
    }
    return -1;
}

/* The flags taken together: raw geometry, backend, features, inputs and
 * outputs; -1 to go on, else the exit code. */
static int check_settings(CliSettings *cfg, RawSeen *seen)
{
    if (seen->implied_bpc) {
        if (seen->b && cfg->raw.bpc != seen->implied_bpc) {
            cli_error("--bitdepth %d: the semi-planar pixel format is %d-bit", cfg->raw.bpc,
                      seen->implied_bpc);
            return SQ_EXIT_USAGE;
        }
        cfg->raw.bpc = seen->implied_bpc;
        seen->b = 1;
    }
    if (seen->w || seen->h || seen->p || seen->b) {
        if (!(seen->w && seen->h && seen->p && seen->b)) {
            cli_error("raw YUV needs all of -w -h -p -b (missing %s)",
                      !seen->w ? "-w/--width" : !seen->h ? "-h/--height"
                      : !seen->p ? "-p/--pixel_format" : "-b/--bitdepth");
            return SQ_EXIT_USAGE;
        }
        cfg->have_raw = 1;
    }
    cfg->features[cfg->n_features] = NULL;
    if (cfg->hwaccel && cli_check_hwaccel(cfg) < 0)
        return SQ_EXIT_USAGE;
    cli_resolve_auto(cfg);
    if (cli_split_features(cfg) < 0)
        return SQ_EXIT_USAGE;
    if (cfg->n_models && cli_model_refused(cfg)) {
        cli_error("--model: %s", cli_model_refused(cfg));
        return SQ_EXIT_USAGE;
    }
    if (cfg->batch_path) {
        if (cfg->ref_path || cfg->n_dis) {
            cli_error("--batch takes its inputs from the manifest, not from %s",
                      cfg->ref_path ? "-r" : "-d");
            return SQ_EXIT_USAGE;
        }
        if (cfg->read_only && (cfg->output_path || cfg->resume)) {
            cli_error("--batch --read-only scores nothing: no %s", cfg->resume ? "--resume" : "-o");
            return SQ_EXIT_USAGE;
        }
        if (cfg->resume && !cfg->output_path) {
            cli_error("--resume needs -o RESULTS.jsonl (the results to resume)");
            return SQ_EXIT_USAGE;
        }
        return -1;
    }
    if (cfg->resume) {
        cli_error("--resume goes with --batch");
        return SQ_EXIT_USAGE;
    }
    if (!cfg->ref_path || !cfg->dis_path) {
        cli_error("%s is required (see --help)",
                  !cfg->ref_path ? "-r/--reference" : "-d/--distorted");
        return SQ_EXIT_USAGE;
    }
    for (int i = 0; i < cfg->n_dis; i++) {
        if (!cfg->ref_path[0] || !cfg->dis_paths[i][0]) {
            cli_error("%s: empty path", !cfg->ref_path[0] ? "--reference" : "--distorted");
            return SQ_EXIT_USAGE;
        }
        for (int j = 0; j < i; j++)
            if (!strcmp(cfg->dis_paths[j], "-") && !strcmp(cfg->dis_paths[i], "-")) {
                cli_error("two -d cannot both read stdin ('-')");
                return SQ_EXIT_USAGE;
            }
        if (!strcmp(cfg->ref_path, "-") && !strcmp(cfg->dis_paths[i], "-")) {
            cli_error("-r and -d cannot both read stdin ('-')");
            return SQ_EXIT_USAGE;
        }
    }
    if (cfg->n_dis > 1) {
        if (!cfg->output_path || (!strstr(cfg->output_path, "{name}") &&
                                  !strstr(cfg->output_path, "{i}"))) {
            cli_error("%d distorted inputs need one report each: -o with {name} or {i}, "
                      "e.g. -o out/{name}.json", cfg->n_dis);
            return SQ_EXIT_USAGE;
        }
        if (cfg->read_only) {
            cli_error("--read-only takes one -d");
            return SQ_EXIT_USAGE;
        }
    }
    return -1;
}

int cli_parse(CliSettings *cfg, int argc, char *const *argv)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->threads = 1;
    cfg->frame_cnt = -1;
    cfg->subsample = 1;
    cfg->backend = SPEEDQA_BACKEND_CPU;
    cfg->device = -1;
    cfg->cpu_mask = ~0u;
    /* the library reads no environment: the CLI keeps SPEEDQA_CPU_MASK (a
     * number, e.g. 0: the C path) as the default that --cpumask replaces */
    const char *mask_env = getenv("SPEEDQA_CPU_MASK");
    if (mask_env && *mask_env)
        cfg->cpu_mask = (unsigned)strtoul(mask_env, NULL, 0);
    RawSeen seen = { 0 };

    opterr = 0;
    optind = 1;
    int c, li;
    while ((c = getopt_long(argc, argv, short_opts, long_opts, &li)) != -1) {
        /* getopt_long takes an exact name first, else any unique prefix
         * ("--thread 2", "--frame_skip_dis"), as vmaf's getopt does */
        li = -1;
        const int r = take_option(cfg, c, argv, &seen);
        if (r != -1)
            return r;
    }
    if (optind < argc) {
        cli_error("unexpected argument '%s' (inputs go after -r and -d; see --help)", argv[optind]);
        return SQ_EXIT_USAGE;
    }
    return check_settings(cfg, &seen);
}
