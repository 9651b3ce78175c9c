"""speedqa.Ladder (the C ladder API) == one Scorer per rendition, bit for bit; speedqa.batch."""
import json
import os
import subprocess

import numpy as np
import pytest

import speedqa


def test_ladder_equals_scorers(pair):
    ref, dis = pair("420p8")
    v, vd = speedqa.open_video(ref), speedqa.open_video(dis)
    n = 8
    frames_r = [[np.array(p) for p in v.frame(i)] for i in range(n)]
    frames_d = [[np.array(p) for p in vd.frame(i)] for i in range(n)]
    noisy = [[np.clip(p.astype(np.int32) + (np.arange(p.size).reshape(p.shape) % 7), 0, 255)
              .astype(np.uint8) for p in f] for f in frames_d]
    rends = [frames_d, frames_r, noisy]
    short = 5  # the noisy rendition ends early
    want = []
    for k, fr in enumerate(rends):
        with speedqa.Scorer(v.width, v.height, "420", 8, threads=2) as s:
            m = short if k == 2 else n
            want.append(s.score(zip(frames_r[:m], fr[:m])))
    with speedqa.Ladder(v.width, v.height, "420", 8, n_distorted=3, threads=2) as lad:
        got = lad.score((frames_r[i], [rends[0][i], rends[1][i], rends[2][i] if i < short else None])
                        for i in range(n))
    assert len(got) == n
    for k in range(3):
        mine = [f[k] for f in got if f[k] is not None]
        assert len(mine) == len(want[k])
        names = [x for x in want[k][0] if x.startswith("speed_")]
        assert [[m[q] for q in names] for m in mine] == [[w[q] for q in names] for w in want[k]]
    assert all(f[2] is None for f in got[short:])


def test_ladder_errors(pair):
    ref, _ = pair("420p8")
    v = speedqa.open_video(ref)
    with pytest.raises(speedqa.Error):
        speedqa.Ladder(v.width, v.height, "420", 8, n_distorted=17)
    with speedqa.Ladder(v.width, v.height, "420", 8, n_distorted=2) as lad:
        r = [np.array(p) for p in v.frame(0)]
        with pytest.raises(speedqa.Error):
            lad.send(r, [r])
        with pytest.raises(speedqa.Error) as e:
            lad.send(r, [None, None])
        assert "NULL" in str(e.value)


def test_batch_is_the_clis(pair, cli, tmp_path):
    ref, dis = pair("420p8")
    man = tmp_path / "m.csv"
    man.write_text("ref,dis\n%s,%s\n%s,%s\n%s,%s\n" % (ref, dis, ref, ref, ref, tmp_path / "none.y4m"))
    code, lines = speedqa.batch(man, tmp_path / "r.jsonl", threads=2)
    assert code == 3 and len(lines) == 3 and "error" in lines[2]
    doc = speedqa.score_files(ref, dis)
    assert lines[0]["pooled_metrics"] == doc["pooled_metrics"]
    assert lines[0]["frames"] == len(doc["frames"])
    p = subprocess.run([cli, "--batch", str(man), "-o", str(tmp_path / "c.jsonl"), "--threads",
                        "2", "--precision", "max", "-q"])
    assert p.returncode == 3
    assert (tmp_path / "c.jsonl").read_bytes() == (tmp_path / "r.jsonl").read_bytes()
