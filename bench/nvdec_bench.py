#!/usr/bin/env python3
"""NVDEC decode -> GPU score throughput against NVDEC's decode-only floor, in one run.

usage: nvdec_bench.py SPEEDQA CLIPS_DIR OUTDIR [STREAMS]

SPEEDQA: a speedqa binary or a build folder, built with CUDA and libav
(bench/README.md: on a GPU machine without libav, bench/make_libav_archive.sh);
CLIPS_DIR: NAME_ref.mkv / NAME_dis.mkv pairs (bench/make_nvdec_clips.sh DIR bench);
OUTDIR: where the logs, the reports and nvdec_bench.json go.

For each clip pair (NAME_ref.mkv, NAME_dis.mkv in CLIPS_DIR) runs STREAMS
(default 4) speedqa processes at once, in each mode:
  nvdec_read   --read-only --hwaccel cuda       NVDEC decode only: the floor
  nvdec_score  --hwaccel cuda                   NVDEC decode + CUDA scoring
  sw_read      --read-only                      software decode only
  sw_cuda      --backend cuda                   software decode + CUDA scoring
  cpu          --backend cpu --threads CORES/N  software decode + CPU scoring
and one process: batch  --batch (4 x STREAMS pairs, or $NVDEC_BATCH_PAIRS) --hwaccel cuda (4 workers),
against batch_read, the same with --read-only (the batch's own decode floor).
fps = the sum over the processes of their own rate (frames / the time of
their read or score loop, which --read-only prints and the JSON report's
fps holds: start-up excluded); wall = the set's wall clock. CPU ms/frame =
user + sys time of the processes (wait4) / frame pairs. Checks: nvdec_score
>= 90% of nvdec_read; NVDEC scores == CPU-path scores, bit for bit.
Writes OUTDIR/nvdec_bench.json and prints a table.
"""
import json
import os
import re
import subprocess
import sys
import time

import benchlib

if len(sys.argv) < 4:
    sys.exit(__doc__)
EXE, CLIPS, OUT = benchlib.speedqa_exe(sys.argv[1]), sys.argv[2], sys.argv[3]
N = int(sys.argv[4]) if len(sys.argv) > 4 else 4
BATCH_PAIRS = int(os.environ.get("NVDEC_BATCH_PAIRS", 4 * N))
CORES = os.cpu_count() or 16


def launch(args, log, n):
    """n processes at once; [(rc, stderr text, cpu s)], wall s."""
    procs = []
    t0 = time.monotonic()
    for i in range(n):
        a = [x.replace("{i}", str(i)) for x in args]
        f = open("%s.%d.log" % (log, i), "w+")
        procs.append((subprocess.Popen([EXE] + a, stdout=subprocess.DEVNULL, stderr=f), f))
    res = []
    for p, f in procs:
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        f.seek(0)
        res.append((p.returncode, f.read(), ru.ru_utime + ru.ru_stime))
        f.close()
    return res, time.monotonic() - t0


def json_fps(path):
    try:
        with open(path) as f:
            return json.load(f)["fps"]
    except (OSError, ValueError, KeyError):
        return 0.0


def metrics(path):
    with open(path) as f:
        return [fr["metrics"] for fr in json.load(f)["frames"]]


