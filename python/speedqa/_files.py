"""Files through libspeedqa_io: open_video (the CLI's readers), score_files
(the CLI's scoring and JSON report), format_value (the reports' number
format). No reader, report writer or formatter of its own."""
from __future__ import annotations

import ctypes
import errno as _errno
import json
import os
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _io
from ._error import Error, check_int

PathLike = Union[str, "os.PathLike[str]"]
_FMT_NAMES = {0: "400", 1: "420", 2: "422", 3: "444"}


def _require(path: PathLike) -> None:
    """FileNotFoundError for a missing input, as open(2) would raise it."""
    p = os.fspath(path)
    if p != "-" and not os.path.lexists(p):
        raise FileNotFoundError(_errno.ENOENT, os.strerror(_errno.ENOENT), p)


def _raw_flags(width, height, pix_fmt, bitdepth) -> List[str]:
    given = [x is not None for x in (width, height, pix_fmt, bitdepth)]
    if not any(given):
        return []
    if pix_fmt is not None and bitdepth is None and str(pix_fmt)[-2:].isdigit() and \
            not str(pix_fmt).startswith(("nv", "p0")):
        pix_fmt, bitdepth = str(pix_fmt)[:3], int(str(pix_fmt)[4:] or 8)  # "420p10"
    out = []
    for flag, v in (("-w", width), ("-h", height), ("-p", pix_fmt), ("-b", bitdepth)):
        if v is not None:
            out += [flag, str(check_int(flag, v) if flag != "-p" else v)]
    return out


def _cli_error(r: int, line: str) -> Error:
    return Error(-_errno.EIO if r == 3 else -_errno.EINVAL, line, r)


class Video:
    """A video read by the CLI's readers (Y4M, raw YUV given its geometry,
    anything libav decodes). frame(i): (Y, U, V) numpy arrays (uint8, or
    uint16 above 8 bits), or None past the end; frames come in order,
    an earlier one reopens the file."""

    def __init__(self, path: PathLike, width=None, height=None, pix_fmt=None, bitdepth=None):
        _require(path)
        self.path = os.fspath(path)
        flags = _raw_flags(width, height, pix_fmt, bitdepth)
        self._io = _io.Io(["-r", self.path, "-d", self.path] + flags) if flags else None
        self._h = ctypes.c_void_p()
        self._next = 0
        self._open()
        f = self._info.format
        self.width, self.height, self.fmt, self.bpc = f.width, f.height, f.fmt, f.bpc
        self.bitdepth = self.bpc
        self.frames = None if self._info.frames < 0 else int(self._info.frames)
        self.fps = (self._info.fps_num / self._info.fps_den) if self._info.fps_den else None
        self.reader = self._info.reader.decode()
        self.frame_bytes = int(self._info.frame_bytes)
        self.dtype = np.dtype(np.uint8) if self.bpc <= 8 else np.dtype("=u2")
        cw = self.width if self.fmt == 3 else self.width >> 1
        ch = self.height >> 1 if self.fmt == 1 else self.height
        self.shapes = [(self.height, self.width)] + ([] if self.fmt == 0 else [(ch, cw)] * 2)

    def _open(self) -> None:
        self.close()
        info, err = _io.VideoInfo(), ctypes.create_string_buffer(_io.ERR_LEN)
        r = _io.lib().speedqa_io_video_open(ctypes.byref(self._h), _io.fs(self.path),
                                             self._io.h if self._io else None,
                                             ctypes.byref(info), err, _io.ERR_LEN)
        if r == -_errno.ENOENT:
            raise FileNotFoundError(_errno.ENOENT, os.strerror(_errno.ENOENT), self.path)
        if r < 0:  # the CLI's exit for an input it cannot open (out of memory: 1)
            raise Error(r, _io.text(err.value), 1 if r == -_errno.ENOMEM else 3)
        self._info, self._next = info, 0

    @property
    def pix_fmt(self) -> str:
        return _FMT_NAMES[self.fmt]

    def read(self) -> Optional[Tuple[np.ndarray, ...]]:
        """The next frame's planes, or None at the end (Error on a bad frame)."""
        buf = np.empty(self.frame_bytes, dtype=np.uint8)
        err = ctypes.create_string_buffer(_io.ERR_LEN)
        r = _io.lib().speedqa_io_video_read(self._h, buf.ctypes.data, buf.size, err, _io.ERR_LEN)
        if r < 0:
            raise Error(r, _io.text(err.value), 3)
        if r == 0:
            return None
        self._next += 1
        out, at = [], 0
        for shape in self.shapes:
            n = shape[0] * shape[1] * self.dtype.itemsize
            out.append(buf[at:at + n].view(self.dtype).reshape(shape))
            at += n
        return tuple(out)

    def frame(self, i: int) -> Optional[Tuple[np.ndarray, ...]]:
        i = check_int("frame", i)
        if i < self._next:
            self._open()
        fr = None
        while self._next <= i:
            fr = self.read()
            if fr is None:
                return None
        return fr

    def __iter__(self) -> Iterator[Tuple[np.ndarray, ...]]:
        self._open()
        while True:
            fr = self.read()
            if fr is None:
                return
            yield fr

    def count(self) -> int:
        """Number of frames (reads the whole file)."""
        return sum(1 for _ in self)

    def close(self) -> None:
        if getattr(self, "_h", None) and self._h.value:
            _io.lib().speedqa_io_video_close(ctypes.byref(self._h))

    def __enter__(self) -> "Video":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def open_video(path: PathLike, width=None, height=None, pix_fmt=None, bitdepth=None) -> Video:
    return Video(path, width, height, pix_fmt, bitdepth)


