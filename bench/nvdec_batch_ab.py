#!/usr/bin/env python3
"""An --hwaccel cuda batch against its own --read-only floor, in rounds that
interleave the two (and the settings compared), so that drift between runs
falls on every mode alike.

  nvdec_batch_ab.py SPEEDQA CLIPS OUT [PAIRS [ROUNDS]]

CLIPS holds NAME_ref.mkv / NAME_dis.mkv pairs (bench/make_nvdec_clips.sh
bench); $AB_CLIPS (comma-separated names) picks some of them. $AB_SETTINGS
compares settings: environment assignments, one setting per ";", e.g.
"SPEEDQA_HW_WORKERS=4;SPEEDQA_HW_WORKERS=8" (default: one, as is). Each batch scores PAIRS copies of a clip's pair (default 64) in one
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
SETTINGS = os.environ.get("AB_SETTINGS", "").split(";")


def env_of(setting):
    return dict(kv.split("=", 1) for kv in setting.split() if "=" in kv)


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
            for setting in SETTINGS:
                for mode in ("read", "score"):
                    key = (setting, mode)
                    res = os.path.join(OUT, "%s_%s_%d_%d.jsonl" % (name, mode, SETTINGS.index(setting), rnd))
                    extra = ["--read-only"] if mode == "read" else ["--precision", "max", "-o", res]
                    rc, err, wall, cpu = run(["--batch", man, "--hwaccel", "cuda"] + extra,
                                             env_of(setting))
                    if rc != 0:
                        print("%s %s [%s]: exit %d: %s" % (name, mode, setting, rc, err.strip()[-300:]))
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
        for setting in SETTINGS:
            row = []
            for mode in ("read", "score"):
                w = walls.get((setting, mode), [0])
                c = cpus.get((setting, mode), [0])
                row.append(min(w))
                print("  [%s]  %-5s best %6.2f s  median %6.2f s  (%s)  cpu %.2f ms/frame pair" % (
                    setting, mode, min(w), statistics.median(w), " ".join("%.2f" % x for x in w),
                    1000.0 * min(c) / frames if frames else 0))
            print("  [%s]  scored / read-only (best walls): %.1f%%" % (
                setting, 100.0 * row[0] / row[1] if row[1] else 0))
        same = len(lines.get("all", ())) == 1
        print("  scored batches' result lines identical across rounds and settings: %s" % same)
        bad += not same
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
