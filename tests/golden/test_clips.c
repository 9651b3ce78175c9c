/*
 * Every row of golden/manifest.tsv (real x264/x265/blur/noise clips and the
 * option grid) through the library, against Netflix's full-precision JSON:
 * max |delta| <= 1e-6 on every frame. Rows whose clips are absent (the
 * vendored subset) are skipped and counted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/json.h"
#include "common/util.h"
#include "input.h"

static const char *golden, *work;

/* Decompress clips/NAME.xz into the work dir once; returns the path. */
static int unpack(const char *rel, char *out, size_t outlen)
{
    char src[1024], cmd[3200];
    snprintf(src, sizeof(src), "%s/%s", golden, rel);
    const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    snprintf(out, outlen, "%s/%.*s", work, (int)(strlen(base) - 3), base);
    struct stat st;
    if (!stat(out, &st) && st.st_size > 0)
        return 0;
    if (stat(src, &st))
        return 1; /* not in this golden set */
    /* tests side by side may unpack the same clip: each into its own temporary ($$) */
    snprintf(cmd, sizeof(cmd), "xz -dc '%s' > '%s.$$.tmp' && mv '%s.$$.tmp' '%s'", src, out, out, out);
    if (system(cmd)) {
        printf("FAIL cannot decompress %s (is xz installed?)\n", src);
        return -1;
    }
    return 0;
}

static int run_row(char **col, Tally *t)
{
    char rp[1200], dp[1200], feat[600], err[512], jpath[1200];
    int r1 = unpack(col[3], rp, sizeof(rp)), r2 = unpack(col[4], dp, sizeof(dp));
    if (r1 < 0 || r2 < 0)
        return -1;
    if (r1 || r2)
        return 2;
    snprintf(feat, sizeof(feat), "%s%s%s", col[1], col[2][0] ? "=" : "", col[2]);
    snprintf(jpath, sizeof(jpath), "%s/%s", golden, col[10]);
    JVal *exp = json_load(jpath);
    SqInput *ir = NULL, *id = NULL;
    SpeedqaContext *ctx = NULL;
    int fails = 0, nframes = atoi(col[9]), got = 0;
    double worst = 0;
    if (!exp || sq_input_open(&ir, rp, NULL, NULL, err, sizeof(err)) < 0 ||
        sq_input_open(&id, dp, NULL, NULL, err, sizeof(err)) < 0) {
        printf("FAIL %s: %s\n", col[0], exp ? err : "expected JSON unreadable");
        fails = 1;
        goto out;
    }
    LogCapture log = { .quiet = 0 };
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = sq_input_info(ir)->format;
    const SpeedqaFormat *df = &sq_input_info(id)->format;
    if (df->width != s.format.width || df->height != s.format.height || df->fmt != s.format.fmt ||
        df->bpc != s.format.bpc) {
        printf("FAIL %s: the distorted clip's format differs from the reference's\n", col[0]);
        fails = 1;
        goto out;
    }
    const char *feats[] = { feat, NULL };
    s.features = feats;
    s.logger = log_capture;
    s.log_cookie = &log;
    if (speedqa_open(&ctx, &s) < 0) {
        printf("FAIL %s: open: %s\n", col[0], log.last);
        fails = 1;
        goto out;
    }
    const JVal *frames = json_get(exp, "frames");
    for (int i = 0; i < nframes && !fails; i++) {
        SpeedqaPicture pr, pd;
        TestScores sc;
        if (sq_input_read(ir, &pr, err, sizeof(err)) != 1 || sq_input_read(id, &pd, err, sizeof(err)) != 1 ||
            speedqa_send(ctx, &pr, &pd) < 0 || test_receive(ctx, &sc, 1, 0) < 0) {
            printf("FAIL %s: frame %d not scored\n", col[0], i);
            fails = 1;
            break;
        }
        const JVal *m = frames && i < frames->n ? json_get(&frames->items[i], "metrics") : NULL;
        for (int j = 0; m && j < speedqa_score_count(ctx); j++) {
            const JVal *want = json_get(m, speedqa_score_name(ctx, j));
            if (!want) {
                printf("FAIL %s: expected JSON has no %s\n", col[0], speedqa_score_name(ctx, j));
                fails = 1;
                continue;
            }
            long o = t->over;
            tally_add(t, sc.values[j], want->num, 1e-6);
            double d = sc.values[j] - want->num;
            if (d < 0) d = -d;
            if (d > worst) worst = d;
            if (t->over != o) {
                printf("FAIL %s frame %d %s: %.9g want %.9g\n", col[0], i, speedqa_score_name(ctx, j),
                       sc.values[j], want->num);
                fails = 1;
            }
            got++;
        }
    }
    if (!got && !fails) {
        printf("FAIL %s: nothing compared\n", col[0]);
        fails = 1;
    }
    if (!fails)
        printf("ok   %-44s %3d frames  worst %.2g\n", col[0], nframes, worst);
out:
    speedqa_close(&ctx);
    sq_input_close(&ir);
    sq_input_close(&id);
    json_free(exp);
    return fails;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s GOLDEN_DIR WORK_DIR\n", argv[0]);
        return 2;
    }
    golden = argv[1];
    work = argv[2];
    mkdir(work, 0755);
    char path[1024], line[4096];
    snprintf(path, sizeof(path), "%s/manifest.tsv", golden);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("FAIL cannot open %s\n", path);
        return 1;
    }
    Tally real = { .group = "real clips (default)" }, grid = { .group = "option grid" };
    int fails = 0, skipped = 0, rows = 0;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!strncmp(line, "case_id", 7) || !line[0])
            continue;
        char *col[11];
        int n = 0;
        for (char *p = line; n < 11; n++) {
            col[n] = p;
            char *tab = strchr(p, '\t');
            if (!tab) { n++; break; }
            *tab = '\0';
            p = tab + 1;
        }
        if (n != 11) {
            printf("FAIL malformed manifest row %s\n", col[0]);
            fails++;
            continue;
        }
        int r = run_row(col, strstr(col[0], ".default.") ? &real : &grid);
        if (r == 2)
            skipped++;
        else
            fails += r != 0;
        rows += r != 2;
    }
    fclose(f);
    tally_print(&real);
    tally_print(&grid);
    printf("%d rows run, %d skipped (clips not in this golden set), %d failed\n", rows, skipped, fails);
    return fails || !rows ? 1 : 0;
}
