"""What the Python benches share: their work folder, how a build is named,
timing commands and rounds that interleave what they compare.

A bench writes only into its work folder: the one the user gives (kept, so a
later run reuses its inputs), or a fresh one under $SPEEDQA_BENCH_DIR
(default /var/tmp) that is removed at exit. /var/tmp rather than /tmp because
/tmp is often tmpfs, whose 4 KiB pages make mapped reading dearer than the
page cache of the disks users' files live on."""
import contextlib
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CLIPS = os.path.join(ROOT, "tests", "data", "clips")


@contextlib.contextmanager
def work_dir(path=None):
    if path:
        os.makedirs(path, exist_ok=True)
        yield os.path.abspath(path)
        return
    d = tempfile.mkdtemp(prefix="speedqa-bench-", dir=os.environ.get("SPEEDQA_BENCH_DIR",
                                                                     "/var/tmp"))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def fs_type(path):
    """The file system under path ("ext4", "tmpfs" ...): a mapped reader's
    cost depends on it, so headers name it."""
    for cmd in (["findmnt", "-n", "-o", "FSTYPE", "--target"], ["stat", "-f", "-c", "%T"]):
        try:
            r = subprocess.run(cmd + [path], capture_output=True, text=True)
        except OSError:
            continue
        if r.returncode == 0 and r.stdout.strip():
            return r.stdout.strip()
    return "?"


def speedqa_exe(arg):
    """A speedqa binary from a binary's path or a build folder's."""
    if os.path.isdir(arg):
        arg = os.path.join(arg, "tools", "speedqa")
    if not os.access(arg, os.X_OK):
        raise SystemExit("no speedqa binary at %s" % arg)
    return os.path.abspath(arg)


def timed(cmds, env=None, check=True):
    """Wall seconds of the commands started together (None when one fails and
    check is off)."""
    t0 = time.monotonic()
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
             for c in cmds]
    errs = [(p.communicate()[1], p.returncode) for p in procs]
    t = time.monotonic() - t0
    for (err, code), c in zip(errs, cmds):
        if code:
            if check:
                raise SystemExit("failed (%d): %s\n%s" % (code, " ".join(c),
                                                          err.decode(errors="replace")[-2000:]))
            return None
    return t


def rounds(variants, n, seed=0):
    """variants: {name: (cmds, env)}. Each round runs every variant once, in a
    new order, so that drift in a shared machine falls on all alike; one
    untimed pass first. Returns {name: [seconds per round]}."""
    for cmds, env in variants.values():
        timed(cmds, env)
    times = {k: [] for k in variants}
    for r in range(n):
        order = list(variants)
        random.Random(seed + r).shuffle(order)
        for k in order:
            cmds, env = variants[k]
            times[k].append(timed(cmds, env))
    return times


def ratio(times, slow, fast):
    """How many times as fast `fast` runs as `slow`: (best over best, median of
    the rounds' own ratios). Each round's runs are neighbours in time, so the
    median of their ratios resists a shared machine's drift best."""
    per = [s / f for s, f in zip(times[slow], times[fast])]
    return min(times[slow]) / min(times[fast]), statistics.median(per)


def describe(ts):
    return "best %.3f s, median %.3f s" % (min(ts), statistics.median(ts))
