#!/usr/bin/env python3
"""Ladders (-d repeated) and --batch of the speedqa CLI (issue #15), stdlib only.

usage: ladder_test.py TEST SPEEDQA GOLDEN_DIR WORK_DIR
TEST: ladder   every rendition's report == its own run, bit for bit (--precision max),
               on the golden clips; -o patterns; a failing rendition fails alone
      scale    --scale == scoring ffmpeg's bicubic upscale of a rendition, bit for bit
      batch    --batch == separate runs; manifest order; CSV and JSON lines; a
               failing pair isolated; exit code; --resume keeps, retries, repairs

Exit 0 pass, 1 fail, 77 skip.
"""
import json
import lzma
import os
import shutil
import subprocess
import sys

FAILS = []
EXE = GOLDEN = WORK = None


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        FAILS.append(what)
    return ok


def run(args):
    p = subprocess.run([EXE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def clip(name):
    """A golden clip, unpacked once into WORK."""
    out = os.path.join(WORK, name[:-3])
    if not os.path.exists(out):
        with lzma.open(os.path.join(GOLDEN, "clips", name)) as f, open(out, "wb") as g:
            shutil.copyfileobj(f, g)
    return out


def y4m_split(path):
    data = open(path, "rb").read()
    nl = data.index(b"\n")
    hdr, rest, frames = data[:nl + 1], data[nl + 1:], []
    while rest:
        e = rest.index(b"\n")
        frames.append(rest[:e + 1])
        rest = rest[e + 1:]
        # payload length from the header
        toks = hdr.split()
        w = int([t for t in toks if t.startswith(b"W")][0][1:])
        h = int([t for t in toks if t.startswith(b"H")][0][1:])
        c = ([t for t in toks if t.startswith(b"C")] or [b"C420"])[0]
        bps = 2 if b"p1" in c else 1
        cw, ch = ((w + 1) // 2, (h + 1) // 2) if c.startswith(b"C420") else \
            ((w + 1) // 2, h) if c.startswith(b"C422") else (w, h)
        n = (w * h + 2 * cw * ch) * bps
        frames[-1] += rest[:n]
        rest = rest[n:]
    return hdr, frames


def y4m_write(path, hdr, frames):
    with open(path, "wb") as f:
        f.write(hdr)
        for fr in frames:
            f.write(fr)


def variant(src, out, seed, keep=None):
    """A distorted variant: bytes of every frame nudged (an encode of sorts), maybe fewer frames."""
    hdr, frames = y4m_split(src)
    res = []
    for i, fr in enumerate(frames[:keep]):
        b = bytearray(fr)
        start = b.index(b"\n") + 1
        wide = b" C4" in hdr and b"p1" in hdr
        step = 2 * (97 + seed)
        # 16-bit samples: only low bytes change, so every value stays in range
        for k in range(start + 2 * seed, len(b), step):
            b[k] = (b[k] + 3 + (k % 5)) & (0x7F if wide else 0xFF)
        res.append(bytes(b))
    y4m_write(out, hdr, res)
    return out


def score(ref, dis, extra=()):
    code, out, err = run(["-r", ref, "-d", dis, "--json", "--precision", "max", "-q"] + list(extra))
    return code, (json.loads(out) if code == 0 else None), err


def strip(doc):
    doc = dict(doc)
    doc.pop("fps", None)
    return doc


def test_ladder():
    pairs = [("seeding_576x324_420p8_48f.y4m.xz", "seeding_576x324_420p8_48f_x264crf40.y4m.xz"),
             ("seeding_640x360_422p10_10f.y4m.xz", "seeding_640x360_422p10_10f_x264crf28.y4m.xz"),
             ("seeding_1280x720_420p10_12f.y4m.xz", "seeding_1280x720_420p10_12f_x264crf28.y4m.xz")]
    for refn, disn in pairs:
        ref, dis = clip(refn), clip(disn)
        base = os.path.basename(ref)[:-4]
        rends = [dis, ref, variant(dis, os.path.join(WORK, base + "_v1.y4m"), 1),
                 variant(dis, os.path.join(WORK, base + "_short.y4m"), 2, keep=5)]
        for feats in ([], ["--feature", "speed_temporal=speed_use_ref_diff=true",
                           "--feature", "speed_chroma=speed_kernelscale=0.5"]):
            for threads in ("1", "3"):
                want = [score(ref, d, feats)[1] for d in rends]
                odir = os.path.join(WORK, "out-" + base + "-" + threads)
                os.makedirs(odir, exist_ok=True)
                args = ["-r", ref, "--json", "--precision", "max", "-q", "--threads", threads,
                        "-o", os.path.join(odir, "{i}-{name}.json")] + feats
                for d in rends:
                    args += ["-d", d]
                code, _, err = run(args)
                check(code == 0, "%s ladder of %d, threads %s %s: exit 0 (%d %s)" %
                      (base, len(rends), threads, " ".join(feats), code, err.strip()))
                for i, d in enumerate(rends):
                    name = os.path.basename(d).rsplit(".", 1)[0]
                    path = os.path.join(odir, "%d-%s.json" % (i + 1, name))
                    got = json.load(open(path)) if os.path.exists(path) else None
                    check(got is not None and want[i] is not None and strip(got) == strip(want[i]),
                          "%s rendition %d (%s) == its own run, bit for bit" % (base, i + 1, name))
    ref = clip(pairs[0][0])
    dis = clip(pairs[0][1])
    code, _, err = run(["-r", ref, "-d", dis, "-d", ref])
    check(code == 2 and "{name}" in err, "two -d without an -o pattern: usage error (%s)" % err.strip())
    code, _, err = run(["-r", ref, "-d", dis, "-d", dis, "-o", os.path.join(WORK, "{name}.json")])
    check(code == 2 and "{i}" in err, "two -d with the same name: usage error (%s)" % err.strip())
    # a rendition that cannot be scored fails alone
    other = clip(pairs[1][1])
    odir = os.path.join(WORK, "out-fail")
    os.makedirs(odir, exist_ok=True)
    code, _, err = run(["-r", ref, "-d", dis, "-d", other, "-d", os.path.join(WORK, "missing.y4m"),
                        "-d", ref, "--json", "--precision", "max", "-q", "-o",
                        os.path.join(odir, "{i}.json")])
    check(code == 3, "a ladder with a mismatched and a missing rendition: exit 3 (%d)" % code)
    check("must match" in err and "missing.y4m" in err, "both failures named (%s)" % err.strip())
    check(not os.path.exists(os.path.join(odir, "2.json")) and
          not os.path.exists(os.path.join(odir, "3.json")), "no report for the failed renditions")
    for i, d in ((1, dis), (4, ref)):
        p = os.path.join(odir, "%d.json" % i)
        check(os.path.exists(p) and strip(json.load(open(p))) == strip(score(ref, d)[1]),
              "rendition %d scored as its own run despite the failures" % i)
    # a bad sample in one 10-bit rendition (a scoring failure inside the ladder)
    ref10, dis10 = clip(pairs[2][0]), clip(pairs[2][1])
    hdr, frames = y4m_split(dis10)
    bad = bytearray(frames[3])
    off = bad.index(b"\n") + 1 + 2 * (1280 * 16 + 5)
    bad[off:off + 2] = (0xFFFF).to_bytes(2, "little")
    frames[3] = bytes(bad)
    badp = os.path.join(WORK, "bad10.y4m")
    y4m_write(badp, hdr, frames)
    code, _, err = run(["-r", ref10, "-d", dis10, "-d", badp, "-d", ref10, "--json", "--precision",
                        "max", "-q", "-o", os.path.join(odir, "b{i}.json")])
    check(code == 3 and "bad10.y4m" in err and "above 1023" in err,
          "out-of-range samples in rendition 2: exit 3 naming its file (%s)" % err.strip())
    check(not os.path.exists(os.path.join(odir, "b2.json")), "no report for the bad rendition")
    for i, d in ((1, dis10), (3, ref10)):
        p = os.path.join(odir, "b%d.json" % i)
        check(os.path.exists(p) and strip(json.load(open(p))) == strip(score(ref10, d)[1]),
              "rendition %d unaffected by the bad one" % i)


def pooled(doc):
    return doc["pooled_metrics"]


def results(path):
    return [json.loads(l) for l in open(path).read().splitlines() if l.strip()]


def test_batch():
    r1, d1 = clip("seeding_576x324_420p8_48f.y4m.xz"), clip("seeding_576x324_420p8_48f_x264crf40.y4m.xz")
    r2, d2 = clip("seeding_640x360_444p8_10f.y4m.xz"), clip("seeding_640x360_444p8_10f_x264crf28.y4m.xz")
    v1 = variant(d1, os.path.join(WORK, "b_v1.y4m"), 3)
    missing = os.path.join(WORK, "nope.y4m")
    rows = [(r1, d1, "", ""), (r2, d2, "", ""), (r1, v1, "", os.path.join(WORK, "rep-v1.json")),
            (r1, missing, "", ""), (r2, r2, "speed_chroma=speed_kernelscale=2", ""),
            (r1, d1, "speed_temporal", ""), (r1, r1, "", "")]
    man = os.path.join(WORK, "m.csv")
    with open(man, "w") as f:
        f.write("dis,ref,features,output,notes\n")
        for r, d, ft, o in rows:
            f.write('"%s",%s,%s,%s,"a, note"\n' % (d, r, ft, o))
    want = []
    for r, d, ft, o in rows:
        extra = ["--feature", ft] if ft else []
        code, doc, _ = score(r, d, extra + ["--precision", "legacy"])
        want.append(doc)
    out = os.path.join(WORK, "res.jsonl")
    for threads in ("1", "2"):
        if os.path.exists(out):
            os.unlink(out)
        code, _, err = run(["--batch", man, "-o", out, "--threads", threads, "-q"])
        check(code == 3, "batch with a missing input, threads %s: exit 3 (%d %s)" % (threads, code, err))
        res = by_row(results(out), rows)
        check(len(res) == len(rows), "one line per pair (%d)" % len(res))
        for i, (row, line) in enumerate(zip(rows, res)):
            check(line is not None and line["ref"] == row[0] and line["dis"] == row[1],
                  "line %d: one line for the row" % i)
            if line is None:
                continue
            if want[i] is None:
                check("error" in line and "nope.y4m" in line["error"] and "pooled_metrics" not in line,
                      "line %d: the failed pair's error (%s)" % (i, line.get("error")))
                continue
            check(line.get("pooled_metrics") == pooled(want[i]) and
                  line.get("frames") == len(want[i]["frames"]),
                  "line %d: pooled metrics and frames == the pair's own run" % i)
        rep = os.path.join(WORK, "rep-v1.json")
        check(os.path.exists(rep) and strip(json.load(open(rep))) == strip(want[2]) and
              res[2].get("output") == rep, "the pair's per-frame report, written and named")
    # --read-only: every pair read on the batch's workers, nothing scored or written; the
    # frame count is the sum of the pairs' own runs (the failed pair reads none)
    frames = sum(len(w["frames"]) for w in want if w is not None)
    code, _, err = run(["--batch", man, "--read-only", "--threads", "2"])
    check(code == 3 and ("%d frame pairs read" % frames) in err and
          "1 failed" in err, "--batch --read-only: %d frame pairs, the missing input "
          "fails it (%d %s)" % (frames, code, err.strip()))
    code, _, err = run(["--batch", man, "--read-only", "-o", out + ".ro"])
    check(code == 2 and not os.path.exists(out + ".ro"), "--batch --read-only -o: a usage error")
    # a GPU backend with --device all (one worker and context per device): the same lines
    code, listing, _ = run(["--list-devices"])
    if b"opencl" in listing and b"0: " in listing.split(b"opencl", 1)[1][:400]:
        outg = os.path.join(WORK, "resg.jsonl")
        code, _, err = run(["--batch", man, "-o", outg, "--backend", "opencl", "--device", "all", "-q"])
        check(code == 3 and by_row(results(outg), rows) == by_row(results(out), rows),
              "--backend opencl --device all: the same result lines (%d %s)" % (code, err.strip()))
    else:
        print("skip: no OpenCL device for --device all")
    # JSON lines give the same results
    manj = os.path.join(WORK, "m.jsonl")
    with open(manj, "w") as f:
        f.write("# a comment\n\n")
        for r, d, ft, o in rows:
            obj = {"ref": r, "dis": d}
            if ft:
                obj["features"] = [ft]
            if o:
                obj["output"] = o
            f.write(json.dumps(obj) + "\n")
    outj = os.path.join(WORK, "resj.jsonl")
    run(["--batch", manj, "-o", outj, "-q"])
    check(by_row(results(outj), rows) == by_row(results(out), rows),
          "JSON lines manifest == CSV manifest")
    # resume: kept lines are not scored again (their inputs may be gone), the
    # failed pair is retried, a torn last line is dropped
    shutil.copy(r2, os.path.join(WORK, "r2copy.y4m"))
    lines = open(out).read().splitlines()
    with open(out, "w") as f:
        f.write("\n".join(lines[:3]) + "\n" + lines[3][:20])  # torn after 3 pairs
    os.symlink(d1, missing)
    code, _, err = run(["--batch", man, "-o", out, "--resume", "-q"])
    res = by_row(results(out), rows)
    check(code == 0 and None not in res, "resume: exit 0, one line per pair (%d %s)" % (code, err))
    check(all("error" not in l for l in res if l) and res[3]["pooled_metrics"] == pooled(want[0]),
          "resume: the failed pair retried and scored")
    kept = [json.loads(l) for l in lines[:3] if "error" not in json.loads(l)]
    check(all(k in res for k in kept), "resume: kept lines unchanged")
    os.unlink(missing)
    before = open(out).read()
    code, _, err = run(["--batch", man, "-o", out, "--resume", "-q"])
    check(code == 0 and open(out).read() == before, "resume of a complete batch: nothing scored "
          "(its missing input is not read), file unchanged (%d %s)" % (code, err))
    # a results file that is one of the inputs, a bad manifest
    code, _, err = run(["--batch", man, "-o", r1])
    check(code == 2 and os.path.getsize(r1) > 1000, "results file == an input: refused (%s)" % err.strip())
    mtext = open(man).read()
    code, _, err = run(["--batch", man, "-o", man])
    check(code == 2 and open(man).read() == mtext, "results file == the manifest: refused, "
          "manifest intact (%s)" % err.strip())
    link = os.path.join(WORK, "link-to-ref.jsonl")
    os.symlink(r2, link)
    code, _, err = run(["--batch", man, "-o", link])
    check(code == 2 and os.path.getsize(r2) > 1000, "results file a link to an input: refused (%s)"
          % err.strip())
    badm = os.path.join(WORK, "bad.csv")
    open(badm, "w").write("ref,dis\n\"unterminated,x\n")
    code, _, err = run(["--batch", badm])
    check(code == 2 and "bad.csv:2" in err, "a malformed manifest names its line (%s)" % err.strip())
    open(badm, "w").write("a,b\nx,y\n")
    code, _, err = run(["--batch", badm])
    check(code == 2 and "ref and dis" in err, "a header without ref,dis (%s)" % err.strip())


def by_row(res, rows):
    """The result lines in the order of rows (ref, dis, features, output): lines are written
    as pairs finish, not in manifest order. None where a row has no line."""
    def key(ref, dis, ft, out):
        return (ref, dis, ft or "", out or "")
    got = {key(l["ref"], l["dis"], l.get("features"), l.get("output")): l for l in res}
    if len(got) != len(res):
        return [None] * len(rows)
    return [got.get(key(*row)) for row in rows]


def test_scale():
    """--scale == scoring ffmpeg's scale=W:H:flags=bicubic output (a 960x540 x264 rendition of 1080p)."""
    ff = shutil.which("ffmpeg")
    if not ff:
        print("skip: no ffmpeg")
        return 77
    def ffmpeg(*args):
        p = subprocess.run([ff, "-v", "error", "-y"] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        return p.returncode == 0
    src = os.path.join(WORK, "src1080.y4m")
    mp4 = os.path.join(WORK, "rend540.mp4")
    rend = os.path.join(WORK, "rend540.y4m")
    up = os.path.join(WORK, "rend540_up.y4m")
    ok = ffmpeg("-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25", "-frames:v", "6",
                "-pix_fmt", "yuv420p", src)
    ok = ok and ffmpeg("-i", src, "-vf", "scale=960:540", "-c:v", "libx264", "-crf", "30", mp4)
    ok = ok and ffmpeg("-i", mp4, "-pix_fmt", "yuv420p", rend)
    ok = ok and ffmpeg("-i", rend, "-vf", "scale=1920:1080:flags=bicubic", "-pix_fmt", "yuv420p", up)
    if not ok:
        print("skip: this ffmpeg cannot make the clips (libx264?)")
        return 77
    code, _, err = run(["-r", src, "-d", rend, "--json", "-q"])
    check(code == 3 and "--scale" in err, "another size without --scale: refused, --scale suggested "
          "(%s)" % err.strip())
    code, want, err = score(src, up)
    check(code == 0, "ffmpeg's scaled rendition scores (%s)" % err.strip())
    code, got, err = score(src, rend, ["--scale"])
    if not check(code == 0, "--scale: exit 0 (%d %s)" % (code, err.strip())):
        return 0
    check(strip(got) == strip(want), "--scale == ffmpeg scale=1920:1080:flags=bicubic, bit for bit")
    # in a ladder next to a full-size rendition, and in a batch
    code, _, err = run(["-r", src, "-d", rend, "-d", up, "--scale", "--json", "--precision", "max",
                        "-q", "-o", os.path.join(WORK, "sc{i}.json")])
    a, b = (json.load(open(os.path.join(WORK, "sc%d.json" % i))) for i in (1, 2))
    check(code == 0 and strip(a) == strip(want) and strip(b) == strip(want),
          "--scale in a ladder: both renditions == the scaled run")
    return 0


def main():
    global EXE, GOLDEN, WORK
    test, EXE, GOLDEN, WORK = sys.argv[1:5]
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    if {"ladder": test_ladder, "batch": test_batch, "scale": test_scale}[test]() == 77:
        return 77
    if FAILS:
        print("%d failures" % len(FAILS))
        return 1
    # a passing run leaves no files behind (CI disks can be small); a failing one keeps them
    shutil.rmtree(WORK, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
