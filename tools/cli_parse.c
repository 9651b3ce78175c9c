#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_parse.h"
#ifdef SQ_HAVE_VMAF
#include "bridge.h"
#endif

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

/* A batch thread's error lines go to its pair's result, not to stderr. */
static _Thread_local char *capture_buf;
static _Thread_local size_t capture_len;
static _Thread_local int capture_echo;

void cli_capture(char *buf, size_t len, int echo)
{
    capture_buf = buf;
    capture_len = len;
    capture_echo = echo;
}

/* Control characters of a message (a CR from a file's header, an escape
 * in a path) written as C escapes: an error stays one visible line. */
static void escape_controls(char *dst, size_t cap, const char *src)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p && o + 5 < cap; p++) {
        if (*p >= 0x20 && *p != 0x7f) {
            dst[o++] = (char)*p;
        } else if (*p == '\r' || *p == '\n' || *p == '\t') {
            dst[o++] = '\\';
            dst[o++] = *p == '\r' ? 'r' : *p == '\n' ? 'n' : 't';
        } else {
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[*p >> 4];
            dst[o++] = hex[*p & 15];
        }
    }
    dst[o] = '\0';
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
    char raw[2048], line[2048];
    vsnprintf(raw, sizeof raw, fmt, ap);
    escape_controls(line, sizeof line, raw);
    if (capture_buf && !strcmp(kind, "error")) {
        if (!capture_buf[0]) /* the first error is the cause */
            snprintf(capture_buf, capture_len, "%s", line);
        if (!capture_echo)
            return;
    }
    fprintf(stderr, "speedqa: %s: %s\n", kind, line);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("error", fmt, ap);
    va_end(ap);
}

void cli_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("warning", fmt, ap);
    va_end(ap);
}

int cli_finish_stdout(void)
{
    /* a long text (--help) may have failed while it was written already */
    const int early = ferror(stdout) ? errno : 0;
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return SQ_EXIT_OK;
    if (!errno)
        errno = early;
    /* a reader that went away (| head) wanted no more: end quietly */
    if (errno != EPIPE)
        cli_error("<stdout>: write failed: %s", errno ? strerror(errno) : "I/O error");
    return SQ_EXIT_OUTPUT;
}

#ifndef SQ_MODEL_DIR
#define SQ_MODEL_DIR "share/speedqa/model"
#endif
#define SQ_MODEL_HELP_DIR SQ_MODEL_DIR

const char *cli_model_refused(const CliSettings *cfg)
{
    if (cfg->read_only)
        return "--read-only scores nothing: drop the model";
    return NULL;
}

/* --model: each value loaded once, for every job of the process. */
static int add_model(CliSettings *cfg, const char *spec)
{
    /* reachable until exit: the jobs read it, nothing frees it */
    static SqModel *models;
    char err[1200];
    if (!models && !(models = calloc(SQ_MODEL_MAX, sizeof *models))) {
        cli_error("out of memory");
        return -1;
    }
    if (sq_model_add(models, cfg->n_models, spec, err, sizeof err) < 0) {
        cli_error("%s", err);
        return -1;
    }
    cfg->models = models;
    cfg->model_specs[cfg->n_models++] = spec;
    return 0;
}

/* --feature names that are libvmaf's extractors (cambi, psnr, ...) go to
 * libvmaf; speedqa's stay; any other is one line naming both lists. */
static int split_features(CliSettings *cfg)
{
#ifdef SQ_HAVE_VMAF
    int keep = 0;
    for (int i = 0; i < cfg->n_features; i++) {
        const char *f = cfg->features[i];
        const size_t n = strcspn(f, "=");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), f);
        if (!strcmp(name, "speed_chroma") || !strcmp(name, "speed_temporal")) {
            cfg->features[keep++] = f;
        } else if (n < sizeof name && sq_vmaf_has_extractor(name)) {
            cfg->vmaf_features[cfg->n_vmaf_features++] = f;
        } else {
            char list[400];
            sq_vmaf_extractors(list, sizeof list);
            cli_error("--feature: unknown feature '%s' (speedqa: speed_chroma, speed_temporal; "
                      "libvmaf %s: %s)", name, vmaf_version(), list);
            return -1;
        }
    }
    cfg->n_features = keep;
    cfg->features[keep] = NULL;
    cfg->vmaf_features[cfg->n_vmaf_features] = NULL;