def main():
    devs = subprocess.run([EXE, "--list-devices"], capture_output=True, text=True).stdout
    if any(l.startswith("cuda:") and "no device" in l for l in devs.splitlines()):
        print("no CUDA device (speedqa --list-devices): skipped")
        return 77
    os.makedirs(os.path.join(OUT, "work"), exist_ok=True)
    work = os.path.join(OUT, "work")
    names = sorted({f[:-8] for f in os.listdir(CLIPS) if f.endswith("_ref.mkv")})
    # the first CUDA start-up of the machine is slow: not in any number
    launch(["-r", os.path.join(CLIPS, names[0] + "_ref.mkv"), "-d",
            os.path.join(CLIPS, names[0] + "_dis.mkv"), "--hwaccel", "cuda", "--frame_cnt",
            "2", "-q", "--json", "-o", os.path.join(work, "warm.json")],
           os.path.join(work, "warm"), 1)
    rows, checks = [], []
    th = str(max(1, CORES // N))
    for name in names:
        r, d = os.path.join(CLIPS, name + "_ref.mkv"), os.path.join(CLIPS, name + "_dis.mkv")
        base = ["-r", r, "-d", d]
        score_out = lambda m: ["--json", "--precision", "max", "-q", "-o",
                               os.path.join(work, "%s_%s_{i}.json" % (name, m))]
        modes = [
            ("nvdec_read", base + ["--read-only", "--hwaccel", "cuda"]),
            ("nvdec_score", base + ["--hwaccel", "cuda"] + score_out("nvdec_score")),
            ("sw_read", base + ["--read-only"]),
            ("sw_cuda", base + ["--backend", "cuda", "--threads", th] + score_out("sw_cuda")),
            ("cpu", base + ["--backend", "cpu", "--threads", th] + score_out("cpu")),
        ]
        got = {}
        for mode, args in modes:
            res, wall = launch(args, os.path.join(work, "%s_%s" % (name, mode)), N)
            fps, frames, ok = 0.0, 0, all(rc == 0 for rc, _, _ in res)
            for i, (rc, err, _) in enumerate(res):
                m = re.search(r"(\d+) frame pairs read in [0-9.]+ s: ([0-9.]+) fps", err)
                if m:
                    frames += int(m.group(1))
                    fps += float(m.group(2))
                else:
                    js = os.path.join(work, "%s_%s_%d.json" % (name, mode, i))
                    fps += json_fps(js)
                    try:
                        frames += len(metrics(js))
                    except (OSError, ValueError, KeyError):
                        pass
            cpu = sum(c for _, _, c in res)
            row = {"clip": name, "mode": mode, "streams": N, "ok": ok, "fps": fps,
                   "frames": frames, "wall_s": wall, "wall_fps": frames / wall if wall else 0,
                   "cpu_ms_per_frame": 1000.0 * cpu / frames if frames else 0.0,
                   "errors": [e.strip()[-300:] for rc, e, _ in res if rc != 0][:2]}
            rows.append(row)
            got[mode] = row
            print("%-14s %-12s %s fps %8.1f  wall %6.2f s  cpu %6.2f ms/frame %s" % (
                name, mode, "ok  " if ok else "FAIL", fps, wall, row["cpu_ms_per_frame"],
                row["errors"][:1]), flush=True)
        # one process, a batch of BATCH_PAIRS pairs on NVDEC (4 workers per GPU), against
        # the same batch with --read-only (same workers, decoders and start-up): the
        # batch machinery's own floor, so the ratio compares like with like
        man = os.path.join(work, name + "_batch.csv")
        with open(man, "w") as f:
            f.write("ref,dis\n" + "".join("%s,%s\n" % (r, d) for _ in range(BATCH_PAIRS)))
        bfr = BATCH_PAIRS * got["nvdec_score"]["frames"] // N
        walls = {}
        for mode, extra in (("batch_read", ["--read-only"]),
                            ("batch", ["--precision", "max", "-o",
                                       os.path.join(work, name + "_batch.jsonl")])):
            res, wall = launch(["--batch", man, "--hwaccel", "cuda"] + extra,
                               os.path.join(work, "%s_%s" % (name, mode)), 1)
            walls[mode] = wall
            rows.append({"clip": name, "mode": mode, "streams": BATCH_PAIRS, "ok": res[0][0] == 0,
                         "fps": bfr / wall if wall else 0, "frames": bfr, "wall_s": wall,
                         "cpu_ms_per_frame": 1000.0 * res[0][2] / bfr if bfr else 0,
                         "errors": [res[0][1].strip()[-300:]] if res[0][0] else []})
            print("%-14s %-12s %s fps %8.1f  wall %6.2f s (%d pairs, start-up included)" % (
                name, mode, "ok  " if res[0][0] == 0 else "FAIL", rows[-1]["fps"], wall,
                BATCH_PAIRS), flush=True)
        bratio = walls["batch_read"] / walls["batch"] if walls["batch"] else 0
        checks.append(("%s: --batch decode+score / --batch --read-only (%d pairs, wall) = %.1f%% "
                       "(target >= 90%%)" % (name, BATCH_PAIRS, 100 * bratio), bratio >= 0.9))
        ratio = got["nvdec_score"]["fps"] / got["nvdec_read"]["fps"] if got["nvdec_read"]["fps"] else 0
        checks.append(("%s: decode+score / decode-only = %.1f%% (target >= 90%%)" %
                       (name, 100 * ratio), ratio >= 0.9))
        same = True
        try:
            ref = metrics(os.path.join(work, "%s_cpu_0.json" % name))
            for m in ("nvdec_score", "sw_cuda"):
                for i in range(N):
                    same = same and metrics(os.path.join(work, "%s_%s_%d.json" % (name, m, i))) == ref
        except (OSError, ValueError, KeyError):
            same = False
        checks.append(("%s: NVDEC (and sw+CUDA) scores == CPU path, bit for bit" % name, same))
    with open(os.path.join(OUT, "nvdec_bench.json"), "w") as f:
        json.dump({"rows": rows, "checks": checks}, f, indent=1)
    print("\n%-14s %-12s %9s %9s %8s %10s" % ("clip", "mode", "fps", "wall_fps", "wall_s",
                                              "cpu_ms/fr"))
    for r in rows:
        print("%-14s %-12s %9.1f %9.1f %8.2f %10.2f%s" % (
            r["clip"], r["mode"], r["fps"], r.get("wall_fps", r["fps"]), r["wall_s"],
            r["cpu_ms_per_frame"], "" if r["ok"] else "  FAILED"))
    print("(%d streams at once; fps: sum of each process's own rate, start-up excluded)" % N)
    for what, ok in checks:
        print("%s %s" % ("PASS" if ok else "FAIL", what))
    return 0 if all(ok for _, ok in checks) and all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
