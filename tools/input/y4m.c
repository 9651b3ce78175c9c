/*
 * YUV4MPEG2 reader. The header is parsed tag by tag (never compared as a
 * whole) so that writers adding X tags, I/A tags or odd tag orders work.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "input_priv.h"

#define Y4M_MAGIC "YUV4MPEG2 "

/*
 * Reads a line into line[SQ_INPUT_MAX_LINE + 1] without its newline.
 * Returns the length, or a negative errno with the message set; `what`
 * names the line in messages.
 */
static int read_line(SqInput *in, char *line, const char *what)
{
    size_t n = 0;
    for (;;) {
        int c = sq_in_getc(in);
        if (c == '\n')
            break;
        if (c == EOF) {
            if (sq_in_ioerror(in))
                return sq_in_fail(in, -EIO, "read error in %s", what);
            return sq_in_fail(in, -EINVAL, "truncated %s (no newline)", what);
        }
        if (n == SQ_INPUT_MAX_LINE)
            return sq_in_fail(in, -EINVAL, "%s longer than %d bytes (no newline)",
                              what, SQ_INPUT_MAX_LINE);
        line[n++] = (char)c;
    }
    line[n] = '\0';
    return (int)n;
}

/*
 * Parses an optionally signed decimal integer that must span all of s.
 * Values are clamped to +-1e12 so they cannot overflow yet stay clearly
 * out of range. Returns 0 on success, -1 when s is not a number.
 */
static int parse_int(const char *s, long long *v)
{
    int neg = 0;
    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    if (*s < '0' || *s > '9')
        return -1;
    long long x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        if (x < 1000000000000LL)
            x = x * 10 + (*s - '0');
    }
    *v = neg ? -x : x;
    return 0;
}

static int parse_dim(SqInput *in, const char *val, const char *what, int *out)
{
    long long v;
    if (parse_int(val, &v) < 0)
        return sq_in_fail(in, -EINVAL, "bad %s '%s' in Y4M header", what, val);
    if (v < 1 || v > SQ_INPUT_MAX_DIM)
        return sq_in_fail(in, -EINVAL, "%s %s in Y4M header outside 1..%d",
                          what, val, SQ_INPUT_MAX_DIM);
    *out = (int)v;
    return 0;
}

/* F<num>:<den>; F0:0 is taken as "unknown", as some writers emit it. */
static int parse_rate(SqInput *in, const char *val)
{
    const char *colon = strchr(val, ':');
    char num[24];
    long long n, d;
    size_t len = colon ? (size_t)(colon - val) : 0;
    if (!colon || len == 0 || len >= sizeof num)
        goto bad;
    memcpy(num, val, len);
    num[len] = '\0';
    if (parse_int(num, &n) < 0 || parse_int(colon + 1, &d) < 0)
        goto bad;
    if (n == 0 && d == 0)
        return 0;
    if (n < 1 || d < 1 || n > INT_MAX || d > INT_MAX)
        goto bad;
    in->info.fps_num = (int)n;
    in->info.fps_den = (int)d;
    return 0;
bad:
    return sq_in_fail(in, -EINVAL, "bad frame rate 'F%s' in Y4M header", val);
}

/* Bit depth suffix "" (8) or "9".."16"; -1 when anything else. */
static int parse_depth(const char *s)
{
    long long v;
    if (*s == '\0')
        return 8;
    if (*s == '+' || *s == '-' || parse_int(s, &v) < 0 || v < 9 || v > 16)
        return -1;
    return (int)v;
}

static int parse_chroma(SqInput *in, const char *val, SpeedqaFormat *f)
{
    static const struct { const char *prefix; SpeedqaPixelFormat fmt; } fam[] = {
        { "420", SPEEDQA_PIX_420 },
        { "422", SPEEDQA_PIX_422 },
        { "444", SPEEDQA_PIX_444 },
    };
    /* 8-bit 4:2:0 variants differ only in chroma siting, which the
     * features do not look at. */
    if (!strcmp(val, "420jpeg") || !strcmp(val, "420paldv") || !strcmp(val, "420mpeg2")) {
        f->fmt = SPEEDQA_PIX_420;
        f->bpc = 8;
        return 0;
    }
    if (!strcmp(val, "444alpha"))
        return sq_in_fail(in, -EINVAL, "chroma 'C444alpha': alpha planes are not supported");

    int bpc = -1;
    if (!strncmp(val, "mono", 4)) {
        f->fmt = SPEEDQA_PIX_400;
        bpc = parse_depth(val + 4);
    } else {
        for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++) {
            if (strncmp(val, fam[i].prefix, 3) != 0)
                continue;
            f->fmt = fam[i].fmt;
            if (val[3] == '\0')
                bpc = 8;
            else if (val[3] == 'p' && val[4] != '\0')
                bpc = parse_depth(val + 4);
            break;
        }
    }
    if (bpc < 0)
        return sq_in_fail(in, -EINVAL, "unknown chroma tag 'C%s' in Y4M header", val);
    f->bpc = bpc;
    return 0;
}

