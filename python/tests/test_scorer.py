"""speedqa.Scorer and score_files against the speedqa CLI (--precision max:
every value exactly as computed) and the C library."""
import ctypes
import errno
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import speedqa
from speedqa import _lib as L
from conftest import ROOT, cli_doc, run_cli, strip_fps, write_y4m, y4m_split


def frames_of(path, n=None):
    v = speedqa.open_video(path)
    out = []
    i = 0
    while n is None or i < n:
        fr = v.frame(i)
        if fr is None:
            break
        out.append(tuple(np.array(p) for p in fr))  # owned copies, not the mapping
        i += 1
    return v, out


def score_arrays(v, refs, diss, transform=lambda planes, side: planes, **kw):
    with speedqa.Scorer(v.width, v.height, v.pix_fmt, v.bpc, **kw) as s:
        res = []
        for r, d in zip(refs, diss):
            res += s.send(transform(r, "ref"), transform(d, "dis"))
        res += s.flush()
        return s.names, res


def assert_equal_cli(doc, names, results):
    assert len(doc["frames"]) == len(results)
    for fr, r in zip(doc["frames"], results):
        assert r["frame"] == fr["frameNum"]
        assert fr["metrics"] == {n: r[n] for n in names}


@pytest.mark.parametrize("key,nframes", [("420p8", 8), ("420p8odd", None), ("422p10", None),
                                         ("444p8", None), ("420p12", None),
                                         ("420p10hd", 4)])
def test_numpy_equals_cli(cli, pair, key, nframes):
    ref, dis = pair(key)
    extra = ["--frame_cnt", str(nframes)] if nframes else []
    doc = cli_doc(cli, ref, dis, *extra)
    v, refs = frames_of(ref, nframes)
    _, diss = frames_of(dis, nframes)
    names, res = score_arrays(v, refs, diss)
    assert names == list(doc["frames"][0]["metrics"])
    assert_equal_cli(doc, names, res)
    # score_files: the whole document, and the pooled values (speedqa_pool)
    got = speedqa.score_files(ref, dis, precision="max", frame_cnt=nframes or 0)
    assert strip_fps(got) == strip_fps(doc)


def test_legacy_precision_and_features(cli, pair):
    ref, dis = pair("422p10")
    feats = ["speed_chroma=speed_kernelscale=0.5", "speed_temporal=speed_sigma_nn=0.5"]
    args = []
    for f in feats:
        args += ["--feature", f]
    doc = run_cli(cli, "-r", ref, "-d", dis, "--frame_cnt", "5", *args)
    got = speedqa.score_files(ref, dis, features=feats, frame_cnt=5, precision="legacy")
    assert strip_fps(got) == strip_fps(doc)
    assert "speed_chroma_u_ks_0.5" in got["pooled_metrics"]


def test_threads_and_pix_fmt_names(cli, pair):
    ref, dis = pair("420p12")
    doc = cli_doc(cli, ref, dis)
    v, refs = frames_of(ref)
    _, diss = frames_of(dis)
    with speedqa.Scorer(v.width, v.height, "yuv420p12le", 12, threads=2) as s:
        res = []
        for r, d in zip(refs, diss):
            res += s.send(r, d)
        res += s.flush()
        assert_equal_cli(doc, s.names, res)


def test_keep_device(cli, pair):
    # the CPU backend ignores it; the scores stay the CLI's, twice in a row
    ref, dis = pair("420p8")
    doc = cli_doc(cli, ref, dis)
    v, refs = frames_of(ref)
    _, diss = frames_of(dis)
    for _ in range(2):
        names, res = score_arrays(v, refs, diss, keep_device=True)
        assert_equal_cli(doc, names, res)


def test_rows_read_unread_rows_never_matter(pair):
    # the rows a Scorer says it never reads are overwritten with all bits set
    # (out of range): the scores stay the same, bit for bit, with no range error
    ref, dis = pair("422p10")
    v, refs = frames_of(ref)
    _, diss = frames_of(dis)
    for features in (None, ["speed_temporal=speed_prescale=0.5"]):
        names, want = score_arrays(v, refs, diss, features=features)
        with speedqa.Scorer(v.width, v.height, v.pix_fmt, v.bpc, features=features) as s:
            marks = [s.rows_read(p) for p in range(3)]
            with pytest.raises(speedqa.Error):
                s.rows_read(3)
        assert 0 < marks[0].sum() < len(marks[0]) or features is None
        spoil = lambda planes, side: [np.where(m[:, None], p, np.uint16(0xFFFF))
                                      for p, m in zip(planes, marks)]
        _, got = score_arrays(v, refs, diss, transform=spoil, features=features)
        assert got == want


