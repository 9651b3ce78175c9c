#!/usr/bin/env python3
"""End-to-end tests of the speedqa CLI (stdlib only).

usage: cli_test.py TEST SPEEDQA SAMPLES_DIR GOLDEN_DIR WORK_DIR
TEST: output, threads, pipe, lav, malformed, dropin, man, sample, example
(example reads the example program's path from $SPEEDQA_EXAMPLE)

Exit 0 pass, 1 fail, 77 skip (meson's convention).
"""
import csv
import io
import json
try:
    import lzma
except ImportError:  # Python built without liblzma: use the xz tool
    lzma = None
import os
import random
import shutil
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET

SKIP = 77
EXE = SAMPLES = GOLDEN = WORK = None
FAILS = []


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        FAILS.append(what)
    return ok


def run(args, stdin=None, input_bytes=None):
    """Runs speedqa; returns (exit code, stdout bytes, stderr text)."""
    p = subprocess.run([EXE] + args, stdin=stdin, input=input_bytes,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def ok_run(args, what, **kw):
    code, out, err = run(args, **kw)
    if not check(code == 0, "%s: exit 0 (got %d%s)" % (what, code, ": " + err.strip() if err else "")):
        return None
    return out


def sample(name):
    return os.path.join(SAMPLES, name)


def default_signals(names):
    """A runner under nohup (or one that ignores SIGHUP and friends) passes the
    ignored dispositions on through exec, and speedqa rightly keeps an ignored
    signal ignored: the signal tests give their children the defaults."""
    for n in names:
        s = getattr(signal, n, None)
        if s is not None and signal.getsignal(s) == signal.SIG_IGN:
            signal.signal(s, signal.SIG_DFL)


def y4m_frames(path):
    """(header line, [frame payloads]) of an 8-bit 4:2:0 Y4M file."""
    data = open(path, "rb").read()
    nl = data.index(b"\n")
    hdr = data[:nl + 1]
    toks = hdr.split()
    w = int([t for t in toks if t.startswith(b"W")][0][1:])
    h = int([t for t in toks if t.startswith(b"H")][0][1:])
    fb = w * h + 2 * ((w + 1) // 2) * ((h + 1) // 2)
    frames, pos = [], nl + 1
    while pos < len(data):
        assert data[pos:pos + 6] == b"FRAME\n"
        frames.append(data[pos + 6:pos + 6 + fb])
        pos += 6 + fb
    return hdr, frames


def write_y4m(path, hdr, frames):
    with open(path, "wb") as f:
        f.write(hdr)
        for fr in frames:
            f.write(b"FRAME\n" + fr)
    return path


def parse_json(out):
    return json.loads(out.decode())


def values(js):
    """[(frameNum, {name: value})] of a JSON report."""
    return [(f["frameNum"], f["metrics"]) for f in js["frames"]]


def no_fps(out):
    """A report with its fps (timing) line or attribute blanked."""
    lines = []
    for l in out.decode().splitlines():
        if l.lstrip().startswith('"fps"') or l.lstrip().startswith("<fyi fps="):
            l = "<fps>"
        lines.append(l)
    return "\n".join(lines)


def golden_clip(name):
    """A golden clip decompressed into WORK (None when the golden set lacks it)."""
    src = os.path.join(GOLDEN, "clips", name + ".xz")
    dst = os.path.join(WORK, name)
    if os.path.isfile(dst):
        return dst
    if not os.path.isfile(src):
        return None
    if lzma is None:
        with open(dst + ".part", "wb") as fo:
            subprocess.run(["xz", "-dc", src], stdout=fo, check=True)
    else:
        with lzma.open(src) as fi, open(dst + ".part", "wb") as fo:
            shutil.copyfileobj(fi, fo, 1 << 22)
    os.replace(dst + ".part", dst)
    return dst


# ---------------------------------------------------------------- sample
def test_sample():
    """The bundled pair gives Netflix's numbers (golden frames 0..4)."""
    exp_path = os.path.join(GOLDEN, "expected", "s576_x264crf40.default.json")
    out = ok_run(["-r", sample("ref.y4m"), "-d", sample("dis.y4m"), "--json", "--precision", "max"],
                 "sample")
    if out is None:
        return
    got = values(parse_json(out))
    check(len(got) == 5, "sample has 5 frames (got %d)" % len(got))
    if not os.path.isfile(exp_path):
        print("note: %s absent; only the frame count was checked" % exp_path)
        return
    want = values(json.load(open(exp_path)))[:5]
    worst = max(abs(g[1][k] - w[1][k]) for g, w in zip(got, want) for k in w[1])
    check(got == want, "sample values equal golden frames 0..4 (worst |delta| %g)" % worst)


# ---------------------------------------------------------------- output
def test_output():
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    base = ["-r", ref, "-d", dis]
    js = ok_run(base + ["--json", "--precision", "max"], "json max")
    jl = ok_run(base + ["--json"], "json legacy")
    xm = ok_run(base, "xml (default)")
    xx = ok_run(base + ["--xml", "--precision", "max"], "xml max")
    cs = ok_run(base + ["--csv", "--precision", "max"], "csv max")
    if None in (js, jl, xm, xx, cs):
        return
    j = parse_json(js)
    names = list(j["frames"][0]["metrics"])
    check(names == ["speed_chroma_u", "speed_chroma_v", "speed_chroma_uv", "speed_temporal"],
          "default feature names and order %s" % names)
    check(list(j) == ["version", "fps", "frames", "pooled_metrics", "aggregate_metrics"],
          "JSON top-level keys in vmaf order")
    check(list(j["pooled_metrics"]["speed_chroma_u"]) == ["min", "max", "mean", "harmonic_mean"],
          "pooled keys min, max, mean, harmonic_mean")

    # pooled values: libvmaf's formulas over the reported frames, in double
    for n in names:
        xs = [f["metrics"][n] for f in j["frames"]]
        p = j["pooled_metrics"][n]
        # a loop, not sum(): Python 3.12's sum() of floats compensates its rounding
        s = inv = 0.0
        for x in xs:
            s += x
            inv += 1.0 / (x + 1.0)
        hm = len(xs) / inv - 1.0
        check(p["min"] == min(xs) and p["max"] == max(xs) and p["mean"] == s / len(xs) and
              p["harmonic_mean"] == hm, "pooled %s matches min/max/mean/harmonic" % n)

    # legacy precision is %.6f of the same values
    l = parse_json(jl)
    ok = all(("%.6f" % f["metrics"][n]) == ("%.6f" % lf["metrics"][n]) and
             abs(lf["metrics"][n] - f["metrics"][n]) <= 5e-7
             for f, lf in zip(j["frames"], l["frames"]) for n in names)
    check(ok, "legacy JSON values are the %.6f roundings")
    check(b'"speed_temporal": 0.000000' in jl, "legacy prints %.6f (0.000000)")

    # XML: vmaf's element layout, same numbers
    root = ET.fromstring(xx.decode())
    check(root.tag == "VMAF" and "version" in root.attrib, "XML root <VMAF version=...>")
    check([c.tag for c in root] == ["params", "fyi", "frames", "pooled_metrics", "aggregate_metrics"],
          "XML children params, fyi, frames, pooled_metrics, aggregate_metrics")
    pr = root.find("params").attrib
    check(pr == {"qualityWidth": "576", "qualityHeight": "324"}, "XML params %s" % pr)
    fr = root.find("frames")
    ok = len(fr) == len(j["frames"])
    for e, f in zip(fr, j["frames"]):
        ok &= int(e.get("frameNum")) == f["frameNum"]
        ok &= all(float(e.get(n)) == f["metrics"][n] for n in names)
    check(ok, "XML frames equal the JSON frames")
    ok = True
    for m in root.find("pooled_metrics"):
        p = j["pooled_metrics"][m.get("name")]
        ok &= all(float(m.get(k)) == v for k, v in p.items())
    check(ok, "XML pooled metrics equal the JSON ones")
    check(xm.decode().startswith('<VMAF version="') and '<aggregate_metrics />' in xm.decode(),
          "default output is XML")
    check(b'speed_temporal="0.000000"' in xm, "XML legacy prints %.6f")

    # CSV: header Frame,<names>, and a trailing comma on each row, like vmaf
    lines = cs.decode().splitlines()
    check(lines[0] == "Frame," + ",".join(names) + ",", "CSV header %r" % lines[0])
    rows = list(csv.reader(io.StringIO(cs.decode())))[1:]
    ok = len(rows) == len(j["frames"])
    for r, f in zip(rows, j["frames"]):
        ok &= r[-1] == "" and int(r[0]) == f["frameNum"]
        ok &= all(float(r[1 + i]) == f["metrics"][n] for i, n in enumerate(names))
    check(ok, "CSV rows equal the JSON frames")

    # -o picks the format from the extension unless a flag says otherwise
    for ext, start in ((".json", b"{"), (".csv", b"Frame,"), (".xml", b"<VMAF"), (".txt", b"<VMAF")):
        path = os.path.join(WORK, "out" + ext)
        code, out, err = run(base + ["-o", path, "-q"])
        check(code == 0 and out == b"" and open(path, "rb").read().startswith(start),
              "-o out%s writes %s" % (ext, start.decode()))
    path = os.path.join(WORK, "forced.json")
    run(base + ["-o", path, "--csv"])
    check(open(path, "rb").read().startswith(b"Frame,"), "--csv wins over the .json extension")

    # features: one instance, options, repeated
    o = ok_run(base + ["--json", "--precision", "max", "--feature",
                       "speed_chroma=speed_kernelscale=0.5"], "feature with options")
    if o:
        k = list(parse_json(o)["frames"][0]["metrics"])
        check(k == ["speed_chroma_u_ks_0.5", "speed_chroma_v_ks_0.5", "speed_chroma_uv_ks_0.5"],
              "option suffixes in names %s" % k)
    o = ok_run(base + ["--json", "--feature", "speed_temporal", "--feature",
                       "speed_temporal=speed_use_ref_diff=true"], "two temporal instances")
    if o:
        k = list(parse_json(o)["frames"][0]["metrics"])
        check(k == ["speed_temporal", "speed_temporal_urd"], "two instances %s" % k)

    # subsample: every Nth frame reported, temporal still sees every frame
    o = ok_run(base + ["--json", "--precision", "max", "--subsample", "2"], "subsample 2")
    if o:
        s = parse_json(o)
        check([f["frameNum"] for f in s["frames"]] == [0, 2, 4], "subsample 2 reports 0, 2, 4")
        check([f["metrics"] for f in s["frames"]] == [j["frames"][i]["metrics"] for i in (0, 2, 4)],
              "subsampled values equal the full run's (temporal not disturbed)")
        xs = [j["frames"][i]["metrics"]["speed_chroma_u"] for i in (0, 2, 4)]
        check(s["pooled_metrics"]["speed_chroma_u"]["mean"] == (xs[0] + xs[1] + xs[2]) / 3,
              "subsampled pooling uses the reported frames")

    # frame_cnt and skips
    o = ok_run(base + ["--json", "--precision", "max", "--frame_cnt", "2"], "frame_cnt 2")
    if o:
        check(values(parse_json(o)) == values(j)[:2], "--frame_cnt 2 gives the first 2 frames")
    o = ok_run(base + ["--json", "--precision", "max", "--frame_skip_ref", "1",
                       "--frame_skip_dist", "1"], "skip 1+1")
    if o:
        s = parse_json(o)["frames"]
        check(len(s) == 4 and s[0]["frameNum"] == 0 and s[0]["metrics"]["speed_temporal"] == 0 and
              s[0]["metrics"]["speed_chroma_u"] == j["frames"][1]["metrics"]["speed_chroma_u"] and
              s[1]["metrics"]["speed_temporal"] == j["frames"][2]["metrics"]["speed_temporal"],
              "skipping 1+1 scores frames 1..4 renumbered from 0")

    # raw YUV input gives the same numbers as Y4M
    hdr, frames = y4m_frames(dis)
    raw = os.path.join(WORK, "dis.yuv")
    open(raw, "wb").write(b"".join(frames))
    o = ok_run(["-r", ref, "-d", raw, "-w", "576", "-h", "324", "-p", "420", "-b", "8",
                "--json", "--precision", "max"], "raw yuv")
    if o:
        check(values(parse_json(o)) == values(j), "raw .yuv equals Y4M")

    # quiet, help and version
    code, out, err = run(base + ["-q", "--backend", "auto", "-o", os.path.join(WORK, "q.xml")])
    check(code == 0 and err == "", "-q: nothing on stderr (got %r)" % err)
    code, out, err = run(base + ["--backend", "auto", "-o", os.path.join(WORK, "a.xml")])
    check(code == 0 and "backend" in err, "--backend auto names its choice on stderr")
    # host frames: the CPU backend once this process may use 4 cores or more;
    # fewer: the library's own order (a GPU that opens; none here but PoCL's, so the CPU)
    cores = len(os.sched_getaffinity(0))
    want = "host frames, enough cores" if cores >= 4 else "host frames, few cores"
    check(code == 0 and "using the cpu backend (%s" % want in err,
          "--backend auto with %d cores: %r" % (cores, err.strip()))
    if shutil.which("taskset"):
        p = subprocess.run(["taskset", "-c", str(min(os.sched_getaffinity(0))), EXE] + base +
                           ["--backend", "auto", "-o", os.path.join(WORK, "a1.xml")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        check(p.returncode == 0 and b"few cores" in p.stderr,
              "--backend auto on one core: the library's rule")
    code, out, err = run(["--help"])
    check(code == 0 and b"usage: speedqa" in out and b"Exit codes" in out, "--help")
    code, out, err = run(["-v"])
    check(code == 0 and out.startswith(b"speedqa "), "-v prints the version")
    code, out, err = run(base + ["-n", "-q"])
    check(code == 0, "-n (no_prediction) is accepted")


# ---------------------------------------------------------------- semi-planar
def test_semiplanar():
    """-p nv12 / p010 / p016 raw files score like the planar files of the same samples."""
    import struct
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    w, h = 576, 324
    cw, ch = w // 2, h // 2
    geo = ["-w", str(w), "-h", str(h)]

    def write(path, frames, semi, depth, msb):
        with open(path, "wb") as f:
            for fr in frames:
                y, u, v = fr[:w * h], fr[w * h:w * h + cw * ch], fr[w * h + cw * ch:]
                if semi:
                    uv = bytearray(2 * cw * ch)
                    uv[0::2], uv[1::2] = u, v
                    planes = [y, bytes(uv)]
                else:
                    planes = [y, u, v]
                for p in planes:
                    if depth == 8:
                        f.write(p)
                    else:
                        sh = depth - 8 + (16 - depth if msb else 0)
                        pad = (1 << (16 - depth)) - 1 if msb else 0  # P010's padding bits
                        f.write(struct.pack("<%dH" % len(p), *[(x << sh) | pad for x in p]))
        return path

    runs = {}
    for name, src in (("ref", ref), ("dis", dis)):
        frames = y4m_frames(src)[1][:4]
        for depth in (8, 10, 16):
            runs[(name, depth, 0)] = write(os.path.join(WORK, "%s%d.yuv" % (name, depth)),
                                           frames, False, depth, False)
        runs[(name, 8, 1)] = write(os.path.join(WORK, "%s-nv12.yuv" % name), frames, True, 8, False)
        runs[(name, 10, 1)] = write(os.path.join(WORK, "%s-p010.yuv" % name), frames, True, 10, True)
        runs[(name, 16, 1)] = write(os.path.join(WORK, "%s-p016.yuv" % name), frames, True, 16, False)
    for depth, pix in ((8, "nv12"), (10, "p010"), (16, "p016")):
        planar = ok_run(["-r", runs[("ref", depth, 0)], "-d", runs[("dis", depth, 0)]] + geo +
                        ["-p", "420", "-b", str(depth), "--json", "--precision", "max"],
                        "planar %d-bit" % depth)
        semi = ok_run(["-r", runs[("ref", depth, 1)], "-d", runs[("dis", depth, 1)]] + geo +
                      ["-p", pix, "--json", "--precision", "max"], "-p %s" % pix)
        if planar and semi:
            check(values(parse_json(semi)) == values(parse_json(planar)) and
                  len(values(parse_json(semi))) == 4, "-p %s equals the planar file" % pix)
    code, out, err = run(["-r", runs[("ref", 10, 1)], "-d", runs[("dis", 10, 1)]] + geo +
                         ["-p", "p010", "-b", "12"])
    check(code == 2 and "semi-planar pixel format is 10-bit" in err,
          "-p p010 -b 12 is a usage error (%r)" % err[-200:])


# ---------------------------------------------------------------- threads
def test_threads():
    pairs = [(sample("ref.y4m"), sample("dis.y4m"))]
    r = golden_clip("seeding_576x324_420p8_48f.y4m")
    d = golden_clip("seeding_576x324_420p8_48f_x264crf40.y4m")
    if r and d:
        pairs.append((r, d))
    for ref, dis in pairs:
        name = os.path.basename(dis)
        outs = {}
        for t in ("1", "2", "3", "0"):
            for fmt in ("--json", "--csv"):
                outs[t, fmt] = ok_run(["-r", ref, "-d", dis, "--threads", t, fmt, "--precision",
                                       "max", "-q"], "%s --threads %s %s" % (name, t, fmt))
        if None in outs.values():
            continue
        for t in ("2", "3", "0"):
            check(outs[t, "--csv"] == outs["1", "--csv"],
                  "%s: --threads %s CSV byte-identical to --threads 1" % (name, t))
            check(no_fps(outs[t, "--json"]) == no_fps(outs["1", "--json"]),
                  "%s: --threads %s JSON identical to --threads 1 (fps aside)" % (name, t))
        o = ok_run(["-r", ref, "-d", dis, "--threads", "2", "--subsample", "3", "--csv", "-q",
                    "--precision", "max"], "%s threads 2 subsample 3" % name)
        if o:
            full = outs["1", "--csv"].decode().splitlines()
            want = [full[0]] + [l for l in full[1:] if int(l.split(",")[0]) % 3 == 0]
            check(o.decode().splitlines() == want, "%s: threads 2 + subsample 3 rows" % name)


# ---------------------------------------------------------------- pipe
def test_pipe():
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    want = ok_run(["-r", ref, "-d", dis, "--csv", "--precision", "max"], "files")
    if want is None:
        return
    data = open(dis, "rb").read()
    o = ok_run(["-r", ref, "-d", "-", "--csv", "--precision", "max"], "dis on stdin", input_bytes=data)
    check(o == want, "Y4M on stdin (-d -) equals the file")
    o = ok_run(["-r", "-", "-d", dis, "--csv", "--precision", "max"], "ref on stdin",
               input_bytes=open(ref, "rb").read())
    check(o == want, "Y4M on stdin (-r -) equals the file")
    hdr, frames = y4m_frames(dis)
    o = ok_run(["-r", ref, "-d", "-", "-w", "576", "-h", "324", "-p", "420", "-b", "8", "--csv",
                "--precision", "max"], "raw on stdin", input_bytes=b"".join(frames))
    check(o == want, "raw YUV on stdin equals the file")
    with open(dis, "rb") as f:
        o = ok_run(["-r", ref, "-d", "-", "--csv", "--precision", "max"], "stdin redirected from file",
                   stdin=f)
    check(o == want, "stdin redirected from a file equals the file")

    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg:
        print("note: no ffmpeg, the ffmpeg pipe case is skipped")
        return
    ff = subprocess.Popen([ffmpeg, "-v", "error", "-i", dis, "-f", "yuv4mpegpipe", "-strict", "-1",
                           "-"], stdout=subprocess.PIPE)
    p = subprocess.run([EXE, "-r", ref, "-d", "-", "--csv", "--precision", "max"], stdin=ff.stdout,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ff.stdout.close()
    ff.wait()
    check(p.returncode == 0 and p.stdout == want,
          "ffmpeg -f yuv4mpegpipe | speedqa -d - equals the file (%d %s)" %
          (p.returncode, p.stderr.decode().strip()))


# ---------------------------------------------------------------- lav
def ffmpeg_run(args):
    p = subprocess.run(["ffmpeg", "-v", "error", "-y"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode == 0


def test_lav():
    code, out, err = run(["--version"])
    if b"libav" not in out or b"no libav" in out:
        print("SKIP: speedqa built without libav")
        return SKIP
    if not shutil.which("ffmpeg"):
        print("SKIP: no ffmpeg to make encoded files")
        return SKIP
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    encs = [("libx264", ["-c:v", "libx264", "-crf", "30", "-preset", "veryfast"]),
            ("mpeg4", ["-c:v", "mpeg4", "-q:v", "5"])]
    enc = next(((n, a) for n, a in encs if ffmpeg_run(["-i", ref, "-frames:v", "1"] + a +
                                                      [os.path.join(WORK, "probe.mkv")])), None)
    if enc is None:
        print("SKIP: ffmpeg has neither libx264 nor mpeg4")
        return SKIP
    print("encoder: %s" % enc[0])
    for ext in ("mp4", "mkv"):
        enc_path = os.path.join(WORK, "dis." + ext)
        dec_path = os.path.join(WORK, "dis_%s_decoded.y4m" % ext)
        if not check(ffmpeg_run(["-i", dis] + enc[1] + [enc_path]), "encode %s" % ext):
            continue
        check(ffmpeg_run(["-i", enc_path, "-f", "yuv4mpegpipe", "-strict", "-1", dec_path]),
              "decode %s with ffmpeg" % ext)
        a = ok_run(["-r", ref, "-d", enc_path, "--csv", "--precision", "max"], "speedqa -d dis.%s" % ext)
        b = ok_run(["-r", ref, "-d", dec_path, "--csv", "--precision", "max"], "speedqa -d decoded")
        check(a is not None and a == b, "-d dis.%s equals ffmpeg's decode of it" % ext)
        # decoded frames are lent as the decoder's buffers, 16 at most: with 24 threads
        # the library holds more, and the later ones are copied; the same scores
        t = ok_run(["-r", ref, "-d", enc_path, "--csv", "--precision", "max", "--threads", "24"],
                   "speedqa -d dis.%s --threads 24" % ext)
        check(a is not None and t == a, "-d dis.%s, 24 threads (lent and copied frames) == 1 thread" % ext)
        if a is not None and ext == "mkv":
            c = ok_run(["-r", ref, "-d", "-", "--csv", "--precision", "max"], "mkv on stdin",
                       input_bytes=open(enc_path, "rb").read())
            check(c == a, "mkv on stdin equals the file")
            c = ok_run(["-r", enc_path, "-d", os.path.join(WORK, "dis.mp4"), "--csv", "-q"],
                       "mkv ref vs mp4 dis (different containers)")
    # bit depth kept native: a 10-bit encode against a 10-bit reference
    ref10 = os.path.join(WORK, "ref10.y4m")
    dis10 = os.path.join(WORK, "dis10.mkv")
    dec10 = os.path.join(WORK, "dis10_decoded.y4m")
    if (ffmpeg_run(["-i", ref, "-pix_fmt", "yuv420p10le", "-strict", "-1", ref10]) and
            ffmpeg_run(["-i", dis, "-pix_fmt", "yuv420p10le", "-c:v", "ffv1", dis10]) and
            ffmpeg_run(["-i", dis10, "-f", "yuv4mpegpipe", "-strict", "-1", dec10])):
        a = ok_run(["-r", ref10, "-d", dis10, "--csv", "--precision", "max"], "10-bit ffv1")
        b = ok_run(["-r", ref10, "-d", dec10, "--csv", "--precision", "max"], "10-bit decoded")
        check(a is not None and a == b, "10-bit ffv1 mkv equals its decode (native bit depth)")
        code, out, err = run(["-r", ref, "-d", dis10])
        check(code == 3 and "must match" in err and err.count("\n") == 1,
              "8-bit ref vs 10-bit mkv: exit 3, one line (%d %r)" % (code, err))
    # unsupported pixel format: named in the error
    rgb = os.path.join(WORK, "rgb.mkv")
    if ffmpeg_run(["-i", dis, "-pix_fmt", "rgb24", "-c:v", "ffv1", rgb]):
        code, out, err = run(["-r", ref, "-d", rgb])
        check(code == 3 and "pixel format '" in err and "not supported" in err and rgb in err and
              err.count("\n") == 1,
              "rgb24 input: exit 3 naming the pix_fmt (%d %r)" % (code, err))
    # geometry mismatch between a Y4M ref and an encoded dis
    small = os.path.join(WORK, "small.mkv")
    if ffmpeg_run(["-i", dis, "-vf", "scale=320:180", "-c:v", "ffv1", small]):
        code, out, err = run(["-r", ref, "-d", small])
        check(code == 3 and "320x180" in err and err.count("\n") == 1,
              "320x180 mkv vs 576x324 ref: exit 3, one line (%d %r)" % (code, err))
    # garbage that is neither Y4M nor media
    junk = os.path.join(WORK, "junk.mp4")
    open(junk, "wb").write(b"\x00\x01garbage" * 100)
    code, out, err = run(["-r", ref, "-d", junk])
    check(code == 3 and junk in err and err.count("\n") == 1, "junk.mp4: exit 3 (%d %r)" % (code, err))
    return 0


# ---------------------------------------------------------------- malformed
def test_malformed():
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    hdr, frames = y4m_frames(ref)
    w = lambda name, data: (open(os.path.join(WORK, name), "wb").write(data),
                            os.path.join(WORK, name))[1]
    trunc = w("trunc.y4m", open(dis, "rb").read()[:len(hdr) + 2 * (6 + len(frames[0])) + 1000])
    garbage_hdr = w("garbage_hdr.y4m", b"YUV4MPEG2 Wabc H324\nFRAME\n" + frames[0])
    # fixed bytes: random ones are now and then probed by libav as some format
    rng = random.Random(20261130)
    garbage = w("garbage.bin", bytes(rng.getrandbits(8) for _ in range(5000)))
    zero = w("zero.y4m", b"YUV4MPEG2 W0 H324 C420jpeg\nFRAME\n")
    huge = w("huge.y4m", b"YUV4MPEG2 W100000 H100000 C420jpeg\nFRAME\n")
    toobig = w("toobig.y4m", b"YUV4MPEG2 W16384 H16384 C444p16\nFRAME\n")
    empty = w("empty.y4m", b"")
    noframe = w("noframe.y4m", hdr)
    short3 = write_y4m(os.path.join(WORK, "short3.y4m"), y4m_frames(dis)[0], y4m_frames(dis)[1][:3])
    other = write_y4m(os.path.join(WORK, "320x180.y4m"), b"YUV4MPEG2 W320 H180 F24:1 C420jpeg\n",
                      [bytes(320 * 180 * 3 // 2)] * 5)
    f444 = write_y4m(os.path.join(WORK, "444.y4m"), b"YUV4MPEG2 W576 H324 F24:1 C444\n",
                     [bytes(576 * 324 * 3)] * 5)
    f10 = write_y4m(os.path.join(WORK, "10bit.y4m"), b"YUV4MPEG2 W576 H324 F24:1 C420p10\n",
                    [bytes(len(frames[0]) * 2)] * 5)
    tiny = write_y4m(os.path.join(WORK, "tiny.y4m"), b"YUV4MPEG2 W64 H64 C420jpeg\n",
                     [bytes(64 * 64 * 3 // 2)] * 3)
    mono = write_y4m(os.path.join(WORK, "mono.y4m"), b"YUV4MPEG2 W576 H324 Cmono\n",
                     [fr[:576 * 324] for fr in frames])
    badraw = w("bad.yuv", bytes(1000))
    nodir = os.path.join(WORK, "no", "such", "dir", "out.json")
    missing = os.path.join(WORK, "does-not-exist.y4m")
    R = ["-r", ref]
    cases = [
        # (name, args, exit code, substrings of the one stderr line)
        # the report of the complete frames goes to -o (tests/cli/reliability_test.py)
        ("truncated Y4M", R + ["-d", trunc, "-o", os.devnull], 3, [trunc, "truncated frame 2"]),
        ("garbage Y4M header", R + ["-d", garbage_hdr], 3, [garbage_hdr, "bad width 'abc'"]),
        ("garbage file", R + ["-d", garbage], 3, [garbage, "not a Y4M file"]),
        ("zero width", R + ["-d", zero], 3, [zero, "width 0"]),
        ("huge dimensions", R + ["-d", huge], 3, [huge, "width 100000"]),
        ("frame over the size cap", R + ["-d", toobig], 3, [toobig, "exceeds the limit"]),
        ("empty file", R + ["-d", empty], 3, [empty, "empty file"]),
        # a header and no frame: the line names that input, not the reference
        ("distorted without a frame", R + ["-d", noframe], 3, [noframe, "no frames to score"]),
        ("reference without a frame", ["-r", noframe, "-d", dis], 3, [noframe, "no frames"]),
        ("missing file", R + ["-d", missing], 3, [missing, "No such file"]),
        ("a directory", R + ["-d", WORK], 3, [WORK, "is a directory"]),
        ("missing reference", ["-r", missing, "-d", dis], 3, [missing]),
        ("size mismatch", R + ["-d", other], 3, [ref, other, "320x180", "576x324", "must match"]),
        ("format mismatch", R + ["-d", f444], 3, [f444, "444", "420", "must match"]),
        ("bit depth mismatch", R + ["-d", f10], 3, [f10, "10-bit", "8-bit"]),
        ("too small for the features", ["-r", tiny, "-d", tiny], 3, [tiny]),
        ("speed_chroma on 4:0:0", ["-r", mono, "-d", mono], 3, [mono, "4:0:0"]),
        ("skip past the end", R + ["-d", dis, "--frame_skip_ref", "9"], 3,
         ["--frame_skip_ref 9", "5 frames"]),
        ("raw size not a frame multiple", R + ["-d", badraw, "-w", "576", "-h", "324", "-p", "420",
                                               "-b", "8"], 3, [badraw, "not a multiple"]),
        ("--threads x", R + ["-d", dis, "--threads", "x"], 2, ["--threads", "'x'"]),
        ("--threads -1", R + ["-d", dis, "--threads", "-1"], 2, ["--threads", "-1"]),
        ("--frame_cnt -1", R + ["-d", dis, "--frame_cnt", "-1"], 2, ["--frame_cnt", "-1"]),
        ("--frame_cnt 12abc", R + ["-d", dis, "--frame_cnt", "12abc"], 2, ["--frame_cnt", "12abc"]),
        ("--frame_cnt huge", R + ["-d", dis, "--frame_cnt", "99999999999999999999"], 2,
         ["--frame_cnt"]),
        ("--subsample 0", R + ["-d", dis, "--subsample", "0"], 2, ["--subsample"]),
        ("--width 0", R + ["-d", dis, "-w", "0", "-h", "4", "-p", "420", "-b", "8"], 2, ["--width"]),
        ("--bitdepth 7", R + ["-d", dis, "-w", "4", "-h", "4", "-p", "420", "-b", "7"], 2,
         ["--bitdepth"]),
        ("--pixel_format 411", R + ["-d", dis, "-w", "4", "-h", "4", "-p", "411", "-b", "8"], 2,
         ["--pixel_format", "411"]),
        ("partial raw geometry", R + ["-d", dis, "-w", "576"], 2, ["-h/--height"]),
        ("unknown feature", R + ["-d", dis, "--feature", "nosuch"], 2, ["--feature", "nosuch",
                                                                        "speed_chroma"]),
        ("unknown feature option", R + ["-d", dis, "--feature", "speed_chroma=foo=1"], 2,
         ["--feature", "foo"]),
        ("invalid kernelscale", R + ["-d", dis, "--feature", "speed_chroma=speed_kernelscale=0.9"],
         2, ["--feature", "kernelscale"]),
        ("kernelscale out of range", R + ["-d", dis, "--feature",
                                          "speed_temporal=speed_kernelscale=9"], 2, ["kernelscale"]),
        ("bad prescale method", R + ["-d", dis, "--feature",
                                     "speed_chroma=speed_prescale_method=foo"], 2, ["foo"]),
        ("unknown option", R + ["-d", dis, "--foo"], 2, ["unknown option '--foo'"]),
        ("unknown short option", R + ["-d", dis, "-x"], 2, ["unknown option '-x'"]),
        ("option without value", R + ["-d", dis, "--threads"], 2, ["--threads needs a value"]),
        ("stray argument", R + ["-d", dis, "extra"], 2, ["'extra'"]),
        ("no distorted", R, 2, ["-d/--distorted"]),
        ("both stdin", ["-r", "-", "-d", "-"], 2, ["stdin"]),
        ("model without version= or path=", R + ["-d", dis, "-m", "vmaf_v0.6.1.json"], 2,
         ["--model"]),
        ("bad backend", R + ["-d", dis, "--backend", "metal"], 2, ["--backend", "metal"]),
        ("bad precision", R + ["-d", dis, "--precision", "high"], 2, ["--precision", "high"]),
        ("output dir missing", R + ["-d", dis, "-o", nodir], 5, [nodir]),
        ("output is an input", R + ["-d", dis, "-o", dis], 2, [dis, "refusing"]),
    ]
    for name, args, want, subs in cases:
        code, out, err = run(args)
        lines = err.splitlines()
        good = (code == want and len(lines) == 1 and err.endswith("\n") and
                lines[0].startswith("speedqa: error: ") and all(s in lines[0] for s in subs) and
                out == b"")
        check(good, "%s: exit %d (want %d), stderr %r" % (name, code, want, err[:300]))
        check(code >= 0 and code < 128, "%s: no signal (status %d)" % (name, code))
    # frame counts differ: like vmaf, the common frames are scored, with a warning
    for name, args in [("dis shorter", R + ["-d", short3]), ("ref shorter", ["-r", short3, "-d", dis])]:
        code, out, err = run(args + ["--csv"])
        lines = err.splitlines()
        check(code == 0 and len(out.splitlines()) == 4 and len(lines) == 1 and
              lines[0].startswith("speedqa: warning: frame counts differ") and short3 in lines[0] and
              "ends after 3 frames" in lines[0] and "has 5 frames" in lines[0],
              "frame counts differ (%s): 3 frames scored, one warning (%d %r)" % (name, code, err))
    # the output file is not left behind after a failure
    out_path = os.path.join(WORK, "fail.json")
    if os.path.exists(out_path):
        os.remove(out_path)
    code, out, err = run(R + ["-d", missing, "-o", out_path])
    check(code == 3 and not os.path.exists(out_path), "no output file left after an error")
    # a GPU backend that is not built (or has no device) is a backend error
    code, out, err = run(R + ["-d", dis, "--backend", "cuda", "-q"])
    check(code in (0, 4) and (code == 0 or (err.count("\n") == 1 and "--backend cuda" in err)),
          "--backend cuda: exit 0 or 4 with one line (%d %r)" % (code, err))
    # fewer frames are fine with --frame_cnt; 4:0:0 is fine for speed_temporal
    code, out, err = run(R + ["-d", short3, "--frame_cnt", "3", "-q"])
    check(code == 0, "--frame_cnt 3 with a 3-frame dis: exit 0 (%d %r)" % (code, err))
    code, out, err = run(["-r", mono, "-d", mono, "--feature", "speed_temporal", "-q"])
    check(code == 0, "4:0:0 with speed_temporal only: exit 0 (%d %r)" % (code, err))
    # a closed stdout is a write error, not SIGPIPE
    p = subprocess.Popen([EXE] + R + ["-d", dis], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()
    err = p.stderr.read().decode()
    p.wait()
    check(p.returncode in (0, 5) and p.returncode >= 0, "closed stdout: no signal (status %d %r)" %
          (p.returncode, err))


# ---------------------------------------------------------------- dropin
def test_dropin():
    """vmaf's behaviour: common frames, skips, --frame_cnt 0, --sub, --cpumask, whole names."""
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    full = ok_run(["-r", ref, "-d", dis, "--csv", "--precision", "max", "-q"], "baseline")
    if full is None:
        return
    rows = full.decode().splitlines()
    # a skip on one side: the common frames are scored, one warning names both counts
    code, out, err = run(["-r", ref, "-d", dis, "--frame_skip_ref", "3", "--csv"])
    lines = err.splitlines()
    check(code == 0 and len(out.splitlines()) == 3 and len(lines) == 1 and
          "frame counts differ" in lines[0] and "after skipping" in lines[0] and ref in lines[0],
          "--frame_skip_ref 3 alone: 2 frames, one warning (%d %r)" % (code, err))
    # --frame_cnt 0 means every frame
    out = ok_run(["-r", ref, "-d", dis, "--csv", "--precision", "max", "-q", "--frame_cnt", "0"],
                 "--frame_cnt 0")
    check(out == full, "--frame_cnt 0 scores every frame")
    # --sub: vmaf's subtitle lines carry the CSV's values
    out = ok_run(["-r", ref, "-d", dis, "--sub", "--precision", "max", "-q"], "--sub")
    if out is not None:
        names = rows[0].split(",")[1:-1]
        want = []
        for r in rows[1:]:
            f = r.split(",")[:-1]
            want.append("{%s}{%d}frame: %s|" % (f[0], int(f[0]) + 1, f[0]) +
                        "".join("%s: %s|" % (n, v) for n, v in zip(names, f[1:])))
        check(out.decode().splitlines() == want, "--sub lines equal vmaf's layout of the values")
    o2 = os.path.join(WORK, "out.sub")
    code, _, err = run(["-r", ref, "-d", dis, "-o", o2, "-q"])
    check(code == 0 and open(o2, "rb").read().startswith(b"{0}{1}frame: 0|"),
          "-o x.sub picks the subtitle writer")
    # --cpumask: vmaf's bitmask of sets to disable; the numbers never change
    for m in ("8", "0x8", "16", "24", "1", "-1", "0"):
        out = ok_run(["-r", ref, "-d", dis, "--csv", "--precision", "max", "-q", "--cpumask", m],
                     "--cpumask %s" % m)
        check(out == full, "--cpumask %s: same scores" % m)
    code, out, err = run(["-r", ref, "-d", dis, "--cpumask", "avx"])
    check(code == 2 and "--cpumask" in err, "--cpumask avx: usage error")
    # long options: an exact name first, else a unique prefix (vmaf's getopt);
    # an ambiguous prefix is refused with its candidates
    csv_full = ok_run(["-r", ref, "-d", dis, "--csv", "--precision", "max", "-q"], "csv")
    for a, full_name in (("--sub", None), ("--subs", "--subsample"), ("--thr", "--threads"),
                         ("--frame_c", "--frame_cnt"), ("--frame_skip_dis", "--frame_skip_dist")):
        args = ["-r", ref, "-d", dis, a] + (["1"] if full_name else [])
        code, out, err = run(args + ["-q"])
        check(code == 0, "%s is taken for %s (exit %d %r)" % (a, full_name or a, code, err))
    code, out, err = run(["-r", ref, "-d", dis, "--csv", "--prec", "max", "--thread", "1", "-q"])
    check(code == 0 and out == csv_full, "--prec max --thread 1: the same as the whole names")
    for a, cands in (("--frame", ("--frame_cnt", "--frame_skip_ref", "--frame_skip_dist")),
                     ("--p", ("--pixel_format", "--precision"))):
        code, out, err = run(["-r", ref, "-d", dis, a, "2"])
        lines = err.splitlines()
        check(code == 2 and len(lines) == 1 and "ambiguous option '%s'" % a in err and
              all(c in err for c in cands), "%s is ambiguous, candidates named (%d %r)"
              % (a, code, err))
    # colour range: full against limited is scored, with one warning
    def retag(hdr, tag):
        toks = [t for t in hdr.split() if not t.startswith(b"XCOLORRANGE=")]
        return b" ".join(toks + ([tag] if tag else [])) + b"\n"
    hdr, frames = y4m_frames(dis)
    rhdr, rframes = y4m_frames(ref)
    full_y4m = write_y4m(os.path.join(WORK, "full.y4m"), retag(hdr, b"XCOLORRANGE=FULL"), frames)
    lim_y4m = write_y4m(os.path.join(WORK, "limited.y4m"), retag(rhdr, b"XCOLORRANGE=LIMITED"),
                        rframes)
    unk_y4m = write_y4m(os.path.join(WORK, "unknown.y4m"), retag(rhdr, None), rframes)
    code, out, err = run(["-r", lim_y4m, "-d", full_y4m, "--csv", "--precision", "max"])
    lines = err.splitlines()
    check(code == 0 and out == full and len(lines) == 1 and "colour ranges differ" in lines[0] and
          "full range" in lines[0] and "limited range" in lines[0],
          "XCOLORRANGE FULL vs LIMITED: same scores, one warning (%d %r)" % (code, err))
    code, out, err = run(["-r", unk_y4m, "-d", full_y4m, "--csv"])
    check(code == 0 and err == "", "an unknown range on one side: no warning (%r)" % err)
    if shutil.which("ffmpeg") and b"no libav" not in run(["--version"])[1]:
        mj = os.path.join(WORK, "dis_fullrange.mkv")
        if ffmpeg_run(["-i", dis, "-pix_fmt", "yuv420p", "-color_range", "pc", "-c:v", "ffv1", mj]):
            code, out, err = run(["-r", lim_y4m, "-d", mj, "--csv"])
            check(code == 0 and "colour ranges differ" in err and err.count("\n") == 1,
                  "full-range mkv vs limited Y4M: one warning (%d %r)" % (code, err))
    # -v: the version first, vmaf's way
    code, out, err = run(["-v"])
    check(code == 0 and out.decode().splitlines()[0].startswith("speedqa version "),
          "-v starts with 'speedqa version'")


# ---------------------------------------------------------------- man
def test_man():
    """speedqa(1), written from --help, names every option --help names."""
    import re
    page = os.path.join(WORK, "speedqa.1")
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                        "help2man.py")
    p = subprocess.run([sys.executable, tool, EXE, page], stderr=subprocess.PIPE, text=True)
    if not check(p.returncode == 0, "help2man.py runs (%s)" % p.stderr.strip()):
        return
    roff = open(page).read()
    helptext = run(["--help"])[1].decode()
    opts = sorted(set(re.findall(r"(?<![\w-])--[a-z][\w-]*", helptext)))
    missing = [o for o in opts if o.replace("-", "\\-") not in roff]
    check(len(opts) > 20 and not missing, "the man page has all %d options (missing %s)" %
          (len(opts), missing))
    check(roff.startswith(".TH SPEEDQA 1") and ".SH EXIT CODES" in roff,
          "man page header and sections")
    if shutil.which("man"):
        r = subprocess.run(["man", "-l", page], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=dict(os.environ, MANWIDTH="80"))
        check(r.returncode == 0 and b"threads" in r.stdout and b"EXIT CODES" in r.stdout and
              not r.stderr, "man -l renders it without warnings (%r)" % r.stderr[:200])


# ---------------------------------------------------------------- example
def test_example():
    """doc/example.c, built by the tests, prints the CLI's numbers."""
    ex = os.environ.get("SPEEDQA_EXAMPLE")
    if not ex:
        print("SKIP: SPEEDQA_EXAMPLE not set")
        return SKIP
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    p = subprocess.run([ex, ref, dis], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not check(p.returncode == 0, "example exits 0 (%d %s)" % (p.returncode, p.stderr.strip())):
        return
    got = [l.split() for l in p.stdout.splitlines()]
    out = ok_run(["-r", ref, "-d", dis, "--json"], "cli")
    if out is None:
        return
    want = [["frame %d:" % f["frameNum"]] + ["%s=%.6f" % kv for kv in f["metrics"].items()]
            for f in parse_json(out)["frames"]]
    want = [" ".join(w).split() for w in want]
    check(got == want, "example output equals the CLI's values")


def main():
    global EXE, SAMPLES, GOLDEN, WORK
    if len(sys.argv) != 6:
        print(__doc__)
        return 2
    test, EXE, SAMPLES, GOLDEN, WORK = sys.argv[1:]
    os.makedirs(WORK, exist_ok=True)
    tests = {"sample": test_sample, "output": test_output, "threads": test_threads,
             "pipe": test_pipe, "lav": test_lav, "malformed": test_malformed, "dropin": test_dropin,
             "man": test_man, "semiplanar": test_semiplanar,
             "example": test_example}
    r = tests[test]()
    if r == SKIP:
        return SKIP
    print("%s: %d failure(s)" % ("FAIL" if FAILS else "PASS", len(FAILS)))
    # a passing run leaves no files behind (CI disks can be small); a failing one keeps them
    if not FAILS:
        shutil.rmtree(WORK, ignore_errors=True)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
