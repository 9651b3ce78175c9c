#!/usr/bin/env python3
"""Can the CUDA backend DMA straight from the page cache?  (ctypes on libcuda,
no speedqa code)

    register_probe.py FILE [--mode MODE]

Modes: async2d: the CLI's pinned windows without speedqa: a thread maps
(MADV_POPULATE_READ) and registers 64 MiB windows of FILE (frames of 1080p
4:2:0 laid out as in a Y4M file) a window ahead, and unregisters each (after
cuStreamSynchronize) once the frames in it are done; the main thread queues
cuMemcpy2DAsync of each frame's luma runs (every 16th row +- 3) from the
windows on a stream and syncs every 16 frames. Prints progress as it goes,
so a stall shows where: the driver (this mode stalls too) or speedqa (not).
--shared maps FILE MAP_SHARED instead of MAP_PRIVATE (any mode).
main (default): registers a read-only private mapping of FILE with
cuMemHostRegister(READ_ONLY) in windows of 16/64/256 MiB and at once, timing
registration, the DMA of every byte into a device buffer, and unregistration,
then the same with one thread registering ahead of another DMAing, against
`cat FILE` in the same run. init / init-read / init-map: cuInit and the
primary context in a fresh process, alone, while another thread read()s FILE,
or while it maps FILE and populates its pages (MADV_POPULATE_READ)."""
import ctypes, mmap, os, subprocess, sys, threading, time

cu = ctypes.CDLL("libcuda.so.1")
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
cu.cuMemHostRegister_v2.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
cu.cuMemHostUnregister.argtypes = [ctypes.c_void_p]
cu.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
cu.cuMemcpyHtoDAsync_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
MB = 1 << 20
ctx = ctypes.c_void_p()

def now():
    return time.perf_counter()

def init():
    t = now()
    assert cu.cuInit(0) == 0
    dev = ctypes.c_int()
    cu.cuDeviceGet(ctypes.byref(dev), 0)
    assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    cu.cuCtxSetCurrent(ctx)
    return (now() - t) * 1e3, dev

def fmap(path):
    n = os.path.getsize(path)
    fd = os.open(path, os.O_RDONLY)
    p = libc.mmap(None, n, mmap.PROT_READ, mmap.MAP_SHARED if "--shared" in sys.argv else mmap.MAP_PRIVATE, fd, 0)
    os.close(fd)
    return p, n

def cat(path):
    t = now(); subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
    return now() - t

def mode_init(path, how):
    stop = []
    def reader():
        if how == "init-read":
            with open(path, "rb", buffering=0) as f:
                while f.read(1 << 20) and not stop:
                    pass
        else:
            p, n = fmap(path)
            for o in range(0, n, 64 * MB):
                libc.madvise(p + o, min(64 * MB, n - o), 22)
                if stop:
                    break
    th = threading.Thread(target=reader) if how != "init" else None
    if th:
        th.start(); time.sleep(0.01)
    ms, _ = init()
    stop.append(1)
    if th:
        th.join()
    print("%-10s cuInit + primary context %7.1f ms" % (how, ms))

