#!/usr/bin/env python3
"""An --hwaccel cuda batch against its own --read-only floor, with and without
the next pair opened ahead (SPEEDQA_OPEN_AHEAD=1/0), rounds interleaved so
that drift between runs falls on every mode alike.

  nvdec_batch_ab.py SPEEDQA CLIPS OUT [PAIRS [ROUNDS]]

CLIPS holds NAME_ref.mkv / NAME_dis.mkv pairs (bench/make_nvdec_clips.sh
bench); $AB_CLIPS (comma-separated names) picks some of them. Each batch scores PAIRS copies of a clip's pair (default 64) in one
process, start-up included. Prints, per clip and setting, the best and the
median wall time of the rounds, the scored / read-only ratio of the best
times, host CPU ms per frame pair, and whether every scored batch's result
lines are identical."""
import os
import resource
import statistics
import subprocess
import sys
import time

EXE, CLIPS, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
PAIRS = int(sys.argv[4]) if len(sys.argv) > 4 else 64
ROUNDS = int(sys.argv[5]) if len(sys.argv) > 5 else 3


def run(args, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    p = subprocess.run([EXE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, **env))
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.returncode, p.stderr.decode("utf-8", "replace"), wall, cpu


def main():
    os.makedirs(OUT, exist_ok=True)
    names = sorted({f[:-8] for f in os.listdir(CLIPS) if f.endswith("_ref.mkv")})
    if os.environ.get("AB_CLIPS"):
        names = [n for n in names if n in os.environ["AB_CLIPS"].split(",")]
    bad = 0
    for name in names:
        r, d = os.path.join(CLIPS, name + "_ref.mkv"), os.path.join(CLIPS, name + "_dis.mkv")
        man = os.path.join(OUT, name + "_ab.csv")
        with open(man, "w") as f:
            f.write("ref,dis\n" + "".join("%s,%s\n" % (r, d) for _ in range(PAIRS)))
        # warm-up (the machine's first CUDA start-up and the page cache): not counted
        run(["--batch", man, "--hwaccel", "cuda", "--read-only"], {})
        walls, cpus, lines, frames = {}, {}, {}, 0
        for rnd in range(ROUNDS):
            for ahead in ("0", "1"):
                for mode in ("read", "score"):
                    key = (ahead, mode)
                    res = os.path.join(OUT, "%s_%s_%s_%d.jsonl" % (name, mode, ahead, rnd))
                    extra = ["--read-only"] if mode == "read" else ["--precision", "max", "-o", res]
                    rc, err, wall, cpu = run(["--batch", man, "--hwaccel", "cuda"] + extra,
                                             {"SPEEDQA_OPEN_AHEAD": ahead})
                    if rc != 0:
                        print("%s %s ahead=%s: exit %d: %s" % (name, mode, ahead, rc, err.strip()[-300:]))
                        bad += 1
                        continue
                    if mode == "read":
                        frames = int(err.split(" frame pairs read")[0].split()[-1])
                    else:
                        with open(res) as f:
                            lines.setdefault("all", set()).add(f.read())
                    walls.setdefault(key, []).append(wall)
                    cpus.setdefault(key, []).append(cpu)
        print("%s, %d pairs, %d frame pairs, %d rounds:" % (name, PAIRS, frames, ROUNDS))
        for ahead in ("0", "1"):
            row = []
            for mode in ("read", "score"):
                w = walls.get((ahead, mode), [0])
                c = cpus.get((ahead, mode), [0])
                row.append(min(w))
                print("  open ahead %s  %-5s best %6.2f s  median %6.2f s  (%s)  cpu %.2f ms/frame pair" % (
                    ahead, mode, min(w), statistics.median(w), " ".join("%.2f" % x for x in w),
                    1000.0 * min(c) / frames if frames else 0))
            print("  open ahead %s  scored / read-only (best walls): %.1f%%" % (
                ahead, 100.0 * row[0] / row[1] if row[1] else 0))
        same = len(lines.get("all", ())) == 1
        print("  scored batches' result lines identical across rounds and settings: %s" % same)
        bad += not same
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
