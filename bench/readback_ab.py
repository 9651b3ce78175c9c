#!/usr/bin/env python3
"""Two speedqa builds on pairs read back from disk, each by itself, interleaved:

    readback_ab.py [--size 1080p8|2160p10] [--frames N] [--rounds R] OLD NEW

How a build's own reading leaves the page cache (its folios) decides much of
a whole job's cost, so one pair cannot serve both builds: the pair of
bench/cli_throughput.py is copied once more, each copy dropped from the page
cache and read back by one untimed run of its build (--threads 2), then each
round times, in a new order (after one untimed pass of them all): the floor
(both files of NEW's copy read by two cats in parallel), `cat ref dis`, and
each build at 1 and 2 threads on its own copy. Prints best and median times
and, per build, --threads 2 over --threads 1 and --threads 1 over `cat ref
dis` (median of the rounds' own ratios), and NEW over OLD."""
import argparse
import os
import random
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_ab  # noqa: E402
import cli_throughput  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1080p8", choices=["1080p8", "2160p10"])
    ap.add_argument("--frames", type=int, default=480)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("old")
    ap.add_argument("new")
    a = ap.parse_args()
    ref, dis = cli_throughput.bench_pair(a.size, a.frames)
    copy = os.path.dirname(ref) + "-copy"
    os.makedirs(copy, exist_ok=True)
    pairs = {"old": (copy + "/ref.y4m", copy + "/dis.y4m"), "new": (ref, dis)}
    for f in (ref, dis):
        dst = os.path.join(copy, os.path.basename(f))
        if not os.path.exists(dst):
            shutil.copyfile(f, dst)
    builds = {"old": a.old, "new": a.new}
    for b, (r, d) in pairs.items():
        if not cli_ab.read_back([builds[b], "--threads", "2"], r, d):
            sys.exit("readback_ab: the %s build failed" % b)
    jobs = {"floor": [["cat", ref], ["cat", dis]], "cat": [["cat", ref, dis]]}
    for b, (r, d) in pairs.items():
        for t in (1, 2):
            jobs["%s%d" % (b, t)] = [[builds[b], "--threads", str(t), "-r", r, "-d", d, "-q", "-o", os.devnull]]
    times = {k: [] for k in jobs}
    for k in jobs:  # one untimed pass: the first read after a read-back runs slow (cat: 1.75 s for 0.4)
        cli_ab.timed(jobs[k])
    for i in range(a.rounds):
        order = list(jobs)
        random.Random(i).shuffle(order)
        for k in order:
            t = cli_ab.timed(jobs[k])
            times[k].append(t if t is not None else float("nan"))
    print("%s, %d frames, %d rounds, each build on its own copy read back by itself" %
          (a.size, a.frames, a.rounds))
    for k, ts in times.items():
        print("%-6s best %6.3f s  median %6.3f s  all: %s" %
              (k, min(ts), statistics.median(ts), " ".join("%.3f" % t for t in ts)))

    def ratio(x, y):  # how many times as fast x runs as y, median of the rounds
        return statistics.median(v / u for u, v in zip(times[x], times[y]))
    for b in builds:
        print("%s: --threads 2 %.2fx as fast as --threads 1; --threads 1 takes %.2fx the time of cat ref dis"
              % (b, ratio(b + "2", b + "1"), 1 / ratio(b + "1", "cat")))
    print("new as fast as old: %.2fx (1 thread), %.2fx (2 threads)" % (ratio("new1", "old1"), ratio("new2", "old2")))


if __name__ == "__main__":
    main()
