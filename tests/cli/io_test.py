#!/usr/bin/env python3
"""Issue 35's output and batch rules, driven through the CLI (stdlib only).

usage: io_test.py TEST SPEEDQA SAMPLES_DIR WORK_DIR
TEST: identity, stdin, keep, signals, smaller

  identity  every output resolved before scoring: two spellings of one file
            (./o.json, absolute, a{i}/../x.json, /dev/stdout on the results
            file), an output that is an input: one line, exit 2, nothing written
  stdin     '-' read by one pair of a batch only
  keep      lines written as each chunk ends (SIGTERM keeps them); --resume
            keeps only lines of the same settings; a second batch on one
            results file is refused; a progress line on a TTY; reports open
            only while written (no fd limit)
  signals   every signal that ends the process removes its temp files
  smaller   a read-only report is kept (exit 5), a template name over PATH_MAX
            is refused, output '-' in a manifest is refused, a single -d
            expands -o {name}, a raw input given -w -h -p -b is never probed

Exit 0 pass, 1 fail, 77 skip.
"""
import json
import os
import pty
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time

from cli_test import default_signals

EXE = SAMPLES = WORK = None
FAILS = []


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        FAILS.append(what)
    return ok


def run(args, stdin=None, stdout=subprocess.PIPE, timeout=120, preexec=None, cwd=None):
    p = subprocess.run([EXE] + args, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                       timeout=timeout, cwd=cwd or WORK, preexec_fn=preexec)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def one_line(err):
    return len(err.strip().splitlines()) == 1 and err.startswith("speedqa: error: ")


def w(name):
    return os.path.join(WORK, name)