#else
    (void)cfg;
#endif
    return 0;
}

static void usage(FILE *f)
{
    fputs(
"usage: speedqa -r REF -d DIS [-d DIS2 ...] [options]\n"
"       speedqa --batch MANIFEST [-o RESULTS.jsonl] [--resume] [options]\n"
"\n"
"Scores DIS against REF with the SpEED-QA features speed_chroma and\n"
"speed_temporal, with Netflix libvmaf's numbers and output formats.\n"
"\n"
"Input (a path, or - for stdin on one side):\n"
"  -r, --reference PATH      reference video\n"
"  -d, --distorted PATH      distorted video; repeat it to score a ladder of\n"
"                            renditions against one reference (its side is\n"
"                            computed once); then -o needs {name} (the file's\n"
"                            base name without extension) or {i} (1-based),\n"
"                            e.g. -o out/{name}.json: one report each\n"
"      Y4M is recognised by its header; raw YUV (.yuv) needs all of:\n"
"  -w, --width N             luma width\n"
"  -h, --height N            luma height\n"
"  -p, --pixel_format F      planar 420, 422, 444 or 400; or semi-planar (U, V\n"
"                            interleaved) nv12, nv16, nv24 (8-bit), p010 (10-bit\n"
"                            in the top bits of 16-bit words), p016 (16-bit),\n"
"                            which imply -b\n"
"  -b, --bitdepth N          8 to 16 (above 8: 16-bit little-endian samples)\n"
#ifdef SQ_HAVE_LAV
"      Anything else is decoded with libav (mp4, mkv, ivf, .264, .265, ...).\n"
#else
"      Compressed input (mp4, mkv, ...) is not built in: rebuild with\n"
"      libavformat-dev, libavcodec-dev and libavutil-dev installed.\n"
#endif
"      --scale               distorted inputs of another size are scaled to the\n"
"                            reference size first, with libswscale bicubic:\n"
"                            the same frames as ffmpeg's scale=W:H:flags=bicubic\n"
"      --frame_cnt N         score at most N frames (0: all)\n"
"      --frame_skip_ref N    skip the first N reference frames\n"
"      --frame_skip_dist N   skip the first N distorted frames\n"
"      --subsample N         report every Nth frame (speed_temporal still sees\n"
"                            every frame); pooled values use the reported ones\n"
"\n"
"Features:\n"
"      --feature NAME[=opt=value:opt=value...]\n"
"                            speed_chroma or speed_temporal with libvmaf option\n"
"                            names, e.g. speed_chroma=speed_kernelscale=0.5;\n"
"                            repeatable; default: both with default options\n"
"                            (see doc/features.md). With libvmaf built in, its\n"
"                            extractors too (cambi, adm, motion, vif, psnr, ...),\n"
"                            computed by libvmaf\n"
"\n"
"VMAF models (needs a build with libvmaf >= 3.0; see doc/cli.md):\n"
"  -m, --model version=NAME|path=FILE.json[:name=N][:enable_transform][:disable_clip]\n"
"                            score a VMAF model (repeatable; several need\n"
"                            distinct name=): speed_chroma and speed_temporal\n"
"                            by speedqa on --backend, its other features by\n"
"                            libvmaf; the report has the model's score (vmaf\n"
"                            or name=) and every feature, as vmaf prints them.\n"
"                            version=NAME: a model file in the data folder\n"
"                            " SQ_MODEL_HELP_DIR "\n"
"                            (vmaf_v0.6.1, vmaf_4k_v0.6.1, vmaf_v1.0.16_3d0h,\n"
"                            _5d0h, _3d0h_2160, _1d5h_2160, and _hfr_ ones)\n"
"\n"
"Output (default: XML on stdout):\n"
"  -o, --output PATH         write to PATH (- = stdout); without a format flag\n"
"                            the format follows its extension (.xml, .json,\n"
"                            .csv, .sub)\n"
"      --xml | --json | --csv | --sub\n"
"                            --sub: vmaf's subtitle lines, {n}{n+1}frame: n|...\n"
"      --precision P         legacy: %.6f like vmaf (default); max: %.17g,\n"
"                            every value exactly as computed\n"
"  -q, --quiet               no progress, warnings or backend notes\n"
"\n"
"Computation:\n"
"      --cpumask M           vmaf's bitmask of instruction sets NOT to use\n"
"                            (decimal or 0x..): x86 bit 3 (8) = AVX2, bit 4\n"
"                            (16) = AVX-512; arm bit 0 (1) = NEON; -1 = C only\n"
"      --threads N           CPU worker threads (default 1, 0 = one per core);\n"
"                            capped at the number of CPU cores, since more\n"
"                            cannot help; the output does not depend on it\n"
"      --backend B           cpu (default), auto, cuda, hip or opencl; auto:\n"
"                            cuda for frames decoded on the GPU (--hwaccel),\n"
"                            cpu for host frames on 4 or more cores, else a\n"
"                            GPU backend if one works\n"
"      --device N|NAME|all   GPU index, or a substring of its name, for GPU\n"
"                            backends (default: first usable); all: a batch\n"
"                            or ladder uses every device, a context on each\n"
"      --list-devices        list what every backend sees, then exit\n"
"      --hwaccel H           none (default) or cuda: compressed inputs decode\n"
"                            on the GPU's NVDEC (--device, default 0) and are\n"
"                            scored where they lie (implies --backend cuda);\n"
"                            a stream NVDEC cannot decode is decoded in\n"
"                            software, with a warning\n"
"      --decode-threads N    threads of each software decoder (default 0:\n"
"                            libav's choice). 1 is strict: every frame the\n"
"                            decoder had to conceal fails the run, on every\n"
"                            run (with frame threads libav flags them only\n"
"                            sometimes)\n"
"      --read-only           read (decode) both inputs as a run would, score\n"
"                            nothing, print the frame rate: the input floor\n"
"                            of a throughput measurement (with --batch: every\n"
"                            pair on the batch's workers, no results file)\n"
"\n"
"Batch (see doc/cli.md):\n"
"      --batch MANIFEST      score every pair of MANIFEST (CSV with a header\n"
"                            naming ref, dis and optionally features, model,\n"
"                            output; or JSON lines) in one process: pairs in\n"
"                            parallel up to --threads, pairs sharing a\n"
"                            reference (and models) as one ladder; -o gets\n"
"                            one JSON line per pair, as\n"
"                            it finishes (stdout without -o); exit 3 when\n"
"                            any pair failed (its line says why)\n"
"      --resume              keep the pairs -o already holds a result for\n"
"\n"
"Other:\n"
"  -v, --version             print the version and exit\n"
"      --help                print this help and exit\n"
"  -n, --no_prediction       with --model: its features only, no prediction\n"
"\n"
"Frame counts:\n"
"  When one input ends first, the frames both have are scored and a warning\n"
"  names both counts (as vmaf does); an input that never ends (a pipe) stops\n"
"  with the other. A truncated or malformed frame ends the run with exit 3\n"
"  after the report of the frames before it is written (to stdout, or to an\n"
"  -o file that did not exist).\n"
"\n"
"Exit codes:\n"
"  0 success, 1 internal error, 2 usage error, 3 input error, 4 backend\n"
"  error, 5 output error. Errors are one line on stderr. A failed or\n"
"  interrupted run never truncates or removes an existing -o file: the\n"
"  report is written next to it and renamed into place when complete.\n"
"\n"
"Example:\n"
"  speedqa -r samples/ref.y4m -d samples/dis.y4m --json\n",
        f);
}

