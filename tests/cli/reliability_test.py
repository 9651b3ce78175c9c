#!/usr/bin/env python3
"""Reliability of the speedqa CLI against an outsider's inputs (stdlib only).

usage: reliability_test.py TEST SPEEDQA SAMPLES_DIR WORK_DIR
TEST: paths, dataloss, outputs, endless, interlaced, truncated, threads, range,
      undefined, mapped

Each test is a regression test of a finding of issue #10 and of its class:
  paths      the same frames through every input path give the same scores
  dataloss   no failed or interrupted run truncates or removes a file
  outputs    --version/--help/--list-devices on /dev/full and a closed pipe
  endless    an input that never ends stops when the other one does
  interlaced an interlaced Y4M is scored as progressive, with one warning
  truncated  a truncated last frame: report of the complete frames, exit 3
  threads    --threads beyond what can help is capped (memory stays flat)
  range      samples above the declared depth: one line, exit 3
  undefined  a chroma score NaN before its clip: libvmaf's 1000, one warning
             (the input comes from $SPEEDQA_TEST_UNDEFINED --y4m DIR)
  mapped     memory-mapped files (issue #12) score exactly like read(); a file
             cut while mapped: one line, exit 3; resident memory stays flat

Exit 0 pass, 1 fail, 77 skip (meson's convention).
"""
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time

from cli_test import default_signals, y4m_frames  # one of each for the CLI test files


SKIP = 77
EXE = SAMPLES = WORK = None
FAILS = []
MAX = ["--csv", "--precision", "max", "-q"]


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        FAILS.append(what)
    return ok


