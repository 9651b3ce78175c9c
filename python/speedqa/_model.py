"""ModelScorer: VMAF models over frames in memory.

A model's score needs the whole sequence (motion2 looks one frame ahead,
pooling at the end) and, in a build with libvmaf, libvmaf for the features
speedqa does not compute, so frames do not go to libspeedqa here: their planes go, as raw frames,
into two pipes that the CLI's own job reads with -w -h -p -b
(speedqa_io_score on a thread of its own: the same raw reader, model code,
engine and report as `speedqa --model`), and flush() returns that
job's report.
"""
from __future__ import annotations

import ctypes
import json
import os
import select
import threading
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _io
from . import _lib as L
from ._files import _cli_error, _raw_flags, common_flags, to_frame
from ._error import Error, check_int
from ._picture import file_plane_shapes, parse_pix_fmt

_PIX = {L.PIX_420: "420", L.PIX_422: "422", L.PIX_444: "444", L.PIX_400: "400"}


class ModelScorer:
    """Scores frame pairs with VMAF models, as `speedqa --model` does.

    ModelScorer(width, height, pix_fmt="420", bitdepth=8,
                model="version=vmaf_v1.0.16_3d0h", features=None, backend="cpu",
                threads=1, device=None, no_prediction=False, precision="max")

    model: as score_files takes it (--model's syntax, or a list). send(ref,
    dis) takes one pair of (Y, U, V) numpy planes, shaped as a Y4M or raw
    file stores them (chroma rounded up), and returns [] (a model scores the sequence); flush() ends
    it and returns one dict a frame: every metric of the report ("vmaf" or
    each model's name, the features) plus "frame". After flush, .report is
    the JSON document `speedqa --model ... --json` writes (score_files's),
    .pooled its pooled_metrics. A model with a feature speedqa does not
    compute (an HFR model's five-frame window) needs a speedqa built with libvmaf (else
    Error with the CLI's line, exit code 2)."""

    def __init__(self, width: int, height: int, pix_fmt: Union[str, int] = "420",
                 bitdepth: Optional[int] = 8, model: Any = "version=vmaf_v1.0.16_3d0h",
                 features: Optional[Union[str, Sequence[str]]] = None, backend: str = "cpu",
                 threads: int = 1, device: Optional[Union[int, str]] = None,
                 no_prediction: bool = False, precision: str = "max") -> None:
        fmt, bpc = parse_pix_fmt(pix_fmt, bitdepth)
        self.width, self.height = check_int("width", width, 1), check_int("height", height, 1)
        self.bitdepth = check_int("bitdepth", bpc or 8, 8, 16)
        self._shapes = file_plane_shapes(self.width, self.height, fmt)
        self._dtype = np.dtype(np.uint8) if self.bitdepth <= 8 else np.dtype("<u2")
        self.report: Optional[Dict[str, Any]] = None
        self.pooled: Optional[Dict[str, Any]] = None
        self._fds: List[int] = []
        self._thread: Optional[threading.Thread] = None
        flags = common_flags(features, backend, threads, 0, precision, device, (), model,
                             no_prediction)
        flags += _raw_flags(self.width, self.height, _PIX[fmt], self.bitdepth)
        r_read, r_write = os.pipe()
        d_read, d_write = os.pipe()
        try:
            self._io = _io.Io(["-r", "/dev/fd/%d" % r_read, "-d", "/dev/fd/%d" % d_read,
                               "--json", "-q"] + flags)
        except BaseException:
            for fd in (r_read, r_write, d_read, d_write):
                os.close(fd)
            raise
        self._fds = [r_write, d_write]
        for fd in self._fds:
            os.set_blocking(fd, False)
        self._result: Dict[str, Any] = {}
        self._thread = threading.Thread(target=self._run, args=(r_read, d_read), daemon=True)
        self._thread.start()

    def _run(self, r_read: int, d_read: int) -> None:
        rep = (_io.Report * 1)()
        try:
            # ctypes lets go of the GIL here: send() writes while the job reads
            code = _io.lib().speedqa_io_score(self._io.h, rep, 1)
            text = ctypes.string_at(rep[0].text, rep[0].len).decode() if rep[0].text else ""
            self._result = {"code": code, "text": text, "line": _io.text(rep[0].error)}
        finally:
            _io.lib().speedqa_io_reports_free(rep, 1)
            os.close(r_read)
            os.close(d_read)

    def _write(self, chunks: Dict[int, bytes]) -> None:
        """Each pipe's bytes, written as the job reads them: it may read the
        two inputs in any order (their first bytes at open, then frames, a
        read-ahead thread each), so neither write may wait for the other."""
        left = {fd: memoryview(b) for fd, b in chunks.items() if b}
        try:
            while left:
                _, ready, _ = select.select([], list(left), [])
                for fd in ready:
                    try:
                        n = os.write(fd, left[fd][:1 << 16])
                    except BlockingIOError:
                        continue
                    left[fd] = left[fd][n:]
                    if not left[fd]:
                        del left[fd]
        except BrokenPipeError:
            self._finish()  # the job ended early: its error line says why
            res = self._result
            raise _cli_error(res.get("code") or 1,
                             res.get("line") or "the scoring job stopped reading") from None

    def _frame(self, planes: Sequence[Any], side: str) -> bytes:
        if len(planes) != len(self._shapes):
            raise ValueError("%s: %d planes, this format has %d" % (side, len(planes),
                                                                      len(self._shapes)))
        out = []
        for i, (p, shape) in enumerate(zip(planes, self._shapes)):
            a = np.asarray(p)
            if a.shape != shape:
                raise ValueError("%s plane %d is %s, a frame of this format holds %s"
                                 % (side, i, a.shape, shape))
            if a.dtype.kind not in "ui" or a.dtype.itemsize != self._dtype.itemsize:
                raise TypeError("%s plane %d is %s, %d-bit samples are %s"
                                % (side, i, a.dtype, self.bitdepth, self._dtype))
            out.append(np.ascontiguousarray(a, dtype=self._dtype).tobytes())
        return b"".join(out)

    def send(self, ref: Sequence[Any], dis: Sequence[Any]) -> List[Dict[str, Any]]:
        if self._thread is None or not self._fds:
            raise Error(-22, "send after flush or close", 2)
        self._write({self._fds[0]: self._frame(ref, "ref"), self._fds[1]: self._frame(dis, "dis")})
        return []

    def _finish(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []
        if self._thread is not None:
            self._thread.join()
            self._thread = None
            self._io.close()

    def flush(self) -> List[Dict[str, Any]]:
        """Ends the sequence: one dict a frame (see the class help)."""
        if self.report is None:
            self._finish()
            res = self._result
            if res.get("code", 1):
                raise _cli_error(res.get("code", 1), res.get("line") or "scoring failed")
            self.report = json.loads(res["text"])
            self.pooled = self.report.get("pooled_metrics")
        return [dict(f["metrics"], frame=f["frameNum"]) for f in self.report["frames"]]

    def as_frame(self):
        """The report's per-frame metrics as a pandas DataFrame (after flush)."""
        if self.report is None:
            raise Error(-22, "as_frame before flush", 2)
        return to_frame(self.report)

    def close(self) -> None:
        if self._fds or self._thread is not None:
            self._finish()

    def __enter__(self) -> "ModelScorer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
