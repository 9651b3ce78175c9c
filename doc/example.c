/*
 * Smallest useful client of libspeedqa: scores two 8-bit 4:2:0 Y4M files
 * with speed_chroma and speed_temporal and prints one line per frame.
 *
 *   cc example.c -lspeedqa -o example
 *   ./example samples/ref.y4m samples/dis.y4m
 *
 * Error handling is kept, Y4M parsing is not (W and H tags only, no FRAME
 * parameters); the speedqa tool's readers handle the general case.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <speedqa/speedqa.h>

typedef struct Y4m {
    FILE *f;
    int w, h;
    unsigned char *buf;
} Y4m;

static int y4m_open(Y4m *y, const char *path)
{
    char line[512];
    memset(y, 0, sizeof *y);
    if (!(y->f = fopen(path, "rb")) || !fgets(line, sizeof line, y->f) ||
        strncmp(line, "YUV4MPEG2 ", 10) != 0)
        return -1;
    for (char *t = strtok(line + 10, " \n"); t; t = strtok(NULL, " \n")) {
        if (t[0] == 'W')
            y->w = atoi(t + 1);
        else if (t[0] == 'H')
            y->h = atoi(t + 1);
        else if (t[0] == 'C' && strncmp(t, "C420", 4) != 0)
            return -1; /* this example only reads 4:2:0 */
        else if (t[0] == 'C' && t[4] == 'p')
            return -1; /* ... at 8 bits */
    }
    if (y->w < 2 || y->h < 2)
        return -1;
    y->buf = malloc((size_t)y->w * y->h * 3 / 2);
    return y->buf ? 0 : -1;
}

/* 1: a frame in pic, 0: end of file, -1: error. */
static int y4m_read(Y4m *y, SpeedqaPicture *pic)
{
    char line[64];
    const size_t luma = (size_t)y->w * y->h, chroma = (size_t)(y->w / 2) * (y->h / 2);
    if (!fgets(line, sizeof line, y->f))
        return 0;
    if (strncmp(line, "FRAME", 5) != 0 || fread(y->buf, 1, luma + 2 * chroma, y->f) != luma + 2 * chroma)
        return -1;
    *pic = (SpeedqaPicture){
        .data = { y->buf, y->buf + luma, y->buf + luma + chroma },
        .stride = { y->w, y->w / 2, y->w / 2 },
        .format = { y->w, y->h, SPEEDQA_PIX_420, 8 },
        .memory = SPEEDQA_MEM_HOST,
    };
    return 1;
}

static void log_line(void *cookie, SpeedqaLogLevel level, const char *msg)
{
    (void)cookie;
    fprintf(stderr, "speedqa %s: %s\n", level == SPEEDQA_LOG_ERROR ? "error" : "note", msg);
}

static void print_scores(const SpeedqaContext *ctx, const SpeedqaScores *sc)
{
    printf("frame %u:", sc->frame);
    for (int i = 0; i < sc->count; i++)
        printf(" %s=%.6f", speedqa_score_name(ctx, i), sc->values[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s REF.y4m DIS.y4m (8-bit 4:2:0; odd sizes not handled)\n", argv[0]);
        return 2;
    }
    Y4m ref, dis;
    if (y4m_open(&ref, argv[1]) < 0 || y4m_open(&dis, argv[2]) < 0) {
        fprintf(stderr, "cannot read %s or %s as 8-bit 4:2:0 Y4M\n", argv[1], argv[2]);
        return 1;
    }

    if (ref.w != dis.w || ref.h != dis.h) {
        fprintf(stderr, "%s and %s differ in size\n", argv[1], argv[2]);
        return 1;
    }

    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.format = (SpeedqaFormat){ ref.w, ref.h, SPEEDQA_PIX_420, 8 };
    s.features = NULL;  /* speed_chroma and speed_temporal, default options */
    s.n_threads = 0;    /* one worker per core; results do not depend on it */
    s.logger = log_line;

    SpeedqaContext *ctx;
    int ret = speedqa_open(&ctx, &s);
    if (ret < 0) {
        fprintf(stderr, "speedqa_open: %s\n", speedqa_strerror(ret));
        return 1;
    }

    SpeedqaScores sc;
    SpeedqaPicture pr, pd;
    ret = 0;
    while (y4m_read(&ref, &pr) == 1 && y4m_read(&dis, &pd) == 1) {
        /* A full queue says -EAGAIN: take finished frames, then retry. */
        while ((ret = speedqa_send(ctx, &pr, &pd)) == SPEEDQA_ERR(EAGAIN))
            if (speedqa_receive(ctx, &sc, 1, 0) == 0)
                print_scores(ctx, &sc);
        if (ret < 0)
            break;
        while (speedqa_receive(ctx, &sc, 1, 0) == 0)
            print_scores(ctx, &sc);
    }
    if (ret >= 0) {
        speedqa_flush(ctx); /* end of stream: every frame sent becomes receivable */
        while ((ret = speedqa_receive(ctx, &sc, 1, 0)) == 0)
            print_scores(ctx, &sc);
        if (ret == SPEEDQA_EOF) /* every frame received */
            ret = 0;
    }
    if (ret < 0)
        fprintf(stderr, "scoring failed: %s\n", speedqa_strerror(ret));

    speedqa_close(&ctx);
    fclose(ref.f);
    fclose(dis.f);
    free(ref.buf);
    free(dis.buf);
    return ret < 0 ? 1 : 0;
}
