"""Scorer: numpy (or CUDA array) frames in, libvmaf-named scores out."""
from __future__ import annotations

import ctypes
import errno as _errno
import threading
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _lib as L
from ._error import _INT_MAX, Error, _einval, check_int
from ._picture import (_CudaSync, _Pictures, _release_callback, file_plane_shapes,
                       parse_pix_fmt, plane_shapes)


def pool(values: Iterable[float]) -> Dict[str, float]:
    """Pool a sequence of numbers as libvmaf does (speedqa_pool):
    {"min", "max", "mean", "harmonic_mean"}."""
    arr = np.ascontiguousarray(np.asarray(values, dtype=np.float64).ravel())
    # The library publishes finite scores only (or fails): a NaN or an
    # infinity here did not come from it, and its mean would be one.
    if arr.size and not np.isfinite(arr).all():
        raise ValueError("pool: non-finite value at index %d (scores are finite)"
                         % int(np.flatnonzero(~np.isfinite(arr))[0]))
    out = L.Pooled()
    r = L.lib().speedqa_pool(arr.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                             arr.size, 1, ctypes.byref(out))
    if r < 0:
        raise Error(r, "speedqa_pool: %s" % ("no values" if arr.size == 0 else
                                             L.lib().speedqa_strerror(r).decode()))
    return {"min": out.min, "max": out.max, "mean": out.mean,
            "harmonic_mean": out.harmonic_mean}


def check_features(features: Optional[Union[str, Sequence[str]]]) -> None:
    """Raise Error with the library's message unless every feature string is valid."""
    arr, _keep = _feature_array(features)
    buf = ctypes.create_string_buffer(512)
    r = L.lib().speedqa_check_features(arr, buf, len(buf))
    if r < 0:
        raise Error(r, buf.value.decode("utf-8", "replace"))


def _feature_array(features):
    if features is None:
        return None, None
    if isinstance(features, (str, bytes)):
        features = [features]
    enc = [f.encode() if isinstance(f, str) else bytes(f) for f in features]
    arr = (ctypes.c_char_p * (len(enc) + 1))(*enc, None)
    return arr, enc


def version() -> str:
    return L.lib().speedqa_version().decode()


def auto_threads() -> int:
    """The thread count threads=0 asks for (speedqa_auto_threads: the cores, at most 64)."""
    return int(L.lib().speedqa_auto_threads())


class _LogSink:
    """The library's log lines of the current call (the logger callback);
    passes them on to a user logger(level, line) too."""

    def __init__(self, user):
        self.user = user
        self.lines = []
        self.lock = threading.Lock()

    def __call__(self, cookie, level, msg):
        text = msg.decode("utf-8", "replace") if msg else ""
        with self.lock:
            self.lines.append((level, text))
            del self.lines[:-16]
        if self.user is not None:
            try:
                self.user(level, text)
            except Exception:  # noqa: BLE001 - never raise into C
                pass

    def clear(self):
        with self.lock:
            self.lines.clear()

    def last(self):
        """The last error line of the call (else the last line), or None."""
        with self.lock:
            errs = [m for lvl, m in self.lines if lvl == L.LOG_ERROR] or \
                [m for _, m in self.lines]
        return errs[-1] if errs else None


