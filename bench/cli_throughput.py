#!/usr/bin/env python3
"""Whole-job throughput of the CLI against the read floor, in one run.

usage: cli_throughput.py SPEEDQA [--old OLD_SPEEDQA] [--frames N] [--size 1080p8|2160p10]
                         [--threads 1,2,4] [--backends cuda,opencl] [--gpu-threads 1,8]
                         [--h264]

Writes a textured Y4M pair (the distorted side brightened and striped) to
$SPEEDQA_BENCH_DIR (default /var/tmp: a disk file system's page cache, where
users' files live; tmpfs maps in 4 KiB pages and makes mapped reading dearer,
so the header names the file system), reads it once into the page cache, then prints
the best of 3 runs, in fps, as a share of the floor and the peak resident
memory: both files read by two cats in parallel (the floor), one
`cat ref dis`, speedqa --read-only (its own readers, nothing scored;
mapped, and with SPEEDQA_IO=read), and speedqa for each thread count and
backend (also with SPEEDQA_IO=read and SPEEDQA_MAP_POPULATE=0), both features (and the old binary, when given). --h264 also
encodes the pair with ffmpeg (libx264, yuv420p) and compares scoring with
speedqa --read-only on the same mp4 files (the decode floor).
"""
import argparse
import os
import shutil
import subprocess
import time


