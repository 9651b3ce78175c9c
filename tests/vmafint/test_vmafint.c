/*
 * speedqa's integer motion / ADM math against libvmaf, per frame, bit for bit.
 *
 *   test_vmafint FEATURE MODE GOLDEN WORK
 *
 * FEATURE: motion, adm, cambi or vif. MODE: clips (every pair of GOLDEN/manifest.tsv,
 * all frames; xz clips unpacked into WORK) or random (fixed seeds, then
 * seeds from the clock, each printed; VMAFINT_SEED=S replays one seed);
 * cambi also takes bench (timing, cambi_bench.c; not a meson test).
 *
 * Which libvmaf: the clips run its default CPU dispatch (AVX2/AVX-512 here:
 * what its users get); the random ADM cases run its plain C path (cpumask
 * 63), the spec's normative one, because libvmaf's own SIMD ADM differs
 * from its C at scale 0 on extreme content (full-range white noise) and
 * with a non-integer adm_enhn_gain_limit on any content; so the clips run
 * only the ADM sets with an integer limit (vi_adm_clip_uses).
 * CAMBI runs libvmaf's default dispatch (its AVX2 path here) and its C path
 * (cpumask 63): every option set on the random cases, the first two on the
 * clips.
 * VMAFINT_CPUMASK overrides the cpumask of all. The random cases also
 * require the soft-double build of the math (soft.c) to give the same bits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmafint.h"

static int is_adm, is_cambi, is_vif, is_clips;
/* a sanitized build (CI's ASan run) takes one of the two 1440..1920 CAMBI seeds */
#ifdef VI_SANITIZED
static const int vi_sanitized = 1;
#else
static const int vi_sanitized = 0;
#endif
int vi_check_soft;
static uint64_t cpumask;

static int run_seq(const ViSeq *s)
{
    if (is_cambi) {
        /* the clips: libvmaf's C path too for the first two sets (defaults, v1.0.16); on
         * the GPU backends every set on the random sequences but the two of 1440 to 1920
         * a side, which take the first two (each set there took PoCL's CPU device ~4 s),
         * and the first on the clips */
        const uint64_t masks[2] = { cpumask, 63 };
        const int big = (int64_t)s->w * s->h >= 1000000;
        const int bad = vi_cambi_check(s, masks, getenv("VMAFINT_CPUMASK") ? 1 : 2,
                                       is_clips ? 2 : 1000, is_clips ? 1 : big ? 2 : 1000);
        printf("%s %s: %d frames %dx%d bpc%d\n", bad ? "FAIL" : "ok", s->name, s->n, s->w, s->h,
               s->bpc);
        return bad;
    }
    const ViUse *uses = is_vif ? vi_vif_uses : is_adm ? vi_adm_uses : vi_motion_uses;
    const int n_uses = is_vif   ? vi_vif_n_uses
                       : !is_adm ? vi_motion_n_uses
                       : is_clips ? vi_adm_clip_uses : vi_adm_n_uses;
    VmafContext *ctx = vi_vmaf_run(s, uses, n_uses, cpumask);
    if (!ctx)
        return 1;
    if (is_vif) {
        /* the math with every set, then the library: every set on the random
         * sequences, the first two (defaults; skip_scale0 with debug) on the clips,
         * each sent once; on a GPU backend with a device every set and the pair on
         * the random sequences, the first set on the clips (for time, as adm) */
        const int vbad = vi_vif_check(ctx, s) + vi_lib_check(ctx, s, uses, is_clips ? 2 : n_uses, 1,
                                                             is_clips ? 1 : n_uses);
        vmaf_close(ctx);
        printf("%s %s: %d frames %dx%d bpc%d\n", vbad ? "FAIL" : "ok", s->name, s->n, s->w, s->h,
               s->bpc);
        return vbad;
    }
    /* the library's adm: v0.6.1's and the v1.0.16 models' option sets on the clips
     * (the first four), all on the random sequences, each sent once; on a GPU
     * backend the first set on the clips (every set there took PoCL's CPU device
     * ~140 s more: 48 s became 185 s), all and the pair on the random ones */
    const int bad = is_adm ? vi_adm_check(ctx, s, n_uses, !is_clips, cpumask) +
                                 vi_lib_check(ctx, s, uses, is_clips ? 4 : n_uses, 1,
                                              is_clips ? 1 : n_uses)
                           : vi_motion_check(ctx, s) + vi_lib_check(ctx, s, uses, n_uses, 2, n_uses);
    vmaf_close(ctx);
    printf("%s %s: %d frames %dx%d bpc%d\n", bad ? "FAIL" : "ok", s->name, s->n, s->w, s->h,
           s->bpc);
    fflush(stdout);
    return bad;
}

static int seen(char pairs[][2][300], int n, const char *ref, const char *dis)
{
    for (int i = 0; i < n; i++)
        if ((is_cambi || !strcmp(pairs[i][0], ref)) && (!(is_adm || is_vif) || !strcmp(pairs[i][1], dis)) &&
            (!is_cambi || !strcmp(pairs[i][1], dis)))
            return 1;
    return 0;
}

/*
 * Motion reads only the reference: one run per reference clip; ADM one per
 * pair; CAMBI one per clip (it reads only the distorted side).
 */