def test_padded_strides(cli, pair):
    ref, dis = pair("422p10")
    doc = cli_doc(cli, ref, dis)
    v, refs = frames_of(ref)
    _, diss = frames_of(dis)

    def padded(planes, side):
        out = []
        for k, p in enumerate(planes):
            h, w = p.shape
            buf = np.full((h + 3, w + 37 + k), 7, dtype=p.dtype)  # odd row pitch
            buf[2:2 + h, 5:5 + w] = p
            view = buf[2:2 + h, 5:5 + w]
            assert view.strides[0] != w * p.itemsize
            out.append(view)
        return tuple(out)
    names, res = score_arrays(v, refs, diss, padded)
    assert_equal_cli(doc, names, res)


def test_negative_strides(cli, pair, tmp_path):
    ref, dis = pair("420p8odd")
    v, refs = frames_of(ref)
    _, diss = frames_of(dis)
    # A negative-stride view of a flipped copy holds the original picture.
    doc = cli_doc(cli, ref, dis)

    def negative(planes, side):
        out = []
        for p in planes:
            view = np.ascontiguousarray(p[::-1])[::-1]
            assert view.strides[0] < 0
            out.append(view)
        return tuple(out)
    names, res = score_arrays(v, refs, diss, negative)
    assert_equal_cli(doc, names, res)
    # And a flipped picture through a negative stride equals the CLI on a
    # flipped Y4M written here.
    header, _ = y4m_split(ref)
    fr = write_y4m(tmp_path / "fr.y4m", header, [b"".join(np.ascontiguousarray(p[::-1]).tobytes()
                                                          for p in planes) for planes in refs])
    fd = write_y4m(tmp_path / "fd.y4m", header, [b"".join(np.ascontiguousarray(p[::-1]).tobytes()
                                                          for p in planes) for planes in diss])
    doc_flipped = cli_doc(cli, fr, fd)
    assert doc_flipped["frames"] != doc["frames"]
    names, res = score_arrays(v, refs, diss, lambda planes, side: tuple(p[::-1] for p in planes))
    assert_equal_cli(doc_flipped, names, res)


def test_444_array_layouts_and_copies(cli, pair):
    ref, dis = pair("444p8")
    doc = cli_doc(cli, ref, dis)
    v, refs = frames_of(ref)
    _, diss = frames_of(dis)
    for layout in (lambda planes, side: np.stack(planes),            # 3xHxW
                   lambda planes, side: np.stack(planes, axis=-1),   # HxWx3 (copied)
                   lambda planes, side: [np.repeat(p, 2, axis=1)[:, ::2] for p in planes]):
        names, res = score_arrays(v, refs, diss, layout)
        assert_equal_cli(doc, names, res)


def test_byte_order(cli, pair):
    ref, dis = pair("422p10")
    doc = cli_doc(cli, ref, dis, "--frame_cnt", "3")
    v, refs = frames_of(ref, 3)
    _, diss = frames_of(dis, 3)
    swapped = np.dtype(">u2") if np.little_endian else np.dtype("<u2")
    names, res = score_arrays(v, refs, diss,
                              lambda planes, side: [p.astype(swapped) for p in planes])
    assert_equal_cli(doc, names, res)


def test_sequences_after_flush(pair):
    ref, dis = pair("444p8")
    v, refs = frames_of(ref, 3)
    _, diss = frames_of(dis, 3)
    with speedqa.Scorer(v.width, v.height, "444", 8) as s:
        first = s.score(zip(refs, diss))
        second = s.score(zip(refs, diss))
    assert [r["frame"] for r in first + second] == list(range(6))
    assert [r["sequence"] for r in second] == [1, 1, 1]
    for a, b in zip(first, second):  # a flush starts a new sequence: same numbers
        assert {k: a[k] for k in s.names} == {k: b[k] for k in s.names}
    assert second[0]["speed_temporal"] == 0.0


