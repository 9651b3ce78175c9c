#!/usr/bin/env python3
"""A whole VMAF job (Y4M in, report out) through speedqa --model against libvmaf's
own `vmaf` tool on the same pair and model, interleaved round by round:

    model_ab.py [--speedqa build] [--vmaf vmaf] [--model vmaf_v1.0.16_3d0h]
                [--threads 1,2] [--rounds 3] [--frames 240] [--backend cuda]
                [--ref REF.y4m --dis DIS.y4m | --clips DIR | --size 2160p10] [--work DIR]

--speedqa: a speedqa binary or a build folder; --vmaf: libvmaf's tool (default:
the one on PATH). Without --ref/--dis the pair is made in the work folder: with
--clips, the golden 1080p 8-bit clip and its x264 crf28 encode
(seeding_1920x1080_420p8_8f*.y4m.xz, as in the full golden set) looped to --frames;
else bench/cli_throughput.py's textured pair (--size: 1080p8, or 2160p10). --backend:
speedqa's (vmaf has only its CPU). Each round runs, for every thread count, `vmaf --threads N`
and `speedqa --threads N` (both -q, JSON to a file) in a new order, and checks
that both give the same pooled vmaf (6 decimals, as vmaf prints). Each round also
times `speedqa --read-only` once on the pair: the input floor, every byte of both files
read on one thread (as `vmaf` reads them) and nothing scored. Prints per thread count
the best and median seconds of each and how many times as fast speedqa runs (vmaf's
time over speedqa's: best over best, and the median of the rounds' own ratios, the
one that resists the machine's drift best), then the floor's best and each tool's
best time over it."""
import argparse
import json
import lzma
import os
import random
import statistics
import subprocess
import sys
import shutil
import time

import benchlib
import cli_throughput


def make_pair(work, clips, frames, size):
    """The golden 1080p pair looped to `frames` frames (made once a work folder)."""
    if not clips:
        return cli_throughput.make_pair(work, size, frames)
    out = []
    for name in ("seeding_1920x1080_420p8_8f", "seeding_1920x1080_420p8_8f_x264crf28"):
        path = os.path.join(work, "model_ab_%s_%d.y4m" % (name, frames))
        out.append(path)
        if os.path.exists(path):
            continue
        data = lzma.open(os.path.join(clips, name + ".y4m.xz")).read()
        hdr, rest = data.split(b"\n", 1)
        parts = rest.split(b"FRAME\n")[1:]
        with open(path + ".tmp", "wb") as f:
            f.write(hdr + b"\n")
            for i in range(frames):
                f.write(b"FRAME\n" + parts[i % len(parts)])
        os.rename(path + ".tmp", path)
    return out


def timed(cmd):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    t = time.monotonic() - t0
    if p.returncode:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))
    return t


def pooled_vmaf(path):
    return "%.6f" % json.load(open(path))["pooled_metrics"]["vmaf"]["mean"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--speedqa", default=os.path.join(benchlib.ROOT, "build"))
    ap.add_argument("--vmaf", default=shutil.which("vmaf"))
    ap.add_argument("--model", default="vmaf_v1.0.16_3d0h")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--ref")
    ap.add_argument("--dis")
    ap.add_argument("--clips")
    ap.add_argument("--size", default="1080p8", choices=["1080p8", "2160p10"])
    ap.add_argument("--backend")
    ap.add_argument("--work", help="work folder, kept (default: a temporary one)")
    a = ap.parse_args()
    if not a.vmaf:
        sys.exit("no vmaf on PATH: give --vmaf")
    a.speedqa = benchlib.speedqa_exe(a.speedqa)
    with benchlib.work_dir(a.work) as work:
        return run(a, work)


def run(a, work):
    ref, dis = (a.ref, a.dis) if a.ref else make_pair(work, a.clips, a.frames, a.size)
    out = {"vmaf": os.path.join(work, "model_ab_vmaf.json"),
           "speedqa": os.path.join(work, "model_ab_speedqa.json")}
    threads = [int(t) for t in a.threads.split(",")]
    for path in (ref, dis):  # into the page cache for both alike
        subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
    times = {(tool, n): [] for tool in out for n in threads}
    floor_cmd = [a.speedqa, "-r", ref, "-d", dis, "--read-only"]
    floor = []
    ratios = {n: [] for n in threads}
    print("pair %s / %s, model %s, %d rounds%s" % (ref, dis, a.model, a.rounds,
                                                  ", speedqa --backend " + a.backend
                                                  if a.backend else ""))
    for r in range(a.rounds):
        floor.append(timed(floor_cmd))  # one thread at any --threads: once a round
        for n in threads:
            cmds = {
                "vmaf": [a.vmaf, "-r", ref, "-d", dis, "--model", "version=" + a.model,
                         "--threads", str(n), "-q", "--json", "-o", out["vmaf"]],
                "speedqa": [a.speedqa, "-r", ref, "-d", dis, "--model", "version=" + a.model,
                            "--threads", str(n), "-q", "--json", "-o", out["speedqa"]] +
                           (["--backend", a.backend] if a.backend else []),
            }
            order = list(cmds)
            random.shuffle(order)
            got = {tool: timed(cmds[tool]) for tool in order}
            for tool in got:
                times[(tool, n)].append(got[tool])
            ratios[n].append(got["vmaf"] / got["speedqa"])
            same = pooled_vmaf(out["vmaf"]) == pooled_vmaf(out["speedqa"])
            print("round %d threads %d: vmaf %.3f s, speedqa %.3f s, %.3fx%s" %
                  (r + 1, n, got["vmaf"], got["speedqa"], ratios[n][-1],
                   "" if same else "  POOLED VMAF DIFFERS"), flush=True)
            if not same:
                sys.exit(1)
    print("input floor (--read-only, one thread): best %.3f s, median %.3f s" %
          (min(floor), statistics.median(floor)))
    for n in threads:
        v, s = times[("vmaf", n)], times[("speedqa", n)]
        print("threads %d: vmaf best %.3f median %.3f s; speedqa best %.3f median %.3f s; "
              "speedqa %.3fx as fast (best), %.3fx (median of rounds)" %
              (n, min(v), statistics.median(v), min(s), statistics.median(s),
               min(v) / min(s), statistics.median(ratios[n])))
        print("threads %d: vmaf %.2fx the floor, speedqa %.2fx (best over best)" %
              (n, min(v) / min(floor), min(s) / min(floor)))


if __name__ == "__main__":
    sys.exit(main())