static void list_devices(void)
{
    static const struct { SpeedqaBackend b; const char *name; } all[] = {
        { SPEEDQA_BACKEND_CPU, "cpu" }, { SPEEDQA_BACKEND_CUDA, "cuda" },
        { SPEEDQA_BACKEND_HIP, "hip" }, { SPEEDQA_BACKEND_OPENCL, "opencl" },
    };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        char buf[4096];
        int n = speedqa_list_devices(all[i].b, buf, sizeof(buf));
        if (n == SPEEDQA_ERR(ENOSYS))
            printf("%s: not built\n", all[i].name);
        else if (n <= 0)
            printf("%s: no device\n", all[i].name);
        else
            printf("%s:\n%s", all[i].name, buf);
    }
}

static void version(void)
{
    /* vmaf's first line, so scripts that grep it find a version */
    printf("speedqa version %s\n", speedqa_version());
    puts("scores: Netflix libvmaf's speed_chroma and speed_temporal, bit for bit (commit f85a8536)");
#ifdef SQ_HAVE_LAV
    puts("input: y4m, yuv, libav (loaded on first compressed input)");
#else
    puts("input: y4m, yuv (no libav: rebuild with libavformat-dev, libavcodec-dev, "
         "libavutil-dev installed)");
#endif
}

/* Checked integer parsing: the whole string, base 10, within [lo, hi]. */
static int parse_ll(const char *flag, const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    /* strtoll skips leading white space of any kind: a value is digits, with a sign */
    if (end == s || *end != '\0' || !(*s == '-' || *s == '+' || (*s >= '0' && *s <= '9'))) {
        cli_error("%s: '%s' is not an integer", flag, s);
        return -1;
    }
    if (errno == ERANGE || v < lo || v > hi) {
        if (hi >= INT_MAX && (v < lo || (errno == ERANGE && *s == '-')))
            cli_error("%s: %s is out of range (at least %lld)", flag, s, lo);
        else if (hi >= INT_MAX)
            cli_error("%s: %s is too large (at most %lld)", flag, s, hi);
        else
            cli_error("%s: %s is outside %lld..%lld", flag, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_int(const char *flag, const char *s, int lo, int hi, int *out)
{
    long long v;
    if (parse_ll(flag, s, lo, hi, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* *bpc: the depth a semi-planar name implies, else 0. */
static int parse_pixfmt(const char *s, SqRawParams *raw, int *bpc)
{
    static const struct {
        const char *name;
        SpeedqaPixelFormat fmt;
        int bpc, msb; /* bpc 0: planar */
    } t[] = {
        { "420", SPEEDQA_PIX_420, 0, 0 }, { "422", SPEEDQA_PIX_422, 0, 0 },
        { "444", SPEEDQA_PIX_444, 0, 0 }, { "400", SPEEDQA_PIX_400, 0, 0 },
        { "nv12", SPEEDQA_PIX_420, 8, 0 }, { "nv16", SPEEDQA_PIX_422, 8, 0 },
        { "nv24", SPEEDQA_PIX_444, 8, 0 }, { "p010", SPEEDQA_PIX_420, 10, 1 },
        { "p016", SPEEDQA_PIX_420, 16, 0 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) {
            raw->fmt = t[i].fmt;
            raw->layout = t[i].bpc ? SPEEDQA_LAYOUT_SEMI_PLANAR : SPEEDQA_LAYOUT_PLANAR;
            raw->msb_aligned = t[i].msb;
            *bpc = t[i].bpc;
            return 0;
        }
    cli_error("--pixel_format: '%s' is not one of 420, 422, 444, 400, nv12, nv16, nv24, p010, "
              "p016", s);
    return -1;
}

static int parse_backend(const char *s, SpeedqaBackend *out)
{
    static const struct { const char *name; SpeedqaBackend b; } t[] = {
        { "auto", SPEEDQA_BACKEND_AUTO }, { "cpu", SPEEDQA_BACKEND_CPU },
        { "cuda", SPEEDQA_BACKEND_CUDA }, { "hip", SPEEDQA_BACKEND_HIP },
        { "opencl", SPEEDQA_BACKEND_OPENCL },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) {
            *out = t[i].b;
            return 0;
        }
    cli_error("--backend: '%s' is not one of auto, cpu, cuda, hip, opencl", s);
    return -1;
}

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

/*
 * --backend auto picks the fastest backend for where the frames arrive.
 * Frames decoded on the GPU (--hwaccel cuda) stay there: CUDA. Frames in
 * host memory (files, pipes, software decoding) go to the CPU backend on a
 * machine of AUTO_CPU_CORES cores or more: a GPU fed from host memory is
 * bound by staging and upload, and 16 cores scored page-cached 1080p Y4M
 * about 8x faster than CUDA did in the same run. On fewer cores the
 * library's own rule stands (the first GPU backend that opens, else the CPU).
 */
#define AUTO_CPU_CORES 4
static void resolve_auto(CliSettings *cfg)
{
    if (cfg->backend != SPEEDQA_BACKEND_AUTO)
        return;
    cfg->backend_auto = 1;
    /* the cores this process may run on (taskset, a container's cpuset) */
    cpu_set_t set;
    const long ncpu = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                                 : sysconf(_SC_NPROCESSORS_ONLN);
    if (cfg->hwaccel)
        cfg->backend = SPEEDQA_BACKEND_CUDA;
    else if (ncpu >= AUTO_CPU_CORES)
        cfg->backend = SPEEDQA_BACKEND_CPU;
}

/* --hwaccel cuda: decoded frames stay in the GPU's memory, which only the
 * CUDA backend reads, in the primary context of the device decoding them. */
static int check_hwaccel(CliSettings *cfg)
{
#ifndef SQ_HAVE_LAV
    cli_error("--hwaccel cuda: compressed input is not built in (rebuild with "
              "libavformat-dev, libavcodec-dev and libavutil-dev installed)");
    return -1;
#endif
    if (cfg->backend_set && cfg->backend != SPEEDQA_BACKEND_CUDA &&
        cfg->backend != SPEEDQA_BACKEND_AUTO) {
        cli_error("--hwaccel cuda: decoded frames stay on the GPU, which only --backend cuda "
                  "reads");
        return -1;
    }
    if (cfg->device_name) {
        cli_error("--hwaccel cuda: name the GPU by its index (--device N), not '%s'",
                  cfg->device_name);
        return -1;
    }
    if (cfg->scale) {
        cli_error("--hwaccel cuda: --scale reads host frames; drop one of them");
        return -1;
    }
    cfg->backend = SPEEDQA_BACKEND_CUDA;
    /* decoder and scorer on one device: the library's "first usable" would be its own pick */
    if (cfg->device < 0 && !cfg->device_all)
        cfg->device = 0;
    return 0;
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
    int have_w = 0, have_h = 0, have_p = 0, have_b = 0, implied_bpc = 0;
    char ob[64];

    opterr = 0;
    optind = 1;
    int c, li;
    while ((c = getopt_long(argc, argv, short_opts, long_opts, &li)) != -1) {
        int bad = 0;
        /* getopt_long takes an exact name first, else any unique prefix
         * ("--thread 2", "--frame_skip_dis"), as vmaf's getopt does */
        li = -1;
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
        case ARG_WIDTH:
            bad = parse_int("--width", optarg, 1, SQ_INPUT_MAX_DIM, &cfg->raw.width);
            have_w = 1;
            break;
        case ARG_HEIGHT:
            bad = parse_int("--height", optarg, 1, SQ_INPUT_MAX_DIM, &cfg->raw.height);
            have_h = 1;
            break;
        case ARG_PIXEL_FORMAT:
            bad = parse_pixfmt(optarg, &cfg->raw, &implied_bpc);
            have_p = 1;
            break;
        case ARG_BITDEPTH:
            bad = parse_int("--bitdepth", optarg, 8, 16, &cfg->raw.bpc);
            have_b = 1;
            break;
        case ARG_MODEL:
            if (add_model(cfg, optarg) < 0)
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
        case ARG_VERSION: version(); return SQ_EXIT_OK;
        case ARG_HELP: usage(stdout); return SQ_EXIT_OK;
        case ARG_XML: cfg->format = "xml"; break;
        case ARG_JSON: cfg->format = "json"; break;
        case ARG_CSV: cfg->format = "csv"; break;
        case ARG_SUB: cfg->format = "sub"; break;
        case ARG_CPUMASK: {
            /* vmaf: bits set = instruction sets disabled (x86: bit 3 AVX2,
             * bit 4 AVX-512; arm: bit 0 NEON) */
            char *end;
            errno = 0;
            long long m = strtoll(optarg, &end, 0);
            if (end == optarg || *end || errno) {
                cli_error("--cpumask: '%s' is not an integer", optarg);
                return SQ_EXIT_USAGE;
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
        case ARG_THREADS: bad = parse_int("--threads", optarg, 0, 1024, &cfg->threads); break;
        case ARG_FRAME_CNT:
            bad = parse_ll("--frame_cnt", optarg, 0, LLONG_MAX, &cfg->frame_cnt);
            if (!bad && cfg->frame_cnt == 0)
                cfg->frame_cnt = -1; /* vmaf: 0 means every frame */
            break;
        case ARG_FRAME_SKIP_REF:
            bad = parse_ll("--frame_skip_ref", optarg, 0, LLONG_MAX, &cfg->skip_ref);
            break;
        case ARG_FRAME_SKIP_DIST:
            bad = parse_ll("--frame_skip_dist", optarg, 0, LLONG_MAX, &cfg->skip_dis);
            break;
        case ARG_SUBSAMPLE: bad = parse_ll("--subsample", optarg, 1, INT_MAX, &cfg->subsample); break;
        case ARG_BACKEND:
            bad = parse_backend(optarg, &cfg->backend);
            cfg->backend_set = 1;
            break;
        case ARG_DECODE_THREADS:
            bad = parse_int("--decode-threads", optarg, 0, SPEEDQA_MAX_THREADS, &cfg->decode_threads);
            break;
        case ARG_HWACCEL:
            if (!strcmp(optarg, "cuda") || !strcmp(optarg, "none")) {
                cfg->hwaccel = optarg[0] == 'c';
            } else {
                cli_error("--hwaccel: '%s' is not none or cuda", optarg);
                return SQ_EXIT_USAGE;
            }
            break;
        case ARG_DEVICE:
            cfg->device_all = !strcmp(optarg, "all");
            if (cfg->device_all)
                cfg->device = -1;
            else if ((optarg[0] >= '0' && optarg[0] <= '9') || optarg[0] == '-')
                bad = parse_int("--device", optarg, -1, 1024, &cfg->device);
            else
                cfg->device_name = optarg;
            break;
        case ARG_LIST_DEVICES: list_devices(); return SQ_EXIT_OK;
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
        if (bad)
            return SQ_EXIT_USAGE;
    }
    if (optind < argc) {
        cli_error("unexpected argument '%s' (inputs go after -r and -d; see --help)", argv[optind]);
        return SQ_EXIT_USAGE;
    }
    if (implied_bpc) {
        if (have_b && cfg->raw.bpc != implied_bpc) {
            cli_error("--bitdepth %d: the semi-planar pixel format is %d-bit", cfg->raw.bpc,
                      implied_bpc);
            return SQ_EXIT_USAGE;
        }
        cfg->raw.bpc = implied_bpc;
        have_b = 1;
    }
    if (have_w || have_h || have_p || have_b) {
        if (!(have_w && have_h && have_p && have_b)) {
            cli_error("raw YUV needs all of -w -h -p -b (missing %s)",
                      !have_w ? "-w/--width" : !have_h ? "-h/--height"
                      : !have_p ? "-p/--pixel_format" : "-b/--bitdepth");
            return SQ_EXIT_USAGE;
        }
        cfg->have_raw = 1;
    }
    cfg->features[cfg->n_features] = NULL;
    if (cfg->hwaccel && check_hwaccel(cfg) < 0)
        return SQ_EXIT_USAGE;
    resolve_auto(cfg);
    if (split_features(cfg) < 0)
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
