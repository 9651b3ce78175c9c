"""Shared fixtures: the library, the CLI, decompressed test clips, and CLI runs."""
import json
import lzma
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
CLIPS = os.path.join(ROOT, "tests", "data", "clips")

# ref, dis (without .y4m.xz)
PAIRS = {
    "420p8": ("seeding_576x324_420p8_48f", "seeding_576x324_420p8_48f_x264crf40"),
    "420p8odd": ("seeding_642x362_420p8_10f", "seeding_642x362_420p8_10f_x264crf28"),
    "422p10": ("seeding_640x360_422p10_10f", "seeding_640x360_422p10_10f_x264crf28"),
    "444p8": ("seeding_640x360_444p8_10f", "seeding_640x360_444p8_10f_x264crf28"),
    "420p12": ("seeding_640x360_420p12_10f", "seeding_640x360_420p12_10f_x265crf28"),
    "420p10hd": ("seeding_1280x720_420p10_12f", "seeding_1280x720_420p10_12f_x264crf28"),
}


def _find_lib():
    lib = os.environ.get("SPEEDQA_LIB")
    if not lib:
        cand = os.path.join(ROOT, "build", "src", "libspeedqa.so.0.2")
        if os.path.exists(cand):
            os.environ["SPEEDQA_LIB"] = lib = cand
    return lib


def _find_cli():
    cli = os.environ.get("SPEEDQA_CLI")
    if not cli:
        cand = os.path.join(ROOT, "build", "tools", "speedqa")
        if os.path.exists(cand):
            os.environ["SPEEDQA_CLI"] = cli = cand
    return cli


def _find_io_lib():
    if not os.environ.get("SPEEDQA_IO_LIB"):
        cand = os.path.join(ROOT, "build", "tools", "libspeedqa_io.so.0")
        if os.path.exists(cand):
            os.environ["SPEEDQA_IO_LIB"] = cand


_find_lib()
_find_cli()
_find_io_lib()
# absolute: tests chdir, and worker processes inherit the environment
for _k in ("SPEEDQA_LIB", "SPEEDQA_CLI", "SPEEDQA_IO_LIB"):
    if os.environ.get(_k) and os.sep in os.environ[_k]:
        os.environ[_k] = os.path.abspath(os.environ[_k])


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("SPEEDQA_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("SPEEDQA_CLI (the built speedqa tool) not found")
    return path


@pytest.fixture(scope="session")
def clipdir(tmp_path_factory):
    return tmp_path_factory.mktemp("clips")


_clip_cache = {}


def clip_path(clipdir, name):
    """Decompressed clip (once per session)."""
    if name not in _clip_cache:
        dst = os.path.join(str(clipdir), name + ".y4m")
        with lzma.open(os.path.join(CLIPS, name + ".y4m.xz")) as src, open(dst, "wb") as out:
            out.write(src.read())
        _clip_cache[name] = dst
    return _clip_cache[name]


@pytest.fixture(scope="session")
def pair(clipdir):
    def get(key):
        r, d = PAIRS[key]
        return clip_path(clipdir, r), clip_path(clipdir, d)
    return get


def run_cli(cli, *args, check=True):
    """The CLI's JSON document (parsed) for args (ref/dis options etc.)."""
    p = subprocess.run([cli, *args, "--json", "-o", "-", "-q"], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError("speedqa %s failed (%d): %s" % (" ".join(args), p.returncode,
                                                              p.stderr))
    return json.loads(p.stdout) if p.returncode == 0 else p


def cli_doc(cli, ref, dis, *extra, precision="max"):
    return run_cli(cli, "-r", ref, "-d", dis, "--precision", precision, *extra)


def strip_fps(doc):
    doc = dict(doc)
    doc.pop("fps", None)
    return doc


def y4m_split(path):
    """(header line bytes incl. newline, list of frame payloads) of a Y4M
    whose FRAME lines carry no parameters."""
    import speedqa
    size = speedqa.open_video(path).frame_bytes  # planar files: the payload's size
    with open(path, "rb") as f:
        data = f.read()
    at = data.index(b"\n") + 1
    header, frames = data[:at], []
    while at < len(data):
        assert data[at:at + 6] == b"FRAME\n"
        frames.append(data[at + 6:at + 6 + size])
        at += 6 + size
    return header, frames


def write_y4m(path, header, frames, frame_lines=None):
    with open(path, "wb") as f:
        f.write(header)
        for i, fr in enumerate(frames):
            f.write(frame_lines[i] if frame_lines else b"FRAME\n")
            f.write(fr)
    return str(path)
