#!/usr/bin/env python3
"""Runs the golden manifest through the speedqa CLI and checks every value.

usage: golden_test.py SPEEDQA GOLDEN_DIR CLIPS_DIR

CLIPS_DIR: the clips unpacked, kept for the other tests that read them (the
build's tests/clips-data).

Each manifest row (case, feature) is grouped with the other rows that share
its expected JSON (the two rows of a default run), the CLI is run once per
group with --json --precision max, and every per-frame value, frame number
and pooled value is compared with Netflix's to 1e-6. Rows whose clips are
absent are skipped; exit 77 when none can run.
"""
import concurrent.futures
import hashlib
import json
try:
    import lzma
except ImportError:  # Python built without liblzma: use the xz tool
    lzma = None
import os
import subprocess
import sys

TOL = 1e-6


def decompressed(golden, rel, work):
    """Path of the decompressed clip, made once (xz -dc) into WORK_DIR."""
    src = os.path.join(golden, rel)
    if not rel.endswith(".xz"):
        return src if os.path.isfile(src) else None
    if not os.path.isfile(src):
        plain = src[:-3]
        return plain if os.path.isfile(plain) else None
    dst = os.path.join(work, os.path.basename(rel)[:-3])
    if os.path.isfile(dst) and os.path.getmtime(dst) >= os.path.getmtime(src):
        return dst
    tmp = dst + ".part%d" % os.getpid()
    if lzma is None:
        with open(tmp, "wb") as fo:
            subprocess.run(["xz", "-dc", src], stdout=fo, check=True)
    else:
        with lzma.open(src) as fi, open(tmp, "wb") as fo:
            while True:
                b = fi.read(1 << 22)
                if not b:
                    break
                fo.write(b)
    os.replace(tmp, dst)
    return dst


def check_md5(golden, clips):
    """Compares freshly used clips with clips/md5sums.txt when present."""
    sums = {}
    path = os.path.join(golden, "clips", "md5sums.txt")
    if os.path.isfile(path):
        for line in open(path):
            parts = line.split()
            if len(parts) == 2:
                sums[os.path.basename(parts[1]).lstrip("*")] = parts[0]
    bad = []
    for c in clips:
        want = sums.get(os.path.basename(c))
        if want is None:
            continue
        h = hashlib.md5()
        with open(c, "rb") as f:
            for b in iter(lambda: f.read(1 << 22), b""):
                h.update(b)
        if h.hexdigest() != want:
            bad.append(c)
    return bad


class Tally:
    def __init__(self, name):
        self.name, self.worst, self.values, self.exact, self.over = name, 0.0, 0, 0, 0
        self.where = ""

    def add(self, got, want, where):
        d = abs(got - want)
        self.values += 1
        self.exact += d == 0
        if d > TOL:
            self.over += 1
        if d > self.worst:
            self.worst, self.where = d, where

    def line(self):
        s = "%-8s %6d values, %6d exact, worst |delta| %.3g" % (
            self.name, self.values, self.exact, self.worst)
        if self.worst > 0:
            s += " (%s)" % self.where
        return s + (", %d over %g" % (self.over, TOL) if self.over else "")


def run_group(exe, work, key, rows, ref, dis):
    out = os.path.join(work, key + ".json")
    cmd = [exe, "-r", ref, "-d", dis, "--json", "--precision", "max", "-q", "-o", out]
    for r in rows:
        cmd += ["--feature", r["feature"] + ("=" + r["options"] if r["options"] else "")]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, p.stderr.strip())
    try:
        return json.load(open(out)), None
    except ValueError as e:
        return None, "unparsable JSON: %s" % e


