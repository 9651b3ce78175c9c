/*
 * The entry points that need no context: version, error texts, the
 * feature-string check, picture memory, pooling, format names.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/job.h"
#include "core/mem.h"
#include "core/pool.h"
#include "feature/options.h"
#include "speedqa/speedqa.h"

const char *speedqa_version(void)
{
    return SPEEDQA_VERSION_STRING;
}

const char *speedqa_pix_fmt_name(SpeedqaPixelFormat f)
{
    static const char *const n[] = { "400", "420", "422", "444" };
    return (unsigned)f < 4 ? n[f] : "unknown";
}

int speedqa_check_features(const char *const *features, char *err, size_t errlen)
{
    char tmp[2];
    if (!err || !errlen) {
        err = tmp;
        errlen = sizeof(tmp);
    }
    err[0] = '\0';
    SqFeatureSpec spec[SPEEDQA_MAX_FEATURES];
    int nadm = 0;
    for (int i = 0; features && features[i]; i++) {
        if (i == SPEEDQA_MAX_FEATURES) {
            snprintf(err, errlen, "more than %d features", SPEEDQA_MAX_FEATURES);
            return SPEEDQA_ERR(EINVAL);
        }
        const int ret = sq_feature_parse(&spec[i], features[i], err, errlen);
        if (ret < 0)
            return ret;
        /* their raw results have room for SQ_MAX_ADM_JOBS (core/job.h) */
        if ((nadm += spec[i].kind == SQ_FEATURE_ADM) > SQ_MAX_ADM_JOBS) {
            snprintf(err, errlen, "at most %d adm features per context", SQ_MAX_ADM_JOBS);
            return SPEEDQA_ERR(EINVAL);
        }
        /* the same kind and options twice would give the same output names */
        for (int j = 0; j < i; j++)
            if (spec[j].kind == spec[i].kind && !strcmp(spec[j].suffix, spec[i].suffix)) {
                snprintf(err, errlen, "feature '%s' is requested twice", features[i]);
                return SPEEDQA_ERR(EEXIST);
            }
    }
    return 0;
}

void *speedqa_buffer_alloc(size_t size)
{
    return sq_malloc(NULL, size, 1);
}

void speedqa_buffer_free(void *ptr)
{
    sq_free(NULL, ptr);
}

unsigned speedqa_version_int(void)
{
    return SPEEDQA_VERSION;
}

int speedqa_pool(const double *values, size_t n, ptrdiff_t stride, SpeedqaPooled *out)
{
    if (!values || !out || n == 0 || stride < 1)
        return SPEEDQA_ERR(EINVAL);
    double sum = 0.0, inv = 0.0, mn = values[0], mx = values[0];
    for (size_t i = 0; i < n; i++) {
        const double x = values[(ptrdiff_t)i * stride];
        sum += x;
        inv += 1.0 / (x + 1.0);
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
    }
    out->min = mn;
    out->max = mx;
    out->mean = sum / (double)n;
    out->harmonic_mean = (double)n / inv - 1.0;
    memset(out->reserved, 0, sizeof(out->reserved));
    return 0;
}

const char *speedqa_strerror(int err)
{
    if (err > 0 || err < -4095)
        return "unknown error"; /* (negating INT_MIN would overflow) */
    switch (-err) {
    case 0: return "success";
    case EINVAL: return "invalid argument";
    case ENOMEM: return "out of memory";
    case EAGAIN: return "try again (receive or send first)";
    case ENOSYS: return "backend not built";
    case ENODEV: return "no usable device";
    case EIO: return "backend failure";
    case ERANGE: return "sample value above the declared bit depth";
    case EDOM: return "score undefined for this frame";
    case ENODATA: return "end of stream: every flushed frame has been received";
    case ENOTSUP: return "feature or option not implemented by speedqa";
    case EEXIST: return "a feature requested twice";
    default: return "unknown error";
    }
}

_Static_assert(SQ_AUTO_THREADS_MAX == 64, "speedqa.h documents speedqa_auto_threads() as at most 64");

int speedqa_auto_threads(void)
{
    return sq_auto_threads();
}
