"""speedqa.dask and the batch manifest: a LocalCluster of two worker
processes on loopback against score_files run serially (and `speedqa
--batch` when the CLI has it), chunked pairs, a worker killed mid-run."""
import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import speedqa
from speedqa import manifest as M
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


def serial_lines(entries, precision):
    out = []
    for e in entries:
        doc = speedqa.score_files(e["ref"], e["dis"], features=e["features"],
                                  precision=precision)
        line = {"ref": e["ref"], "dis": e["dis"], "frames": len(doc["frames"]),
                "pooled_metrics": doc["pooled_metrics"]}
        if "output" in e:
            line["output"] = e["output"]
        if e["features"]:
            line["features"] = ";".join(e["features"])  # as the CLI's lines record them
        out.append((line, strip_fps(doc)))
    return out


def read_lines(path):
    with open(path) as f:
        return [json.loads(x) for x in f if x.strip()]


def test_parse_manifest_csv_and_jsonl():
    text = ('\n# comment\noutput,dis,ref,features\n'
            '"o,1.json","d 1.y4m",r1.y4m,"speed_chroma=speed_kernelscale=0.5;speed_temporal"\n'
            '\n,d2.y4m,"r""2"".y4m",\n# x\n')
    es = M.parse_manifest(text)
    assert [(e["ref"], e["dis"], e["features"], e.get("output")) for e in es] == [
        ("r1.y4m", "d 1.y4m", ["speed_chroma=speed_kernelscale=0.5", "speed_temporal"],
         "o,1.json"),
        ('r"2".y4m', "d2.y4m", None, None)]
    jl = ('# comment first\n\n{"ref": "a", "dis": "b", "features": ["speed_temporal"], "output": "x.json"}\n'
          '# skip\n\n{"dis": "d", "ref": "c", "features": "speed_chroma;speed_temporal"}\n'
          '{"ref": "e", "dis": "f"}\n')
    es = M.parse_manifest(jl)
    assert [(e["ref"], e["dis"], e["features"], e.get("output")) for e in es] == [
        ("a", "b", ["speed_temporal"], "x.json"),
        ("c", "d", ["speed_chroma", "speed_temporal"], None), ("e", "f", None, None)]
    for bad in ("ref,features\nx,y\n", "ref,dis\na\n", '{"ref": "a"}\n', '{"ref": 1, "dis": "b"}'):
        with pytest.raises(M.ManifestError):
            M.parse_manifest(bad)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_batch_equals_serial(cluster, short_pairs, monkeypatch, precision):
    d, rows = short_pairs
    monkeypatch.chdir(d)
    man = write_csv("m.csv", rows)
    entries = M.read_manifest(man)
    lines = SD.run_batch(cluster, entries, "res-%s.jsonl" % precision, precision=precision)
    got = read_lines("res-%s.jsonl" % precision)
    assert got == lines and len(got) == 20
    expect = serial_lines(entries, precision)
    assert got == [line for line, _ in expect]
    for line, doc in expect:
        if "output" in line:
            with open(line["output"]) as f:
                assert strip_fps(json.load(f)) == doc


