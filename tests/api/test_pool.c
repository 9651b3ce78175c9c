/*
 * speedqa_pool against libvmaf's own pooled values: for every golden report
 * (the .json files of GOLDEN_DIR/expected, libvmaf's output at full precision), the
 * min, max, mean and harmonic mean of each score over its frames must equal
 * the file's pooled_metrics exactly (libvmaf pools in double, in frame
 * order: so does speedqa_pool). Also the argument checks and the stride.
 *
 *   test_pool GOLDEN_DIR
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "speedqa/speedqa.h"

static int fails, checked;

static void check_report(const char *path)
{
    JVal *j = json_load(path);
    if (!j) {
        printf("FAIL %s: unreadable\n", path);
        fails++;
        return;
    }
    const JVal *frames = json_get(j, "frames"), *pooled = json_get(j, "pooled_metrics");
    if (!frames || !pooled || frames->type != J_ARR || pooled->type != J_OBJ || frames->n < 1) {
        json_free(j);
        return; /* not a report with pooled values */
    }
    for (int k = 0; k < pooled->n; k++) {
        const char *name = pooled->keys[k];
        double *v = malloc(sizeof(double) * 2 * (size_t)frames->n);
        int n = 0;
        for (int f = 0; f < frames->n; f++) {
            const JVal *x = json_get(json_get(&frames->items[f], "metrics"), name);
            if (x && x->type == J_NUM)
                v[2 * n++] = x->num; /* every other slot: exercises the stride */
        }
        SpeedqaPooled p;
        const JVal *want = &pooled->items[k];
        const double w[4] = { json_get(want, "min")->num, json_get(want, "max")->num,
                              json_get(want, "mean")->num, json_get(want, "harmonic_mean")->num };
        const int ret = speedqa_pool(v, (size_t)n, 2, &p);
        const double got[4] = { p.min, p.max, p.mean, p.harmonic_mean };
        if (ret != 0 || n != frames->n || memcmp(got, w, sizeof(w))) {
            printf("FAIL %s %s: got %.17g %.17g %.17g %.17g, libvmaf %.17g %.17g %.17g %.17g\n", path,
                   name, got[0], got[1], got[2], got[3], w[0], w[1], w[2], w[3]);
            fails++;
        }
        checked++;
        free(v);
    }
    json_free(j);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_pool GOLDEN_DIR\n");
        return 2;
    }
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/expected", argv[1]);
    DIR *d = opendir(dir);
    if (!d) {
        printf("FAIL: no %s\n", dir);
        return 1;
    }
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json"))
            continue;
        char path[2100];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        check_report(path);
        files++;
    }
    closedir(d);
    const double one = 1.0;
    SpeedqaPooled p;
    const int bad = speedqa_pool(NULL, 1, 1, &p) != SPEEDQA_ERR(EINVAL) ||
                    speedqa_pool(&one, 0, 1, &p) != SPEEDQA_ERR(EINVAL) ||
                    speedqa_pool(&one, 1, 0, &p) != SPEEDQA_ERR(EINVAL) ||
                    speedqa_pool(&one, 1, 1, NULL) != SPEEDQA_ERR(EINVAL);
    printf("%s bad arguments give -EINVAL\n", bad ? "FAIL" : "ok  ");
    fails += bad;
    printf("%s %d pooled scores of %d libvmaf reports equal bit for bit\n",
           fails || checked < 4 ? "FAIL" : "ok  ", checked, files);
    return fails || checked < 4 ? 1 : 0;
}