@pytest.mark.parametrize("threads", [1, 3])
def test_send_wait_returns_each_frame(pair, threads):
    """send(wait=True): every call ends with its own frame's scores, the same
    numbers as frames sent in bulk (threads share a lone frame's planes)."""
    ref, dis = pair("420p8")
    v, refs = frames_of(ref, 6)
    _, diss = frames_of(dis, 6)
    names, bulk = score_arrays(v, refs, diss, threads=1)
    with speedqa.Scorer(v.width, v.height, v.pix_fmt, v.bpc, threads=threads) as s:
        got = []
        for i, (r, d) in enumerate(zip(refs, diss)):
            res = s.send(r, d, wait=True)
            assert [x["frame"] for x in res] == [i]
            got += res
        assert s.flush() == []
    assert [{n: r[n] for n in names} for r in got] == [{n: r[n] for n in names} for r in bulk]


@pytest.mark.parametrize("threads", [1, 3])
def test_lend_reads_in_place_and_gives_back(pair, threads):
    """send(lend=True): the same numbers as copied planes; the library holds
    the arrays (the Scorer keeps them) until it has scored their frames, and
    gives every one back by flush()."""
    ref, dis = pair("420p8")
    v, refs = frames_of(ref, 8)
    _, diss = frames_of(dis, 8)
    names, want = score_arrays(v, refs, diss, threads=threads)
    with speedqa.Scorer(v.width, v.height, v.pix_fmt, v.bpc, threads=threads) as s:
        got, held = [], 0
        for r, d in zip(refs, diss):
            got += s.send(r, d, lend=True)
            held = max(held, len(s._lent))
        got += s.flush()
        assert held >= 1 and len(s._lent) == 0
    assert [{n: r[n] for n in names} for r in got] == [{n: r[n] for n in names} for r in want]


def test_lent_planes_are_read_after_send(pair):
    """A lent frame is the next frame's previous picture, read in place: a
    change to it after send shows in the next speed_temporal (so lent arrays
    must not change until scored); a copied one never does."""
    ref, dis = pair("420p8")
    v, refs = frames_of(ref, 2)
    _, diss = frames_of(dis, 2)
    temporal = {}
    for lend in (False, True):
        r0 = tuple(np.array(p) for p in refs[0])
        with speedqa.Scorer(v.width, v.height, v.pix_fmt, v.bpc, features=["speed_temporal"]) as s:
            s.send(r0, diss[0], lend=lend)
            r0[0][:] = 255 - r0[0]  # the reference's luma, after it was sent
            res = s.send(refs[1], diss[1], lend=lend) + s.flush()
        temporal[lend] = res[-1]["speed_temporal"]
    _, base = score_arrays(v, refs, diss, features=["speed_temporal"])
    assert temporal[False] == base[1]["speed_temporal"]
    assert temporal[True] != base[1]["speed_temporal"]


def test_pool_is_speedqa_pool(cli, pair):
    ref, dis = pair("420p8")
    doc = cli_doc(cli, ref, dis, "--frame_cnt", "12")
    for name, pooled in doc["pooled_metrics"].items():
        vals = [f["metrics"][name] for f in doc["frames"]]
        assert speedqa.pool(vals) == pooled
        assert speedqa.pool(np.array(vals)) == pooled
    with pytest.raises(speedqa.Error) as e:
        speedqa.pool([])
    assert e.value.errno == errno.EINVAL


def test_raw_yuv(cli, pair, tmp_path):
    ref, dis = pair("420p12")
    paths = []
    for src, name in ((ref, "r.yuv"), (dis, "d.yuv")):
        _, frames = y4m_split(src)
        p = tmp_path / name
        p.write_bytes(b"".join(frames))
        paths.append(str(p))
    doc = run_cli(cli, "-r", paths[0], "-d", paths[1], "-w", "640", "-h", "360", "-p", "420",
                  "-b", "12", "--precision", "max")
    got = speedqa.score_files(paths[0], paths[1], width=640, height=360, pix_fmt="420",
                              bitdepth=12, precision="max")
    assert strip_fps(got) == strip_fps(doc)
    with pytest.raises(speedqa.Error):
        speedqa.score_files(paths[0], paths[1])  # raw needs the geometry


