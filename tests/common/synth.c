#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "synth.h"
#include "util.h"

int gen_synth_main(int argc, char **argv);

SpeedqaFormat synth_format(const JVal *ds)
{
    const int f = (int)json_get(ds, "fmt")->num;
    SpeedqaFormat fmt = { (int)json_get(ds, "w")->num, (int)json_get(ds, "h")->num,
                          f == 420 ? SPEEDQA_PIX_420 : f == 422 ? SPEEDQA_PIX_422 : SPEEDQA_PIX_444,
                          (int)json_get(ds, "bd")->num };
    return fmt;
}

/* A file shared by several datasets is made with the most frames any needs. */
static int frames_for(const JVal *datasets, const char *file)
{
    int n = 0;
    for (int i = 0; i < datasets->n; i++) {
        const JVal *d = &datasets->items[i];
        if (!strcmp(json_get(d, "ref")->str, file) || !strcmp(json_get(d, "dis")->str, file))
            if ((int)json_get(d, "n")->num > n)
                n = (int)json_get(d, "n")->num;
    }
    return n;
}

static int generate(const char *dir, const char *file, const JVal *ds, int nframes)
{
    char path[1024], a[6][32];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    const SpeedqaFormat fmt = synth_format(ds);
    struct stat st;
    if (!stat(path, &st) && (size_t)st.st_size == raw_frame_size(&fmt) * (size_t)nframes)
        return 0;
    snprintf(a[0], 32, "%d", fmt.width);
    snprintf(a[1], 32, "%d", fmt.height);
    snprintf(a[2], 32, "%d", (int)json_get(ds, "fmt")->num);
    snprintf(a[3], 32, "%d", fmt.bpc);
    snprintf(a[4], 32, "%d", nframes);
    snprintf(a[5], 32, "%s", strstr(file, "_ref") ? "ref" : "dis");
    char *argv[] = { "gen", a[0], a[1], a[2], a[3], a[4], a[5], path,
                     strstr(file, "flat") ? "1" : "0", NULL };
    return gen_synth_main(9, argv);
}

int synth_generate_all(const JVal *datasets, const char *dir)
{
    mkdir(dir, 0755);
    for (int i = 0; i < datasets->n; i++) {
        const JVal *d = &datasets->items[i];
        const char *files[2] = { json_get(d, "ref")->str, json_get(d, "dis")->str };
        for (int k = 0; k < 2; k++)
            if (generate(dir, files[k], d, frames_for(datasets, files[k]))) {
                printf("FAIL cannot generate %s\n", files[k]);
                return -1;
            }
    }
    return 0;
}

void synth_remove_all(const JVal *datasets, const char *dir)
{
    char path[1024];
    for (int i = 0; i < datasets->n; i++)
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof(path), "%s/%s", dir,
                     json_get(&datasets->items[i], k ? "dis" : "ref")->str);
            remove(path);
        }
}
