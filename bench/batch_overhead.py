#!/usr/bin/env python3
"""The batch's own overhead on a large manifest (issue 35: <= 5 s, <= 200 MB
for 100k pairs): every pair fails to open, so only the manifest, the output
identity pass, grouping, result lines and --resume are timed.

usage: bench/batch_overhead.py SPEEDQA [PAIRS] [--shape distinct|shared|mixed] [--threads N] [--jsonl]

distinct: every pair its own reference (the case that grew quadratically);
shared:   every pair one reference, each with its own report (~25 KB a pair before);
mixed:    half of each. Reports wall seconds and max RSS of the batch, then of
a --resume of its results (every line failed, so all are scored again).
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("speedqa")
    ap.add_argument("pairs", type=int, nargs="?", default=100000)
    ap.add_argument("--shape", default="mixed", choices=["distinct", "shared", "mixed"])
    ap.add_argument("--threads", default="2")
    ap.add_argument("--jsonl", action="store_true", help="a JSON lines manifest instead of CSV")
    a = ap.parse_args()
    exe = os.path.abspath(a.speedqa)
    with tempfile.TemporaryDirectory() as d:
        man = os.path.join(d, "m.jsonl" if a.jsonl else "m.csv")
        res = os.path.join(d, "res.jsonl")
        make_manifest(man, a.pairs, a.shape, d, a.jsonl)
        cmd = [exe, "--batch", man, "-o", res, "-q", "--threads", a.threads]
        code, secs, cpu, rss, err = timed(cmd, d)
        nlines = sum(1 for _ in open(res))
        print("batch  %d pairs (%s): exit %d, %d lines, %.2f s wall, %.2f s CPU, max RSS %.0f MB"
              % (a.pairs, a.shape, code, nlines, secs, cpu, rss))
        code, secs2, cpu2, rss2, err = timed(cmd + ["--resume"], d)
        print("resume %d pairs (%s): exit %d, %.2f s wall, %.2f s CPU, max RSS %.0f MB"
              % (a.pairs, a.shape, code, secs2, cpu2, rss2))
        ok = nlines == a.pairs and code == 3
        if not ok:
            print("unexpected: %r" % err)
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
