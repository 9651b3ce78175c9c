#!/usr/bin/env python3
"""Where a CUDA process's fixed start-up and close time goes, driver call by
driver call (ctypes on libcuda, no speedqa code), in a fresh process:

    cuda_startup_probe.py [FATBIN] [--pinned MB] [--arena MB] [--overlap]
                          [--no-release | --exit-live] [--register]

Prints ms for cuInit, the primary context, the module load (FATBIN: the
build's speedqa_kernels.fatbin), a pinned host allocation and a device
allocation the size of speedqa's defaults at 1080p, their frees, the
context release. --overlap runs cuInit + context on a thread while the main
thread touches 1 GiB of fresh memory, to show whether the driver's start-up
leaves the CPU free for other work (the CLI's read-ahead). --no-release
frees the memory but keeps the primary context (as the CUDA runtime does
until exit); --exit-live exits with everything allocated: time the whole
process from outside to see what process exit costs instead. --register
also pins the same size of anonymous huge-page memory with
cuMemHostRegister, against cuMemHostAlloc."""
import os
import ctypes
import sys
import threading
import time

def ms(t0):
    return (time.perf_counter() - t0) * 1e3

def main():
    args = sys.argv[1:]
    fatbin = args[0] if args and not args[0].startswith("--") else None
    pinned = int(args[args.index("--pinned") + 1]) if "--pinned" in args else 109
    arena = int(args[args.index("--arena") + 1]) if "--arena" in args else 296
    t_all = time.perf_counter()
    cu = ctypes.CDLL("libcuda.so.1")
    print("dlopen           %7.1f ms" % ms(t_all))
    dev = ctypes.c_int()
    ctx = ctypes.c_void_p()
    def start():
        t = time.perf_counter(); r = cu.cuInit(0); print("cuInit           %7.1f ms  (rc %d)" % (ms(t), r))
        t = time.perf_counter(); cu.cuDeviceGet(ctypes.byref(dev), 0)
        r = cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
        print("primary ctx      %7.1f ms  (rc %d)" % (ms(t), r))
        cu.cuCtxPushCurrent_v2(ctx)
    if "--overlap" in args:
        t = time.perf_counter()
        th = threading.Thread(target=start)
        th.start()
        buf = bytearray(1 << 30)  # page faults on this thread meanwhile
        for i in range(0, len(buf), 4096):
            buf[i] = 1
        tb = ms(t)
        th.join()
        print("overlap: 1 GiB touched in %.1f ms while starting; both done at %.1f ms" % (tb, ms(t)))
        cu.cuCtxSetCurrent(ctx)
    else:
        start()
    if fatbin:
        data = open(fatbin, "rb").read()
        mod = ctypes.c_void_p()
        t = time.perf_counter(); r = cu.cuModuleLoadData(ctypes.byref(mod), data)
        print("module load      %7.1f ms  (rc %d, %d KB)" % (ms(t), r, len(data) // 1024))
    hp = ctypes.c_void_p()
    t = time.perf_counter(); r = cu.cuMemHostAlloc(ctypes.byref(hp), ctypes.c_size_t(pinned << 20), 0)
    print("pinned %4d MB   %7.1f ms  (rc %d)" % (pinned, ms(t), r))
    if "--register" in args:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long]
        n = pinned << 20
        t = time.perf_counter()
        p = libc.mmap(None, n, 3, 0x22, -1, 0)  # PROT_READ|WRITE, MAP_PRIVATE|ANONYMOUS
        libc.madvise(ctypes.c_void_p(p), ctypes.c_size_t(n), 14)  # MADV_HUGEPAGE
        ctypes.memset(p, 0, n)
        t1 = ms(t)
        r = cu.cuMemHostRegister_v2(ctypes.c_void_p(p), ctypes.c_size_t(n), 0)
        print("THP %4d MB: mmap+touch %.1f ms, register %.1f ms (rc %d)" % (pinned, t1, ms(t) - t1, r))
        t = time.perf_counter(); cu.cuMemHostUnregister(ctypes.c_void_p(p))
        libc.munmap(ctypes.c_void_p(p), ctypes.c_size_t(n)); print("unregister+unmap %7.1f ms" % ms(t))
    dp = ctypes.c_uint64()
    t = time.perf_counter(); r = cu.cuMemAlloc_v2(ctypes.byref(dp), ctypes.c_size_t(arena << 20))
    print("device %4d MB   %7.1f ms  (rc %d)" % (arena, ms(t), r))
    if "--exit-live" in args:
        print("exit with everything live at %.1f ms" % ms(t_all))
        sys.stdout.flush()
        os._exit(0)
    t = time.perf_counter(); cu.cuMemFreeHost(hp); print("free pinned      %7.1f ms" % ms(t))
    t = time.perf_counter(); cu.cuMemFree_v2(dp); print("free device      %7.1f ms" % ms(t))
    t = time.perf_counter(); cu.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))
    if "--no-release" not in args:
        cu.cuDevicePrimaryCtxRelease_v2(dev); print("release ctx      %7.1f ms" % ms(t))
    print("total            %7.1f ms" % ms(t_all))
    sys.stdout.flush()
    os._exit(0)

main()
