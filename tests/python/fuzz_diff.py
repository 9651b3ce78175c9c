#!/usr/bin/env python3
"""Differential fuzzing of the Python binding against the speedqa CLI.

From a fresh random seed (printed; --seed replays one), mutates Y4M and raw
inputs and batch manifests, and checks that the Python package gives what
the CLI gives on each: the same JSON document (--precision max, fps aside)
or the same exit code and one error line; for manifests the same results
file, byte for byte, and exit code. Runs for --seconds (or --cases), prints
the counts and exits 1 on the first mismatch, its case kept under --keep.

    PYTHONPATH=python SPEEDQA_LIB=build/src/libspeedqa.so.0.2 \\
      SPEEDQA_IO_LIB=build/tools/libspeedqa_io.so.0 \\
      python3 tests/python/fuzz_diff.py --cli build/tools/speedqa --seconds 60
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
import speedqa  # noqa: E402
from speedqa import manifest as M  # noqa: E402

FEATURES = ["speed_temporal", "speed_chroma", "speed_chroma=speed_kernelscale=0.5",
            "speed_temporal=speed_prescale=2", "bogus", "speed_chroma=speed_max_val=1e400"]


def error_line(stderr):
    lines = [ln for ln in stderr.splitlines() if ln.startswith("speedqa: error: ")]
    return lines[0][len("speedqa: error: "):] if lines else ""


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        if not data:
            break
        at = rng.randrange(len(data))
        if op == 0:  # a byte of the header or a FRAME line, most often
            hot = [i for i in range(min(len(data), 120))] + \
                  [i for i in range(len(data)) if data[i:i + 5] == b"FRAME"][:8]
            i = rng.choice(hot)
            data[i] = rng.randrange(256)
        elif op == 1:
            del data[at:]
        elif op == 2:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 3:
            del data[at:at + rng.randint(1, 64)]
        elif op == 4:  # a header tag changed
            tags = [b" W576", b" H324", b" C420jpeg", b" F25:1", b" Ip"]
            t = rng.choice(tags)
            new = rng.choice([b" W577", b" H0", b" C444", b" C420p10", b" F0:0", b" It",
                              b" Cmono", b" W99999", b""])
            data = bytearray(bytes(data).replace(t, new, 1))
        elif op == 5:  # a FRAME line with parameters or none
            data = bytearray(bytes(data).replace(b"FRAME\n", rng.choice(
                [b"FRAME Ixyz\n", b"FRAM\n", b"FRAME", b"FRAME\r\n"]), 1))
        else:  # a frame repeated
            data += data[-rng.randint(1, 1000):]
    return bytes(data)


def pair_case(rng, work, ref, dis, cli):
    a, b = os.path.join(work, "a.y4m"), os.path.join(work, "b.y4m")
    src = open(dis, "rb").read()
    raw = rng.random() < 0.2
    if raw:  # a raw file with flags that may not fit it
        a, b = os.path.join(work, "a.yuv"), os.path.join(work, "b.yuv")
        body = src[src.index(b"\n") + 1:].replace(b"FRAME\n", b"")
        open(a, "wb").write(body)
        open(b, "wb").write(mutate(rng, body) if rng.random() < 0.5 else body[:rng.randrange(
            len(body) + 1)])
    else:
        shutil.copyfile(ref, a)
        open(b, "wb").write(mutate(rng, src))
        if rng.random() < 0.2:
            open(a, "wb").write(mutate(rng, open(ref, "rb").read()))
    extra = []
    if raw:
        extra += ["-w", str(rng.choice([576, 576, 288, 575])), "-h", str(rng.choice([324, 162])),
                  "-p", rng.choice(["420", "422", "444", "nv12"]), "-b", rng.choice(["8", "8", "10"])]
    if rng.random() < 0.3:
        extra += ["--frame_cnt", str(rng.randint(0, 6))]
    if rng.random() < 0.2:
        extra += ["--subsample", str(rng.randint(1, 3))]
    if rng.random() < 0.3:
        extra += ["--feature", rng.choice(FEATURES)]
    threads = rng.choice([1, 1, 2])
    args = ["-r", a, "-d", b, "--json", "-q", "--backend", "cpu", "--threads", str(threads),
            "--precision", "max"] + extra
    p = subprocess.run([cli] + args, capture_output=True, text=True, errors="replace")
    try:
        got = speedqa.score_files(a, b, threads=threads, extra=extra)
        mine = (0, json.dumps(strip(got), sort_keys=True))
    except speedqa.Error as e:
        mine = (e.exit_code, e.message)
    want = (p.returncode, json.dumps(strip(json.loads(p.stdout)), sort_keys=True)
            if p.returncode == 0 else error_line(p.stderr))
    return "pair " + " ".join(extra), mine, want


def strip(doc):
    doc = dict(doc)
    doc.pop("fps", None)
    return doc


def manifest_case(rng, work, ref, dis, cli):
    names = [os.path.basename(x) for x in (ref, dis)] + ["none.y4m", "a b.y4m", "-"]
    for n in names[:2]:
        if not os.path.exists(os.path.join(work, n)):
            shutil.copyfile(ref if n == names[0] else dis, os.path.join(work, n))
    rows = []
    for _ in range(rng.randint(1, 5)):
        rows.append({"ref": rng.choice(names[:2] + names[2:3]), "dis": rng.choice(names),
                     "features": rng.choice(["", "", "speed_temporal", "speed_chroma;bogus"]),
                     "output": rng.choice(["", "", "o%d.json" % rng.randrange(3), "o.csv"])})
    if rng.random() < 0.5:
        text = "ref,dis,features,output\n" + "".join(
            '%s,"%s",%s,%s\n' % (r["ref"], r["dis"], r["features"], r["output"]) for r in rows)
    else:
        text = "".join(json.dumps({k: v for k, v in r.items() if v}) + "\n" for r in rows)
    data = mutate(rng, text.encode()) if rng.random() < 0.7 else text.encode()
    man = os.path.join(work, "m.txt")
    open(man, "wb").write(data)
    for f in os.listdir(work):
        if f.startswith(("o", "res")):
            os.remove(os.path.join(work, f))
    p = subprocess.run([cli, "--batch", "m.txt", "-o", "res_cli.jsonl", "-q", "--precision",
                        "max"], capture_output=True, text=True, errors="replace", cwd=work, stdin=subprocess.DEVNULL)
    want_file = open(os.path.join(work, "res_cli.jsonl"), "rb").read() \
        if os.path.exists(os.path.join(work, "res_cli.jsonl")) else None
    for f in os.listdir(work):
        if f.startswith("o"):
            os.remove(os.path.join(work, f))
    cwd = os.getcwd()
    os.chdir(work)
    try:
        try:
            code, _ = speedqa.batch("m.txt", "res_py.jsonl")
            line = ""
        except speedqa.Error as e:
            code, line = e.exit_code, e.message
        try:
            M.read_manifest("m.txt")
            mline = ""
        except M.ManifestError as e:
            mline = str(e)
    finally:
        os.chdir(cwd)
    got_file = open(os.path.join(work, "res_py.jsonl"), "rb").read() \
        if os.path.exists(os.path.join(work, "res_py.jsonl")) else None
    want_line = error_line(p.stderr) if p.returncode and want_file is None else ""
    # a manifest Python's reader refuses, the CLI refuses with that line (exit 2)
    mine = (code, line, got_file, mline)
    want = (p.returncode, want_line, want_file, (want_line if p.returncode == 2 else
                                                 "(the CLI took it)") if mline else "")
    return "manifest", mine, want


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.environ.get("SPEEDQA_CLI",
                                                    os.path.join(ROOT, "build/tools/speedqa")))
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--cases", type=int, default=0, help="stop after N cases (0: by time)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--keep", default=os.path.join(tempfile.gettempdir(), "speedqa-fuzz-diff"))
    args = ap.parse_args()
    args.cli = os.path.abspath(args.cli)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(6), "big")
    print("fuzz_diff: seed %d" % seed, flush=True)
    ref, dis = os.path.join(ROOT, "samples/ref.y4m"), os.path.join(ROOT, "samples/dis.y4m")
    t_end = time.monotonic() + args.seconds
    counts = {"pair": 0, "manifest": 0}
    n = 0
    with tempfile.TemporaryDirectory() as work:
        while (args.cases and n < args.cases) or (not args.cases and time.monotonic() < t_end):
            rng = random.Random(seed * 1000003 + n)
            fn = manifest_case if rng.random() < 0.35 else pair_case
            what, mine, want = fn(rng, work, ref, dis, args.cli)
            counts[what.split()[0]] += 1
            if mine != want:
                os.makedirs(args.keep, exist_ok=True)
                for f in os.listdir(work):
                    shutil.copy(os.path.join(work, f), args.keep)
                print("MISMATCH case %d (seed %d): %s\n python: %r\n cli:    %r\n files in %s"
                      % (n, seed, what, mine, want, args.keep))
                return 1
            n += 1
    print("fuzz_diff: %d cases (%d pairs, %d manifests), 0 mismatches"
          % (n, counts["pair"], counts["manifest"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