def test_y4m_variants_and_frame_count_mismatch(cli, pair, tmp_path):
    ref, dis = pair("420p8odd")
    header, rframes = y4m_split(ref)
    _, dframes = y4m_split(dis)
    assert header.startswith(b"YUV4MPEG2 ")
    # header tags in another order, extension tags, FRAME parameters
    tags = header.decode().split()[1:]
    h2 = ("YUV4MPEG2 " + " ".join(reversed(tags)) + " XFOO=bar A0:0\n").encode()
    r = write_y4m(tmp_path / "r.y4m", h2, rframes,
                  [b"FRAME Ixyz XFRAME=1\n" if i % 2 else b"FRAME\n" for i in range(10)])
    d = write_y4m(tmp_path / "d.y4m", header, dframes[:7])  # fewer frames
    doc = cli_doc(cli, r, d)
    assert len(doc["frames"]) == 7
    got = speedqa.score_files(r, d, precision="max")
    assert strip_fps(got) == strip_fps(doc)
    # 4:2:0 chroma tags C420jpeg/C420mpeg2/C420paldv and C420 are all 8-bit 4:2:0
    for tag in ("C420jpeg", "C420mpeg2", "C420paldv", "C420"):
        h3 = b"YUV4MPEG2 W642 H362 F25:1 Ip " + tag.encode() + b"\n"
        r3 = write_y4m(tmp_path / ("r%s.y4m" % tag), h3, rframes[:2])
        d3 = write_y4m(tmp_path / ("d%s.y4m" % tag), h3, dframes[:2])
        assert strip_fps(speedqa.score_files(r3, d3, precision="max")) == \
            strip_fps(cli_doc(cli, r3, d3))


def test_mono(cli, pair, tmp_path):
    ref, dis = pair("420p8odd")
    v, refs = frames_of(ref, 3)
    _, diss = frames_of(dis, 3)
    h = b"YUV4MPEG2 W642 H362 F25:1 Ip Cmono\n"
    r = write_y4m(tmp_path / "r.y4m", h, [p[0].tobytes() for p in refs])
    d = write_y4m(tmp_path / "d.y4m", h, [p[0].tobytes() for p in diss])
    doc = cli_doc(cli, r, d, "--feature", "speed_temporal")
    got = speedqa.score_files(r, d, features=["speed_temporal"], precision="max")
    assert strip_fps(got) == strip_fps(doc)
    with speedqa.Scorer(642, 362, "400", 8, features="speed_temporal") as s:
        res = s.score((a[0], b[0]) for a, b in zip(refs, diss))
    assert_equal_cli(doc, s.names, res)


def library_message(features, code):
    arr = (ctypes.c_char_p * (len(features) + 1))(*[f.encode() for f in features], None)
    buf = ctypes.create_string_buffer(512)
    assert L.lib().speedqa_check_features(arr, buf, len(buf)) == -code
    return buf.value.decode()


# ENOTSUP: what speedqa does not implement (libvmaf may); EINVAL: a bad value
@pytest.mark.parametrize("feature,code", [("bogus", errno.ENOTSUP),
                                          ("speed_chroma=speed_kernelscale=abc", errno.EINVAL),
                                          ("speed_temporal=nosuch=1", errno.ENOTSUP),
                                          ("cambi=cambi_vis_lum_threshold=85", errno.EINVAL)])
def test_bad_feature(feature, code):
    with pytest.raises(speedqa.Error) as e:
        speedqa.Scorer(64, 64, "420", 8, features=[feature])
    assert e.value.errno == code and e.value.code == -code
    msg = library_message([feature], code)
    assert msg and e.value.message == msg
    with pytest.raises(speedqa.Error) as e2:
        speedqa.check_features([feature])
    assert e2.value.message == msg


def test_open_errors():
    with pytest.raises(speedqa.Error) as e:  # speed_chroma needs chroma
        speedqa.Scorer(64, 64, "400", 8)
    assert e.value.errno == errno.EINVAL and "speed_chroma" in e.value.message
    with pytest.raises(speedqa.Error) as e:
        speedqa.Scorer(64, 64, "420", 17)
    assert e.value.errno == errno.EINVAL and e.value.message
    with pytest.raises(speedqa.Error):
        speedqa.Scorer(64, 64, "yuv411p", 8)


