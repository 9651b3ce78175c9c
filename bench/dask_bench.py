#!/usr/bin/env python3
"""speedqa.dask on a LocalCluster: 1 against 2 local worker processes, and `speedqa --batch`
with 1 and 2 threads, on the same manifest in the same run (issue #16). The results of
every run must be the same lines.

usage: PYTHONPATH=python SPEEDQA_LIB=BUILD/src/libspeedqa.so.0 \\
       /usr/bin/python3 bench/dask_bench.py SPEEDQA GOLDEN_DIR WORK_DIR [--pairs 40] [--frames 48]
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from catalog_bench import y4m_cut  # noqa: E402


def timed(cmd, env=None):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr.decode()))
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("golden")
    ap.add_argument("work")
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--frames", type=int, default=48)
    a = ap.parse_args()
    import lzma
    import shutil
    os.makedirs(a.work, exist_ok=True)
    full = {}
    for key, src in (("ref", "seeding_576x324_420p8_48f.y4m.xz"),
                     ("dis", "seeding_576x324_420p8_48f_x264crf40.y4m.xz")):
        full[key] = os.path.join(a.work, key + "48.y4m")
        if not os.path.exists(full[key]):
            with lzma.open(os.path.join(a.golden, "clips", src)) as f, open(full[key], "wb") as g:
                shutil.copyfileobj(f, g)
    ref = y4m_cut(full["ref"], os.path.join(a.work, "dref.y4m"), a.frames)
    dis = [y4m_cut(full["dis"], os.path.join(a.work, "ddis%d.y4m" % i), a.frames, seed=i) for i in range(4)]
    man = os.path.join(a.work, "dask.csv")
    with open(man, "w") as f:
        f.write("ref,dis\n")
        for i in range(a.pairs):
            r = os.path.join(a.work, "dref_%03d.y4m" % i)  # own paths: no ladder sharing
            if not os.path.lexists(r):
                os.symlink(os.path.basename(ref), r)
            f.write("%s,%s\n" % (r, dis[i % 4]))
    res, t = {}, {}
    for n in (1, 2):
        out = os.path.join(a.work, "dask%d.jsonl" % n)
        t["dask %d worker%s" % (n, "s" if n > 1 else "")] = timed(
            [sys.executable, "-m", "speedqa.dask", man, "-o", out, "--local-workers", str(n)])
        res["dask%d" % n] = open(out).read()
        out = os.path.join(a.work, "batch%d.jsonl" % n)
        t["speedqa --batch --threads %d" % n] = timed([a.exe, "--batch", man, "-o", out, "--threads",
                                                       str(n), "-q"])
        res["batch%d" % n] = [json.loads(l) for l in open(out).read().splitlines()]
    # the scoring alone, on clusters started beforehand (the start-up is paid once per cluster)
    from distributed import Client, LocalCluster
    import speedqa.dask as sd
    import speedqa.manifest as sm
    entries = sm.read_manifest(man)
    for n in (1, 2):
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=":0") as cl, Client(cl) as client:
            sd.run_batch(client, entries[:2], os.path.join(a.work, "warm.jsonl"))  # workers import speedqa
            t0 = time.perf_counter()
            sd.run_batch(client, entries, os.path.join(a.work, "warm%d.jsonl" % n))
            t["dask %d worker%s, scoring only" % (n, "s" if n > 1 else "")] = time.perf_counter() - t0
    same = all([json.loads(l) for l in res["dask%d" % n].splitlines()] == res["batch1"]
               for n in (1, 2)) and res["batch2"] == res["batch1"]
    for k, v in t.items():
        print("%-30s %.2f s" % (k, v))
    d1, d2 = t["dask 1 worker"], t["dask 2 workers"]
    w1, w2 = t["dask 1 worker, scoring only"], t["dask 2 workers, scoring only"]
    print("%d pairs of %d frames (576x324): dask 2 workers / 1 worker speed-up %.2fx for the whole "
          "command (cluster start-up included), %.2fx for the scoring; results identical to "
          "--batch: %s" % (a.pairs, a.frames, d1 / d2, w1 / w2, same))
    print(json.dumps({"times_s": t, "dask_speedup": d1 / d2, "dask_scoring_speedup": w1 / w2,
                      "identical": same}))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
