"""Issue 35: Python is a binding of the CLI's I/O layer (libspeedqa_io), so
it reads, fails, formats and batches exactly as the CLI. Each test drives
the CLI and the package through the same case."""
import errno
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import speedqa
from speedqa import manifest as M
from conftest import ROOT, cli_doc, strip_fps, write_y4m, y4m_split

PKG = os.path.join(ROOT, "python", "speedqa")


def cli_run(cli, *args):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def cli_line(stderr):
    """The CLI's one error line, without its "speedqa: error: " prefix."""
    lines = [ln for ln in stderr.splitlines() if ln.startswith("speedqa: error: ")]
    assert len(lines) == 1, stderr
    return lines[0][len("speedqa: error: "):]


def same_failure(cli, args, call):
    """The CLI fails with args; call() raises speedqa.Error with its line and exit code."""
    code, _, err = cli_run(cli, *args, "--precision", "max", "--json", "-q")
    assert code != 0
    with pytest.raises(speedqa.Error) as e:
        call()
    assert e.value.exit_code == code
    assert e.value.message == cli_line(err)
    return code


def test_input_shrinking_under_score_files_is_an_error(tmp_path):
    """It raised SIGBUS in the interpreter (exit 135); now the CLI's exit 3 and one line."""
    w, h = 640, 360
    frame = bytes((x * 7 + y * 3) & 255 for y in range(8) for x in range(w)) * (h // 8)
    frame += bytes(w * h // 2)
    hdr = b"YUV4MPEG2 W640 H360 F25:1 C420jpeg\n"
    big = str(tmp_path / "shrink.y4m")
    prog = textwrap.dedent("""
        import sys, speedqa
        print("ready", flush=True)
        try:
            speedqa.score_files(sys.argv[1], sys.argv[1])
            print("scored")
        except speedqa.Error as e:
            print("error", e.exit_code, e.message)
    """)
    n = 200
    for _ in range(4):
        write_y4m(big, hdr, [frame] * n)
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        p = subprocess.Popen([sys.executable, "-c", prog, big], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=str(tmp_path), env=env)
        assert p.stdout.readline() == "ready\n"
        time.sleep(0.05)
        os.truncate(big, len(hdr) + 10)
        out, err = p.communicate(timeout=300)
        if out.startswith("scored"):
            n *= 3  # it ended before the cut
            continue
        assert p.returncode == 0, (p.returncode, err)  # not -SIGBUS
        assert out.startswith("error 3 ") and out.count("\n") == 1, out
        return
    pytest.skip("the cut never came before the end of the run")


def test_pair_without_frames_fails_like_the_cli(cli, pair, tmp_path):
    ref, _ = pair("420p8")
    header, _ = y4m_split(ref)
    empty = write_y4m(tmp_path / "empty.y4m", header, [])
    code = same_failure(cli, ["-r", ref, "-d", empty],
                        lambda: speedqa.score_files(ref, empty))
    assert code == 3
    man = tmp_path / "m.csv"
    man.write_text("ref,dis\n%s,%s\n" % (ref, empty))
    rc, _, _ = cli_run(cli, "--batch", str(man), "-o", str(tmp_path / "a.jsonl"), "-q")
    code2, lines = speedqa.batch(man, tmp_path / "b.jsonl", precision="legacy")
    assert rc == code2 == 3 and "error" in lines[0] and "pooled_metrics" not in lines[0]
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


@pytest.mark.parametrize("text", [
    '{"ref": "a.y4m", "dis": "b.y4m", "ref": "c.y4m"}\n',
    '{"ref": "a.y4m", "dis": "b.y4m", "features": "speed_temporal", "features": ["speed_chroma"]}\n',
    '{"ref": "a.y4m", "r\\u0065f": "c.y4m", "dis": "b.y4m", "x": {"ref": 1}}\n',
    "ref,dis,ref\na.y4m,b.y4m,c.y4m\n",
    "dis,ref,output,dis\nb.y4m,a.y4m,o.json,c.y4m\n",
])
def test_duplicate_keys_and_columns_are_refused_by_both(cli, tmp_path, text):
    man = tmp_path / ("m.jsonl" if text.startswith("{") else "m.csv")
    man.write_text(text)
    code, _, err = cli_run(cli, "--batch", str(man), "-o", str(tmp_path / "r.jsonl"))
    assert code == 2 and "twice" in cli_line(err) and ("%s:" % man) in cli_line(err)
    with pytest.raises(M.ManifestError) as e:
        M.read_manifest(man)
    assert str(e.value) == cli_line(err)
    with pytest.raises(speedqa.Error) as e2:
        speedqa.batch(man, tmp_path / "r2.jsonl")
    assert e2.value.exit_code == 2 and e2.value.message == cli_line(err)
    assert not (tmp_path / "r.jsonl").exists() and not (tmp_path / "r2.jsonl").exists()


def test_manifest_reads_what_the_cli_reads(tmp_path):
    man = tmp_path / "m.jsonl"
    man.write_text('# c\n{"ref": "a b.y4m", "dis": "d\\u00e9.y4m", "features": ["speed_temporal",'
                   ' "speed_chroma=speed_kernelscale=0.5"], "x": {"ref": 1}}\n\n'
                   '{"dis": "z.y4m", "ref": "y.y4m", "output": "o.json",'
                   ' "model": [" version=vmaf_v0.6.1 ", "path=m.json:name=x"]}\n')
    assert M.read_manifest(man) == [
        {"ref": "a b.y4m", "dis": "d\u00e9.y4m", "output": None,
         "features": "speed_temporal;speed_chroma=speed_kernelscale=0.5", "model": "", "line": 2},
        {"ref": "y.y4m", "dis": "z.y4m", "output": "o.json", "features": "",
         "model": "version=vmaf_v0.6.1;path=m.json:name=x", "line": 4}]


def frame_lines_variants(n):
    good = [b"FRAME\n"] * n
    yield "bad FRAME line", good[:3] + [b"FRAMX\n"] + good[4:]
    yield "FRAME without newline", good[:2] + [b"FRAME"] + good[3:]


@pytest.mark.parametrize("case", ["bad FRAME line", "FRAME without newline", "cut frame",
                                  "bad header"])
def test_corrupt_inputs_fail_like_the_cli(cli, pair, tmp_path, case):
    ref, dis = pair("420p8odd")
    header, frames = y4m_split(dis)
    bad = str(tmp_path / "bad.y4m")
    if case == "cut frame":
        write_y4m(bad, header, frames[:5])
        os.truncate(bad, os.path.getsize(bad) - 100)
    elif case == "bad header":
        write_y4m(bad, header.replace(b" W642", b" W0"), frames[:3])
    else:
        lines = dict(frame_lines_variants(len(frames)))[case]
        write_y4m(bad, header, frames, lines)
    code = same_failure(cli, ["-r", ref, "-d", bad], lambda: speedqa.score_files(ref, bad))
    assert code == 3
    with pytest.raises(speedqa.Error) as e:
        v = speedqa.open_video(bad)
        while v.read() is not None:
            pass
    assert e.value.exit_code == 3


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        speedqa.score_files(tmp_path / "none.y4m", tmp_path / "none.y4m")
    with pytest.raises(FileNotFoundError):
        speedqa.open_video(tmp_path / "none.y4m")


def test_batch_never_returns_a_previous_runs_lines(cli, pair, tmp_path):
    ref, dis = pair("420p8")
    good = tmp_path / "good.csv"
    good.write_text("ref,dis\n%s,%s\n" % (ref, dis))
    res = tmp_path / "r.jsonl"
    code, lines = speedqa.batch(good, res)
    assert code == 0 and len(lines) == 1
    before = res.read_bytes()
    clash = tmp_path / "clash.csv"  # a pair's report is the results file: refused, exit 2
    clash.write_text("ref,dis,output\n%s,%s,%s\n" % (ref, dis, res))
    rc, _, _ = cli_run(cli, "--batch", str(clash), "-o", str(res), "-q")
    with pytest.raises(speedqa.Error) as e:
        speedqa.batch(clash, res)
    assert e.value.exit_code == rc != 0
    assert res.read_bytes() == before
    bad = tmp_path / "bad.csv"
    bad.write_text("ref\nx\n")
    with pytest.raises(speedqa.Error) as e:
        speedqa.batch(bad, res)
    assert e.value.exit_code == 2 and res.read_bytes() == before


def test_full_precision_by_default_and_as_frame(cli, pair):
    ref, dis = pair("422p10")
    doc = cli_doc(cli, ref, dis, "--frame_cnt", "4")
    got = speedqa.score_files(ref, dis, frame_cnt=4)
    assert strip_fps(got) == strip_fps(doc)
    assert isinstance(got["fps"], float)
    pd = pytest.importorskip("pandas")
    df = speedqa.score_files(ref, dis, frame_cnt=4, as_frame=True)
    assert isinstance(df, pd.DataFrame) and list(df.index) == [0, 1, 2, 3]
    assert df["speed_temporal"].tolist() == [f["metrics"]["speed_temporal"] for f in doc["frames"]]


def test_format_value_is_the_reports_format(cli, pair):
    ref, dis = pair("420p8")
    for prec in ("legacy", "max"):
        code, out, _ = cli_run(cli, "-r", ref, "-d", dis, "--frame_cnt", "3", "--precision",
                               prec, "--csv", "-q")
        assert code == 0
        doc = speedqa.score_files(ref, dis, frame_cnt=3)
        row = out.splitlines()[1].split(",")
        names = out.splitlines()[0].split(",")
        want = row[names.index("speed_chroma_u")]
        assert speedqa.format_value(doc["frames"][0]["metrics"]["speed_chroma_u"], prec) == want
    with pytest.raises(ValueError):
        speedqa.format_value(1.0, "short")


def test_compressed_input(cli, pair, tmp_path):
    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg:
        pytest.skip("no ffmpeg")
    ref, dis = pair("420p8")
    out = {}
    for name, src in (("r.mkv", ref), ("d.mp4", dis)):
        out[name] = str(tmp_path / name)
        codec = ["-c:v", "ffv1"] if name.endswith("mkv") else ["-c:v", "mpeg4", "-q:v", "5"]
        subprocess.run([ffmpeg, "-v", "error", "-i", src, "-frames:v", "6", *codec,
                        out[name]], check=True)
    code, stdout, err = cli_run(cli, "-r", out["r.mkv"], "-d", out["d.mp4"], "--precision",
                                "max", "--json", "-q")
    if code != 0 and "not built in" in err:
        pytest.skip("no libav in this build")
    assert code == 0, err
    got = speedqa.score_files(out["r.mkv"], out["d.mp4"])
    assert strip_fps(got) == strip_fps(json.loads(stdout))
    v = speedqa.open_video(out["r.mkv"])
    assert v.reader == "lav" and v.count() == 6


def test_integers_are_range_checked_and_pool_refuses_nan():
    for bad in (2**32 + 576, -1, 2**31):
        with pytest.raises((OverflowError, ValueError)):
            speedqa.Scorer(bad, 324)
    with pytest.raises((OverflowError, ValueError)):
        speedqa.Scorer(576, 324, threads=2**32 + 1)
    with pytest.raises(ValueError):
        speedqa.pool([float("nan"), 1.0])
    with pytest.raises(ValueError):
        speedqa.pool([1.0, float("inf")])
    assert speedqa.pool([1.0, 3.0])["mean"] == 2.0


def test_no_reader_parser_or_formatter_in_python():
    """Only the C layer reads videos and manifests and formats numbers."""
    forbidden = [r"YUV4MPEG", r"\bFRAME\b", r"import csv", r"csv\.(reader|DictReader)",
                 r"%\.6f", r"%\.17g", r"\bmmap\b", r"json\.loads?\(.*manifest"]
    for path in glob.glob(os.path.join(PKG, "*.py")):
        src = open(path).read()
        for pat in forbidden:
            assert not re.search(pat, src), "%s: %s" % (os.path.basename(path), pat)


def test_typed_package():
    assert os.path.exists(os.path.join(PKG, "py.typed"))
    assert "return" in speedqa.score_files.__annotations__
    assert speedqa.batch.__annotations__ and speedqa.open_video.__annotations__


def test_batch_gives_the_interpreter_its_signal_handlers_back(pair, tmp_path):
    import signal
    ref, dis = pair("420p8")
    man = tmp_path / "m.csv"
    man.write_text("ref,dis,output\n%s,%s,%s\n" % (ref, dis, tmp_path / "o.json"))
    (tmp_path / "r.jsonl").write_text("old\n")  # replaced through a temporary file
    before = signal.getsignal(signal.SIGINT)
    assert speedqa.batch(man, tmp_path / "r.jsonl")[0] == 0
    assert signal.getsignal(signal.SIGINT) is before
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