class Scorer(_Pictures):
    """Scores frame pairs with libspeedqa.

    Scorer(width, height, pix_fmt, bitdepth, features=None, backend="cpu",
           threads=1, device=None, cpu_mask=None, log_level="warning", logger=None,
           keep_device=False)

    keep_device=True: closing leaves a GPU's device context to the process
    (SpeedqaSettings.cuda.keep_device), so that the next Scorer finds the
    device context made.

    send(ref, dis) takes one frame pair and returns the results that became
    available (a list of dicts, maybe empty: with threads > 1 results lag);
    send(ref, dis, lend=True) lends the planes instead of having them copied
    (SpeedqaPicture.release): the library reads them in place until it has
    scored the frame, so they must not change until then (read-only views of
    a mapped file, or fresh arrays per frame such as Video.frame()'s);
    flush() ends the sequence and returns the rest. Each result dict has the
    libvmaf score names as keys, plus "frame" (the 0-based pair index since
    open), "sequence" and "sequence_frame".

    Scorer(..., model="version=vmaf_v1.0.16_3d0h") scores a VMAF model
    instead: it is a ModelScorer (see its help), whose flush() returns every
    frame's vmaf and features.
    """

    def __new__(cls, *args: Any, model: Any = None, **kw: Any):
        if model is not None and cls is Scorer:
            from ._model import ModelScorer
            return ModelScorer(*args, model=model, **kw)
        return super().__new__(cls)

    _LEVELS = {"error": L.LOG_ERROR, "warning": L.LOG_WARNING, "info": L.LOG_INFO,
               "debug": L.LOG_DEBUG}

    def __init__(self, width: int, height: int, pix_fmt: Union[str, int] = "420",
                 bitdepth: Optional[int] = 8,
                 features: Optional[Union[str, Sequence[str]]] = None,
                 backend: Union[str, int] = "cpu", threads: int = 1,
                 device: Optional[Union[int, str]] = None, cpu_mask: Optional[int] = None,
                 log_level: Union[str, int] = "warning",
                 logger: Optional[Callable[[int, str], None]] = None, n_distorted: int = 1,
                 keep_device: bool = False, model: Any = None) -> None:
        # (model: taken by __new__, which makes a ModelScorer instead)
        lib = L.lib()
        self._ctx = ctypes.c_void_p()
        fmt, bpc = parse_pix_fmt(pix_fmt, bitdepth)
        if bpc is None:
            bpc = 8
        self.width, self.height = check_int("width", width), check_int("height", height)
        self.fmt, self.bitdepth = fmt, check_int("bitdepth", bpc)
        threads = check_int("threads", threads, -_INT_MAX)
        n_distorted = check_int("n_distorted", n_distorted, -_INT_MAX)
        self.pix_fmt = lib.speedqa_pix_fmt_name(fmt).decode()
        self._shapes = plane_shapes(self.width, self.height, fmt)
        self._max_shapes = file_plane_shapes(self.width, self.height, fmt)
        self._cuda_dtypes = {}
        self._cuda_sync = _CudaSync()
        self._format = L.Format(self.width, self.height, fmt, self.bitdepth)
        self._pic_ref, self._pic_dis = L.Picture(), L.Picture()
        self._dtype = np.dtype(np.uint8) if self.bitdepth <= 8 else np.dtype("=u2")
        # lent planes by token until the library gives them back (send(lend=True))
        self._lent = {}
        self._lent_next = 0
        self._release_cb = _release_callback(self._lent)
        self._no_release = L.Release()
        # the callback holds the sink, not the Scorer (no reference cycle)
        self._sink = _LogSink(logger)
        self._log_cb = L.Logger(self._sink)

        s = L.Settings()
        lib.speedqa_default_settings(ctypes.byref(s))
        f = L.Format(self.width, self.height, fmt, self.bitdepth)
        s.format = f
        self._features, self._features_keep = _feature_array(features)
        s.features = self._features
        s.n_threads = int(threads)
        s.n_distorted = int(n_distorted)
        s.cuda.keep_device = 1 if keep_device else 0
        self.n_distorted = max(1, int(n_distorted))
        if isinstance(backend, str):
            if backend.lower() not in L.BACKENDS:
                raise _einval("unknown backend %r (one of %s)" % (backend, ", ".join(L.BACKENDS)))
            s.backend = L.BACKENDS[backend.lower()]
        else:
            s.backend = int(backend)
        self._device_name = None
        if device is not None:
            if isinstance(device, str) and not device.lstrip("-").isdigit():
                self._device_name = device.encode()
                s.device_name = self._device_name
            else:
                s.device = check_int("device", device, -1)
        if cpu_mask is not None:
            s.cpu_mask = check_int("cpu_mask", cpu_mask, 0, 2**32 - 1)
        s.logger = self._log_cb
        if isinstance(log_level, str):
            if log_level.lower() not in self._LEVELS:
                raise _einval("unknown log_level %r (one of %s)"
                              % (log_level, ", ".join(self._LEVELS)))
            s.log_level = self._LEVELS[log_level.lower()]
        else:
            s.log_level = int(log_level)
        r = self._call(lib.speedqa_open, ctypes.byref(self._ctx), ctypes.byref(s))
        if r < 0:
            self._ctx = ctypes.c_void_p()
            raise self._error(r)
        n = lib.speedqa_score_count(self._ctx)
        self.names = [lib.speedqa_score_name(self._ctx, i).decode() for i in range(n)]
        self.backend = lib.speedqa_backend_name(self._ctx).decode()

    # -- errors ------------------------------------------------------------
    def _call(self, fn, *args):
        self._sink.clear()
        return fn(*args)

    def _error(self, code):
        return Error(code, self._sink.last())

    # -- scoring -----------------------------------------------------------
    def _result(self, sc):
        d = {"frame": sc.frame, "sequence": sc.sequence, "sequence_frame": sc.sequence_frame}
        for i, name in enumerate(self.names):
            d[name] = sc.values[i]
        return d

    def _receive_one(self, out):
        """One speedqa_receive: its result appended to out; 0, EAGAIN or EOF_CODE."""
        sc = L.Scores()
        r = self._call(L.lib().speedqa_receive, self._ctx, ctypes.byref(sc), 1, 0)
        if r == 0:
            out.append(self._result(sc))
        elif r not in (L.EAGAIN, L.EOF_CODE):
            raise self._error(r)
        return r

    def _drain(self, out, until_eof=False):
        while True:
            r = self._receive_one(out)
            if r == 0:
                continue
            if (r == L.EAGAIN and not until_eof) or (r == L.EOF_CODE and until_eof):
                return out
            raise self._error(r)

    def _check_open(self):
        if not self._ctx:
            raise Error(-_errno.EBADF, "the Scorer is closed")

    def _lend(self, p, planes):
        """p lent: its planes kept under a new token until released."""
        self._lent_next += 1
        t = self._lent_next
        self._lent[t] = planes
        p.release = self._release_cb
        p.release_opaque = t
        return t

    def send(self, ref: Sequence[Any], dis: Sequence[Any], wait: bool = False,
             lend: bool = False) -> List[Dict[str, Any]]:
        """Score one frame pair; returns the results now available (list of dicts).
        wait=True: also waits for this frame's scores (and every earlier
        frame's), so the list ends with this frame's: a live loop, where
        threads > 1 on the CPU share the lone frame's planes
        (speedqa_receive with SPEEDQA_RECEIVE_WAIT). lend=True: the planes are read in place after
        send returns, until the frame is scored (see the class help)."""
        self._check_open()
        # the library reads the structs during the call only: two per Scorer, refilled
        pref, keep_r = self._picture(ref, "ref", self._pic_ref)
        pdis, keep_d = self._picture(dis, "dis", self._pic_dis)
        if lend:
            tokens = (self._lend(pref, keep_r), self._lend(pdis, keep_d))
        else:
            tokens = ()
            for p in (pref, pdis):
                p.release = self._no_release
                p.release_opaque = None
        lib = L.lib()
        out = []
        try:
            while True:
                r = self._call(lib.speedqa_send, self._ctx, ctypes.byref(pref),
                               ctypes.byref(pdis))
                if r != L.EAGAIN:
                    break
                # queue full (nothing taken): speedqa_receive blocks for the oldest frame
                self._receive_one(out)
        except BaseException:
            for t in tokens:
                self._lent.pop(t, None)
            raise
        del keep_r, keep_d  # copied, or kept in self._lent until released
        if r < 0:
            for t in tokens:  # a failed send took nothing
                self._lent.pop(t, None)
            raise self._error(r)
        self._drain(out)
        while wait:
            sc = L.Scores()
            r = self._call(lib.speedqa_receive, self._ctx, ctypes.byref(sc), 1, L.RECEIVE_WAIT)
            if r == L.EAGAIN:
                break  # nothing left in flight
            if r != 0:
                raise self._error(r)
            out.append(self._result(sc))
        return out

    def flush(self) -> List[Dict[str, Any]]:
        """End the sequence; returns every result not yet returned."""
        self._check_open()
        r = self._call(L.lib().speedqa_flush, self._ctx)
        if r < 0:
            raise self._error(r)
        return self._drain([], until_eof=True)

    def score(self, frames: Iterable[Tuple[Any, Any]]) -> List[Dict[str, Any]]:
        """Score an iterable of (ref, dis) pairs, then flush; returns every result."""
        out = []
        for ref, dis in frames:
            out += self.send(ref, dis)
        return out + self.flush()

    def rows_read(self, plane: int) -> np.ndarray:
        """The rows of plane (0 Y, 1 U, 2 V) that the features read, in every
        picture, current or previous (speedqa_rows_read): a numpy bool array of
        the plane's height. A reader may fetch only these rows; the others
        never change a score."""
        self._check_open()
        if not 0 <= int(plane) < len(self._shapes):
            raise _einval("plane %r: this format has %d" % (plane, len(self._shapes)))
        fn = getattr(L.lib(), "speedqa_rows_read", None)
        if fn is None:
            raise Error(-_errno.ENOSYS, "this libspeedqa has no speedqa_rows_read")
        rows = self._shapes[int(plane)][0]
        mark = (ctypes.c_uint8 * max(rows, 1))()
        r = self._call(fn, self._ctx, int(plane), mark, rows)
        if r < 0:
            raise self._error(r)
        return np.frombuffer(mark, dtype=np.uint8, count=rows).astype(bool)

    def close(self) -> None:
        if self._ctx:
            L.lib().speedqa_close(ctypes.byref(self._ctx))
            self._ctx = ctypes.c_void_p()

    def __enter__(self) -> "Scorer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
