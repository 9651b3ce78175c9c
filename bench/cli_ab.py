#!/usr/bin/env python3
"""Whole CLI jobs of two or more speedqa builds against the read floor,
interleaved round by round (so that drift in the machine hits every
build alike):

    cli_ab.py --size 1080p8|2160p10 --frames N --rounds R
              [--args "--backend cuda --threads 16"] [--cat] [--ratio A/B ...]
              NAME=SPEEDQA [NAME=SPEEDQA ...]

Each round times the floor (both files read by two cats in parallel) and
one run of each build (both features, -q -o /dev/null), in a new order
each round; SPEEDQA may carry a prefix and flags of its own
("t1=taskset -c 0 build/tools/speedqa --threads 1"). --cat adds one
`cat ref dis` (the 2-core acceptance's baseline). Prints per build the best and the median time and their ratio
to the best and the median floor time (the acceptance's "share of the
floor"). --ratio A/B prints how many times as fast A runs as B: B's time
over A's, best over best, median over median, and the median of the
rounds' own ratios (each round's runs are neighbours in time, so that one
resists the machine's drift best). The pair is bench/cli_throughput.py's, in $SPEEDQA_BENCH_DIR
(default /var/tmp; the header names its file system), read once into the
page cache first: by `cat` as it was written (its page cache then holds the
folios the writer made), or, with --read-back "SPEEDQA [flags]", dropped
from the page cache and read back by one untimed run of that command, as
the files of a catalog on disk come in for the first job that reads them
(speedqa's mapping asks for huge pages, so they come in as 2 MiB folios)."""
import argparse
import os
import random
import shlex
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_throughput  # noqa: E402


def timed(cmds):
    t0 = time.monotonic()
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for c in cmds]
    codes = [p.wait() for p in procs]
    return None if any(codes) else time.monotonic() - t0


def read_back(cmd, ref, dis):
    """The pair dropped from the page cache, then read back by one untimed
    run of cmd (a speedqa command line): whether that run succeeded."""
    for f in (ref, dis):
        fd = os.open(f, os.O_RDONLY)
        os.fdatasync(fd)  # dirty pages cannot be dropped
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
    return timed([cmd + ["-r", ref, "-d", dis, "-q", "-o", os.devnull]]) is not None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1080p8", choices=["1080p8", "2160p10"])
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--args", default="--backend cuda --threads 16")
    ap.add_argument("--cat", action="store_true")
    ap.add_argument("--ratio", action="append", default=[])
    ap.add_argument("--read-back", default=None)
    ap.add_argument("builds", nargs="+")
    a = ap.parse_args()
    ref, dis = cli_throughput.bench_pair(a.size, a.frames)
    if a.read_back and not read_back(shlex.split(a.read_back), ref, dis):
        sys.exit("cli_ab: the read-back run failed")
    timed([["cat", ref, dis]])
    builds = [b.split("=", 1) for b in a.builds]
    times = {"floor": [], "cat": []} if a.cat else {"floor": []}
    times.update({n: [] for n, _ in builds})
    extra = shlex.split(a.args)
    for r in range(a.rounds):
        order = [("floor", [["cat", ref], ["cat", dis]])] + \
                [(n, [shlex.split(p) + ["-r", ref, "-d", dis, "-q", "-o", "/dev/null"] + extra])
                 for n, p in builds]
        if a.cat:
            order.append(("cat", [["cat", ref, dis]]))
        random.Random(r).shuffle(order)
        for n, cmds in order:
            t = timed(cmds)
            times[n].append(t if t is not None else float("nan"))
    fb, fm = min(times["floor"]), statistics.median(times["floor"])
    print("%s, %d frames, %s, %d rounds, pair on %s%s; share of the floor = floor time / run time" %
          (a.size, a.frames, a.args, a.rounds, cli_throughput.bench_fs(),
           ", read back by " + a.read_back if a.read_back else ""))
    for n, ts in times.items():
        b, m = min(ts), statistics.median(ts)
        print("%-8s best %6.3f s (%7.1f fps, %.2f of the best floor)  median %6.3f s (%.2f of the "
              "median floor)  all: %s" % (n, b, a.frames / b, fb / b, m, fm / m,
                                          " ".join("%.3f" % t for t in ts)))
    for q in a.ratio:
        x, y = q.split("/", 1)
        tx, ty = times[x], times[y]
        rounds = sorted(v / u for u, v in zip(tx, ty))
        print("%s is %.2fx as fast as %s (best over best), %.2fx (median over median), "
              "%.2fx (median of the rounds' ratios; %.2f..%.2f)" %
              (x, min(ty) / min(tx), y, statistics.median(ty) / statistics.median(tx),
               statistics.median(rounds), rounds[0], rounds[-1]))


if __name__ == "__main__":
    main()
