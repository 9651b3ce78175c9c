"""speedqa.dask against `speedqa --batch`: a LocalCluster of two worker
processes on loopback; the results file byte for byte, the pair reports,
the exit codes and lines, --resume, a worker killed mid-run."""
import csv
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

import speedqa
from conftest import ROOT, strip_fps, write_y4m, y4m_split

distributed = pytest.importorskip("distributed")
import speedqa.dask as SD  # noqa: E402

PRECISIONS = ("legacy", "max")


def cut(src, dst, n, start=0):
    header, frames = y4m_split(src)
    return write_y4m(dst, header, frames[start:start + n])


@pytest.fixture(scope="module")
def cluster():
    c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 host="127.0.0.1", dashboard_address=":0")
    client = distributed.Client(c)
    yield client
    client.close()
    c.close()


@pytest.fixture(scope="module")
def short_pairs(pair, tmp_path_factory):
    """20 (ref, dis, features, output) rows of short clips in a temp dir
    (relative paths: the tests chdir there)."""
    d = tmp_path_factory.mktemp("batch")
    keys = ["420p8", "422p10", "444p8", "420p12", "420p8odd"]
    rows = []
    for k in keys:
        ref, dis = pair(k)
        for j, n in enumerate((3, 4, 5, 6)):
            r = cut(ref, d / ("%s_r%d.y4m" % (k, n)), n, start=j)
            ds = cut(dis, d / ("%s_d%d.y4m" % (k, n)), n + (j % 2), start=j)  # dis longer
            feats = ""
            if j == 1:
                feats = "speed_chroma=speed_kernelscale=0.5;speed_temporal"
            if j == 2:
                feats = "speed_temporal=speed_sigma_nn=0.5"
            out = "out_%s_%d.json" % (k, n) if j in (0, 3) else ""
            rr, dd = os.path.basename(r), os.path.basename(ds)
            if j == 3:
                rr, dd = dd, rr  # swapped roles
            rows.append({"ref": rr, "dis": dd, "features": feats, "output": out})
    assert len(rows) == 20
    return d, rows


def write_csv(path, rows, order=("dis", "features", "ref", "output")):
    with open(path, "w", newline="") as f:
        f.write("# a comment line\n\n")
        w = csv.writer(f)
        w.writerow(order)
        for r in rows:
            w.writerow([r[k] for k in order])
    return str(path)



def read_lines(path):
    with open(path) as f:
        return [json.loads(x) for x in f if x.strip()]


def cli_batch(cli, man, res, *flags):
    p = subprocess.run([cli, "--batch", str(man), "-o", str(res), *flags], capture_output=True,
                       text=True)
    return p.returncode, p.stderr


def error_line(stderr):
    lines = [ln for ln in stderr.splitlines() if ln.startswith("speedqa: error: ")]
    return lines[0][len("speedqa: error: "):] if lines else ""


def reports(d, names):
    """Each pair report of names in d, fps left out (the run's speed)."""
    out = {}
    for n in names:
        p = os.path.join(d, n)
        if not os.path.exists(p):
            out[n] = None
        elif n.endswith(".json"):
            doc = json.load(open(p))
            assert isinstance(doc["fps"], float)  # never null
            out[n] = strip_fps(doc)
        else:
            out[n] = re.sub(rb"fps=\"[^\"]*\"|\bfps\b[^\n]*", b"", open(p, "rb").read())
    return out


