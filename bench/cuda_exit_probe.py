#!/usr/bin/env python3
"""Whole-process time of a CUDA process that starts the driver, allocates
what speedqa allocates at 1080p (296 MB of device memory, 109 MB pinned),
then ends one way or another, to see where a CUDA job's exit time goes:

    cuda_exit_probe.py MODE     (time it from outside)

MODE: release (frees and releases the primary context, then a normal exit:
atexit handlers and the driver's own), exit (a normal exit with everything
live), _exit (os._exit with everything live: no atexit handler, no library
destructor; the kernel closes the driver's files)."""
import ctypes
import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "release"
cu = ctypes.CDLL("libcuda.so.1")
ctx = ctypes.c_void_p()
dptr = ctypes.c_uint64()
hptr = ctypes.c_void_p()
assert cu.cuInit(0) == 0
assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) == 0
assert cu.cuCtxSetCurrent(ctx) == 0
assert cu.cuMemAlloc_v2(ctypes.byref(dptr), ctypes.c_size_t(296 << 20)) == 0
assert cu.cuMemHostAlloc(ctypes.byref(hptr), ctypes.c_size_t(109 << 20), 0) == 0
sys.stdout.flush()
if mode == "release":
    cu.cuMemFreeHost(hptr)
    cu.cuMemFree_v2(dptr)
    cu.cuDevicePrimaryCtxRelease(0)
elif mode == "_exit":
    os._exit(0)