def fresh(name):
    d = w(name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def manifest(path, rows, header="ref,dis,output"):
    with open(path, "w") as f:
        f.write(header + "\n")
        for r in rows:
            f.write(",".join(r) + "\n")
    return path


def lines(path):
    if not os.path.exists(path):
        return []
    return [json.loads(l) for l in open(path).read().splitlines() if l.endswith("}")]


def temps(folder):
    return [n for n in os.listdir(folder) if n.startswith(".speedqa-")]


def wait_for(pred, secs=20.0):
    end = time.time() + secs
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


REF = DIS = None


def test_identity():
    d = fresh("identity")
    res = os.path.join(d, "res.jsonl")
    cases = [
        ("o.json and ./o.json", [(REF, DIS, "o.json"), (REF, REF, "./o.json")], res),
        ("relative and absolute", [(REF, DIS, "o.json"), (REF, REF, os.path.join(d, "o.json"))], res),
        ("a folder spelled with ..", [(REF, DIS, "sub/../o.json"), (REF, REF, "o.json")], res),
        ("a pair output that is the results file as ./res.jsonl",
         [(REF, DIS, "./res.jsonl")], res),
        ("an output that is an input through a symlink", [(REF, DIS, "ln.y4m")], res),
    ]
    os.makedirs(os.path.join(d, "sub"))
    os.symlink(DIS, os.path.join(d, "ln.y4m"))
    for what, rows, out in cases:
        m = manifest(os.path.join(d, "m.csv"), [r for r in rows])
        code, _, err = run(["--batch", m, "-o", out, "-q"], timeout=60, cwd=d)
        written = [n for n in os.listdir(d) if n.endswith(".json") or n.endswith(".jsonl")]
        for n in written:
            os.unlink(os.path.join(d, n))
        check(code == 2 and one_line(err) and not written,
              "batch, %s: refused, one line, nothing written (%s %r %s)" % (what, code, err, written))
    # /dev/stdout as a pair's output while stdout is the results file
    m = manifest(os.path.join(d, "m.csv"), [(REF, DIS, "/dev/stdout")])
    with open(res, "wb") as f:
        code, _, err = run(["--batch", m, "-q"], stdout=f)
    check(code == 2 and one_line(err) and os.path.getsize(res) == 0,
          "batch, /dev/stdout with stdout on the results file: refused (%s %r)" % (code, err))
    os.unlink(res)
    # the ladder: a{i}/../x.json makes both renditions write x.json
    for sub in ("a1", "a2"):
        os.makedirs(os.path.join(d, sub))
    code, _, err = run(["-r", REF, "-d", DIS, "-d", REF, "-o", os.path.join(d, "a{i}/../x.json"),
                        "-q"])
    check(code == 2 and one_line(err) and not os.path.exists(os.path.join(d, "x.json")),
          "ladder -o a{i}/../x.json: refused, nothing written (%s %r)" % (code, err))
    # the results file as the manifest under another spelling
    m = manifest(os.path.join(d, "m.csv"), [(REF, DIS, "")], "ref,dis,output")
    before = open(m).read()
    code, _, err = run(["--batch", "m.csv", "-o", os.path.join(d, ".", "m.csv"), "-q"], cwd=d)
    check(code == 2 and open(m).read() == before, "results file == the manifest as ./m.csv: "
          "refused (%s %r)" % (code, err))


def test_stdin():
    d = fresh("stdin")
    m = manifest(os.path.join(d, "m.csv"), [(REF, "-"), (REF, "-")], "ref,dis")
    with open(DIS, "rb") as f:
        code, out, err = run(["--batch", m, "--threads", "2", "-q"], stdin=f)
    check(code == 2 and one_line(err) and "standard input" in err and not out,
          "two pairs reading '-': refused, one line, exit 2, nothing scored (%s %r)" % (code, err))
    m = manifest(os.path.join(d, "m.csv"), [(REF, "-"), (REF, DIS)], "ref,dis")
    with open(DIS, "rb") as f:
        code, out, err = run(["--batch", m, "--threads", "2", "-q"], stdin=f)
    check(code == 0 and len(out.splitlines()) == 2, "one pair reading '-': scored (%s %r)"
          % (code, err))


def stuck_batch(d, n_fast, res, extra=()):
    """A batch of n_fast pairs sharing one reference, then a pair whose input
    is a FIFO nobody writes: its chunk never ends. Returns the process."""
    fifo = os.path.join(d, "never.fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    rows = [(REF, DIS, os.path.join(d, "r%d.json" % i)) for i in range(n_fast)]
    rows.append((REF, fifo, ""))
    m = manifest(os.path.join(d, "m.csv"), rows)
    return subprocess.Popen([EXE, "--batch", m, "-o", res, "--threads", "1", "-q"] + list(extra),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=d)


def test_keep():
    d = fresh("keep")
    res = os.path.join(d, "res.jsonl")
    # 1. lines are written as each chunk ends: SIGTERM keeps them
    p = stuck_batch(d, 16, res)
    got = wait_for(lambda: len(lines(res)) >= 16)
    # 2. a second batch on the same results file while the first runs: refused
    m2 = manifest(os.path.join(d, "m2.csv"), [(REF, DIS, "")] * 4)
    code2, _, err2 = run(["--batch", m2, "-o", res, "-q"])
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=30)
    n = len(lines(res))
    check(got and n == 16, "SIGTERM while a chunk is stuck: the 16 pairs done keep their lines (%d)"
          % n)
    check(code2 == 5 and one_line(err2) and n == 16,
          "a second batch on the same results file: refused, one line (%s %r)" % (code2, err2))
    check(not temps(d), "no temp file left (%s)" % temps(d))
    # 3. --resume keeps only lines of the same settings
    m = manifest(os.path.join(d, "m3.csv"), [(REF, DIS, ""), (DIS, REF, "")])
    res3 = os.path.join(d, "res3.jsonl")
    code, _, err = run(["--batch", m, "-o", res3, "--frame_cnt", "2", "-q"])
    first = lines(res3)
    code, _, err = run(["--batch", m, "-o", res3, "--resume", "-q"])
    again = lines(res3)
    check(code == 0 and [l["frames"] for l in first] == [2, 2] and len(again) == 2 and
          all(l["frames"] > 2 for l in again),
          "--resume after --frame_cnt 2: the lines are scored again (%r %r)"
          % ([l.get("frames") for l in first], [l.get("frames") for l in again]))
    code, _, err = run(["--batch", m, "-o", res3, "--resume", "--precision", "max", "-q"])
    check(code == 0 and len(lines(res3)) == 2 and lines(res3) != again,
          "--resume with another --precision: scored again")
    # 4. a progress line when stderr is a terminal
    master, slave = pty.openpty()
    m4 = manifest(os.path.join(d, "m4.csv"), [(REF, DIS, "")] * 20)
    p = subprocess.Popen([EXE, "--batch", m4, "-o", os.path.join(d, "res4.jsonl")], stdout=subprocess.DEVNULL,
                         stderr=slave, cwd=d)
    p.wait(timeout=60)
    os.close(slave)
    seen = b""
    try:
        while True:
            chunk = os.read(master, 65536)
            if not chunk:
                break
            seen += chunk
    except OSError:
        pass
    os.close(master)
    check(b"20/20 pairs" in seen, "a progress line on a terminal (%r)" % seen[-200:])
    # 5. reports open only while written: 200 reports under a limit of 100 files
    rows = [(REF, DIS, os.path.join(d, "many%d.json" % i)) for i in range(200)]
    m5 = manifest(os.path.join(d, "m5.csv"), rows)

    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (100, 100))
    code, _, err = run(["--batch", m5, "-o", os.path.join(d, "res5.jsonl"), "--threads", "2", "-q"],
                       preexec=low_limit, timeout=300)
    made = sum(os.path.exists(r[2]) for r in rows)
    check(code == 0 and made == 200, "200 reports sharing a reference with 100 files open at most: "
          "all written (%s, %d, %r)" % (code, made, err[:300]))


SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGXCPU",
           "SIGXFSZ", "SIGVTALRM", "SIGPROF"]


def test_signals():
    d = fresh("signals")
    fifo = os.path.join(d, "ref.fifo")
    os.mkfifo(fifo)
    for name in SIGNALS:
        sig = getattr(signal, name)
        out = os.path.join(d, "out.json")
        p = subprocess.Popen([EXE, "-r", fifo, "-d", DIS, "-o", out, "-q"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, cwd=d)
        made = wait_for(lambda: temps(d), 20)
        time.sleep(0.05)
        p.send_signal(sig)
        p.wait(timeout=30)
        check(made and not temps(d) and not os.path.exists(out),
              "%s during a run: its temp file removed, no report (%s)" % (name, temps(d)))
        for t in temps(d):
            os.unlink(os.path.join(d, t))
    # a batch of 300 reports sharing a reference (before: all 300 temp files
    # at once, more than the signal table held): SIGINT once reports appear
    rows = [(REF, DIS, os.path.join(d, "rep%d.json" % i)) for i in range(300)]
    m = manifest(os.path.join(d, "m.csv"), rows)
    p = subprocess.Popen([EXE, "--batch", m, "-o", os.path.join(d, "res.jsonl"), "--threads", "1",
                          "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=d)
    made = wait_for(lambda: len(temps(d)) >= 300 or
                    any(n.startswith("rep") for n in os.listdir(d)), 20)
    p.send_signal(signal.SIGINT)
    p.wait(timeout=30)
    check(made and p.returncode == -signal.SIGINT and not temps(d),
          "SIGINT during a batch of 300 reports: no temp file left (%d)" % len(temps(d)))


def test_smaller():
    d = fresh("smaller")
    # a read-only report is kept; a rewritten one keeps its mode
    rep = os.path.join(d, "rep.json")
    open(rep, "w").write("keep me\n")
    os.chmod(rep, 0o444)
    code, _, err = run(["-r", REF, "-d", DIS, "-o", rep, "-q"])
    check(code == 5 and one_line(err) and open(rep).read() == "keep me\n" and
          stat.S_IMODE(os.stat(rep).st_mode) == 0o444,
          "-o a read-only report: refused, exit 5, kept (%s %r)" % (code, err))
    os.chmod(rep, 0o640)
    code, _, err = run(["-r", REF, "-d", DIS, "-o", rep, "-q"])
    check(code == 0 and stat.S_IMODE(os.stat(rep).st_mode) == 0o640 and open(rep).read() != "keep me\n",
          "a rewritten report keeps its mode 0640 (%s)" % code)
    # a ladder name over PATH_MAX after expansion is refused, not cut
    chain = os.path.join(d, *(["p" * 250] * 16))
    os.makedirs(chain)
    pattern = os.path.join(chain, "{i}" + "y" * 80 + "{name}.json")
    code, _, err = run(["-r", REF, "-d", DIS, "-d", REF, "-o", pattern, "-q"])
    check(code == 2 and one_line(err) and not os.listdir(chain),
          "a template name over 4095 bytes: refused, nothing written (%s)" % code)
    # output '-' in a manifest
    m = manifest(os.path.join(d, "m.csv"), [(REF, DIS, "-")])
    code, out, err = run(["--batch", m, "-q"])
    check(code == 2 and one_line(err) and not os.path.exists(os.path.join(WORK, "-")),
          "output '-' in a manifest: refused, one line (%s %r)" % (code, err))
    # a single -d with an -o template
    code, _, err = run(["-r", REF, "-d", DIS, "-o", os.path.join(d, "out_{name}.json"), "-q"])
    check(code == 0 and os.path.exists(os.path.join(d, "out_dis.json")) and
          not os.path.exists(os.path.join(d, "out_{name}.json")),
          "a single -d expands -o out_{name}.json (%s)" % code)
    # raw input whose bytes are an MPEG-TS stream (any bytes are raw samples)
    ff = shutil.which("ffmpeg")
    ts = os.path.join(d, "t.ts")
    if not ff or subprocess.run([ff, "-v", "error", "-y", "-f", "lavfi", "-i",
                                 "testsrc2=size=352x288:rate=25", "-frames:v", "10", "-c:v",
                                 "mpeg2video", "-f", "mpegts", ts]).returncode:
        print("skip: no ffmpeg to make an MPEG-TS stream")
        return 0
    wd, ht = 352, 288
    data = open(ts, "rb").read()
    data = (data * (1 + 3 * wd * ht * 3 // 2 // len(data)))[:3 * wd * ht * 3 // 2]
    for n in ("a.bin", "b.bin"):
        open(os.path.join(d, n), "wb").write(data)
    code, out, err = run(["-r", os.path.join(d, "a.bin"), "-d", os.path.join(d, "b.bin"),
                          "-w", str(wd), "-h", str(ht), "-p", "420", "-b", "8", "--json", "-q"])
    check(code == 0 and b"pooled_metrics" in out,
          "raw .bin with -w -h -p -b that looks like MPEG-TS: read raw (%s %r)" % (code, err))


def main():
    global EXE, SAMPLES, WORK, REF, DIS
    default_signals(SIGNALS)
    test, EXE, SAMPLES, WORK = sys.argv[1:5]
    EXE = os.path.abspath(EXE)
    os.makedirs(WORK, exist_ok=True)
    WORK = os.path.abspath(WORK)
    SAMPLES = os.path.abspath(SAMPLES)
    REF, DIS = os.path.join(SAMPLES, "ref.y4m"), os.path.join(SAMPLES, "dis.y4m")
    r = {"identity": test_identity, "stdin": test_stdin, "keep": test_keep,
         "signals": test_signals, "smaller": test_smaller}[test]()
    if r == 77:
        return 77
    print("%d failure(s)" % len(FAILS) if FAILS else "all passed")
    # a passing run leaves no files behind (CI disks can be small); a failing one keeps them
    if not FAILS:
        shutil.rmtree(WORK, ignore_errors=True)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