@pytest.mark.parametrize("precision", PRECISIONS)
def test_dask_equals_cli_batch(cli, cluster, short_pairs, monkeypatch, tmp_path, precision):
    d, rows = short_pairs
    monkeypatch.chdir(d)
    rows = [dict(r) for r in rows]
    rows[5]["output"] = "out_csv_%s.csv" % precision
    rows[6]["output"] = "out_xml_%s.xml" % precision
    rows.append({"ref": rows[0]["ref"], "dis": "missing.y4m", "features": "", "output": ""})
    header, _ = y4m_split(rows[0]["ref"])
    write_y4m("empty.y4m", header, [])
    rows.append({"ref": rows[0]["ref"], "dis": "empty.y4m", "features": "", "output": ""})
    man = write_csv("m_%s.csv" % precision, rows)
    outs = sorted({r["output"] for r in rows if r["output"]})
    code, err = cli_batch(cli, man, "cli.jsonl", "--precision", precision, "-q")
    want = reports(".", outs)
    for o in outs:
        os.remove(o)
    r, text, line = SD.run_batch(cluster, ["--batch", man, "-o", "dask.jsonl", "--precision",
                                           precision, "-q"], chunk_pairs=3)
    assert code == r == 3 and line == error_line(err) == ""
    assert open("cli.jsonl", "rb").read() == open("dask.jsonl", "rb").read()
    assert text == open("dask.jsonl").read()
    assert reports(".", outs) == want and all(v is not None for v in want.values())
    got = read_lines("dask.jsonl")
    assert len(got) == 22 and "error" in got[20] and "error" in got[21]


def test_module_exit_codes_and_resume(cli, pair, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ref, dis = pair("420p8")
    cut(ref, "r.y4m", 6)
    cut(dis, "d.y4m", 6)
    rows = [{"ref": a, "dis": b, "features": f, "output": ""}
            for a, b in (("r.y4m", "d.y4m"), ("d.y4m", "r.y4m"), ("r.y4m", "r.y4m"))
            for f in ("", "speed_temporal")]
    man = write_csv("m.csv", rows)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))

    def dask(*args):
        p = subprocess.run([sys.executable, "-m", "speedqa.dask", *args, "--local-workers", "2"],
                           capture_output=True, text=True, env=env)
        return p.returncode, p.stderr

    # a whole run, then each side resumes the same torn copy
    assert cli_batch(cli, man, "full.jsonl", "-q")[0] == 0
    full = open("full.jsonl", "rb").read()
    torn = b"".join(full.splitlines(True)[:2]) + full.splitlines(True)[2][:30]
    for name in ("a.jsonl", "b.jsonl"):
        open(name, "wb").write(torn)
    assert cli_batch(cli, man, "a.jsonl", "--resume", "-q")[0] == 0
    assert dask(man, "-o", "b.jsonl", "--resume", "-q") == (0, "")
    assert open("a.jsonl", "rb").read() == open("b.jsonl", "rb").read() == full
    # usage errors: exit 2, the CLI's line, before any cluster
    with open("bad.jsonl", "w") as f:
        f.write('{"ref": "r.y4m", "dis": "d.y4m", "dis": "r.y4m"}\n')
    for args in (["bad.jsonl", "-o", "x.jsonl"], [man, "-o", "x.jsonl", "--threads", "-3"],
                 [man, "--resume"]):
        p = subprocess.run([cli, "--batch", *args], capture_output=True, text=True)
        got = dask(*args)
        assert got[0] == p.returncode == 2 and error_line(got[1]) == error_line(p.stderr)
    assert not os.path.exists("x.jsonl")
    # an input failure: exit 3 both ways
    with open("m3.csv", "w") as f:
        f.write("ref,dis\nr.y4m,none.y4m\nr.y4m,d.y4m\n")
    assert cli_batch(cli, "m3.csv", "c3.jsonl", "-q")[0] == 3
    assert dask("m3.csv", "-o", "d3.jsonl", "-q")[0] == 3
    assert open("c3.jsonl", "rb").read() == open("d3.jsonl", "rb").read()