def compare(got, want, rows, tally, pooled_tally, key):
    errs = []
    wf, gf = want["frames"], got["frames"]
    nframes = int(rows[0]["frames"])
    if len(wf) != nframes:
        errs.append("manifest says %d frames, expected JSON has %d" % (nframes, len(wf)))
    if len(gf) != len(wf):
        return errs + ["%d frames, expected %d" % (len(gf), len(wf))]
    for g, w in zip(gf, wf):
        if g["frameNum"] != w["frameNum"]:
            errs.append("frameNum %s, expected %s" % (g["frameNum"], w["frameNum"]))
            continue
        if list(g["metrics"]) != list(w["metrics"]):
            errs.append("frame %d keys %s, expected %s" % (
                w["frameNum"], list(g["metrics"]), list(w["metrics"])))
            continue
        for name, wv in w["metrics"].items():
            gv = g["metrics"][name]
            tally.add(gv, wv, "%s frame %d %s" % (key, w["frameNum"], name))
            if abs(gv - wv) > TOL:
                errs.append("frame %d %s: %.17g, expected %.17g" % (w["frameNum"], name, gv, wv))
    if list(got["pooled_metrics"]) != list(want["pooled_metrics"]):
        errs.append("pooled keys %s, expected %s" % (
            list(got["pooled_metrics"]), list(want["pooled_metrics"])))
    else:
        for name, wp in want["pooled_metrics"].items():
            gp = got["pooled_metrics"][name]
            if list(gp) != list(wp):
                errs.append("pooled %s keys %s" % (name, list(gp)))
                continue
            for m, wv in wp.items():
                pooled_tally.add(gp[m], wv, "%s %s %s" % (key, name, m))
                if abs(gp[m] - wv) > TOL:
                    errs.append("pooled %s %s: %.17g, expected %.17g" % (name, m, gp[m], wv))
    return errs


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    exe, golden, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    manifest = os.path.join(golden, "manifest.tsv")
    if not os.path.isfile(manifest):
        print("SKIP: no %s" % manifest)
        return 77
    lines = open(manifest).read().splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, l.split("\t"))) for l in lines[1:] if l.strip()]

    groups, skipped = {}, []
    for r in rows:
        need = [r["ref"], r["dis"], r["expected_json"]]
        missing = [n for n in need[:2] if not (os.path.isfile(os.path.join(golden, n)) or
                   (n.endswith(".xz") and os.path.isfile(os.path.join(golden, n[:-3]))))]
        if missing or not os.path.isfile(os.path.join(golden, r["expected_json"])):
            skipped.append(r["case_id"])
            continue
        groups.setdefault(r["expected_json"], []).append(r)
    if not groups:
        print("SKIP: no manifest row has its clips (%d rows)" % len(rows))
        return 77

    clips = sorted({g[0][k] for g in groups.values() for k in ("ref", "dis")})
    jobs = os.cpu_count() or 2
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        paths = dict(zip(clips, ex.map(lambda c: decompressed(golden, c, work), clips)))
    bad = check_md5(golden, paths.values())
    if bad:
        print("FAIL: decompressed clips do not match md5sums.txt: %s" % ", ".join(bad))
        return 1

    tallies = {"real": Tally("real"), "grid": Tally("grid")}
    pooled = {"real": Tally("real"), "grid": Tally("grid")}
    fails = 0

    def one(item):
        exp, grp = item
        key = os.path.basename(exp)[:-5]
        got, err = run_group(exe, work, key, grp, paths[grp[0]["ref"]], paths[grp[0]["dis"]])
        return exp, grp, key, got, err

    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        results = list(ex.map(one, sorted(groups.items())))
    for exp, grp, key, got, err in results:
        kind = "real" if ".default." in grp[0]["case_id"] else "grid"
        if err:
            errs = [err]
        else:
            errs = compare(got, json.load(open(os.path.join(golden, exp))), grp,
                           tallies[kind], pooled[kind], key)
        status = "FAIL" if errs else "ok"
        print("%-4s %s (%s)" % (status, key, ", ".join(r["case_id"] for r in grp)))
        for e in errs[:5]:
            print("       %s" % e)
        fails += bool(errs)

    print("\n%d runs for %d manifest rows, %d rows skipped (clips absent)" % (
        len(results), len(rows) - len(skipped), len(skipped)))
    print("per-frame values:")
    for t in tallies.values():
        print("  " + t.line())
    print("pooled values:")
    for t in pooled.values():
        print("  " + t.line())
    print("%s: %d of %d runs failed" % ("FAIL" if fails else "PASS", fails, len(results)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