def write_pair(d, n, w, h, bpc):
    """Textured frames; numpy when there is one (4K), else plain bytes."""
    hdr = ("YUV4MPEG2 W%d H%d F25:1 Ip %s\n" % (w, h, "C420p10 XYSCSS=420P10" if bpc > 8
                                                  else "C420jpeg")).encode()
    try:
        import numpy as np
    except ImportError:
        np = None
    with open(d + "/ref.y4m", "wb") as fr, open(d + "/dis.y4m", "wb") as fd:
        fr.write(hdr)
        fd.write(hdr)
        if np is not None:
            y, x = np.mgrid[0:h, 0:w]
            base = (x * 7 + y * 3).astype(np.int64)
            mx = (1 << bpc) - 1
            dt = np.uint16 if bpc > 8 else np.uint8
            for t in range(n):
                yy = ((base + 4 * t) * (mx + 1) // 256 + (x * y) % 7) % (mx + 1)
                dy = np.where(y % 8 == 0, yy[:, ::-1], np.minimum(yy + 3, mx))
                c = np.full((h // 2) * (w // 2) * 2, 1 << (bpc - 1), dtype=dt) + t % 16
                for f, img in ((fr, yy), (fd, dy)):
                    f.write(b"FRAME\n" + img.astype(dt).tobytes() + c.tobytes())
            return
        assert bpc == 8, "10-bit content needs numpy"
        pattern = bytes((i * 7) & 255 for i in range(8192))
        lift = bytes(min(255, v + 3) for v in range(256))
        for t in range(n):
            rows = [pattern[(3 * r + 4 * t) % 1024:(3 * r + 4 * t) % 1024 + w] for r in range(h)]
            yy = b"".join(rows)
            c = bytes([128 + (t % 16)]) * (w * h // 4)
            dy = b"".join(r.translate(lift) if k % 8 else r[::-1] for k, r in enumerate(rows))
            fr.write(b"FRAME\n" + yy + c + c)
            fd.write(b"FRAME\n" + dy + c + c)


def bench_dir():
    return os.environ.get("SPEEDQA_BENCH_DIR", "/var/tmp")


def bench_fs():
    """The file system type of bench_dir() ("ext4", "tmpfs" ...), for headers."""
    for cmd in (["findmnt", "-n", "-o", "FSTYPE", "--target"], ["stat", "-f", "-c", "%T"]):
        try:
            r = subprocess.run(cmd + [bench_dir()], capture_output=True, text=True)
        except OSError:
            continue
        if r.returncode == 0 and r.stdout.strip():
            return r.stdout.strip()
    return "?"


def bench_pair(size, frames):
    """The textured pair of `frames` frames at size ("1080p8" or "2160p10") in
    bench_dir(), written once and kept: (ref, dis) paths."""
    w, h, bpc = (1920, 1080, 8) if size == "1080p8" else (3840, 2160, 10)
    d = os.path.join(bench_dir(), "sq-cli-bench-%s-%d" % (size, frames))
    os.makedirs(d, exist_ok=True)
    if not os.path.exists(d + "/dis.y4m"):
        write_pair(d, frames, w, h, bpc)
    return d + "/ref.y4m", d + "/dis.y4m"


def one(cmd, env):
    pid = os.fork()
    if pid == 0:
        nul = os.open(os.devnull, os.O_WRONLY)
        os.dup2(nul, 1)
        os.dup2(nul, 2)
        os.execvpe(cmd[0], cmd, env)
    return pid


def best(cmds, env=None):
    """Best wall time of 3 runs of the commands started together, and the peak RSS (MiB)."""
    env = env or os.environ
    b, rss = None, 0
    for _ in range(3):
        t0 = time.monotonic()
        pids = [one(c, env) for c in cmds]
        codes = []
        for p in pids:
            _, st, ru = os.wait4(p, 0)
            codes.append(os.waitstatus_to_exitcode(st))
            rss = max(rss, ru.ru_maxrss // 1024)
        t = time.monotonic() - t0
        if any(codes):
            return None, rss
        b = t if b is None or t < b else b
    return b, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("speedqa")
    ap.add_argument("--old")
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--size", default="1080p8", choices=["1080p8", "2160p10"])
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--backends", default="")
    ap.add_argument("--gpu-threads", default="8")
    ap.add_argument("--h264", action="store_true")
    a = ap.parse_args()
    ref, dis = bench_pair(a.size, a.frames)
    best([["cat", ref, dis]])
    floor, _ = best([["cat", ref], ["cat", dis]])
    io_read = dict(os.environ, SPEEDQA_IO="read")
    print("%s, %d frames, both features, best of 3, pair on %s; ratio = floor time / run time" %
          (a.size, a.frames, bench_fs()))

    def row(name, res):
        t, rss = res
        if t is None:
            print("%-52s failed" % name)
        else:
            print("%-52s %8.1f fps  %5.2f of the floor  %6d MiB" %
                  (name, a.frames / t, floor / t, rss))
    row("floor: two cats in parallel", (floor, 0))
    row("one cat ref dis", best([["cat", ref, dis]]))
    ro = ["-r", ref, "-d", dis, "--read-only", "-q"]
    row("speedqa --read-only (mapped)", best([[a.speedqa] + ro]))
    row("speedqa --read-only (SPEEDQA_IO=read)", best([[a.speedqa] + ro], io_read))
    runs = [("--threads %s" % t, ["--threads", t], None) for t in a.threads.split(",") if t]
    top = a.threads.split(",")[-1]
    pop = dict(os.environ, SPEEDQA_MAP_POPULATE="0")
    runs.append(("--threads %s, SPEEDQA_IO=read" % top, ["--threads", top], io_read))
    runs.append(("--threads %s, SPEEDQA_MAP_POPULATE=0" % top, ["--threads", top], pop))
    for b in [b for b in a.backends.split(",") if b]:
        for t in a.gpu_threads.split(","):
            runs.append(("--backend %s --threads %s" % (b, t), ["--backend", b, "--threads", t],
                         None))
            runs.append(("--backend %s --threads %s, POPULATE=0" % (b, t),
                         ["--backend", b, "--threads", t], pop))
            runs.append(("--backend %s --threads %s, SPEEDQA_IO=read" % (b, t),
                         ["--backend", b, "--threads", t], io_read))
    for name, extra, env in runs:
        base = ["-r", ref, "-d", dis, "-q", "-o", "/dev/null"] + extra
        row("speedqa " + name, best([[a.speedqa] + base], env))
        if a.old:
            row("  before " + name, best([[a.old] + base], env))
    if a.h264 and shutil.which("ffmpeg"):
        mp4 = []
        for src in (ref, dis):
            out = src[:-4] + ".mp4"
            if not os.path.exists(out):
                subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", src, "-c:v", "libx264",
                                "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p", out],
                               check=True)
            mp4.append(out)
        print("H.264 mp4 pair (libx264 veryfast crf 23), decoded by speedqa's libav reader:")
        dec = best([[a.speedqa, "-r", mp4[0], "-d", mp4[1], "--read-only", "-q"]])
        row("decode floor: speedqa --read-only", dec)
        floor = dec[0] or floor
        for t in a.threads.split(","):
            row("speedqa --threads %s" % t,
                best([[a.speedqa, "-r", mp4[0], "-d", mp4[1], "-q", "-o", "/dev/null",
                       "--threads", t]]))


if __name__ == "__main__":
    main()