def test_results_file_unwritable(cli, cluster, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open("m.csv", "w") as f:
        f.write("ref,dis\na.y4m,b.y4m\n")
    code, err = cli_batch(cli, "m.csv", "no/such/dir/res.jsonl")
    r, text, line = SD.run_batch(cluster, ["--batch", "m.csv", "-o", "no/such/dir/res.jsonl"])
    assert r == code == 5 and line == error_line(err) and text == ""
    assert sorted(os.listdir(tmp_path)) == ["m.csv"]


def test_worker_killed_mid_run(cli, pair, tmp_path, monkeypatch):
    """SIGKILL one worker process while chunks are pending: Dask reruns them,
    and the results file is still the CLI's, byte for byte."""
    import threading
    monkeypatch.chdir(tmp_path)
    ref, dis = pair("420p8")
    os.symlink(ref, "r.y4m")
    os.symlink(dis, "d.y4m")
    with open("m.csv", "w") as f:
        f.write("ref,dis\n" + "r.y4m,d.y4m\nd.y4m,r.y4m\n" * 12)
    assert cli_batch(cli, "m.csv", "cli.jsonl", "-q")[0] == 0
    c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 host="127.0.0.1", dashboard_address=":0")
    client = distributed.Client(c)
    killed = {}

    def killer():
        pids = client.run(os.getpid)
        deadline = time.time() + 30
        while time.time() < deadline and not killed:
            busy = [w for w, keys in client.processing().items() if keys and w in pids]
            if busy:
                killed["pid"] = pids[busy[0]]
                os.kill(killed["pid"], signal.SIGKILL)
            time.sleep(0.01)
    try:
        t = threading.Thread(target=killer)
        t.start()
        r, _, _ = SD.run_batch(client, ["--batch", "m.csv", "-o", "dask.jsonl", "-q"],
                               chunk_pairs=1)
        t.join()
    finally:
        client.close()
        c.close()
    if not killed:
        pytest.skip("no worker was busy to kill")
    assert r == 0
    assert open("cli.jsonl", "rb").read() == open("dask.jsonl", "rb").read()


def test_gpu_backend_requests_gpu_resource(cli, pair, tmp_path, monkeypatch):
    """--backend cuda: tasks ask for GPU=1; a worker offering it runs them,
    and the lines are the CLI's (scores, or each pair's error line)."""
    monkeypatch.chdir(tmp_path)
    ref, dis = pair("444p8")
    cut(ref, tmp_path / "r.y4m", 2)
    cut(dis, tmp_path / "d.y4m", 2)
    with open("m.csv", "w") as f:
        f.write("ref,dis\nr.y4m,d.y4m\nd.y4m,r.y4m\n")
    code, _ = cli_batch(cli, "m.csv", "cli.jsonl", "--backend", "cuda", "-q")
    c = distributed.LocalCluster(n_workers=1, processes=False, resources={"GPU": 1},
                                 dashboard_address=":0")
    client = distributed.Client(c)
    seen = []
    orig = client.submit

    def submit(*a, **kw):
        seen.append(kw.get("resources"))
        return orig(*a, **kw)
    client.submit = submit
    try:
        r, _, _ = SD.run_batch(client, ["--batch", "m.csv", "-o", "dask.jsonl", "--backend",
                                        "cuda", "-q"])
    finally:
        client.close()
        c.close()
    assert seen and all(x == {"GPU": 1} for x in seen)
    assert r == code
    assert open("cli.jsonl", "rb").read() == open("dask.jsonl", "rb").read()


def test_non_utf8_paths_keep_their_bytes(cli, cluster, pair, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ref, dis = pair("420p8")
    cut(ref, "r.y4m", 3)
    cut(dis, b"d\xff.y4m", 3)
    with open("m.csv", "wb") as f:
        f.write(b"ref,dis\nr.y4m,d\xff.y4m\nr.y4m,x\xfe.y4m\n")
    assert cli_batch(cli, "m.csv", "cli.jsonl", "-q")[0] == 3
    r, _, _ = SD.run_batch(cluster, ["--batch", "m.csv", "-o", "dask.jsonl", "-q"])
    assert r == 3 and b"d\xff.y4m" in open("dask.jsonl", "rb").read()
    assert open("cli.jsonl", "rb").read() == open("dask.jsonl", "rb").read()
    code, lines = speedqa.batch("m.csv", "py.jsonl", precision="legacy")
    assert code == 3 and open("py.jsonl", "rb").read() == open("cli.jsonl", "rb").read()