static int y4m_open(SqInput *in, const SqRawParams *raw)
{
    (void)raw; /* geometry comes from the header */
    /* Checked on the peeked bytes first: a file that is not Y4M at all
     * should say so, not complain about a missing newline. */
    if (in->pb_len != SQ_INPUT_PEEK || memcmp(in->pb, Y4M_MAGIC, SQ_INPUT_PEEK) != 0)
        return sq_in_fail(in, -EINVAL, "not a Y4M file (no YUV4MPEG2 signature)");
    char line[SQ_INPUT_MAX_LINE + 1];
    int len = read_line(in, line, "Y4M header");
    if (len < 0)
        return len;

    SpeedqaFormat f = { 0, 0, SPEEDQA_PIX_420, 8 };
    int r = 0;
    for (char *tok = line + strlen(Y4M_MAGIC), *next; *tok && r == 0; tok = next) {
        next = strchr(tok, ' ');
        if (next)
            *next++ = '\0';
        else
            next = tok + strlen(tok);
        switch (tok[0]) {
        case 'W': r = parse_dim(in, tok + 1, "width", &f.width); break;
        case 'H': r = parse_dim(in, tok + 1, "height", &f.height); break;
        case 'F': r = parse_rate(in, tok + 1); break;
        case 'C': r = parse_chroma(in, tok + 1, &f); break;
        case 'I':
            /* fields are scored as one progressive frame, as libvmaf does;
             * the caller says so (info.interlace) */
            if (tok[1] == 't' || tok[1] == 'b' || tok[1] == 'm')
                in->info.interlace = tok[1];
            break;
        case 'X':
            /* ffmpeg's extension: XCOLORRANGE=FULL for yuvj* sources */
            if (!strcmp(tok, "XCOLORRANGE=FULL"))
                in->info.range = SQ_RANGE_FULL;
            else if (!strcmp(tok, "XCOLORRANGE=LIMITED"))
                in->info.range = SQ_RANGE_LIMITED;
            break;
        default: break; /* A and tags from the future carry nothing we use */
        }
    }
    if (r < 0)
        return r;
    if (f.width == 0)
        return sq_in_fail(in, -EINVAL, "Y4M header has no W (width) tag");
    if (f.height == 0)
        return sq_in_fail(in, -EINVAL, "Y4M header has no H (height) tag");
    in->info.frames = -1; /* counting would need a pass over the FRAME lines */
    return sq_in_set_format(in, &f);
}

/*
 * Consumes "FRAME[ params]\n". Returns 1, 0 at a clean end (nothing at
 * all before EOF), or a negative errno.
 */
static int frame_header(SqInput *in)
{
    static const char marker[] = "FRAME";
    int c = sq_in_getc(in);
    if (c == EOF) {
        if (sq_in_ioerror(in))
            return sq_in_fail(in, -EIO, "read error before frame %lld", in->frame_no);
        return 0;
    }
    for (size_t i = 0;; c = sq_in_getc(in)) {
        if (i == sizeof marker - 1) {
            if (c == '\n')
                return 1;
            if (c == ' ')
                break;
        }
        if (c == EOF && sq_in_ioerror(in))
            return sq_in_fail(in, -EIO, "read error in frame %lld", in->frame_no);
        if (i == sizeof marker - 1 || c != marker[i])
            return sq_in_fail(in, -EINVAL, "bad FRAME marker at frame %lld", in->frame_no);
        i++;
    }
    /* Frame parameters are allowed by the format; none affects the samples. */
    char line[SQ_INPUT_MAX_LINE + 1];
    char what[64];
    snprintf(what, sizeof what, "FRAME line of frame %lld", in->frame_no);
    int r = read_line(in, line, what);
    return r < 0 ? r : 1;
}

static int y4m_read(SqInput *in)
{
    int r = frame_header(in);
    return r == 1 ? sq_in_read_payload(in, 0) : r;
}

static int y4m_skip(SqInput *in)
{
    int r = frame_header(in);
    return r == 1 ? sq_in_skip_payload(in, 0) : r;
}

const SqReader sq_reader_y4m = {
    .name = "y4m",
    .open = y4m_open,
    .read = y4m_read,
    .skip = y4m_skip,
    .close = NULL,
};
