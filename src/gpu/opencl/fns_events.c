/*
 * The event half of the OpenCL SqGpuFns (fns.c): an event slot holds the
 * marker last enqueued for it, released when the slot is recorded again
 * (or by fns.c when the device closes). Queues are profiled, so two
 * recorded events give the elapsed time between them.
 */
#include <errno.h>

#include "gpu/opencl/fns_priv.h"

/*
 * Where a call on event slot `event` stands: < 0 the sticky error or the
 * slot out of range, 0 nothing recorded in it, 1 an event recorded.
 */
static int event_slot(SqGpuDev *d, int event)
{
    STICKY();
    if (event < 0 || event >= d->nev)
        return sq_cl_fail(d, -EINVAL, "OpenCL: event %d out of range", event);
    return d->ev[event] != NULL;
}

int sq_cl_event_record(SqGpuDev *d, int event, int stream)
{
    cl_event e = NULL;
    int ret = event_slot(d, event);
    if (ret < 0)
        return ret;
    CL(d->cl.EnqueueMarkerWithWaitList(d->q[stream], 0, NULL, &e));
    if (d->ev[event])
        d->cl.ReleaseEvent(d->ev[event]);
    d->ev[event] = e;
    /* Submit now: a query must see the work make progress. */
    CL(d->cl.Flush(d->q[stream]));
    return 0;
error:
    return ret;
}

static int event_status(SqGpuDev *d, cl_event e)
{
    int ret = 0;
    cl_int st = CL_COMPLETE;
    CL(d->cl.GetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
    if (st < 0)
        return sq_cl_fail_call(d, "command before event", st, __FILE__, __LINE__);
    return st == CL_COMPLETE;
error:
    return ret;
}

int sq_cl_event_query(SqGpuDev *d, int event)
{
    const int ret = event_slot(d, event);
    if (ret < 0)
        return ret;
    return ret ? event_status(d, d->ev[event]) : 1;
}

int sq_cl_event_sync(SqGpuDev *d, int event)
{
    int ret = event_slot(d, event);
    if (ret <= 0)
        return ret;
    CL(d->cl.WaitForEvents(1, &d->ev[event]));
    ret = event_status(d, d->ev[event]);
    return ret < 0 ? ret : 0;
error:
    return ret;
}

int sq_cl_stream_wait(SqGpuDev *d, int stream, int event)
{
    int ret = event_slot(d, event);
    if (ret <= 0)
        return ret;
    CL(d->cl.EnqueueBarrierWithWaitList(d->q[stream], 1, &d->ev[event], NULL));
    return 0;
error:
    return ret;
}

int sq_cl_event_elapsed(SqGpuDev *d, int from, int to, float *ms)
{
    int ret = 0;
    cl_ulong t0 = 0, t1 = 0;
    STICKY();
    if (from < 0 || from >= d->nev || to < 0 || to >= d->nev || !d->ev[from] || !d->ev[to])
        return sq_cl_fail(d, -EINVAL, "OpenCL: events %d, %d not recorded", from, to);
    CL(d->cl.GetEventProfilingInfo(d->ev[from], CL_PROFILING_COMMAND_END, sizeof(t0), &t0, NULL));
    CL(d->cl.GetEventProfilingInfo(d->ev[to], CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL));
    *ms = (float)((double)(cl_long)(t1 - t0) * 1e-6);
    return 0;
error:
    return ret;
}
