#!/usr/bin/env python3
"""The batch's own overhead on a large manifest (the target: <= 5 s and
<= 200 MB for 100k pairs): every pair fails to open, so only the manifest, the
output identity pass, grouping, result lines and --resume are timed, against
the same command on a manifest of one pair in the same run (the process's
start-up: the floor), in rounds.

usage: bench/batch_overhead.py SPEEDQA [PAIRS] [--shape distinct|shared|mixed] [--threads N]
                               [--jsonl] [--rounds R]
(SPEEDQA: a speedqa binary or a build folder)

distinct: every pair its own reference (the case that grew quadratically);
shared:   every pair one reference, each with its own report (~25 KB a pair before);
mixed:    half of each. Reports wall seconds and max RSS of the batch, then of
a --resume of its results (every line failed, so all are scored again), each
with its time per pair above the floor.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

import benchlib


def make_manifest(path, n, shape, folder, jsonl=False):
    with open(path, "w") as f:
        if not jsonl:
            f.write("ref,dis,output\n")
        for i in range(n):
            distinct = shape == "distinct" or (shape == "mixed" and i % 2)
            ref = "missing/ref%d.y4m" % i if distinct else "missing/ref.y4m"
            out = os.path.join(folder, "rep%d.json" % i) if i % 2 == 0 else ""
            dis = "missing/dis%d.y4m" % i
            if jsonl:
                f.write(json.dumps(dict({"ref": ref, "dis": dis}, **({"output": out} if out else {})))
                        + "\n")
            else:
                f.write("%s,%s,%s\n" % (ref, dis, out))


def timed(cmd, cwd):
    """exit code, wall seconds, CPU seconds (user + system: what a loaded machine
    cannot inflate), max RSS in MB (the largest child so far), stderr's end."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    secs = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    return p.returncode, secs, cpu, r1.ru_maxrss / 1024.0, p.stderr.decode()[-300:]


def median_run(cmd, cwd, n):
    """The round of median wall time (code, wall, CPU, RSS, stderr) of n runs."""
    runs = sorted((timed(cmd, cwd) for _ in range(n)), key=lambda r: r[1])
    return runs[len(runs) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("speedqa")
    ap.add_argument("pairs", type=int, nargs="?", default=100000)
    ap.add_argument("--shape", default="mixed", choices=["distinct", "shared", "mixed"])
    ap.add_argument("--threads", default="2")
    ap.add_argument("--jsonl", action="store_true", help="a JSON lines manifest instead of CSV")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    exe = benchlib.speedqa_exe(a.speedqa)
    with benchlib.work_dir() as d:
        ext = "jsonl" if a.jsonl else "csv"
        one, man = os.path.join(d, "one." + ext), os.path.join(d, "m." + ext)
        make_manifest(one, 1, a.shape, d, a.jsonl)
        make_manifest(man, a.pairs, a.shape, d, a.jsonl)
        res = os.path.join(d, "res.jsonl")
        floor = median_run([exe, "--batch", one, "-o", res, "-q", "--threads", a.threads], d,
                           a.rounds)
        print("floor: a batch of 1 pair, median of %d: %.3f s wall, max RSS %.0f MB"
              % (a.rounds, floor[1], floor[3]))
        cmd = [exe, "--batch", man, "-o", res, "-q", "--threads", a.threads]
        ok = True
        for name, c in (("batch", cmd), ("resume", cmd + ["--resume"])):
            code, secs, cpu, rss, err = median_run(c, d, a.rounds) if name == "batch" else \
                timed(c, d)
            nlines = sum(1 for _ in open(res))
            print("%-6s %d pairs (%s): exit %d, %d lines, %.2f s wall (%.1f us a pair above the "
                  "floor, %.1fx its time), %.2f s CPU, max RSS %.0f MB"
                  % (name, a.pairs, a.shape, code, nlines, secs,
                     (secs - floor[1]) * 1e6 / a.pairs, secs / floor[1], cpu, rss))
            if nlines != a.pairs or code != 3:
                print("unexpected: %r" % err)
                ok = False
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
