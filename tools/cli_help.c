/*
 * What the CLI prints and ends with: --help (from which speedqa(1) is
 * written, tools/help2man.py), --version and --list-devices. Apart from
 * the parser so that the option table and the text about it are each
 * read in one piece.
 */
#include <stdio.h>

#include "cli_priv.h"

#ifndef SQ_MODEL_DIR
#define SQ_MODEL_DIR "share/speedqa/model"
#endif
#define SQ_MODEL_HELP_DIR SQ_MODEL_DIR

/* --help from "Computation:" on: two calls, so that neither function is one
 * page of text longer than the size rule allows. */
static void usage_run(FILE *f)
{
    fputs(
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

void cli_usage(FILE *f)
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
"                            speed_chroma, speed_temporal, motion, adm, vif or\n"
"                            cambi with libvmaf option names, e.g.\n"
"                            speed_chroma=speed_kernelscale=0.5; repeatable;\n"
"                            default: speed_chroma and speed_temporal (see\n"
"                            doc/features.md). With libvmaf built in, its other\n"
"                            extractors too (psnr, float_ssim, ...), computed\n"
"                            by libvmaf\n"
"\n"
"VMAF models (see doc/cli.md):\n"
"  -m, --model version=NAME|path=FILE.json[:name=N][:enable_transform][:disable_clip]\n"
"                            score a VMAF model (repeatable; several need\n"
"                            distinct name=); the report has the model's score\n"
"                            (vmaf or name=) and every feature, as vmaf prints\n"
"                            them. speedqa computes speed_chroma, cambi, motion,\n"
"                            ADM and VIF and predicts itself (the v1.0.16 and\n"
"                            v0.6.1 models); a model needing more (the HFR\n"
"                            models' five-frame motion window) needs a build\n"
"                            with libvmaf >= 3.0, which then computes those\n"
"                            features and predicts.\n"
"                            SPEEDQA_MODEL_ENGINE=native|libvmaf|auto picks the\n"
"                            engine (libvmaf: ADM by libvmaf too)\n"
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
"\n",
        f);
    usage_run(f);
}

void cli_list_devices(void)
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

void cli_version(void)
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
