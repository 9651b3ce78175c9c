#!/usr/bin/env python3
"""Whole-job throughput of the CLI against the read floor, in one run.

usage: cli_throughput.py SPEEDQA [--old OLD_SPEEDQA] [--frames N]
                         [--threads 1,2,4] [--backends cuda,opencl]

Writes a 1080p 8-bit 4:2:0 Y4M pair (textured; the distorted side noisy)
to $TMPDIR (default /dev/shm), reads it once into the page cache, then
prints the best of 3 runs, in fps and as a share of the floor: both files
read by two cats in parallel (the floor), one `cat ref dis`, and speedqa
for each thread count and backend (and the old binary, when given).
"""
import argparse
import os
import subprocess
import time


def write_pair(d, n):
    """Textured frames; the distorted side brightened and striped (no numpy needed)."""
    w, h = 1920, 1080
    pattern = bytes((i * 7) & 255 for i in range(4096))
    lift = bytes(min(255, v + 3) for v in range(256))
    hdr = b"YUV4MPEG2 W1920 H1080 F25:1 Ip C420jpeg\n"
    with open(d + "/ref.y4m", "wb") as fr, open(d + "/dis.y4m", "wb") as fd:
        fr.write(hdr)
        fd.write(hdr)
        for t in range(n):
            rows = [pattern[(3 * y + 4 * t) % 1024:(3 * y + 4 * t) % 1024 + w] for y in range(h)]
            yy = b"".join(rows)
            c = bytes([128 + (t % 16)]) * (w * h // 4)
            dy = b"".join(r.translate(lift) if y % 8 else r[::-1] for y, r in enumerate(rows))
            fr.write(b"FRAME\n" + yy + c + c)
            fd.write(b"FRAME\n" + dy + c + c)


def best(cmds):
    """Best wall time of 3 runs of the commands started together."""
    b = None
    for _ in range(3):
        t0 = time.monotonic()
        ps = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for c in cmds]
        rc = [p.wait() for p in ps]
        t = time.monotonic() - t0
        if any(rc):
            return None
        b = t if b is None or t < b else b
    return b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("speedqa")
    ap.add_argument("--old")
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--backends", default="")
    a = ap.parse_args()
    d = os.path.join(os.environ.get("TMPDIR", "/dev/shm"), "sq-cli-bench-%d" % a.frames)
    os.makedirs(d, exist_ok=True)
    if not os.path.exists(d + "/dis.y4m"):
        write_pair(d, a.frames)
    ref, dis = d + "/ref.y4m", d + "/dis.y4m"
    best([["cat", ref, dis]])
    floor = best([["cat", ref], ["cat", dis]])

    def row(name, t):
        if t is None:
            print("%-44s failed" % name)
        else:
            print("%-44s %8.1f fps  %5.2f of the floor" % (name, a.frames / t, floor / t))
    row("floor: two cats in parallel", floor)
    row("one cat ref dis", best([["cat", ref, dis]]))
    runs = [("--threads %s" % t, ["--threads", t]) for t in a.threads.split(",") if t]
    runs += [("--backend %s --threads 8" % b, ["--backend", b, "--threads", "8"])
             for b in a.backends.split(",") if b]
    for name, extra in runs:
        base = ["-r", ref, "-d", dis, "-q", "-o", "/dev/null"] + extra
        row("speedqa " + name, best([[a.speedqa] + base]))
        if a.old:
            row("  before (e6e0a24) " + name, best([[a.old] + base]))


if __name__ == "__main__":
    main()
