#!/usr/bin/env python3
"""Catalog-scale jobs, each against its baseline measured in the same run.

  ladder: one reference (576x324, 48 frames, 8-bit 4:2:0) against 4 renditions:
          `speedqa -r REF -d A -d B -d C -d D --threads 1` against the 4 separate
          `speedqa -r REF -d X --threads 1` runs one after another.
  batch:  200 short pairs (576x324, 24 frames; every pair its own reference path,
          so nothing is shared as a ladder): `speedqa --batch` against 200 speedqa
          processes, run `-P` at a time by xargs (the best of -P 1 and -P ncpu is the
          baseline), for each backend given.

usage: catalog_bench.py SPEEDQA [--clips DIR] [--work DIR] [--backends cpu,cuda] [--reps 3]
                        [--pairs 200] [--batch-env K=V]
SPEEDQA: a speedqa binary or a build folder; --clips: where
seeding_576x324_420p8_48f*.y4m.xz are (default tests/data/clips); --work: a work
folder to keep (default: a temporary one). Prints one line per measurement and a
JSON summary on the last line. Best of --reps.
"""
import argparse
import json
import lzma
import os
import shutil
import subprocess
import sys
import time

import benchlib


def y4m_cut(src, dst, nframes, seed=0):
    """The first nframes of an 8-bit 4:2:0 Y4M; seed > 0 nudges bytes (a different rendition)."""
    data = open(src, "rb").read()
    nl = data.index(b"\n")
    hdr = data[:nl + 1]
    toks = hdr.split()
    w = int([t for t in toks if t.startswith(b"W")][0][1:])
    h = int([t for t in toks if t.startswith(b"H")][0][1:])
    fsz = w * h * 3 // 2
    out, pos = [hdr], nl + 1
    for _ in range(nframes):
        e = data.index(b"\n", pos) + 1
        fr = bytearray(data[pos:e + fsz])
        for k in range(e - pos + seed, len(fr), 89 + seed) if seed else ():
            fr[k] = (fr[k] + 5) & 0xFF
        out.append(bytes(fr))
        pos = e + fsz
    open(dst, "wb").write(b"".join(out))
    return dst


def timed(cmd, **kw):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd[:8]), p.stderr.decode()))
    return dt


def best(reps, fn):
    return min(fn() for _ in range(reps))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--clips", default=benchlib.CLIPS)
    ap.add_argument("--work")
    ap.add_argument("--backends", default="cpu")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--batch-env", action="append", default=[],
                    help="K=V: also time the batch with this environment (same run)")
    a = ap.parse_args()
    a.exe = benchlib.speedqa_exe(a.exe)
    with benchlib.work_dir(a.work) as a.work:
        run(a)


def run(a):
    full_ref = os.path.join(a.work, "ref48.y4m")
    full_dis = os.path.join(a.work, "dis48.y4m")
    for src, dst in (("seeding_576x324_420p8_48f.y4m.xz", full_ref),
                     ("seeding_576x324_420p8_48f_x264crf40.y4m.xz", full_dis)):
        if not os.path.exists(dst):
            with lzma.open(os.path.join(a.clips, src)) as f, open(dst, "wb") as g:
                shutil.copyfileobj(f, g)
    ncpu = os.cpu_count() or 1
    summary = {"ncpu": ncpu}

    # ladder of 4, one thread
    rends = [full_dis] + [y4m_cut(full_dis, os.path.join(a.work, "r%d.y4m" % i), 48, seed=i)
                          for i in (1, 2, 3)]
    base = [a.exe, "-r", full_ref, "--threads", "1", "--json", "-q"]
    sep = best(a.reps, lambda: sum(timed(base + ["-d", d, "-o", os.devnull]) for d in rends))
    lad_cmd = base + sum((["-d", d] for d in rends), []) + ["-o", os.path.join(a.work, "l{i}.json")]
    lad = best(a.reps, lambda: timed(lad_cmd))
    print("ladder of 4 (576x324, 48 frames, 1 thread): 4 separate runs %.3f s, ladder %.3f s: "
          "%.2fx the time" % (sep, lad, lad / sep))
    summary["ladder"] = {"separate_s": sep, "ladder_s": lad, "ratio": lad / sep}

    # 200 short pairs
    pdir = os.path.join(a.work, "pairs")
    os.makedirs(pdir, exist_ok=True)
    ref24 = y4m_cut(full_ref, os.path.join(pdir, "ref24.y4m"), 24)
    dis24 = [y4m_cut(full_dis, os.path.join(pdir, "dis24_%d.y4m" % i), 24, seed=i) for i in range(4)]
    rows = []
    for i in range(a.pairs):
        r = os.path.join(pdir, "ref_%03d.y4m" % i)
        if not os.path.lexists(r):
            os.symlink(os.path.basename(ref24), r)
        rows.append((r, dis24[i % 4]))
    man = os.path.join(a.work, "pairs.csv")
    with open(man, "w") as f:
        f.write("ref,dis\n")
        for r, d in rows:
            f.write("%s,%s\n" % (r, d))
    args_file = os.path.join(a.work, "pairs.args")
    with open(args_file, "w") as f:
        for r, d in rows:
            f.write("%s\n%s\n" % (r, d))
    summary["batch"] = {}
    for be in a.backends.split(","):
        cmd = "%s -r \"$1\" -d \"$2\" --backend %s --threads 1 --json -q -o /dev/null" % (a.exe, be)
        procs = {}
        for par in sorted({1, ncpu}):
            # a GPU process pays the device start-up: 200 of them one at a time take minutes
            procs[par] = best(a.reps if be == "cpu" else 1, lambda: timed(
                ["xargs", "-d", "\\n", "-n", "2", "-P", str(par), "sh", "-c", cmd, "sh"],
                stdin=open(args_file)))
        threads = str(ncpu)
        res = os.path.join(a.work, "res-%s.jsonl" % be)
        bt = best(a.reps, lambda: timed([a.exe, "--batch", man, "--backend", be, "--threads", threads,
                                          "-q", "-o", res]))
        floor = min(procs.values())
        for kv in a.batch_env:
            env = dict(os.environ, **dict([kv.split("=", 1)]))
            t = best(a.reps, lambda: timed([a.exe, "--batch", man, "--backend", be, "--threads",
                                            threads, "-q", "-o", res + ".env"], env=env))
            same = open(res + ".env").read() == open(res).read()
            print("  batch with %s: %.3f s (%.2fx the default batch), results %s" % (
                kv, t, t / bt, "identical" if same else "DIFFER"))
            summary.setdefault("batch_env", {})["%s %s" % (be, kv)] = t
        lines = open(res).read().splitlines()
        ok = len(lines) == a.pairs and all("error" not in l for l in lines)
        print("%d pairs (576x324, 24 frames), %s: processes %s; batch --threads %s %.3f s: %.2fx "
              "faster than the best process run%s" % (
                  a.pairs, be, ", ".join("-P %d %.3f s" % kv for kv in sorted(procs.items())),
                  threads, bt, floor / bt, "" if ok else " (RESULTS INCOMPLETE)"))
        summary["batch"][be] = {"processes_s": {str(k): v for k, v in procs.items()},
                                "batch_s": bt, "speedup": floor / bt, "complete": ok}
    outs = {be: open(os.path.join(a.work, "res-%s.jsonl" % be)).read() for be in a.backends.split(",")}
    same = len(set(outs.values())) == 1
    print("batch results identical across backends %s: %s" % (a.backends, same))
    summary["backends_identical"] = same
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