def run(args, stdin=None, input_bytes=None, timeout=120, stdout=subprocess.PIPE):
    """Runs speedqa; returns (exit code, stdout bytes, stderr text)."""
    try:
        p = subprocess.run([EXE] + args, stdin=stdin, input=input_bytes, stdout=stdout,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", b"", ""
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def sample(name):
    return os.path.join(SAMPLES, name)


def work(name):
    return os.path.join(WORK, name)


def write(name, data):
    path = work(name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def y4m(name, hdr, frames):
    return write(name, hdr + b"".join(b"FRAME\n" + f for f in frames))


def one_error_line(err, *subs):
    lines = err.splitlines()
    return (len(lines) == 1 and lines[0].startswith("speedqa: error: ") and
            all(s in lines[0] for s in subs))


RAW = ["-w", "576", "-h", "324", "-p", "420", "-b", "8"]


def fifo_feed(path, data, hold=0):
    """Creates a FIFO at path and writes data into it from a thread, which
    keeps it open `hold` seconds more (a live source that has not ended)."""
    if os.path.exists(path):
        os.remove(path)
    os.mkfifo(path)

    def feed():
        try:
            with open(path, "wb") as f:
                f.write(data)
                f.flush()
                time.sleep(hold)
        except OSError:
            pass
    t = threading.Thread(target=feed, daemon=True)
    t.start()
    return t


# ---------------------------------------------------------------- paths
def test_paths():
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    code, want, err = run(["-r", ref, "-d", dis] + MAX)
    if not check(code == 0, "baseline: exit 0 (%r %s)" % (code, err.strip())):
        return
    want3 = b"\n".join(want.split(b"\n")[:4]) + b"\n"
    rhdr, rframes = y4m_frames(ref)
    dhdr, dframes = y4m_frames(dis)
    raw_dis = b"".join(dframes)
    raw_ref = b"".join(rframes)
    dis_yuv = write("dis.yuv", raw_dis)
    dis_bin = write("dis.bin", raw_dis)
    ref_bin = write("ref.bin", raw_ref)
    dis_noext = write("dis_noext", raw_dis)
    cases = [
        ("raw by extension (.yuv)", ["-r", ref, "-d", dis_yuv] + RAW, None, want),
        ("raw by flags, .bin name", ["-r", ref, "-d", dis_bin] + RAW, None, want),
        ("raw by flags, no extension", ["-r", ref, "-d", dis_noext] + RAW, None, want),
        ("raw by flags, .bin name, --frame_cnt 3",
         ["-r", ref, "-d", dis_bin, "--frame_cnt", "3"] + RAW, None, want3),
        ("raw by flags on the reference side (.bin)", ["-r", ref_bin, "-d", dis] + RAW, None,
         want),
        ("raw .bin against raw .yuv", ["-r", ref_bin, "-d", dis_yuv] + RAW, None, want),
        ("Y4M on stdin", ["-r", ref, "-d", "-"], open(dis, "rb").read(), want),
        ("raw on stdin", ["-r", ref, "-d", "-"] + RAW, raw_dis, want),
        ("raw reference on stdin", ["-r", "-", "-d", dis] + RAW, raw_ref, want),
    ]
    for name, args, data, expect in cases:
        code, out, err = run(args + MAX, input_bytes=data)
        check(code == 0 and out == expect, "%s: same scores as the Y4M files (exit %r %s)" %
              (name, code, err.strip()[:200]))
    # FIFOs: not seekable, so probing must not eat what the reader needs
    for name, data, extra in [("Y4M through a FIFO", open(dis, "rb").read(), []),
                              ("raw through a FIFO named .bin", raw_dis, RAW),
                              ("raw through a FIFO named .yuv", raw_dis, RAW)]:
        path = work("fifo" + (".yuv" if name.endswith(".yuv") else ".bin"))
        t = fifo_feed(path, data)
        code, out, err = run(["-r", ref, "-d", path] + extra + MAX, timeout=60)
        t.join(5)
        check(code == 0 and out == want, "%s: same scores (exit %r %s)" % (name, code,
                                                                            err.strip()[:200]))
    # libav: a lossless encode decodes to the same frames
    vcode, vout, _ = run(["--version"])
    if b"libav" in vout and b"no libav" not in vout and shutil.which("ffmpeg"):
        mkv = work("dis_ffv1.mkv")
        ok = subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", dis, "-c:v", "ffv1", mkv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE).returncode == 0
        if check(ok, "ffmpeg encodes ffv1"):
            code, out, err = run(["-r", ref, "-d", mkv] + MAX)
            check(code == 0 and out == want, "libav (ffv1 mkv): same scores (%r %s)" %
                  (code, err.strip()))
            code, out, err = run(["-r", ref, "-d", mkv] + RAW + MAX)
            check(code == 0 and out == want,
                  "libav with raw geometry given too: same scores (%r %s)" % (code, err.strip()))
            code, out, err = run(["-r", ref, "-d", "-"] + MAX, input_bytes=open(mkv, "rb").read())
            check(code == 0 and out == want, "libav on stdin: same scores (%r %s)" %
                  (code, err.strip()))
    else:
        print("note: no libav or ffmpeg: the libav path is not compared")


# ---------------------------------------------------------------- dataloss
def snapshot(path):
    st = os.lstat(path)
    data = open(path, "rb").read() if stat.S_ISREG(st.st_mode) else None
    return (st.st_ino, st.st_size, st.st_mtime_ns, data)


def leftovers(folder, before):
    return sorted(set(os.listdir(folder)) - before)


def test_dataloss():
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    hdr, frames = y4m_frames(dis)
    # 1. the finding: -o names the file stdin reads
    victim = y4m("victim.y4m", hdr, frames)
    before = snapshot(victim)
    with open(victim, "rb") as f:
        code, out, err = run(["-r", "-", "-d", dis, "-o", victim], stdin=f)
    check(code == 2 and one_error_line(err, victim, "input"),
          "-o is the file on stdin: refused, exit 2, one line (%r %r)" % (code, err))
    check(os.path.exists(victim) and snapshot(victim) == before, "the file on stdin is untouched")
    # a hard link and a symlink to an input are the same file too
    link = work("hardlink.y4m")
    if os.path.exists(link):
        os.remove(link)
    os.link(victim, link)
    code, out, err = run(["-r", ref, "-d", victim, "-o", link])
    check(code == 2 and snapshot(victim) == before, "-o a hard link of an input: refused (%r)" % code)
    sym = work("symlink.y4m")
    if os.path.lexists(sym):
        os.remove(sym)
    os.symlink(victim, sym)
    code, out, err = run(["-r", ref, "-d", victim, "-o", sym])
    check(code == 2 and snapshot(victim) == before, "-o a symlink to an input: refused (%r)" % code)

    # 2. every failing path against an existing report
    report = work("report.json")
    missing = work("does-not-exist.y4m")
    short = y4m("short2.y4m", hdr, frames[:2])
    other = y4m("other.y4m", b"YUV4MPEG2 W320 H180 F24:1 C420jpeg\n", [bytes(320 * 180 * 3 // 2)])
    tiny = y4m("tiny.y4m", b"YUV4MPEG2 W64 H64 C420jpeg\n", [bytes(64 * 64 * 3 // 2)] * 2)
    garbage = write("garbage.bin", b"\x00\x01\x02not a video" * 50)
    R = ["-r", ref, "-d", dis]
    failing = [
        ("missing input", ["-r", ref, "-d", missing]),
        ("missing reference", ["-r", missing, "-d", dis]),
        ("garbage input", ["-r", ref, "-d", garbage]),
        ("empty stdin", ["-r", ref, "-d", "-"]),
        ("geometry mismatch", ["-r", ref, "-d", other]),
        ("too small for the features", ["-r", tiny, "-d", tiny]),
        ("skip past the end", R + ["--frame_skip_ref", "99"]),
        ("frames run out after skipping", ["-r", ref, "-d", short, "--frame_skip_dist", "2"]),
        ("unknown feature", R + ["--feature", "nosuch"]),
        ("bad option value", R + ["--feature", "speed_chroma=speed_prescale=2,5"]),
        ("bad flag", R + ["--threads", "x"]),
        ("backend without device", R + ["--backend", "hip"]),
    ]
    for name, args in failing:
        write("report.json", b'{"precious": true}\n')
        before = snapshot(report)
        names = set(os.listdir(WORK))
        code, out, err = run(args + ["-o", report], input_bytes=b"")
        if code == 0:  # a backend that works here is not a failing path
            print("note: %s succeeded here (exit 0); not a failing path" % name)
            continue
        check(snapshot(report) == before, "%s (exit %r): the existing report is untouched" %
              (name, code))
        check(not leftovers(WORK, names), "%s: no temporary file left (%s)" %
              (name, leftovers(WORK, names)))
    # a failing run with a new output path leaves nothing behind
    fresh = work("fresh.json")
    if os.path.exists(fresh):
        os.remove(fresh)
    code, out, err = run(["-r", ref, "-d", missing, "-o", fresh])
    check(code == 3 and not os.path.exists(fresh), "failed run: no new output file")

    # 3. interrupted runs: SIGINT, SIGTERM, SIGHUP while the input blocks
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        write("report.json", b'{"precious": true}\n')
        before = snapshot(report)
        names = set(os.listdir(WORK))
        fifo = work("slow.y4m")
        if os.path.exists(fifo):
            os.remove(fifo)
        os.mkfifo(fifo)
        p = subprocess.Popen([EXE, "-r", ref, "-d", fifo, "-o", report, "-q"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        w = open(fifo, "wb")
        w.write(hdr + b"FRAME\n" + frames[0])  # one frame, then the writer stalls
        w.flush()
        time.sleep(0.5)
        p.send_signal(sig)
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        w.close()
        os.remove(fifo)
        check(p.returncode != 0, "%s: nonzero status (%r)" % (sig.name, p.returncode))
        check(snapshot(report) == before, "%s: the existing report is untouched" % sig.name)
        check(not leftovers(WORK, names - {"slow.y4m"}) or
              leftovers(WORK, names) == [], "%s: no temporary file left (%s)" %
              (sig.name, leftovers(WORK, names)))

    # 4. success replaces the report whole, keeps other files, and a
    #    read-only folder is refused before scoring
    write("report.json", b'{"precious": true}\n')
    names = set(os.listdir(WORK))
    code, out, err = run(R + ["-o", report, "--json", "-q"])
    check(code == 0 and open(report, "rb").read().startswith(b"{") and
          b"precious" not in open(report, "rb").read(), "success replaces the report (%r)" % code)
    check(not leftovers(WORK, names), "success: no temporary file left")
    if os.geteuid() != 0:
        ro = work("readonly")
        os.makedirs(ro, exist_ok=True)
        os.chmod(ro, 0o555)
        code, out, err = run(R + ["-o", os.path.join(ro, "r.json")])
        os.chmod(ro, 0o755)
        check(code == 5 and one_error_line(err, "r.json"), "read-only folder: exit 5 (%r %r)" %
              (code, err))
    # /dev/null and a FIFO as the output are written in place
    code, out, err = run(R + ["-o", "/dev/null", "-q"])
    check(code == 0, "-o /dev/null works (%r %r)" % (code, err))


# ---------------------------------------------------------------- outputs
def closed_pipe_run(args):
    """Runs speedqa with stdout a pipe whose read end is already closed."""
    r, w = os.pipe()
    os.close(r)
    p = subprocess.Popen([EXE] + args, stdout=w, stderr=subprocess.PIPE)
    os.close(w)
    err = p.stderr.read().decode()
    p.wait()
    return p.returncode, err


def test_outputs():
    for args in (["--version"], ["--help"], ["--list-devices"], ["-v"]):
        with open("/dev/full", "wb") as full:
            code, out, err = run(args, stdout=full)
        check(code == 5 and one_error_line(err, "write"),
              "%s > /dev/full: exit 5, one line (%r %r)" % (" ".join(args), code, err))
        code, err = closed_pipe_run(args)
        check(code == 5 and err == "",
              "%s into a closed pipe: exit 5, no signal, quiet (%r %r)" % (" ".join(args), code, err))
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    with open("/dev/full", "wb") as full:
        code, out, err = run(["-r", ref, "-d", dis], stdout=full)
    check(code == 5 and one_error_line(err, "write"), "report > /dev/full: exit 5 (%r %r)" %
          (code, err))
    code, err = closed_pipe_run(["-r", ref, "-d", dis, "--json"])
    check(code == 5 and err == "", "report into a closed pipe: exit 5, quiet (%r %r)" % (code, err))


# ---------------------------------------------------------------- endless
def test_endless():
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    code, want, err = run(["-r", ref, "-d", dis] + MAX)
    with open("/dev/zero", "rb") as z:
        code, out, err = run(["-r", "-", "-d", dis] + RAW + MAX, stdin=z, timeout=60)
    check(code != "timeout", "raw /dev/zero on stdin against a 5-frame file ends (%r)" % code)
    check(code == 0 and len(out.splitlines()) == len(want.splitlines()),
          "it scores the 5 common frames (exit %r, %d lines, %r)" %
          (code, len(out.splitlines()), err.strip()))
    with open("/dev/zero", "rb") as z:
        code, out, err = run(["-r", ref, "-d", "-"] + RAW + MAX, stdin=z, timeout=60)
    check(code == 0, "endless distorted side ends too (%r)" % code)


# ---------------------------------------------------------------- interlaced
def test_interlaced():
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    code, want, err = run(["-r", ref, "-d", dis] + MAX)
    hdr, frames = y4m_frames(dis)
    for tag in (b"It", b"Ib", b"Im"):
        toks = [t for t in hdr.split() if not t.startswith(b"I")] + [tag]
        path = y4m("inter_%s.y4m" % tag.decode(), b" ".join(toks) + b"\n", frames)
        code, out, err = run(["-r", ref, "-d", path, "--csv", "--precision", "max"])
        lines = err.splitlines()
        check(code == 0 and out == want, "%s: scored as progressive (%r)" % (tag.decode(), code))
        check(len(lines) == 1 and lines[0].startswith("speedqa: warning: ") and
              "interlaced" in lines[0] and path in lines[0],
              "%s: one warning line naming the file (%r)" % (tag.decode(), err))
        code, out, err = run(["-r", ref, "-d", path] + MAX)
        check(err == "", "%s: -q silences the warning" % tag.decode())


# ---------------------------------------------------------------- truncated
def test_truncated():
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    code, want, err = run(["-r", ref, "-d", dis] + MAX)
    hdr, frames = y4m_frames(dis)
    data = hdr + b"".join(b"FRAME\n" + f for f in frames)
    trunc = write("trunc.y4m", data[:-1000])
    out_path = work("trunc.csv")
    if os.path.exists(out_path):
        os.remove(out_path)
    code, out, err = run(["-r", ref, "-d", trunc, "-o", out_path, "--csv", "--precision", "max"])
    check(code == 3 and one_error_line(err, trunc, "truncated frame 4"),
          "truncated last frame: exit 3, one line (%r %r)" % (code, err))
    got = open(out_path, "rb").read() if os.path.exists(out_path) else b""
    wl = want.splitlines()
    check(got.splitlines() == wl[:5], "the report holds the 4 complete frames (%d lines)" %
          len(got.splitlines()))
    code, out, err = run(["-r", ref, "-d", trunc, "--csv", "--precision", "max"])
    check(code == 3 and out.splitlines() == wl[:5], "same on stdout (%r)" % code)


# ---------------------------------------------------------------- mapped
def frames10(w, h, n, seed):
    """n textured 10-bit 4:2:0 frames (LE 16-bit samples)."""
    out = []
    for t in range(n):
        vals = [((x * x + 3 * y * y + x * y + 7 * t * x + seed * y) >> 3) % 1024
                for y in range(h) for x in range(w)]
        vals += [(x * 5 + y * 3 + t + seed) % 1024 for y in range(h // 2) for x in range(w)]
        out.append(b"".join(v.to_bytes(2, "little") for v in vals))
    return out


def test_mapped():
    """Mapped files (the default) score exactly like read() (SPEEDQA_IO=read)."""
    read_env = dict(os.environ, SPEEDQA_IO="read")

    def both(args, what):
        a = run(args + MAX)
        p = subprocess.run([EXE] + args + MAX, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=read_env, timeout=120)
        check(a[0] == 0 and p.returncode == 0 and a[1] == p.stdout and a[1].count(b"\n") > 2,
              "%s: mapped == read() (exit %r %r)" % (what, a[0], p.returncode))
    ref, dis = sample("ref.y4m"), sample("dis.y4m")
    for t in ("1", "3"):
        both(["-r", ref, "-d", dis, "--threads", t], "8-bit Y4M, --threads " + t)
        both(["-r", ref, "-d", dis, "--threads", t, "--frame_skip_ref", "1"],
             "8-bit Y4M, a skipped frame, --threads " + t)
    w, h = 320, 180
    fr, fd = frames10(w, h, 6, 0), frames10(w, h, 6, 5)
    # headers of both parities: 16-bit samples at odd offsets must be copied
    for tag in (b"", b" XA"):
        hdr = b"YUV4MPEG2 W320 H180 F25:1 C420p10" + tag + b"\n"
        r10 = y4m("r10%d.y4m" % len(tag), hdr, fr)
        d10 = y4m("d10%d.y4m" % len(tag), hdr, fd)
        for t in ("1", "3"):
            both(["-r", r10, "-d", d10, "--threads", t],
                 "10-bit Y4M, header of %d bytes, --threads %s" % (len(hdr), t))
    # pages mapped ahead (only the rows read, frame by frame, the record size
    # predicted from the first two) whatever the FRAME lines: the same scores
    # with the populating thread, in the reader, and without
    tagged = b"".join(b"FRAME" + (b" Xk=" + b"a" * (t * 37 % 50) if t % 3 else b"") + b"\n" + f
                      for t, f in enumerate(fr))
    r10t = write("r10tag.y4m", b"YUV4MPEG2 W320 H180 F25:1 C420p10\n" + tagged)
    for mode in ("1", "2"):
        pop = dict(os.environ, SPEEDQA_MAP_POPULATE=mode)
        for src, what in ((r10t, "FRAME lines of varying length"), (r10, "plain FRAME lines")):
            a = run(["-r", src, "-d", d10, "--threads", "1"] + MAX)
            p = subprocess.run([EXE, "-r", src, "-d", d10, "--threads", "1"] + MAX,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=pop, timeout=120)
            check(a[0] == 0 and p.returncode == 0 and a[1] == p.stdout,
                  "10-bit Y4M, %s: SPEEDQA_MAP_POPULATE=%s scores alike" % (what, mode))
    d10raw = write("d10.yuv", b"".join(fd))
    both(["-r", r10, "-d", d10raw, "-w", "320", "-h", "180", "-p", "420", "-b", "10",
          "--threads", "3"], "10-bit raw .yuv")
    # the truncated last frame: same report and exit either way
    hdr, frames = y4m_frames(dis)
    trunc = write("mtrunc.y4m", (hdr + b"".join(b"FRAME\n" + f for f in frames))[:-1000])
    a = run(["-r", ref, "-d", trunc] + MAX)
    p = subprocess.run([EXE, "-r", ref, "-d", trunc] + MAX, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=read_env)
    check(a[0] == 3 and p.returncode == 3 and a[1] == p.stdout,
          "truncated last frame: exit 3 and the same report both ways")

    # a file that shrinks under the mapping: one line, exit 3, no report
    w, h = 640, 360
    frame = bytes((x * 7 + y * 3) & 255 for y in range(8) for x in range(w)) * (h // 8)
    # textured chroma: flat planes score so fast that the run could end before the cut
    frame += bytes((x * 5 + y * 11) & 255 for y in range(8) for x in range(w // 2)) * (h // 8)
    hdr = b"YUV4MPEG2 W640 H360 F25:1 C420jpeg\n"
    n = 150
    for attempt in range(4):
        big = y4m("shrink.y4m", hdr, [frame] * n)
        out_path = work("shrink.csv")
        if os.path.exists(out_path):
            os.remove(out_path)
        before = set(os.listdir(WORK))
        proc = subprocess.Popen([EXE, "-r", big, "-d", big, "--threads", "1", "-q", "--csv",
                                 "-o", out_path], stderr=subprocess.PIPE)
        time.sleep(0.3)
        os.truncate(big, len(hdr) + 10)
        _, err = proc.communicate(timeout=120)
        if proc.returncode == 0:
            n *= 3  # it finished before the cut: a longer file
            continue
        err = err.decode("utf-8", "replace")
        check(proc.returncode == 3 and one_error_line(err, "shrank"),
              "a file cut while mapped: exit 3, one line (%r %r)" % (proc.returncode, err))
        check(not os.path.exists(out_path) and not leftovers(WORK, before),
              "no report file is left")
        break
    else:
        check(False, "the cut never came before the end of the run")

    # resident memory stays flat however long the file: 60 frames against 480
    frames = [bytes(((x * 7 + y * 3 + t) & 255) for y in range(8) for x in range(w)) * (h // 8) +
              bytes(w * h // 2) for t in range(4)]
    long_clip = y4m("long.y4m", hdr, frames * 120)
    c1, rss1 = peak_rss_kb(["-r", long_clip, "-d", long_clip, "--threads", "2", "-q",
                            "--frame_cnt", "60"])
    c2, rss2 = peak_rss_kb(["-r", long_clip, "-d", long_clip, "--threads", "2", "-q"])
    print("peak RSS, 640x360 mapped: 60 frames %d KiB, 480 frames %d KiB (file %d KiB)" %
          (rss1, rss2, os.path.getsize(long_clip) // 1024))
    check(c1 == 0 and c2 == 0 and rss2 < rss1 + 24 * 1024,
          "480 frames cost at most 24 MiB more resident memory than 60")
    os.remove(long_clip)
    os.remove(big)


# ---------------------------------------------------------------- threads
def peak_rss_kb(args):
    """Peak resident memory of one speedqa run, in KiB (Linux ru_maxrss)."""
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execv(EXE, [EXE] + args)
        os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), ru.ru_maxrss


def test_threads():
    w, h = 1280, 720
    frame = bytes((x * 7 + y) & 255 for y in range(8) for x in range(w)) * (h // 8)
    frame += bytes(w * h // 2)
    clip = y4m("720p.y4m", b"YUV4MPEG2 W1280 H720 F25:1 C420jpeg\n", [frame] * 3)
    ncpu = str(os.cpu_count() or 1)
    code1, rss1 = peak_rss_kb(["-r", clip, "-d", clip, "--threads", ncpu, "-q"])
    code2, rss2 = peak_rss_kb(["-r", clip, "-d", clip, "--threads", "1000", "-q"])
    check(code1 == 0 and code2 == 0, "--threads %s and 1000 run (%d %d)" % (ncpu, code1, code2))
    print("peak RSS at 720p: --threads %s (the cores): %d KiB, --threads 1000: %d KiB" %
          (ncpu, rss1, rss2))
    check(rss2 < rss1 * 1.25 + 8 * 1024, "--threads 1000 costs no more than one per core")
    code, out, err = run(["--help"])
    check(b"capped" in out or b"at most" in out, "--help says how --threads is capped")


# ---------------------------------------------------------------- range
def test_range():
    """12-bit samples up to 63866: one line naming input, frame, plane, value, depth."""
    w, h = 201, 179
    n = w * h
    good = bytes(((i * 37) % 4096) & 255 if k % 2 == 0 else ((i * 37) % 4096) >> 8
                 for i in range(n) for k in range(2))
    # a third of the samples above 4095, up to 63866
    bad = bytearray(good)
    for i in range(0, n, 3):
        v = 4096 + (i * 101) % (63866 - 4096) if i else 63866
        bad[2 * i] = v & 255
        bad[2 * i + 1] = v >> 8
    hdr = b"YUV4MPEG2 W201 H179 F25:1 C444p12\n"
    ref = y4m("r12.y4m", hdr, [good * 3, good * 3])
    dis = y4m("d12.y4m", hdr, [bytes(bad) * 3, good * 3])
    for t in ("1", "3"):
        code, out, err = run(["-r", ref, "-d", dis, "--threads", t, "--json"])
        check(code == 3 and out == b"" and
              one_error_line(err, dis, "frame 0", "63866", "12-bit"),
              "12-bit with 63866 (--threads %s): exit 3, one line naming it (%r %r)" %
              (t, code, err))
    # 10-bit stored MSB-aligned (value << 6): the hint says so
    w, h = 320, 240
    vals = [((x * 5 + y * 3) % 1024) << 6 for y in range(h) for x in range(w)]
    plane = b"".join(bytes((v & 255, v >> 8)) for v in vals)
    cw = plane[:len(plane) // 4]
    fr = plane + cw + cw
    hdr = b"YUV4MPEG2 W320 H240 F25:1 C420p10\n"
    msb = y4m("msb10.y4m", hdr, [fr, fr])
    code, out, err = run(["-r", msb, "-d", msb])
    check(code == 3 and one_error_line(err, msb, "frame 0", "10-bit", "MSB"),
          "10-bit MSB-aligned: exit 3 with the MSB hint (%r %r)" % (code, err))


# ---------------------------------------------------------------- undefined
def test_undefined():
    gen = os.environ.get("SPEEDQA_TEST_UNDEFINED")
    if not gen:
        print("SKIP: SPEEDQA_TEST_UNDEFINED not set")
        return SKIP
    p = subprocess.run([gen, "--y4m", WORK], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if not check(p.returncode == 0, "the case is written (%d)" % p.returncode):
        return
    feats = open(work("features.txt")).read().split()
    args = ["-r", work("ref.y4m"), "-d", work("dis.y4m"), "--csv"]
    for f in feats:
        args += ["--feature", f]
    code, out, err = run(args)
    rows = [r.split(",") for r in out.decode().splitlines()]
    lines = err.splitlines()
    check(code == 0, "exit 0 (%r %r)" % (code, err))
    check(len(rows) == 5 and rows[3][2] == "1000.000000" and rows[3][4] == "1000.000000",
          "frame 2 of speed_chroma_u and _uv is 1000, libvmaf's number")
    check(len(lines) == 1 and lines[0].startswith("speedqa: warning: ") and "undefined" in lines[0] and
          "(2)" in lines[0] and rows[0][2] in lines[0] and rows[0][4] in lines[0] and
          rows[0][3] not in lines[0],
          "one warning naming u and uv (not v) and frame 2 (%r)" % err)
    code, out, err = run(args + ["-q"])
    check(err == "", "-q hides it")


def main():
    global EXE, SAMPLES, WORK
    default_signals(["SIGINT", "SIGTERM", "SIGHUP"])
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    test, EXE, SAMPLES, WORK = sys.argv[1:]
    os.makedirs(WORK, exist_ok=True)
    tests = {"paths": test_paths, "dataloss": test_dataloss, "outputs": test_outputs,
             "endless": test_endless, "interlaced": test_interlaced,
             "truncated": test_truncated, "threads": test_threads, "range": test_range,
             "undefined": test_undefined, "mapped": test_mapped}
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
