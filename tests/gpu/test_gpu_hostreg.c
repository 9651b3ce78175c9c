/*
 * Registered host ranges in the GPU pipeline (speedqa_cuda_host_register),
 * through the SqBackend interface, on the null GPU's DMA variant (any
 * machine) or a real runtime: lent frames lie back to back in one mapping
 * per side, 6 bytes apart, as in a mapped Y4M file, and windows of whole
 * pages are registered over part of it, so a run mixes frames uploaded
 * from a range, staged frames, and frames with one side of each, on one
 * thread and with staging threads (whose queue then skips the frames sent
 * from a range). Runs: the reference side's windows only; both sides'
 * windows, registered by another thread while frames are sent. Every score
 * must equal the CPU backend's bit for bit, and every lent picture must come
 * back once; releases poison the frame's bytes. A third run (any runtime,
 * the null GPU too) registers nothing and copies every third distorted
 * frame, so the staging threads' queue skips frames. Where ranges are
 * taken, a private file mapping must be refused and a shared one taken.
 *
 *   test_gpu_hostreg null-dma|null|cuda|opencl   (77: no such device)
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/file_map.h"
#include "common/frame_map.h"
#include "runner.h"

#define W 352
#define H 288
#define NF 48
#define NREG 36 /* windows cover frames [0, NREG) */

static int fails;
static size_t page, win;

static void pictures(FrameMap *m, int lend, SpeedqaPicture *pic)
{
    for (int f = 0; f < NF; f++)
        fm_picture(m, f, lend, &pic[f]);
}

typedef struct Pin {
    void *priv;
    FrameMap *side;
    int nsides, ret;
} Pin;

static void *pin(void *arg)
{
    Pin *p = arg;
    const size_t top = fm_offset(p->side, NREG) / win * win;
    for (size_t a = 0; a < top && !p->ret; a += win)
        for (int s = 0; s < p->nsides && !p->ret; s++)
            p->ret = sq_gpu_host_register(p->priv, p->side[s].map + a, win);
    return NULL;
}

/* A private file mapping is refused (pinning one spun in the kernel on the
 * H200), a shared one taken. */
static void file_ranges(void *priv, const char *name)
{
    unsigned char *pv = tmp_file_map(2 * page, MAP_PRIVATE);
    unsigned char *sh = tmp_file_map(2 * page, MAP_SHARED);
    const int ok = pv != MAP_FAILED && sh != MAP_FAILED &&
                   sq_gpu_host_register(priv, pv, 2 * page) == -EINVAL &&
                   sq_gpu_host_register(priv, sh, 2 * page) == 0 &&
                   sq_gpu_host_unregister(priv, sh) == 0;
    printf("%s %s, a private file mapping refused, a shared one taken\n", ok ? "ok  " : "FAIL", name);
    fails += !ok;
    if (pv != MAP_FAILED)
        munmap(pv, 2 * page);
    if (sh != MAP_FAILED)
        munmap(sh, 2 * page);
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "null-dma";
    const SqGpuFns *fns = runner_gpu_fns(name);
    page = (size_t)sysconf(_SC_PAGESIZE);
    win = (3 * (size_t)W * H * 3 / 2 + page - 1) / page * page;
    static FrameMap sd[2];
    static SpeedqaPicture ref[NF], dis[NF];
    static double want[NF * 16], got[NF * 16];
    const SpeedqaFormat fmt = { W, H, SPEEDQA_PIX_420, 8 };
    const SqAlloc alloc = { 0 };
    static const char *const feats[] = { "speed_chroma", "speed_temporal", NULL };
    char err[400];
    if (!fns) {
        printf("SKIP: %s not built\n", name);
        return 77;
    }
    if (fm_init(&sd[0], W, H, NF, 0) < 0 || fm_init(&sd[1], W, H, NF, 1) < 0) {
        printf("FAIL: no memory\n");
        return 1;
    }
    Runner cpu = { 0 };
    pictures(&sd[0], 0, ref);
    pictures(&sd[1], 0, dis);
    if (runner_open(&cpu, &sq_backend_cpu, NULL, &fmt, feats, 1, &alloc, err, sizeof err) < 0 ||
        runner_run(&cpu, ref, dis, NF, NULL, want, err, sizeof err) < 0) {
        printf("FAIL cpu: %s\n", err);
        return 1;
    }
    const int nscores = cpu.nscores;
    runner_close(&cpu);
    static const int threads[] = { 1, 4 };
    static const char *const what[] = { "reference side registered",
                                        "both sides registered while sending",
                                        "no ranges, every third distorted frame copied" };
    /* a runtime without ranges (null, OpenCL): the mixed queue only */
    for (int mode = fns->host_register && fns->upload2d ? 0 : 2; mode < 3; mode++)
        for (int t = 0; t < 2; t++) {
            Runner g = { 0 };
            int ret = runner_open(&g, NULL, fns, &fmt, feats, threads[t], &alloc, err, sizeof err);
            if (ret == -ENODEV) {
                printf("SKIP: %s: %s\n", name, err);
                return 77;
            }
            if (ret < 0) {
                printf("FAIL open %s: %s\n", name, err);
                return 1;
            }
            fm_reset(&sd[0]);
            fm_reset(&sd[1]);
            pictures(&sd[0], 1, ref);
            pictures(&sd[1], 1, dis);
            /* mode 2: frames copied between lent ones, which the staging
             * threads' queue skips (each queued frame keeps its own slot) */
            for (int f = 0; mode == 2 && f < NF; f += 3)
                dis[f].release = NULL;
            /* mode 0: the reference's windows, before; mode 1: both, meanwhile */
            if (mode == 0 && t == 0)
                file_ranges(g.priv, name);
            Pin p = { g.priv, sd, mode ? 2 : 1, 0 };
            pthread_t th;
            int started = 0;
            if (mode == 0)
                pin(&p);
            else if (mode == 1)
                started = pthread_create(&th, NULL, pin, &p) == 0;
            memset(got, 0, sizeof got);
            ret = runner_run(&g, ref, dis, NF, NULL, got, err, sizeof err);
            if (started)
                pthread_join(th, NULL);
            runner_close(&g); /* unregisters what is left */
            int diff = -1, back = 1;
            for (int f = 0; f < NF && diff < 0; f++)
                if (memcmp(&want[f * nscores], &got[f * nscores], sizeof(double) * (size_t)nscores))
                    diff = f;
            for (int f = 0; f < NF; f++)
                back &= sd[0].back[f] == 1 && sd[1].back[f] == (dis[f].release ? 1 : 0);
            const int ok = ret == 0 && p.ret == 0 && diff < 0 && back;
            printf("%s %s, %s, %d thread(s)%s%s%s\n", ok ? "ok  " : "FAIL", name, what[mode],
                   threads[t], ret < 0 ? ": " : "", ret < 0 ? err : "",
                   !back ? ": a lent picture did not come back once" : "");
            if (diff >= 0)
                printf("     scores differ from the CPU's from frame %d on\n", diff);
            fails += !ok;
        }
    fm_free(&sd[0]);
    fm_free(&sd[1]);
    printf("%s\n", fails ? "FAILED" : "all passed");
    return fails ? 1 : 0;
}