def test_chunked_equals_one_pass(cluster, pair, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ref, dis = pair("420p8")
    cut(ref, tmp_path / "r.y4m", 11)
    cut(dis, tmp_path / "d.y4m", 13)
    entries = M.parse_manifest('{"ref": "r.y4m", "dis": "d.y4m", "output": "one.json"}\n'
                               '{"ref": "r.y4m", "dis": "d.y4m", "output": "chunks.json", '
                               '"features": "speed_temporal;speed_chroma"}\n')
    one = SD.run_batch(cluster, [entries[0]], "one.jsonl", precision="max")
    chunks = SD.run_batch(cluster, [dict(entries[0], output="chunks.json")], "chunks.jsonl",
                          precision="max", chunk_frames=3)
    assert one[0]["frames"] == 11
    assert chunks[0]["pooled_metrics"] == one[0]["pooled_metrics"]
    with open("one.json") as f1, open("chunks.json") as f2:
        a, b = json.load(f1), json.load(f2)
    assert a == b and len(a["frames"]) == 11
    serial = speedqa.score_files("r.y4m", "d.y4m", precision="max")
    assert a["frames"] == serial["frames"]
    # chunks of one frame each, and a chunk size above the length
    for n in (1, 50):
        got = SD.run_batch(cluster, entries[1:], "c%d.jsonl" % n, precision="max",
                           chunk_frames=n)
        want = speedqa.score_files("r.y4m", "d.y4m", features=entries[1]["features"],
                                   precision="max")
        assert got[0]["pooled_metrics"] == want["pooled_metrics"]
        with open("chunks.json") as f:
            assert json.load(f)["frames"] == want["frames"]


def test_failed_pairs_and_cli_module(pair, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ref, dis = pair("444p8")
    cut(ref, tmp_path / "r.y4m", 3)
    cut(dis, tmp_path / "d.y4m", 3)
    with open("m.jsonl", "w") as f:
        for obj in ({"ref": "r.y4m", "dis": "d.y4m", "output": "ok.json"},
                    {"ref": "missing.y4m", "dis": "d.y4m"},
                    {"ref": "r.y4m", "dis": "d.y4m", "features": ["bogus"]},
                    {"ref": "r.y4m", "dis": "d.y4m", "output": "report.xml"},
                    {"ref": "d.y4m", "dis": "r.y4m"}):
            f.write(json.dumps(obj) + "\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, "-m", "speedqa.dask", "m.jsonl", "-o", "res.jsonl",
                        "--local-workers", "2", "--chunk-frames", "2"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 1, p.stderr
    got = read_lines("res.jsonl")
    assert [(g["ref"], g["dis"]) for g in got] == [("r.y4m", "d.y4m"), ("missing.y4m", "d.y4m"),
                                                   ("r.y4m", "d.y4m"), ("r.y4m", "d.y4m"),
                                                   ("d.y4m", "r.y4m")]
    assert "error" not in got[0] and got[0]["output"] == "ok.json"
    assert "missing.y4m" in got[1]["error"] and "frames" not in got[1]
    with pytest.raises(speedqa.Error) as e:
        speedqa.check_features(["bogus"])
    assert e.value.message in got[2]["error"]
    assert ".json" in got[3]["error"] and got[3]["output"] == "report.xml"
    assert not os.path.exists("report.xml")
    doc = speedqa.score_files("d.y4m", "r.y4m")
    assert got[4]["pooled_metrics"] == doc["pooled_metrics"] and got[4]["frames"] == 3
    with open("ok.json") as f:
        assert strip_fps(json.load(f)) == strip_fps(speedqa.score_files("r.y4m", "d.y4m"))
    # manifest errors: exit 2, no results file
    with open("bad.csv", "w") as f:
        f.write("ref,output\nr.y4m,x.json\n")
    p = subprocess.run([sys.executable, "-m", "speedqa.dask", "bad.csv", "-o", "bad.jsonl",
                        "--local-workers", "1"], capture_output=True, text=True, env=env,
                       timeout=60)
    assert p.returncode == 2 and "dis" in p.stderr and not os.path.exists("bad.jsonl")


def cli_has_batch(cli):
    p = subprocess.run([cli, "--help"], capture_output=True, text=True)
    return "--batch" in p.stdout + p.stderr


@pytest.mark.parametrize("precision", PRECISIONS)
def test_batch_equals_cli_batch(cli, cluster, short_pairs, monkeypatch, precision):
    if not cli_has_batch(cli):
        pytest.skip("this speedqa CLI has no --batch")
    d, rows = short_pairs
    monkeypatch.chdir(d)
    rows = [dict(r, output=r["output"].replace(".json", "-cli.json") if r["output"] else "")
            for r in rows]
    man = write_csv("m-cli.csv", rows, order=("ref", "dis", "features", "output"))
    p = subprocess.run([cli, "--batch", man, "-o", "cli.jsonl", "--precision", precision],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    cli_lines = read_lines("cli.jsonl")
    docs = {}
    for r in cli_lines:
        if "output" in r:
            with open(r["output"]) as f:
                docs[r["output"]] = strip_fps(json.load(f))
    lines = SD.run_batch(cluster, M.read_manifest(man), "py.jsonl", precision=precision)
    assert lines == cli_lines
    for out, doc in docs.items():
        with open(out) as f:
            assert strip_fps(json.load(f)) == doc


def test_worker_killed_mid_run(short_pairs, pair, tmp_path, monkeypatch):
    """SIGKILL one worker process while tasks are pending: Dask reruns its
    tasks on the restarted worker, each pair is written exactly once."""
    monkeypatch.chdir(tmp_path)
    ref, dis = pair("420p8")
    os.symlink(ref, "r.y4m")
    os.symlink(dis, "d.y4m")
    entries = [{"ref": "r.y4m", "dis": "d.y4m", "features": None} for _ in range(10)]
    entries += [{"ref": "d.y4m", "dis": "r.y4m", "features": None} for _ in range(10)]
    c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 host="127.0.0.1", dashboard_address=":0")
    client = distributed.Client(c)
    killed = {}
    try:
        pids = client.run(os.getpid)

        def on_done(ndone, ntasks):
            if killed:
                return
            busy = [w for w, keys in client.processing().items() if keys and w in pids]
            assert ndone < ntasks
            killed["pid"] = pids[(busy or sorted(pids))[0]]
            killed["busy"] = bool(busy)
            killed["at"] = (ndone, ntasks)
            os.kill(killed["pid"], signal.SIGKILL)

        lines = SD.run_batch(client, entries, "res.jsonl", precision="max", chunk_frames=16,
                             on_task_done=on_done)
        assert killed and killed["at"][0] < killed["at"][1]
        deadline = time.time() + 30
        while time.time() < deadline:
            now = client.run(os.getpid)
            if len(now) == 2:
                break
            time.sleep(0.2)
        assert killed["pid"] not in now.values()
    finally:
        client.close()
        c.close()
    got = read_lines("res.jsonl")
    assert got == lines and len(got) == 20
    assert [(g["ref"], g["dis"]) for g in got] == [(e["ref"], e["dis"]) for e in entries]
    a = speedqa.score_files("r.y4m", "d.y4m", precision="max")
    b = speedqa.score_files("d.y4m", "r.y4m", precision="max")
    for g in got:
        assert "error" not in g, g
        want = a if g["ref"] == "r.y4m" else b
        assert g["frames"] == 48 and g["pooled_metrics"] == want["pooled_metrics"]


def test_gpu_backend_requests_gpu_resource(pair, tmp_path, monkeypatch):
    """backend cuda: tasks ask for GPU=1; a worker offering it runs them (here
    the library answers for the GPU: scores, or one error line per pair)."""
    import threading
    monkeypatch.chdir(tmp_path)
    ref, dis = pair("444p8")
    cut(ref, tmp_path / "r.y4m", 2)
    cut(dis, tmp_path / "d.y4m", 2)
    entries = [{"ref": "r.y4m", "dis": "d.y4m", "features": None}] * 2
    c = distributed.LocalCluster(n_workers=1, processes=False, resources={"GPU": 1},
                                 dashboard_address=":0")
    client = distributed.Client(c)
    seen = []
    orig = client.submit

    def submit(*a, **kw):
        seen.append(kw.get("resources"))
        return orig(*a, **kw)
    client.submit = submit
    out = {}
    try:
        t = threading.Thread(target=lambda: out.setdefault(
            "lines", SD.run_batch(client, entries, "res.jsonl", backend="cuda")))
        t.start()
        t.join(60)
        assert not t.is_alive(), "GPU tasks were never scheduled"
    finally:
        client.close()
        c.close()
    assert seen == [{"GPU": 1}] * 2
    lines = out["lines"]
    assert len(lines) == 2 and read_lines("res.jsonl") == lines
    for ln in lines:
        if "error" in ln:
            try:
                speedqa.Scorer(640, 360, "444", 8, backend="cuda")
            except speedqa.Error as e:
                assert e.message in ln["error"]
        else:
            assert ln["pooled_metrics"] == speedqa.score_files("r.y4m", "d.y4m")["pooled_metrics"]


def test_results_file_unwritable(cluster, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OSError):
        SD.run_batch(cluster, [{"ref": "a.y4m", "dis": "b.y4m", "features": None}],
                     "no/such/dir/res.jsonl")
    assert os.listdir(tmp_path) == []