def dma_all(p, n, win, dbuf, dsize):
    treg = tdma = tun = 0.0
    for o in range(0, n - n % 4096, win):
        w = min(win, (n - n % 4096) - o)
        t = now(); r = cu.cuMemHostRegister_v2(p + o, w, 0x08); treg += now() - t
        if o < 3 * win:
            print("  register %d MiB at %d: %.2f ms rc %d" % (w // MB, o // MB, (now() - t) * 1e3, r), flush=True)
        if r:
            return "register rc %d" % r
        t = now()
        for q in range(0, w, dsize):
            assert cu.cuMemcpyHtoD_v2(dbuf.value, p + o + q, min(dsize, w - q)) == 0
        tdma += now() - t
        t = now(); cu.cuMemHostUnregister(p + o); tun += now() - t
    g = (n - n % 4096) / 1e9
    return "register %6.1f ms  dma %6.1f ms (%5.1f GB/s)  unregister %6.1f ms  total %6.1f ms (%5.1f GB/s)" % (
        treg * 1e3, tdma * 1e3, g / tdma, tun * 1e3, (treg + tdma + tun) * 1e3, g / (treg + tdma + tun))

def populate(p, o, w, how):
    if how == "madv":
        libc.madvise(p + o, w, 22)
    elif how == "touch":
        b = (ctypes.c_char * w).from_address(p + o)
        _ = b[::4096]

def pipelined(paths, win, dsize, how="none"):
    """per file: a thread registering windows ahead (2 at most), one DMAing and unregistering"""
    import queue
    def one(path, res):
        cu.cuCtxSetCurrent(ctx)
        dbuf = ctypes.c_uint64(); cu.cuMemAlloc_v2(ctypes.byref(dbuf), ctypes.c_size_t(dsize))
        p, n = fmap(path); n -= n % 4096
        qq = queue.Queue(2)
        def reg():
            cu.cuCtxSetCurrent(ctx)
            for o in range(0, n, win):
                w = min(win, n - o)
                populate(p, o, w, how)
                r = cu.cuMemHostRegister_v2(p + o, w, 0x08)
                qq.put((o, w, r))
            qq.put(None)
        th = threading.Thread(target=reg); th.start()
        while True:
            it = qq.get()
            if it is None:
                break
            o, w, r = it
            assert r == 0, r
            for q in range(0, w, dsize):
                assert cu.cuMemcpyHtoD_v2(dbuf.value, p + o + q, min(dsize, w - q)) == 0
            cu.cuMemHostUnregister(p + o)
        th.join(); libc.munmap(p, n); cu.cuMemFree_v2(dbuf)
    t = now()
    ths = [threading.Thread(target=one, args=(x, None)) for x in paths]
    [x.start() for x in ths]; [x.join() for x in ths]
    return now() - t

class M2D(ctypes.Structure):
    _fields_ = [("srcXInBytes", ctypes.c_size_t), ("srcY", ctypes.c_size_t),
                ("srcMemoryType", ctypes.c_int), ("srcHost", ctypes.c_void_p),
                ("srcDevice", ctypes.c_uint64), ("srcArray", ctypes.c_void_p),
                ("srcPitch", ctypes.c_size_t), ("dstXInBytes", ctypes.c_size_t),
                ("dstY", ctypes.c_size_t), ("dstMemoryType", ctypes.c_int),
                ("dstHost", ctypes.c_void_p), ("dstDevice", ctypes.c_uint64),
                ("dstArray", ctypes.c_void_p), ("dstPitch", ctypes.c_size_t),
                ("WidthInBytes", ctypes.c_size_t), ("Height", ctypes.c_size_t)]


def mode_async2d(path):
    init()
    W, H = 1920, 1080
    fb, gap, win = W * H * 3 // 2, 6, 64 * MB
    with open(path, "rb") as f:
        line = f.readline(1 << 12)
    head = len(line) if line.startswith(b"YUV4MPEG2") else 0  # then "FRAME\n" + payload
    p, n = fmap(path)
    nfr = (n - head) // (fb + gap)
    st = ctypes.c_void_p()
    assert cu.cuStreamCreate(ctypes.byref(st), 0) == 0
    ev = ctypes.c_void_p()
    assert cu.cuEventCreate(ctypes.byref(ev), 0) == 0
    dbuf = ctypes.c_uint64()
    assert cu.cuMemAlloc_v2(ctypes.byref(dbuf), ctypes.c_size_t(16 * MB)) == 0
    cu.cuMemcpy2DAsync_v2.argtypes = [ctypes.POINTER(M2D), ctypes.c_void_p]
    lock = threading.Condition()
    state = {"want": win, "end": 0, "lo": 0, "done": 0, "quit": False, "regs": 0, "unregs": 0}

    def pinner():
        cu.cuCtxSetCurrent(ctx)
        while True:
            with lock:
                while not state["quit"] and not (state["end"] < min(state["want"], n) or
                                                 (state["lo"] < state["end"] and state["done"] >= state["lo"] + win)):
                    lock.wait()
                if state["quit"]:
                    return
                lo, end = state["lo"], state["end"]
                unreg = lo < end and state["done"] >= lo + win
            if unreg:
                cu.cuStreamSynchronize(st)
                r = cu.cuMemHostUnregister(p + lo)
                with lock:
                    state["lo"] += win
                    state["unregs"] += 1
                continue
            w = min(win, n - end)
            libc.madvise(p + end, w, 22)
            r = cu.cuMemHostRegister_v2(p + end, w, 0x08)
            with lock:
                if r:
                    print("register rc %d at %d MiB" % (r, end // MB), flush=True)
                    state["want"] = 0
                state["end"] += w
                state["regs"] += 1
                lock.notify_all()

    th = threading.Thread(target=pinner)
    th.start()
    t0 = now()
    direct = 0
    for f in range(nfr):
        off = head + gap + f * (fb + gap)
        with lock:
            if off + win > state["want"] and state["want"]:
                state["want"] = off + win
                lock.notify_all()
            inwin = state["lo"] <= off and off + fb <= state["end"] and off // win == (off + fb - 1) // win
        if inwin:
            c = M2D(srcMemoryType=1, srcHost=p + off + 13 * W, srcPitch=16 * W, dstMemoryType=2,
                    dstDevice=dbuf.value, dstPitch=7 * W, WidthInBytes=7 * W, Height=H // 16 - 1)
            r = cu.cuMemcpy2DAsync_v2(ctypes.byref(c), st)
            if r:
                print("frame %d: cuMemcpy2DAsync rc %d" % (f, r), flush=True)
                break
            direct += 1
        if f % 16 == 15 or f == nfr - 1:
            cu.cuEventRecord(ev, st)
            cu.cuEventSynchronize(ev)
            with lock:
                state["done"] = off + fb
                lock.notify_all()
        if f % 100 == 99:
            print("  %d frames, %d from windows, %.0f ms, %d registered, %d unregistered"
                  % (f + 1, direct, (now() - t0) * 1e3, state["regs"], state["unregs"]), flush=True)
    with lock:
        state["quit"] = True
        lock.notify_all()
    th.join()
    print("async2d: %d frames, %d from registered windows, %.0f ms" % (nfr, direct, (now() - t0) * 1e3),
          flush=True)


def main():
    path = sys.argv[1]
    how = sys.argv[sys.argv.index("--mode") + 1] if "--mode" in sys.argv else "main"
    if how == "async2d":
        return mode_async2d(path)
    if how != "main":
        return mode_init(path, how)
    os.system("uname -r; findmnt -T %s -o FSTYPE -n" % path)
    cat(path); c1 = cat(path)
    ms, dev = init()
    v = ctypes.c_int()
    cu.cuDeviceGetAttribute(ctypes.byref(v), 113, dev)
    print("init %.1f ms; READ_ONLY_HOST_REGISTER_SUPPORTED %d; cat %.1f ms (%.1f GB/s)" % (ms, v.value, c1 * 1e3, os.path.getsize(path) / 1e9 / c1))
    dsize = 64 * MB
    dbuf = ctypes.c_uint64(); assert cu.cuMemAlloc_v2(ctypes.byref(dbuf), ctypes.c_size_t(dsize)) == 0
    p, n = fmap(path)
    for how in ("madv", "touch", "madv", "touch"):
        q, _ = fmap(path)
        t = now()
        for o in range(0, n - n % 4096, 64 * MB):
            populate(q, o, min(64 * MB, n - n % 4096 - o), how)
        tp = now() - t
        print("fresh map, populate by %s: %.1f ms (%.1f GB/s); then %s" % (how, tp * 1e3, n / 1e9 / tp, dma_all(q, n, 64 * MB, dbuf, dsize)), flush=True)
        libc.munmap(q, n)
    t = now(); fd = os.open(path, os.O_RDONLY); q = libc.mmap(None, n, mmap.PROT_READ, mmap.MAP_PRIVATE | 0x8000, fd, 0); os.close(fd); tp = now() - t
    print("MAP_POPULATE: %.1f ms (%.1f GB/s); then %s" % (tp * 1e3, n / 1e9 / tp, dma_all(q, n, 64 * MB, dbuf, dsize)), flush=True)
    libc.munmap(q, n)
    for how in ("madv", "touch"):
        for win in (16 * MB, 64 * MB):
            c = cat(path); t = pipelined([path], win, 16 * MB, how)
            print("pipelined 1 file, %s, %d MiB windows: %.1f ms vs cat %.1f ms: %.2fx" % (how, win // MB, t * 1e3, c * 1e3, c / t), flush=True)
    if len(sys.argv) > 2 and not sys.argv[2].startswith("--"):
        paths = [path, sys.argv[2]]
        for r in range(3):
            t = now(); ps = [subprocess.Popen(["cat", x], stdout=subprocess.DEVNULL) for x in paths]; [x.wait() for x in ps]; c = now() - t
            t = pipelined(paths, 16 * MB, 16 * MB, "madv")
            print("pipelined 2 files (16 MiB, madv): %.1f ms vs two cats %.1f ms: %.2fx" % (t * 1e3, c * 1e3, c / t))

main()
