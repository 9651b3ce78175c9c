#!/usr/bin/env python3
"""A whole CLI job (Y4M pair in, both features scored, report out) against the
read floor, measured in the same run, rounds interleaved.

usage: cli_throughput.py SPEEDQA [--frames N] [--size 1080p8|2160p10] [--threads 1,N]
                         [--backends cuda,opencl] [--rounds R] [--baseline OTHER]
                         [--read-back] [--vmaf VMAF] [--h264] [--work DIR]

SPEEDQA and OTHER: a speedqa binary or a build folder. Writes a textured Y4M
pair (the distorted side brightened and striped) into the work folder, reads
it into the page cache, then each round times, in a new order:
  floor       both files read by two cats in parallel
  cat         one `cat ref dis` (what one thread reading both files costs)
  read-only   speedqa --read-only (its readers, nothing scored)
  t=N         speedqa --threads N, for each N of --threads
  BACKEND     speedqa --backend BACKEND --threads (the largest N), for each of --backends
  base ...    the same runs of OTHER (--baseline: two builds compared alternately)
  vmaf t=N    libvmaf's vmaf tool on the same pair, the same two features,
              --threads N, no model (--vmaf)
Prints per run the best and median time, frames per second and its share of
the floor (floor time / run time), then the ratios: each build against the
other, vmaf against speedqa, --threads N against --threads 1 (the median of
the rounds' own ratios and best over best).

--read-back drops the pair from the page cache and has one untimed run of
each build read it back, as a catalog's files come in for the first job that
reads them (speedqa's mapping asks for huge pages: 2 MiB folios); with
--baseline each build reads back a copy of its own, since how a build reads
decides the folios it then runs on. --h264 also encodes the pair with ffmpeg
(libx264) and times scoring it against speedqa --read-only on the same mp4
files (the decode floor).
"""
import argparse
import os
import shutil
import subprocess
import sys

import benchlib


