/* Platform/device enumeration and selection, list_devices, program build. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/backend.h"
#include "gpu/opencl/cl.h"

static void info_str(const SqCl *cl, cl_device_id d, cl_device_info what, char *buf, size_t len)
{
    buf[0] = '\0';
    if (cl->GetDeviceInfo(d, what, len, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[len - 1] = '\0';
}

static int has_word(const char *list, const char *word)
{
    const size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

int sq_cl_enumerate(const SqCl *cl, SqClDevInfo *out, int max)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    int count = 0;
    if (cl->GetPlatformIDs(16, plats, &np) != CL_SUCCESS)
        return 0;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        char pname[256] = "";
        if (cl->GetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof(pname), pname, NULL))
            pname[0] = '\0';
        pname[sizeof(pname) - 1] = '\0';
        cl_device_id devs[SQ_CL_MAX_DEVICES];
        cl_uint nd = 0;
        if (cl->GetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, SQ_CL_MAX_DEVICES, devs, &nd))
            continue;
        for (cl_uint i = 0; i < nd && i < SQ_CL_MAX_DEVICES && count < max; i++) {
            SqClDevInfo *o = &out[count++];
            memset(o, 0, sizeof(*o));
            o->platform = plats[p];
            o->device = devs[i];
            memcpy(o->platform_name, pname, sizeof(pname));
            info_str(cl, devs[i], CL_DEVICE_NAME, o->name, sizeof(o->name));
            info_str(cl, devs[i], CL_DRIVER_VERSION, o->driver, sizeof(o->driver));
            info_str(cl, devs[i], CL_DEVICE_VERSION, o->version, sizeof(o->version));
            cl->GetDeviceInfo(devs[i], CL_DEVICE_TYPE, sizeof(o->type), &o->type, NULL);
            cl->GetDeviceInfo(devs[i], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(o->mem), &o->mem, NULL);
            cl->GetDeviceInfo(devs[i], CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(o->max_alloc),
                              &o->max_alloc, NULL);
            cl->GetDeviceInfo(devs[i], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(o->units), &o->units, NULL);
            char ext[16384];
            info_str(cl, devs[i], CL_DEVICE_EXTENSIONS, ext, sizeof(ext));
            cl_device_fp_config dfp = 0, sfp = 0;
            if (cl->GetDeviceInfo(devs[i], CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(dfp), &dfp, NULL))
                dfp = 0;
            if (cl->GetDeviceInfo(devs[i], CL_DEVICE_SINGLE_FP_CONFIG, sizeof(sfp), &sfp, NULL))
                sfp = 0;
            o->fp64 = has_word(ext, "cl_khr_fp64") && dfp != 0;
            o->cr_divsqrt = (sfp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
            o->denorms = (sfp & CL_FP_DENORM) != 0;
        }
    }
    return count;
}

int sq_cl_soft_f64(const SqClDevInfo *d, int forced)
{
    return !d->fp64 || forced;
}

/*
 * What the device lacks for bit-exact scores, or NULL. Doubles are not
 * needed: without cl_khr_fp64 the program is built with soft doubles.
 */
static const char *missing(const SqClDevInfo *d)
{
    if (!d->cr_divsqrt)
        return "correctly rounded float divide/sqrt (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)";
    if (!d->denorms)
        return "denormal floats (CL_FP_DENORM)";
    return NULL;
}

int sq_cl_select(const SqCl *cl, int index, const char *name, SqClDevInfo *out, int *flat,
                 char *err, size_t errlen)
{
    SqClDevInfo all[SQ_CL_MAX_DEVICES];
    const int n = sq_cl_enumerate(cl, all, SQ_CL_MAX_DEVICES);
    int pick = -1;
    if (!n) {
        snprintf(err, errlen, "no OpenCL device found (is an ICD registered in /etc/OpenCL/vendors?)");
        return -ENODEV;
    }
    if (name && name[0]) {
        for (int i = 0; i < n && pick < 0; i++)
            if (strcasestr(all[i].name, name))
                pick = i;
        for (int i = 0; i < n && pick < 0; i++)
            if (strcasestr(all[i].platform_name, name))
                pick = i;
        if (pick < 0) {
            snprintf(err, errlen, "no OpenCL device or platform name contains '%s'", name);
            return -ENODEV;
        }
    } else if (index >= 0) {
        if (index >= n) {
            snprintf(err, errlen, "OpenCL device %d requested, %d found", index, n);
            return -ENODEV;
        }
        pick = index;
    } else {
        const int passes = index == SQ_DEVICE_GPU_ONLY ? 1 : 2;
        for (int pass = 0; pass < passes && pick < 0; pass++)
            for (int i = 0; i < n && pick < 0; i++)
                if (!missing(&all[i]) && (pass || (all[i].type & CL_DEVICE_TYPE_GPU)))
                    pick = i;
        if (pick < 0 && passes == 1) {
            snprintf(err, errlen, "no OpenCL GPU with what speedqa needs (%d CPU/other devices)", n);
            return -ENODEV;
        }
        if (pick < 0) {
            snprintf(err, errlen, "OpenCL device '%s' (%s) lacks %s", all[0].name,
                     all[0].platform_name, missing(&all[0]));
            return -ENODEV;
        }
    }
    const char *why = missing(&all[pick]);
    if (why) {
        snprintf(err, errlen, "OpenCL device '%s' (%s) lacks %s", all[pick].name,
                 all[pick].platform_name, why);
        return -ENODEV;
    }
    *out = all[pick];
    *flat = pick;
    return 0;
}

