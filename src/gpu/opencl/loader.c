#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu/opencl/cl.h"

int sq_cl_load(SqCl *cl, char *err, size_t errlen)
{
    static const char *const names[] = { "libOpenCL.so.1", "libOpenCL.so" };
    memset(cl, 0, sizeof(*cl));
    /*
     * RTLD_NODELETE: the ICD loader and the vendor drivers it opens keep
     * process-lifetime state (ocl-icd builds its platform list once);
     * unmapping them at every close would redo and leak that per context.
     */
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !cl->lib; i++)
        cl->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!cl->lib) {
        snprintf(err, errlen, "no OpenCL runtime: cannot load libOpenCL.so.1 (%s)", dlerror());
        return -ENODEV;
    }
    /* POSIX allows the object-to-function pointer conversion dlsym needs. */
#define SQ_CL_SYM(ret, name, args)                                                     \
    *(void **)&cl->name = dlsym(cl->lib, "cl" #name);                                  \
    if (!cl->name) {                                                                   \
        snprintf(err, errlen, "the OpenCL loader lacks cl" #name " (OpenCL 1.2 needed)"); \
        sq_cl_unload(cl);                                                              \
        return -ENODEV;                                                                \
    }
    SQ_CL_FUNCS(SQ_CL_SYM)
#undef SQ_CL_SYM
    return 0;
}

void sq_cl_unload(SqCl *cl)
{
    if (cl->lib)
        dlclose(cl->lib);
    memset(cl, 0, sizeof(*cl));
}

const char *sq_cl_strerror(cl_int e, char *buf, size_t len)
{
    static const struct { cl_int code; const char *name; } tab[] = {
#define E(x) { x, #x }
        E(CL_SUCCESS), E(CL_DEVICE_NOT_FOUND), E(CL_DEVICE_NOT_AVAILABLE),
        E(CL_COMPILER_NOT_AVAILABLE), E(CL_MEM_OBJECT_ALLOCATION_FAILURE),
        E(CL_OUT_OF_RESOURCES), E(CL_OUT_OF_HOST_MEMORY), E(CL_PROFILING_INFO_NOT_AVAILABLE),
        E(CL_MEM_COPY_OVERLAP), E(CL_IMAGE_FORMAT_MISMATCH), E(CL_IMAGE_FORMAT_NOT_SUPPORTED),
        E(CL_BUILD_PROGRAM_FAILURE), E(CL_MAP_FAILURE), E(CL_MISALIGNED_SUB_BUFFER_OFFSET),
        E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST), E(CL_COMPILE_PROGRAM_FAILURE),
        E(CL_LINKER_NOT_AVAILABLE), E(CL_LINK_PROGRAM_FAILURE), E(CL_DEVICE_PARTITION_FAILED),
        E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE), E(CL_INVALID_VALUE), E(CL_INVALID_DEVICE_TYPE),
        E(CL_INVALID_PLATFORM), E(CL_INVALID_DEVICE), E(CL_INVALID_CONTEXT),
        E(CL_INVALID_QUEUE_PROPERTIES), E(CL_INVALID_COMMAND_QUEUE), E(CL_INVALID_HOST_PTR),
        E(CL_INVALID_MEM_OBJECT), E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
        E(CL_INVALID_IMAGE_SIZE), E(CL_INVALID_SAMPLER), E(CL_INVALID_BINARY),
        E(CL_INVALID_BUILD_OPTIONS), E(CL_INVALID_PROGRAM), E(CL_INVALID_PROGRAM_EXECUTABLE),
        E(CL_INVALID_KERNEL_NAME), E(CL_INVALID_KERNEL_DEFINITION), E(CL_INVALID_KERNEL),
        E(CL_INVALID_ARG_INDEX), E(CL_INVALID_ARG_VALUE), E(CL_INVALID_ARG_SIZE),
        E(CL_INVALID_KERNEL_ARGS), E(CL_INVALID_WORK_DIMENSION), E(CL_INVALID_WORK_GROUP_SIZE),
        E(CL_INVALID_WORK_ITEM_SIZE), E(CL_INVALID_GLOBAL_OFFSET), E(CL_INVALID_EVENT_WAIT_LIST),
        E(CL_INVALID_EVENT), E(CL_INVALID_OPERATION), E(CL_INVALID_GL_OBJECT),
        E(CL_INVALID_BUFFER_SIZE), E(CL_INVALID_MIP_LEVEL), E(CL_INVALID_GLOBAL_WORK_SIZE),
        E(CL_INVALID_PROPERTY), E(CL_INVALID_IMAGE_DESCRIPTOR), E(CL_INVALID_COMPILER_OPTIONS),
        E(CL_INVALID_LINKER_OPTIONS), E(CL_INVALID_DEVICE_PARTITION_COUNT),
#undef E
    };
    for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
        if (tab[i].code == e)
            return tab[i].name;
    snprintf(buf, len, "CL error %d", (int)e);
    return buf;
}
