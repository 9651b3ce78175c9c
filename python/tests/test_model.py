"""VMAF models from Python: score_files(model=...), batch(model=...) and the
Dask runner give the CLI's own --model results (the CLI's scores are checked
against libvmaf's own run in tests/model). The models used are ones speedqa scores
on its own engine, so these run in a build without libvmaf too."""
import json
import os
import subprocess
import sys

import pytest

import speedqa
from conftest import ROOT, cli_doc, strip_fps, write_y4m, y4m_split

V1, V0 = "version=vmaf_v1.0.16_3d0h", "version=vmaf_v0.6.1"


@pytest.fixture(scope="module")
def vmaf_cli(cli):
    return cli


@pytest.fixture(scope="module")
def short(pair, tmp_path_factory):
    """Short clips (4 and 5 frames) of two shapes in a temp dir."""
    d = tmp_path_factory.mktemp("model")
    out = []
    for k in ("420p8", "422p10"):
        for name, src in zip(("r", "d"), pair(k)):
            header, frames = y4m_split(src)
            out.append(write_y4m(d / ("%s_%s.y4m" % (k, name)), header, frames[:4]))
    return d, out


@pytest.mark.parametrize("model", [V1, [V1 + ":name=a", V0 + ":name=b"]])
def test_score_files_model_is_the_cli(vmaf_cli, short, model):
    _, (ref, dis, _r2, _d2) = short
    flags = sum((["--model", m] for m in ([model] if isinstance(model, str) else model)), [])
    doc = speedqa.score_files(ref, dis, model=model)
    assert strip_fps(doc) == strip_fps(cli_doc(vmaf_cli, ref, dis, *flags))
    names = ["vmaf"] if isinstance(model, str) else ["a", "b"]
    assert all(n in doc["pooled_metrics"] for n in names)
    nopred = speedqa.score_files(ref, dis, model=model, no_prediction=True)
    assert strip_fps(nopred) == strip_fps(cli_doc(vmaf_cli, ref, dis, *flags, "-n"))
    assert not any(n in nopred["pooled_metrics"] for n in names)


def test_score_files_bad_model_is_the_cli_line(vmaf_cli, short):
    _, (ref, dis, _r2, _d2) = short
    p = subprocess.run([vmaf_cli, "-r", ref, "-d", dis, "--model", "version=vmaf_v9"],
                       capture_output=True, text=True)
    with pytest.raises(speedqa.Error) as e:
        speedqa.score_files(ref, dis, model="version=vmaf_v9")
    assert e.value.exit_code == p.returncode == 2
    assert "speedqa: error: " + str(e.value.message) == p.stderr.strip()


def write_manifest(d, rows):
    man = os.path.join(str(d), "models.csv")
    with open(man, "w") as f:
        f.write("ref,dis,model\n")
        for r in rows:
            f.write("%s,%s,%s\n" % r)
    return man


def test_batch_and_dask_with_models_are_the_cli(vmaf_cli, short, tmp_path, monkeypatch):
    d, (r1, d1, r2, d2) = short
    monkeypatch.chdir(tmp_path)
    # a model column (two models on one reference, one empty: --model's) and --model
    man = write_manifest(tmp_path, [(r1, d1, V0), (r1, d1, ""), (r2, d2, V1 + ";" + V0 +
                                                                  ":name=b"), (r2, d2, "")])
    flags = ["--model", V1, "--precision", "max", "-q"]
    p = subprocess.run([vmaf_cli, "--batch", man, "-o", "cli.jsonl"] + flags,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    want = open("cli.jsonl", "rb").read()
    lines = [json.loads(x) for x in want.splitlines()]
    assert [x.get("model") for x in lines] == [V0, None, V1 + ";" + V0 + ":name=b", None]
    code, got = speedqa.batch(man, "py.jsonl", model=V1)
    assert code == 0 and open("py.jsonl", "rb").read() == want and got == lines
    # --model with -n: the same settings in every line, none kept by a resume without -n
    code, got = speedqa.batch(man, "py.jsonl", model=V1, no_prediction=True, resume=True)
    assert code == 0 and len(got) == 4 and all("vmaf" not in x["pooled_metrics"] for x in got)
    pytest.importorskip("distributed")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    q = subprocess.run([sys.executable, "-m", "speedqa.dask", man, "-o", "dask.jsonl",
                        "--local-workers", "2"] + flags, capture_output=True, text=True, env=env)
    assert q.returncode == 0, q.stderr
    assert open("dask.jsonl", "rb").read() == want


@pytest.mark.parametrize("k", ["420p8", "422p10"])
def test_model_scorer_is_the_cli(vmaf_cli, short, k):
    """ModelScorer: frames from memory, the CLI's --model report on the same frames."""
    d, files = short
    ref, dis = files[0:2] if k == "420p8" else files[2:4]
    with speedqa.open_video(ref) as rv, speedqa.open_video(dis) as dv:
        with speedqa.ModelScorer(rv.width, rv.height, rv.pix_fmt, rv.bitdepth, model=V1,
                                 threads=2) as s:
            for a, b in zip(rv, dv):
                assert s.send(a, b) == []
            rows = s.flush()
    want = cli_doc(vmaf_cli, ref, dis, "--model", V1)
    assert strip_fps(s.report) == strip_fps(want)
    assert [r["vmaf"] for r in rows] == [f["metrics"]["vmaf"] for f in want["frames"]]
    assert s.pooled == want["pooled_metrics"]


def test_model_scorer_errors(vmaf_cli, short):
    with pytest.raises(speedqa.Error) as e:
        speedqa.ModelScorer(64, 64, "420", 8, model="version=vmaf_v9")
    assert e.value.exit_code == 2 and "vmaf_v9" in str(e.value)
    with speedqa.ModelScorer(64, 64, "420", 8, model=V1) as s:
        with pytest.raises(ValueError):
            s.send([b"x"], [b"y"])
        with pytest.raises(speedqa.Error) as e:
            s.flush()  # no frame pair: the CLI's exit 3
        assert e.value.exit_code == 3


def test_scorer_with_a_model_is_a_model_scorer(vmaf_cli, short):
    _, (ref, dis, _r2, _d2) = short
    with speedqa.open_video(ref) as rv, speedqa.open_video(dis) as dv:
        s = speedqa.Scorer(rv.width, rv.height, rv.pix_fmt, rv.bitdepth, model=V0)
        assert isinstance(s, speedqa.ModelScorer)
        for a, b in zip(rv, dv):
            s.send(a, b)
        rows = s.flush()
        s.close()
    want = cli_doc(vmaf_cli, ref, dis, "--model", V0)
    assert [r["vmaf"] for r in rows] == [f["metrics"]["vmaf"] for f in want["frames"]]
    plain = speedqa.Scorer(rv.width, rv.height, rv.pix_fmt, rv.bitdepth, model=None)
    assert type(plain) is speedqa.Scorer
    plain.close()