int sq_cl_list_devices(char *buf, size_t len)
{
    SqCl cl;
    char err[256];
    if (buf && len)
        buf[0] = '\0';
    if (sq_cl_load(&cl, err, sizeof(err)) < 0)
        return 0;
    SqClDevInfo all[SQ_CL_MAX_DEVICES];
    const int n = sq_cl_enumerate(&cl, all, SQ_CL_MAX_DEVICES);
    size_t used = 0;
    for (int i = 0; i < n && buf && used < len; i++) {
        const SqClDevInfo *d = &all[i];
        const char *why = missing(d);
        const int w = snprintf(buf + used, len - used,
                               "%d: %s (%s, %s, driver %s, %u compute units, %llu MiB, fp64: %s%s%s)\n",
                               i, d->name, d->platform_name, d->version, d->driver, d->units,
                               (unsigned long long)(d->mem >> 20),
                               d->fp64 ? "hardware" : "soft",
                               why ? "; unusable: lacks " : "", why ? why : "");
        if (w < 0)
            break;
        used += (size_t)w;
    }
    sq_cl_unload(&cl);
    return n;
}

static void build_log(const SqCl *cl, cl_program prog, const SqClDevInfo *dev, char *err,
                      size_t errlen, const char *what, cl_int e)
{
    char name[48], log[2048] = "";
    if (cl->GetProgramBuildInfo(prog, dev->device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL))
        log[0] = '\0';
    log[sizeof(log) - 1] = '\0';
    snprintf(err, errlen, "%s failed (%s): %s", what, sq_cl_strerror(e, name, sizeof(name)), log);
}

int sq_cl_build(const SqCl *cl, cl_context ctx, const SqClDevInfo *dev, const char *src,
                size_t srclen, const char *opts, const SqAlloc *a, cl_program *out,
                int *from_cache, char *err, size_t errlen)
{
    SqClCacheKey key;
    size_t blen = 0;
    cl_int e = CL_SUCCESS;
    cl_program prog = NULL;
    *out = NULL;
    *from_cache = 0;
    sq_cl_cache_key(&key, dev, src, srclen, opts);
    unsigned char *bin = sq_cl_cache_load(&key, a, &blen);
    if (bin && sq_cl_cache_hold(&key) < 0) {
        sq_free(a, bin);
        bin = NULL;
    }
    if (bin) {
        const unsigned char *bins[1] = { bin };
        cl_int status = CL_SUCCESS;
        prog = cl->CreateProgramWithBinary(ctx, 1, &dev->device, &blen, bins, &status, &e);
        if (prog && e == CL_SUCCESS && status == CL_SUCCESS &&
            cl->BuildProgram(prog, 1, &dev->device, opts, NULL, NULL) == CL_SUCCESS) {
            sq_free(a, bin);
            sq_cl_cache_release(&key, 1);
            *out = prog;
            *from_cache = 1;
            return 0;
        }
        /* Stale: rebuild from source below and write a fresh entry. */
        sq_cl_cache_release(&key, 0);
        if (prog)
            cl->ReleaseProgram(prog);
        sq_free(a, bin);
    }
    prog = cl->CreateProgramWithSource(ctx, 1, &src, &srclen, &e);
    if (!prog || e != CL_SUCCESS) {
        char name[48];
        snprintf(err, errlen, "clCreateProgramWithSource failed (%s)", sq_cl_strerror(e, name, sizeof(name)));
        return -EIO;
    }
    if ((e = cl->BuildProgram(prog, 1, &dev->device, opts, NULL, NULL)) != CL_SUCCESS) {
        build_log(cl, prog, dev, err, errlen, "clBuildProgram", e);
        cl->ReleaseProgram(prog);
        return -EIO;
    }
    size_t size = 0;
    if (cl->GetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL) == CL_SUCCESS &&
        size && (bin = sq_calloc(a, size, 1))) {
        unsigned char *bins[1] = { bin };
        if (cl->GetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL) == CL_SUCCESS)
            sq_cl_cache_store(&key, bin, size);
        sq_free(a, bin);
    }
    *out = prog;
    return 0;
}
