#!/usr/bin/env python3
"""speedqa.dask on a 2-worker LocalCluster against `speedqa --batch --threads 2` on the
same manifest, in the same run, rounds interleaved (the target: the Dask runner takes at most
1.5x the time of --batch, and writes the same bytes). Both run the C batch runner; Dask
sends chunks of the manifest to its workers (python -m speedqa.dask --chunk-pairs).

Reported: per round, the --batch time, the Dask scoring time on a started cluster (workers
warm) and the whole `python -m speedqa.dask` command (interpreter, cluster start-up and
teardown included); the medians and ratios; whether every results file is --batch's, byte
for byte.

usage: /usr/bin/python3 bench/dask_bench.py BUILD [--clips DIR] [--work DIR] \\
       [--pairs 90] [--frames 48] [--rounds 3]
(BUILD: a build folder: its libraries and the tree's python/ package are used, unless
SPEEDQA_LIB, SPEEDQA_IO_LIB or PYTHONPATH say otherwise; --clips: where
seeding_576x324_420p8_48f*.y4m.xz are, default tests/data/clips; --work: a work folder
to keep, default a temporary one)
"""
import argparse
import json
import lzma
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
from catalog_bench import y4m_cut  # noqa: E402


def timed(cmd, env=None):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr.decode()))
    return dt


def make_manifest(a):
    os.makedirs(a.work, exist_ok=True)
    full = {}
    for key, src in (("ref", "seeding_576x324_420p8_48f.y4m.xz"),
                     ("dis", "seeding_576x324_420p8_48f_x264crf40.y4m.xz")):
        full[key] = os.path.join(a.work, key + "48.y4m")
        if not os.path.exists(full[key]):
            with lzma.open(os.path.join(a.clips, src)) as f, open(full[key], "wb") as g:
                shutil.copyfileobj(f, g)
    ref = y4m_cut(full["ref"], os.path.join(a.work, "dref.y4m"), a.frames)
    dis = [y4m_cut(full["dis"], os.path.join(a.work, "ddis%d.y4m" % i), a.frames, seed=i)
           for i in range(4)]
    man = os.path.join(a.work, "dask.csv")
    with open(man, "w") as f:
        f.write("ref,dis\n")
        for i in range(a.pairs):
            r = os.path.join(a.work, "dref_%03d.y4m" % (i // 3))  # 3 renditions a reference
            if not os.path.lexists(r):
                os.symlink(os.path.basename(ref), r)
            f.write("%s,%s\n" % (r, dis[i % 4]))
    return man


def use_build(build):
    """This build's libraries and the tree's package, here and in the workers
    (processes started from this one's environment)."""
    os.environ.setdefault("SPEEDQA_LIB", os.path.join(os.path.abspath(build), "src",
                                                      "libspeedqa.so"))
    os.environ.setdefault("SPEEDQA_IO_LIB", os.path.join(os.path.abspath(build), "tools",
                                                         "libspeedqa_io.so.0"))
    if "PYTHONPATH" not in os.environ:
        os.environ["PYTHONPATH"] = os.path.join(benchlib.ROOT, "python")
        sys.path.insert(0, os.environ["PYTHONPATH"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--clips", default=benchlib.CLIPS)
    ap.add_argument("--work")
    ap.add_argument("--pairs", type=int, default=90)
    ap.add_argument("--frames", type=int, default=48)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    if os.path.isdir(a.exe):
        use_build(a.exe)
    a.exe = benchlib.speedqa_exe(a.exe)
    with benchlib.work_dir(a.work) as a.work:
        return run(a)


def run(a):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("no dask.distributed: skipped")
        return 77
    import speedqa.dask as sd
    man = make_manifest(a)

    t = {"batch": [], "dask": [], "dask command": []}
    want, same = None, True
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as cl, Client(cl) as client:
        warm = os.path.join(a.work, "warm.jsonl")
        sd.run_batch(client, ["--batch", man, "-o", warm, "-q"])  # workers import speedqa
        for r in range(a.rounds):
            out = os.path.join(a.work, "batch.jsonl")
            t["batch"].append(timed([a.exe, "--batch", man, "-o", out, "--threads", "2", "-q"]))
            want = open(out, "rb").read()
            out = os.path.join(a.work, "dask.jsonl")
            if os.path.exists(out):
                os.remove(out)
            t0 = time.perf_counter()
            code, _, line = sd.run_batch(client, ["--batch", man, "-o", out, "--threads", "1",
                                                  "-q"], workers=2)
            t["dask"].append(time.perf_counter() - t0)
            same = same and code == 0 and open(out, "rb").read() == want
    for r in range(a.rounds):
        out = os.path.join(a.work, "dask_cmd.jsonl")
        if os.path.exists(out):
            os.remove(out)
        t["dask command"].append(timed([sys.executable, "-m", "speedqa.dask", man, "-o", out,
                                        "--local-workers", "2", "--threads", "1", "-q"]))
        same = same and open(out, "rb").read() == want
    med = {k: statistics.median(v) for k, v in t.items()}
    for k, v in t.items():
        print("%-14s %s  median %.2f s" % (k, " ".join("%.2f" % x for x in v), med[k]))
    print("%d pairs of %d frames (576x324), 2 workers vs --threads 2: Dask scoring / --batch "
          "%.2fx; whole dask command / --batch %.2fx; results identical to --batch: %s"
          % (a.pairs, a.frames, med["dask"] / med["batch"], med["dask command"] / med["batch"],
             same))
    print(json.dumps({"times_s": t, "ratio_scoring": med["dask"] / med["batch"],
                      "ratio_command": med["dask command"] / med["batch"], "identical": same}))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
