#!/usr/bin/env python3
"""Scoring from CUDA device arrays (CuPy) against gpu_bench's device-resident figure,
measured in the same run (issue #16), and device arrays == host arrays bit for bit.

usage: PYTHONPATH=python SPEEDQA_LIB=BUILD/src/libspeedqa.so.0.2 bench_device.py BUILD [frames]
1920x1080 8-bit 4:2:0, both features, 8 distinct frame pairs resident on the device,
sent round-robin through speedqa.Scorer(backend="cuda").
"""
import os
import re
import subprocess
import sys
import time

import numpy as np

import speedqa


def main():
    build = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
    import cupy
    w, h, k = 1920, 1080, 8
    rng = np.random.default_rng(1)
    yy, xx = np.mgrid[0:h, 0:w]
    host = []
    for i in range(k):
        base = ((xx * 3 + yy * 2 + 11 * i) % 256).astype(np.uint8)
        noise = rng.integers(0, 12, size=(h, w), dtype=np.uint8)
        planes_r = [base, base[::2, ::2].copy(), base[1::2, 1::2].copy()]
        dis_y = (base.astype(np.int32) + noise).clip(0, 255).astype(np.uint8)
        planes_d = [dis_y, dis_y[::2, ::2].copy(), planes_r[2] // 2 + 60]
        host.append((planes_r, planes_d))
    dev = [([cupy.asarray(p) for p in r], [cupy.asarray(p) for p in d]) for r, d in host]
    cupy.cuda.Device().synchronize()

    # device arrays == host arrays, bit for bit (host pictures on the CPU backend)
    with speedqa.Scorer(w, h, "420", 8, backend="cuda") as g, speedqa.Scorer(w, h, "420", 8) as c:
        got, want = [], []
        for r, d in dev:
            got += g.send(r, d)
        for r, d in host:
            want += c.send(r, d)
        got += g.flush()
        want += c.flush()
    names = [x for x in want[0] if x.startswith("speed_")]
    same = [{q: x[q] for q in names} for x in got] == [{q: x[q] for q in names} for x in want]
    print("device arrays == host arrays on the CPU backend, %d frames: %s" % (len(want), same))

    with speedqa.Scorer(w, h, "420", 8, backend="cuda") as g:
        for i in range(64):  # warm-up: kernels loaded, arena touched
            g.send(*dev[i % k])
        g.flush()
        t = time.perf_counter()
        out = 0
        for i in range(n):
            out += len(g.send(*dev[i % k]))
        out += len(g.flush())
        dt = time.perf_counter() - t
    fps = n / dt
    print("python, CuPy device arrays, 1080p both features: %d frames in %.3f s: %.0f fps" % (out, dt, fps))
    p = subprocess.run([os.path.join(build, "tests", "gpu", "gpu_bench"), "cuda", "-s", "1920x1080"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ref = None
    for line in p.stdout.splitlines():
        m = re.match(r"both\s+\S+\s+\S+\s+\S+\s+(\S+)\s+fps", line)
        if m:
            ref = float(m.group(1))
    if ref:
        print("gpu_bench device-resident, same frames size, both: %.0f fps; python reaches %.2fx" %
              (ref, fps / ref))
    else:
        print("gpu_bench output not parsed:\n" + p.stdout[-2000:])
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