def write_pair(d, n, w, h, bpc):
    """Textured frames; numpy when there is one (10-bit needs it), else plain bytes."""
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
        if bpc != 8:
            raise SystemExit("10-bit content needs numpy")
        pattern = bytes((i * 7) & 255 for i in range(8192))
        lift = bytes(min(255, v + 3) for v in range(256))
        for t in range(n):
            rows = [pattern[(3 * r + 4 * t) % 1024:(3 * r + 4 * t) % 1024 + w] for r in range(h)]
            yy = b"".join(rows)
            c = bytes([128 + (t % 16)]) * (w * h // 4)
            dy = b"".join(r.translate(lift) if k % 8 else r[::-1] for k, r in enumerate(rows))
            fr.write(b"FRAME\n" + yy + c + c)
            fd.write(b"FRAME\n" + dy + c + c)


def make_pair(work, size, frames):
    """(ref, dis) in work, written unless a kept work folder has them already."""
    w, h, bpc = (1920, 1080, 8) if size == "1080p8" else (3840, 2160, 10)
    d = os.path.join(work, "%s-%d" % (size, frames))
    os.makedirs(d, exist_ok=True)
    if not os.path.exists(d + "/done"):
        write_pair(d, frames, w, h, bpc)
        open(d + "/done", "w").close()
    return d + "/ref.y4m", d + "/dis.y4m"


def read_back(exe, ref, dis):
    """The pair dropped from the page cache (written back first: dirty pages
    cannot be dropped), then read back by one untimed run of exe."""
    for f in (ref, dis):
        fd = os.open(f, os.O_RDONLY)
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
    benchlib.timed([[exe, "-r", ref, "-d", dis, "--threads", "2", "-q", "-o", os.devnull]])


def variants(a, builds, pairs, vmaf_out):
    ref, dis = pairs["new"]
    v = {"floor": ([["cat", ref], ["cat", dis]], None), "cat": ([["cat", ref, dis]], None)}
    threads = [t for t in a.threads.split(",") if t]
    for name, exe in builds.items():
        r, d = pairs[name]
        pre = "" if name == "new" else "base "
        v[pre + "read-only"] = ([[exe, "-r", r, "-d", d, "--read-only", "-q"]], None)
        job = [exe, "-r", r, "-d", d, "-q", "-o", os.devnull]
        for t in threads:
            v[pre + "t=" + t] = ([job + ["--threads", t]], None)
        for b in [b for b in a.backends.split(",") if b]:
            v[pre + b] = ([job + ["--backend", b, "--threads", threads[-1]]], None)
    if a.vmaf:
        for t in threads:
            v["vmaf t=" + t] = ([[a.vmaf, "-r", ref, "-d", dis, "--feature", "speed_chroma",
                                  "--feature", "speed_temporal", "-n", "-q", "--threads", t,
                                  "--json", "-o", vmaf_out]], None)
    return v


def report(times, frames, title):
    print(title)
    floor = times["floor"]
    for k, ts in times.items():
        best, med = benchlib.ratio({"f": floor, "r": ts}, "f", "r")
        print("  %-18s %s  %8.1f fps  %.2f of the floor (best), %.2f (median of rounds)" %
              (k, benchlib.describe(ts), frames / min(ts), best, med))


def print_ratio(times, slow, fast, what):
    if slow in times and fast in times:
        best, med = benchlib.ratio(times, slow, fast)
        print("  %-44s %.2fx (median of rounds), %.2fx (best over best)" % (what, med, best))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("speedqa")
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--size", default="1080p8", choices=["1080p8", "2160p10"])
    ap.add_argument("--threads", default="1,%d" % (os.cpu_count() or 1))
    ap.add_argument("--backends", default="")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--baseline", help="another speedqa binary or build folder")
    ap.add_argument("--read-back", action="store_true")
    ap.add_argument("--vmaf", help="libvmaf's vmaf tool, timed on the same pair")
    ap.add_argument("--h264", action="store_true")
    ap.add_argument("--work", help="work folder, kept (default: a temporary one)")
    a = ap.parse_args()
    builds = {"new": benchlib.speedqa_exe(a.speedqa)}
    if a.baseline:
        builds["base"] = benchlib.speedqa_exe(a.baseline)
    threads = [t for t in a.threads.split(",") if t]
    with benchlib.work_dir(a.work) as work:
        ref, dis = make_pair(work, a.size, a.frames)
        pairs = {"new": (ref, dis)}
        if a.baseline and a.read_back:
            d = os.path.join(work, "base-copy")
            os.makedirs(d, exist_ok=True)
            pairs["base"] = tuple(shutil.copy(p, d) for p in (ref, dis))
        else:
            pairs["base"] = (ref, dis)
        if a.read_back:
            for name, exe in builds.items():
                read_back(exe, *pairs[name])
        else:
            benchlib.timed([["cat", ref, dis]])
        times = benchlib.rounds(variants(a, builds, pairs, os.path.join(work, "vmaf.json")),
                                a.rounds)
        report(times, a.frames, "%s, %d frames, both features, %d rounds, pair on %s%s" % (
            a.size, a.frames, a.rounds, benchlib.fs_type(work),
            ", read back by each build" if a.read_back else ""))
        print("ratios (how many times as fast):")
        for t in threads[1:]:
            print_ratio(times, "t=" + threads[0], "t=" + t,
                        "--threads %s over --threads %s" % (t, threads[0]))
        print_ratio(times, "cat", "t=" + threads[0], "--threads %s over one cat" % threads[0])
        for k in [k for k in times if ("base " + k) in times]:
            print_ratio(times, "base " + k, k, "%s: this build over the baseline" % k)
        for t in threads:
            print_ratio(times, "vmaf t=" + t, "t=" + t, "--threads %s over libvmaf's vmaf" % t)
        if a.h264:
            h264(a, ref, dis, builds["new"], threads)


def h264(a, ref, dis, exe, threads):
    if not shutil.which("ffmpeg"):
        print("--h264: no ffmpeg")
        return
    mp4 = []
    for src in (ref, dis):
        out = src[:-4] + ".mp4"
        if not os.path.exists(out):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", src, "-c:v", "libx264",
                            "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p", out],
                           check=True)
        mp4.append(out)
    job = [exe, "-r", mp4[0], "-d", mp4[1], "-q"]
    v = {"floor": ([job + ["--read-only"]], None)}
    for t in threads:
        v["t=" + t] = ([job + ["-o", os.devnull, "--threads", t]], None)
    report(benchlib.rounds(v, a.rounds), a.frames,
           "the pair as H.264 mp4 (libx264 veryfast crf 23), decoded by speedqa's libav reader; "
           "floor: speedqa --read-only")


if __name__ == "__main__":
    sys.exit(main())