static int run_clips(const char *golden, const char *work)
{
    char path[1200], line[4096];
    snprintf(path, sizeof path, "%s/manifest.tsv", golden);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("FAIL cannot open %s\n", path);
        return 1;
    }
    static char pairs[256][2][300];
    int n = 0, fails = 0;
    while (fgets(line, sizeof line, f) && n < 256) {
        char *col[6] = { 0 }, *p = line;
        line[strcspn(line, "\r\n")] = 0;
        for (int c = 0; c < 6 && p; c++) {
            col[c] = p;
            p = strchr(p, '\t');
            if (p)
                *p++ = 0;
        }
        if (!col[4] || strncmp(col[3], "clips/", 6))
            continue;
        /* CAMBI reads only the distorted clip: each reference is one too */
        for (int side = is_cambi ? 0 : 1; side < 2 && n < 256; side++) {
            const char *dis = side ? col[4] : col[3];
            if (seen(pairs, n, col[3], dis))
                continue;
            snprintf(pairs[n][0], 300, "%s", col[3]);
            snprintf(pairs[n][1], 300, "%s", dis);
            n++;
            ViSeq s;
            if (vi_seq_read(&s, golden, work, col[3], dis, 0)) {
                printf("FAIL cannot read %s / %s\n", col[3], dis);
                fails++;
                continue;
            }
            fails += run_seq(&s) != 0;
            vi_seq_free(&s);
        }
    }
    fclose(f);
    if (!n) {
        printf("FAIL no clips in %s\n", path);
        return 1;
    }
    printf("%d clip runs, %d failed\n", n, fails);
    return fails != 0;
}

static int run_seed(uint64_t seed, int lo, int hi)
{
    ViSeq s;
    if (is_vif && seed >= 401 && seed <= 410)
        vi_seq_random16(&s, seed, lo, hi);
    else if (is_cambi && (seed & 1))
        vi_seq_banding(&s, seed, lo, hi);
    else
        vi_seq_random(&s, seed, lo, hi);
    int bad = run_seq(&s);
    if (bad)
        printf("replay: VMAFINT_SEED=%llu\n", (unsigned long long)seed);
    vi_seq_free(&s);
    return bad != 0;
}

static int run_random(void)
{
    const char *env = getenv("VMAFINT_SEED");
    const int lo = is_cambi ? 100 : 40, hi = is_cambi ? 420 : 260;
    if (env)
        return run_seed(strtoull(env, NULL, 0), lo, hi);
    int fails = 0;
    if (is_cambi) {
        fails += vi_cambi_pool_selftest(7, 400) != 0;
        fails += vi_cambi_table_selftest(11, 300) != 0;
        /* odd and small sizes (libvmaf needs one side of 216), then 1080p for high_res_speedup */
        for (uint64_t k = 1; k <= 24; k++)
            fails += run_seed(k, 100, 420);
        /* down to 16 pixels on a side: many refused (both sides < 216) */
        for (uint64_t k = 201; k <= 212; k++)
            fails += run_seed(k, 16, 420);
        fails += run_seed(1001, 1440, 1920);
        if (!vi_sanitized)
            fails += run_seed(1002, 1440, 1920);
    }
    /* fixed seeds: small and odd sizes, then a few larger frames */
    for (uint64_t k = 1; k <= 16 && !is_cambi; k++)
        fails += run_seed(k, 40, 140);
    for (uint64_t k = 101; k <= 103 && !is_cambi; k++)
        fails += run_seed(k, 300, 700);
    /* VIF's smallest sizes: scale 3 of a 16-pixel side is 2 wide, its filter's half-width 1 */
    for (uint64_t k = 301; k <= 310 && is_vif; k++)
        fails += run_seed(k, 16, 40);
    /* ADM's smallest sizes: a side of 33 has three index positions at scale 3 */
    for (uint64_t k = 311; k <= 318 && is_adm; k++)
        fails += run_seed(k, 33, 40);
    /* and 16-bit samples (seeds 401..410: vi_seq_random16) */
    for (uint64_t k = 401; k <= 410 && is_vif; k++)
        fails += run_seed(k, 16, 200);
    /* VMAFINT_CLOCK_SEEDS: how many fresh seeds (12; CI's sanitized run takes fewer) */
    const char *nc = getenv("VMAFINT_CLOCK_SEEDS");
    const uint64_t n_clock = nc ? strtoull(nc, NULL, 10) : 12;
    const uint64_t t = (uint64_t)time(NULL);
    printf("%llu clock seeds start at %llu\n", (unsigned long long)n_clock,
           (unsigned long long)t * 1000);
    for (uint64_t k = 0; k < n_clock; k++)
        fails += run_seed(t * 1000 + k, lo, hi);
    printf("%d random sequences failed\n", fails);
    return fails != 0;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: test_vmafint motion|adm|cambi|vif clips|random GOLDEN WORK\n");
        return 2;
    }
    is_adm = !strcmp(argv[1], "adm");
    is_cambi = !strcmp(argv[1], "cambi");
    is_vif = !strcmp(argv[1], "vif");
    is_clips = !strcmp(argv[2], "clips");
    vi_check_soft = !is_clips;
    const char *m = getenv("VMAFINT_CPUMASK");
    cpumask = m ? strtoull(m, NULL, 0) : is_adm && !is_clips ? 63 : 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (is_cambi && !strcmp(argv[2], "bench"))
        return vi_cambi_bench(argv[3], argv[4], argc > 5 ? argv[5] : NULL);
    return is_clips ? run_clips(argv[3], argv[4]) : run_random();
}