def test_send_errors(pair):
    ref, dis = pair("422p10")
    v, refs = frames_of(ref, 2)
    _, diss = frames_of(dis, 2)
    with speedqa.Scorer(v.width, v.height, "422", 10) as s:
        with pytest.raises(speedqa.Error) as e:  # 8-bit samples for a 10-bit video
            s.send([p.astype(np.uint8) for p in refs[0]], diss[0])
        assert e.value.errno == errno.EINVAL and "dtype" in e.value.message
        with pytest.raises(speedqa.Error) as e:  # wrong shape
            s.send([refs[0][0][:-2], refs[0][1], refs[0][2]], diss[0])
        assert e.value.errno == errno.EINVAL and "shape" in e.value.message
        with pytest.raises(speedqa.Error):  # two planes
            s.send(refs[0][:2], diss[0])
        with pytest.raises(speedqa.Error) as e:  # a zero row stride: the library says no
            s.send([np.broadcast_to(refs[0][0][0], refs[0][0].shape), refs[0][1], refs[0][2]],
                   diss[0])
        assert e.value.errno == errno.EINVAL and e.value.message
        # a sample above 2^10 - 1: the library's -ERANGE and its message
        bad = [p.copy() for p in refs[0]]
        bad[1][:, :] = 1023 + 1  # U: speed_chroma reads it on every frame
        with pytest.raises(speedqa.Error) as e:
            s.send(bad, diss[0])
            s.flush()
        assert e.value.errno == errno.ERANGE
        assert "1024" in e.value.message and "10" in e.value.message
    with pytest.raises(speedqa.Error) as e:
        s.send(refs[0], diss[0])
    assert e.value.errno == errno.EBADF


def test_struct_layout_matches_header(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    lib = os.environ.get("SPEEDQA_LIB", "")
    build_inc = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(lib))), "include")
    if not cc or not os.path.exists(os.path.join(build_inc, "speedqa", "version.h")):
        pytest.skip("no C compiler or build include directory")
    src = tmp_path / "sz.c"
    checks = [("SpeedqaFormat", L.Format), ("SpeedqaPicture", L.Picture),
              ("SpeedqaSettings", L.Settings), ("SpeedqaScores", L.Scores),
              ("SpeedqaPooled", L.Pooled), ("SpeedqaCudaSettings", L.CudaSettings),
              ("SpeedqaOpenclSettings", L.OpenclSettings)]
    lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "speedqa/speedqa.h"',
             "int main(void) {"]
    expect = []
    for cname, py in checks:
        lines.append('printf("%%zu\\n", sizeof(%s));' % cname)
        expect.append(ctypes.sizeof(py))
        for field, _ in py._fields_:
            if field == "reserved":  # later fields come out of it: compare its end
                lines.append('printf("%%zu\\n", offsetof(%s, reserved) + '
                             'sizeof(((%s *)0)->reserved));' % (cname, cname))
                expect.append(py.reserved.offset + py.reserved.size)
                continue
            lines.append('printf("%%zu\\n", offsetof(%s, %s));' % (cname, field))
            expect.append(getattr(py, field).offset)
    lines.append("return 0; }")
    src.write_text("\n".join(lines))
    exe = tmp_path / "sz"
    subprocess.run([cc, "-I", os.path.join(ROOT, "include"), "-I", build_inc, str(src), "-o",
                    str(exe)], check=True)
    got = [int(x) for x in subprocess.run([str(exe)], capture_output=True, text=True,
                                          check=True).stdout.split()]
    assert got == expect


def test_version_and_document_shape(cli, pair):
    ref, dis = pair("444p8")
    doc = run_cli(cli, "-r", ref, "-d", dis, "--frame_cnt", "2")
    got = speedqa.score_files(ref, dis, frame_cnt=2)
    assert got["version"] == doc["version"] == speedqa.version()
    assert list(got) == list(doc)
    assert isinstance(got["fps"], float)
    json.dumps(got)


def test_package_version_and_auto_threads():
    # the package mirrors one minor version's structs, and says so
    assert speedqa.__version__ == speedqa.version()
    assert speedqa.version().split(".")[:2] == [str(L.VERSION_MAJOR), str(L.VERSION_MINOR)]
    n = os.sysconf("SC_NPROCESSORS_ONLN")
    assert speedqa.auto_threads() == max(1, min(n, 64))


def test_logger_receives_library_lines():
    lines = []
    with pytest.raises(speedqa.Error) as e:
        speedqa.Scorer(64, 64, "420", 8, features=["bogus"],
                       logger=lambda level, line: lines.append((level, line)))
    assert (L.LOG_ERROR, e.value.message) in lines
    with pytest.raises(speedqa.Error):
        speedqa.Scorer(64, 64, "420", 8, log_level="loud")
