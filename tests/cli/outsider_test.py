#!/usr/bin/env python3
"""Regression tests of an outsider's attack on the CLI (stop 28), one group per class.

usage: outsider_test.py TEST SPEEDQA SAMPLES_DIR WORK_DIR
TEST:
  compressed  a cut IVF (a short last packet) and a cut Matroska file are exit 3,
              not a shorter video; whole ones score (needs ffmpeg and a speedqa
              built with libav, else 77); with --decode-threads 1 a corrupt
              frame fails every run (by default libav's flag is a race:
              tests/fuzz/corpus/lav/explode-abort-m4v and doc/cli.md say why)
  pipes       an input pipe left open after its last frame does not hang the run,
              whichever side it is; the scores and counts warnings are those of files
  batch       --resume keeps a result only for a pair with the same features; no
              pair's output may be an input of the batch or another pair's output;
              a JSON features array that is not 1-8 strings is refused
  messages    a control character of a file's header is escaped in the one error
              line; -o '' is refused before scoring; number flags name the bound
              crossed; LSB-aligned samples declared -p p010 are an error; a failed
              run (exit 3) leaves an existing -o file as it was

Exit 0 pass, 1 fail, 77 skip (meson's convention).
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import time

import reliability_test as rt
from cli_test import y4m_frames

SKIP = 77
MAX = ["--csv", "--precision", "max", "-q"]


def check(ok, what):
    return rt.check(ok, what)


def clip(name, frames, src=None):
    """The first `frames` frames of the sample reference (or src) as a Y4M in WORK."""
    hdr, fr = y4m_frames(src or rt.sample("ref.y4m"))
    return rt.y4m(name, hdr, fr[:frames])


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + list(args), check=True)


def has_lav():
    out = subprocess.run([rt.EXE, "--version"], capture_output=True, text=True).stdout
    return "libav" in out and "not built" not in out


# ---------------------------------------------------------------- compressed
def test_compressed():
    if not shutil.which("ffmpeg") or not has_lav():
        print("skip: needs ffmpeg and libav input")
        return SKIP
    ref = rt.sample("ref.y4m")
    nframes = len(y4m_frames(ref)[1])
    good = rt.work("good.mp4")
    ffmpeg("-i", ref, "-c:v", "libx264", "-crf", "35", "-g", "2", good)
    code, out, err = rt.run(["-r", ref, "-d", good] + MAX)
    check(code == 0 and len(out.splitlines()) == nframes + 1,
          "a valid H.264 mp4 scores (exit %s) %s" % (code, err.strip()))
    # bytes flipped in slices: with frame threads libav's corrupt-frame flag is
    # a race (exit 0 in 7 of 12 runs); --decode-threads 1 fails every run
    data = bytearray(open(good, "rb").read())
    rnd = random.Random(5)
    for _ in range(8):
        i = rnd.randrange(len(data) // 3, len(data))
        data[i] ^= rnd.randrange(1, 256)
    bad = rt.write("bad.mp4", bytes(data))
    strict = ["--decode-threads", "1"]
    codes = [rt.run(["-r", ref, "-d", bad] + strict + MAX)[0] for _ in range(8)]
    check(all(c == 3 for c in codes), "--decode-threads 1: a corrupt frame fails every run: %s" % codes)
    code, out1, _ = rt.run(["-r", ref, "-d", good] + strict + MAX)
    code0, out0, _ = rt.run(["-r", ref, "-d", good] + MAX)
    check(code == 0 and code0 == 0 and out1 == out0,
          "--decode-threads 1 scores a valid file exactly as the default (exit %s)" % code)
    # cut files: a short last IVF packet; a Matroska segment longer than the file
    for ext, codec in (("ivf", ["-c:v", "libvpx-vp9", "-b:v", "300k"]),
                       ("mkv", ["-c:v", "ffv1"])):
        whole = rt.work("whole." + ext)
        ffmpeg("-i", ref, *codec, whole)
        code, _, err = rt.run(["-r", ref, "-d", whole] + MAX)
        check(code == 0, "a whole .%s scores (exit %s) %s" % (ext, code, err.strip()))
        data = open(whole, "rb").read()
        cut = rt.write("cut." + ext, data[:len(data) // 2])
        code, out, err = rt.run(["-r", ref, "-d", cut] + MAX)
        check(code == 3 and rt.one_error_line(err, "cut"),
              "a cut .%s is exit 3 with one line, not a shorter video (exit %s: %r)" %
              (ext, code, err))


# ---------------------------------------------------------------- pipes
def test_pipes():
    ref, dis = clip("r.y4m", 5), clip("d.y4m", 5, rt.sample("dis.y4m"))
    ref4, dis4 = clip("r4.y4m", 4), clip("d4.y4m", 4, rt.sample("dis.y4m"))
    code, base, _ = rt.run(["-r", ref, "-d", dis] + MAX)
    check(code == 0, "files score")
    fifo = rt.work("p")
    for side, args in (("distorted", ["-r", ref, "-d", fifo]), ("reference", ["-r", fifo, "-d", dis])):
        src = dis if side == "distorted" else ref
        rt.fifo_feed(fifo, open(src, "rb").read(), 30)
        t0 = time.time()
        code, out, err = rt.run(args + ["--csv", "--precision", "max"], timeout=20)
        took = time.time() - t0
        check(code == 0 and took < 10 and out == base,
              "a %s pipe left open after its last frame: done in %.1f s, same scores (exit %s)" %
              (side, took, code))
        check("neither ended nor sent" in err, "...with one warning saying so (%r)" % err.strip())
    # the counts warnings when the pipe does end, on either side, shorter or longer
    cases = (("-r", ref4, dis, "ends after 4 frames"), ("-r", ref, dis4, "has more frames"),
             ("-d", dis4, ref, "ends after 4 frames"), ("-d", dis, ref4, "has more frames"))
    for flag, piped, other, says in cases:
        args = (["-r", "-", "-d", other] if flag == "-r" else ["-r", other, "-d", "-"])
        code, out, err = rt.run(args + ["--csv"], input_bytes=open(piped, "rb").read())
        check(code == 0 and len(out.splitlines()) == 5 and says in err,
              "%s - with %s: 4 frames, warning '%s' (exit %s: %r)" %
              (flag, os.path.basename(piped), says, code, err.strip()))


# ---------------------------------------------------------------- batch
def test_batch():
    ref, dis = clip("r.y4m", 3), clip("d.y4m", 3, rt.sample("dis.y4m"))
    res = rt.work("res.jsonl")
    man = rt.work("m.csv")
    os.chdir(rt.WORK)
    # a pair that failed (a typo) is fixed and resumed: it must not take the
    # result of another row with the same ref and dis
    open(man, "w").write("ref,dis,features\nr.y4m,d.y4m,speed_chroma=speed_kernelscale=0.9\n"
                         "r.y4m,d.y4m,speed_temporal\n")
    rt.run(["--batch", man, "-o", res, "-q"])
    open(man, "w").write("ref,dis,features\nr.y4m,d.y4m,speed_chroma=speed_kernelscale=0.5\n"
                         "r.y4m,d.y4m,speed_temporal\n")
    code, _, err = rt.run(["--batch", man, "-o", res, "--resume", "-q"])
    lines = [json.loads(x) for x in open(res).read().splitlines()]
    names = [sorted(x.get("pooled_metrics", {})) for x in lines]
    # lines are in the order the pairs finished (doc/cli.md), not manifest order
    check(code == 0 and len(lines) == 2 and any("speed_chroma_u_ks_0.5" in n for n in names) and
          ["speed_temporal"] in names,
          "--resume re-scores the fixed row with its own features (%s)" % names)
    # one row's report may not overwrite another row's input, nor another row's report
    shutil.copy(dis, rt.work("d2.y4m"))
    before = open(rt.work("d2.y4m"), "rb").read()
    for rows, what in (("r.y4m,d.y4m,d2.y4m\nr.y4m,d2.y4m,\n", "another row's input"),
                       ("r.y4m,d.y4m,out.xml\nr.y4m,d2.y4m,out.xml\n", "another row's output")):
        open(man, "w").write("ref,dis,output\n" + rows)
        code, out, err = rt.run(["--batch", man, "-q"])
        check(code == 2 and rt.one_error_line(err, "m.csv:") and
              open(rt.work("d2.y4m"), "rb").read() == before and
              not os.path.exists(rt.work("out.xml")),
              "an output that is %s: exit 2 before scoring (exit %s: %r)" % (what, code, err))
    # JSON lines: a features array must be 1-8 strings, as the ';' form is
    jl = rt.work("m.jsonl")
    nine = ["speed_temporal=speed_sigma_nn=%.1f" % (0.1 * k) for k in range(1, 10)]
    for feats, says in ((["speed_temporal", 7], "array of strings"), (nine, "more than 8")):
        open(jl, "w").write(json.dumps({"ref": "r.y4m", "dis": "d.y4m", "features": feats}) + "\n")
        code, out, err = rt.run(["--batch", jl, "-q"])
        check(code == 2 and says in err, "features %s: refused (exit %s: %r)" %
              (str(feats)[:40], code, err.strip()))


# ---------------------------------------------------------------- messages
def test_messages():
    cr = rt.write("cr.y4m", b"YUV4MPEG2 W192 H176\r\n")
    code, _, err = rt.run(["-r", cr, "-d", cr])
    check(code == 3 and rt.one_error_line(err, "\\r") and "\r" not in err,
          "a CR in a header is shown escaped, on one line (%r)" % err)
    sref, sdis = rt.sample("ref.y4m"), rt.sample("dis.y4m")
    t0 = time.time()
    code, _, err = rt.run(["-r", sref, "-d", sdis, "-o", ""])
    check(code == 2 and rt.one_error_line(err, "--output") and time.time() - t0 < 5,
          "-o '' is refused before scoring (%r)" % err)
    for flag, val, says in (("--subsample", "2147483648", "at most 2147483647"),
                            ("--frame_cnt", "-3", "at least"),
                            ("--frame_cnt", "\n5", "not an integer"),
                            ("--frame_skip_ref", "99999999999999999999", "too large")):
        code, _, err = rt.run(["-r", sref, "-d", sdis, flag, val])
        check(code == 2 and rt.one_error_line(err, says),
              "%s %r: exit 2, '%s' (%r)" % (flag, val, says, err))
    # LSB-aligned 10-bit samples declared P010 would score as values 0..15
    hdr, fr = y4m_frames(sref)
    w, h = 576, 324
    lsb = bytearray()
    for f in fr[:2]:
        y, u, v = f[:w * h], f[w * h:w * h * 5 // 4], f[w * h * 5 // 4:]
        uv = bytearray(2 * len(u))
        uv[0::2], uv[1::2] = u, v
        lsb += struct.pack("<%dH" % (len(y) + len(uv)), *[x << 2 for x in bytes(y) + bytes(uv)])
    lf = rt.write("lsb.yuv", bytes(lsb))
    code, _, err = rt.run(["-r", lf, "-d", lf, "-w", str(w), "-h", str(h), "-p", "p010"])
    check(code == 3 and rt.one_error_line(err, "not P010", "-b 10"),
          "LSB-aligned samples declared -p p010: exit 3, one line (%r)" % err)
    # exit 3 after some frames: the report goes to a new -o file, never over an old one
    hdr, fr = y4m_frames(sref)
    cut = rt.y4m("cut.y4m", hdr, fr[:3])
    cut = rt.write("cut.y4m", open(cut, "rb").read()[:-100])
    old = rt.write("old.csv", b"keep me\n")
    code, _, err = rt.run(["-r", sref, "-d", cut, "--csv", "-o", old])
    check(code == 3 and open(old, "rb").read() == b"keep me\n",
          "exit 3 leaves an existing -o file as it was (exit %s)" % code)
    new = rt.work("new.csv")
    if os.path.exists(new):
        os.remove(new)
    code, _, err = rt.run(["-r", sref, "-d", cut, "--csv", "-o", new])
    check(code == 3 and os.path.exists(new) and len(open(new).read().splitlines()) == 3,
          "exit 3 writes the complete frames' report to a new -o file (exit %s)" % code)


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    test, rt.EXE, rt.SAMPLES, rt.WORK = sys.argv[1:]
    rt.WORK = os.path.abspath(rt.WORK)
    rt.EXE, rt.SAMPLES = os.path.abspath(rt.EXE), os.path.abspath(rt.SAMPLES)
    os.makedirs(rt.WORK, exist_ok=True)
    tests = {"compressed": test_compressed, "pipes": test_pipes, "batch": test_batch,
             "messages": test_messages}
    if tests[test]() == SKIP:
        return SKIP
    print("%s: %d failure(s)" % ("FAIL" if rt.FAILS else "PASS", len(rt.FAILS)))
    # a passing run leaves no files behind (CI disks can be small); a failing one keeps them
    if not rt.FAILS:
        shutil.rmtree(rt.WORK, ignore_errors=True)
    return 1 if rt.FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
