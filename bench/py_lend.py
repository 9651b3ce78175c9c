#!/usr/bin/env python3
"""Python Scorer on Video frames (fresh arrays read by libspeedqa_io):
planes copied by the library at send against lent (send(lend=True)),
interleaved round by round, with the read floor of the same loop (the
frames fetched, every 4 KiB page of their planes touched, nothing scored):

    PYTHONPATH=python SPEEDQA_LIB=build/src/libspeedqa.so \\
        py_lend.py [--frames N] [--rounds R] [--threads 1,2]

Prints the best and median seconds per variant and lent/copied per round
(median of the rounds' own ratios). The pair is bench/cli_throughput.py's."""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_throughput  # noqa: E402
import speedqa  # noqa: E402


def run(ref, dis, threads, lend, n):
    r, d = speedqa.open_video(ref), speedqa.open_video(dis)
    t0 = time.monotonic()
    if threads == 0:  # the floor: fetch and touch
        s = 0
        for i in range(n):
            for p in r.frame(i) + d.frame(i):
                s += int(p.reshape(-1)[::4096].sum())
    else:
        with speedqa.Scorer(r.width, r.height, r.pix_fmt, r.bpc, threads=threads) as sc:
            for i in range(n):
                sc.send(r.frame(i), d.frame(i), lend=lend)
            sc.flush()
    el = time.monotonic() - t0
    r.close()
    d.close()
    return el


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    a = ap.parse_args()
    ref, dis = cli_throughput.bench_pair("1080p8", a.frames)
    threads = [int(t) for t in a.threads.split(",")]
    variants = [("floor", 0, False)] + [("%s t%d" % ("lent" if l else "copied", t), t, l)
                                         for t in threads for l in (False, True)]
    times = {v[0]: [] for v in variants}
    run(ref, dis, 0, False, a.frames)  # page cache
    for k in range(a.rounds):
        order = variants[k % len(variants):] + variants[:k % len(variants)]
        for name, t, lend in order:
            times[name].append(run(ref, dis, t, lend, a.frames))
    for name, ts in times.items():
        print("%-10s best %.3f s (%.0f fps)  median %.3f s" % (name, min(ts), a.frames / min(ts),
                                                              statistics.median(ts)))
    for t in threads:
        c, l = times["copied t%d" % t], times["lent t%d" % t]
        print("t%d lent/copied: %.3fx (median of rounds)" % (
            t, statistics.median(x / y for x, y in zip(c, l))))


if __name__ == "__main__":
    main()