def format_value(v: float, precision: str = "legacy") -> str:
    """v as the CLI's reports and result lines print it (vmaf's six or sixteen decimals, or every digit for "max")."""
    if precision not in ("legacy", "max"):
        raise ValueError("precision %r is not legacy or max" % (precision,))
    buf = ctypes.create_string_buffer(320)  # SPEEDQA_IO_VALUE_LEN
    return _io.lib().speedqa_io_format_value(buf, 320, float(v), precision == "max").decode()


def features_flags(features) -> List[str]:
    if features is None:
        return []
    if isinstance(features, str):
        features = [f for f in features.split(";") if f.strip()]
    out = []
    for f in features:
        out += ["--feature", str(f)]
    return out


def model_flags(model=None, no_prediction: bool = False) -> List[str]:
    """--model for each value (a str in --model's syntax, or a list of them;
    a str may hold several separated by ';' as a manifest's model column
    does) and -n: the CLI parses and loads them, so its rules and errors hold."""
    if model is None:
        models: List[str] = []
    elif isinstance(model, (str, os.PathLike)):
        models = [m.strip() for m in os.fspath(model).split(";") if m.strip()]
    else:
        models = [os.fspath(m) for m in model]
    out = []
    for m in models:
        out += ["--model", m]
    return out + (["-n"] if no_prediction else [])


def common_flags(features=None, backend="cpu", threads=1, frame_cnt=0, precision="max",
                 device=None, extra: Sequence[str] = (), model=None,
                 no_prediction: bool = False) -> List[str]:
    if precision not in ("legacy", "max"):
        raise ValueError("precision %r is not legacy or max" % (precision,))
    out = features_flags(features) + model_flags(model, no_prediction) + [
        "--backend", str(backend), "--threads",
                                      str(check_int("threads", threads)),
                                      "--precision", precision]
    if frame_cnt:
        out += ["--frame_cnt", str(check_int("frame_cnt", frame_cnt, 0, 2**63 - 1))]
    if device is not None:
        out += ["--device", str(device)]
    return out + [str(a) for a in extra]


def score_files(ref: PathLike, dis: PathLike, features=None, backend: str = "cpu",
                threads: int = 1, width=None, height=None, pix_fmt=None, bitdepth=None,
                frame_cnt: int = 0, precision: str = "max", device=None,
                as_frame: bool = False, extra: Sequence[str] = (), model=None,
                no_prediction: bool = False) -> Any:
    """Score ref against dis exactly as `speedqa -r REF -d DIS --json` does
    (same readers: Y4M, raw given width/height/pix_fmt/bitdepth, mp4/mkv/...
    through libav; same checks and errors). Returns the JSON document as
    json.load reads it; precision="max" (the default) keeps every float as
    computed, "legacy" is the CLI's 6-decimal report text. as_frame=True:
    a pandas DataFrame of the per-frame metrics (index frameNum) instead.
    model: a VMAF model in --model's syntax ("version=vmaf_v0.6.1",
    "path=m.json:name=x"), or a list of them (each under its own name=);
    no_prediction=True: the models' features only (-n). A model with a
    feature speedqa does not compute (an HFR model's five-frame window) needs a speedqa
    built with libvmaf (else Error with the CLI's line, exit code 2).
    Raises FileNotFoundError for a missing input, Error(message=the CLI's
    line, exit_code=the CLI's exit code) for any other failure, a pair
    without a frame included (exit 3)."""
    _require(ref)
    _require(dis)
    args = ["-r", os.fspath(ref), "-d", os.fspath(dis), "--json", "-q"]
    args += _raw_flags(width, height, pix_fmt, bitdepth)
    args += common_flags(features, backend, threads, frame_cnt, precision, device, extra, model,
                         no_prediction)
    with _io.Io(args) as io:
        rep = (_io.Report * 1)()
        r = _io.lib().speedqa_io_score(io.h, rep, 1)
        try:
            text = ctypes.string_at(rep[0].text, rep[0].len).decode() if rep[0].text else ""
            line = _io.text(rep[0].error)
        finally:
            _io.lib().speedqa_io_reports_free(rep, 1)
    if r:
        raise _cli_error(r, line or "scoring failed")
    doc = json.loads(text)
    if as_frame:
        return to_frame(doc)
    return doc


def to_frame(doc: Dict[str, Any]):
    """A report's per-frame metrics as a pandas DataFrame (index frameNum)."""
    import pandas as pd  # optional dependency

    rows = [dict(fr["metrics"], frameNum=fr["frameNum"]) for fr in doc["frames"]]
    return pd.DataFrame(rows).set_index("frameNum")
