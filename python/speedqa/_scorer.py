"""Scorer: numpy (or CUDA array) frames in, libvmaf-named scores out."""
from __future__ import annotations

import ctypes
import errno as _errno
import re
import threading
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _lib as L


class Error(Exception):
    """A speedqa failure. code: the negative errno the library returned;
    errno its positive value; message the one line (the library's log line,
    or the CLI's error line for files, manifests and batches); exit_code the
    speedqa CLI's exit code for the same failure (2 usage, 3 input, 4
    backend, 5 output, 1 internal)."""

    def __init__(self, code: int, message: Optional[str] = None,
                 exit_code: Optional[int] = None) -> None:
        code = -abs(int(code))
        if not message:
            try:
                message = L.lib().speedqa_strerror(code).decode("utf-8", "replace")
            except OSError:
                message = _errno.errorcode.get(-code, str(code))
        super().__init__(message)
        self.code = code
        self.errno = -code
        self.message = message
        self._cli = exit_code is not None
        self.exit_code = exit_code if exit_code is not None else (
            2 if -code in (_errno.EINVAL, _errno.ERANGE) else 4 if -code in (
                _errno.ENODEV, _errno.ENOSYS, _errno.EIO) else 1)

    def __str__(self) -> str:
        if self._cli:
            return self.message
        name = _errno.errorcode.get(self.errno, str(self.errno))
        return "%s (%s)" % (self.message, name)


_INT_MAX = 2**31 - 1


def check_int(name: str, v: Any, lo: int = 0, hi: int = _INT_MAX) -> int:
    """v as an int in [lo, hi]: ctypes would wrap it silently (2**32 + 576 -> 576)."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        try:
            if float(v) != int(v):
                raise ValueError
            v = int(v)
        except (TypeError, ValueError, OverflowError):
            raise TypeError("%s must be an integer, not %r" % (name, v)) from None
    v = int(v)
    if v < lo or v > hi:
        raise OverflowError("%s = %d is out of range [%d, %d]" % (name, v, lo, hi))
    return v


def _einval(msg):
    return Error(-_errno.EINVAL, msg)


_PIX = {"400": L.PIX_400, "420": L.PIX_420, "422": L.PIX_422, "444": L.PIX_444}


def parse_pix_fmt(pix_fmt: Union[str, int], bitdepth: Optional[int] = None
                  ) -> Tuple[int, Optional[int]]:
    """'420' (or 420, or the enum value) and ffmpeg-style names 'yuv420p',
    'yuv420p10le', 'gray', 'gray12le' -> (fmt, bits per sample or None).
    A bit depth in the name must agree with bitdepth when both are given."""
    if isinstance(pix_fmt, int) and not isinstance(pix_fmt, bool):
        if pix_fmt in (0, 1, 2, 3):
            return pix_fmt, bitdepth
        pix_fmt = str(pix_fmt)
    s = str(pix_fmt).lower().strip()
    if s in _PIX:
        return _PIX[s], bitdepth
    m = re.fullmatch(r"(?:yuv(420|422|444)p|(gray|mono))(\d*)(le)?", s)
    if not m:
        raise _einval("unknown pixel format %r (420, 422, 444, 400 or yuv420p style)"
                      % (pix_fmt,))
    fmt = _PIX[m.group(1)] if m.group(1) else L.PIX_400
    bpc = int(m.group(3)) if m.group(3) else 8
    if bitdepth is not None and int(bitdepth) != bpc:
        raise _einval("pixel format %r is %d-bit, bitdepth says %d" % (pix_fmt, bpc, bitdepth))
    return fmt, bpc


def plane_shapes(width, height, fmt):
    """Plane shapes (rows, columns) the library reads: libvmaf's rounded-down chroma."""
    if fmt == L.PIX_400:
        return [(height, width)]
    cw = width if fmt == L.PIX_444 else width >> 1
    ch = height >> 1 if fmt == L.PIX_420 else height
    return [(height, width), (ch, cw), (ch, cw)]


def file_plane_shapes(width, height, fmt):
    """Plane shapes as Y4M / raw files store them (rounded-up chroma)."""
    if fmt == L.PIX_400:
        return [(height, width)]
    cw = width if fmt == L.PIX_444 else (width + 1) >> 1
    ch = (height + 1) >> 1 if fmt == L.PIX_420 else height
    return [(height, width), (ch, cw), (ch, cw)]


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


class _Plane:
    """One plane as the library takes it: address, byte stride, memory kind."""
    __slots__ = ("ptr", "stride", "shape", "keep")

    def __init__(self, ptr, stride, shape, keep):
        self.ptr, self.stride, self.shape, self.keep = ptr, stride, shape, keep


def _cuda_interface(obj):
    try:
        return obj.__cuda_array_interface__
    except AttributeError:
        return None
    except Exception:  # e.g. a CPU torch tensor raises
        return None


# CUDA array interface v3 stream values: 1 is the legacy default stream. The
# library copies device planes on a blocking stream, which waits for earlier
# legacy-stream work by itself, so only other producer streams need a wait.
_LEGACY_STREAM = 1


class _CudaSync:
    """cuStreamSynchronize on producer streams, libcuda looked up once per Scorer."""

    def __init__(self):
        self._fn = None

    def __call__(self, streams):
        for stream in streams:
            if stream is None or stream == _LEGACY_STREAM:
                continue
            if self._fn is None:
                try:
                    cuda = ctypes.CDLL("libcuda.so.1")
                except OSError:
                    return
                fn = cuda.cuStreamSynchronize
                fn.argtypes = [ctypes.c_void_p]
                fn.restype = ctypes.c_int
                self._fn = fn
            r = self._fn(ctypes.c_void_p(int(stream)))
            if r != 0:
                raise Error(-_errno.EIO, "cuStreamSynchronize on the array's stream failed (%d)" % r)


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


def _release_callback(lent):
    """The release callback of lent pictures: drops the planes kept under the
    token (any thread; it holds the dict, not the Scorer)."""
    def release(opaque, data0):
        lent.pop(opaque or 0, None)
    return L.Release(release)


class Scorer:
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
    """

    _LEVELS = {"error": L.LOG_ERROR, "warning": L.LOG_WARNING, "info": L.LOG_INFO,
               "debug": L.LOG_DEBUG}

    def __init__(self, width: int, height: int, pix_fmt: Union[str, int] = "420",
                 bitdepth: Optional[int] = 8,
                 features: Optional[Union[str, Sequence[str]]] = None,
                 backend: Union[str, int] = "cpu", threads: int = 1,
                 device: Optional[Union[int, str]] = None, cpu_mask: Optional[int] = None,
                 log_level: Union[str, int] = "warning",
                 logger: Optional[Callable[[int, str], None]] = None, n_distorted: int = 1,
                 keep_device: bool = False) -> None:
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

    # -- pictures ----------------------------------------------------------
    def _host_plane(self, a, idx, side):
        a = np.asarray(a)
        if a.dtype != self._dtype:
            if a.dtype.kind == "u" and a.dtype.itemsize == self._dtype.itemsize:
                a = a.astype(self._dtype)  # byte order
            else:
                raise _einval("%s plane %d: dtype %s, a %d-bit video needs %s"
                              % (side, idx, a.dtype, self.bitdepth, self._dtype.name))
        if a.ndim != 2:
            raise _einval("%s plane %d: %d dimensions, expected 2 (rows, columns)"
                          % (side, idx, a.ndim))
        self._check_shape(a.shape, idx, side)
        if a.strides[1] != a.itemsize:
            a = np.ascontiguousarray(a)
        return _Plane(a.ctypes.data, a.strides[0], a.shape, a)

    def _check_shape(self, shape, idx, side):
        lo, hi = self._shapes[idx], self._max_shapes[idx]
        if shape == lo:
            return
        if not (lo[0] <= shape[0] <= hi[0] and lo[1] <= shape[1] <= hi[1]):
            want = "%dx%d" % lo if lo == hi else "%dx%d or %dx%d" % (lo + hi)
            raise _einval("%s plane %d: shape %dx%d, expected %s (rows x columns) for %dx%d %s"
                          % (side, idx, shape[0], shape[1], want, self.width, self.height,
                             self.pix_fmt))

    def _cuda_dtype(self, typestr, idx, side):
        dt = self._cuda_dtypes.get(typestr)
        if dt is None:
            dt = np.dtype(typestr)
            # signed types too: PyTorch has no uint16 (samples < 2^15 are the same bits)
            if dt.kind not in "ui" or dt.itemsize != self._dtype.itemsize:
                raise _einval("%s plane %d: CUDA array typestr %s, a %d-bit video needs %s"
                              % (side, idx, typestr, self.bitdepth, self._dtype.name))
            if dt.itemsize > 1 and dt.byteorder not in ("=", "|") and \
                    dt.byteorder != ("<" if np.little_endian else ">"):
                raise _einval("%s plane %d: non-native byte order CUDA array" % (side, idx))
            self._cuda_dtypes[typestr] = dt
        return dt

    def _cuda_planes(self, iface_list, side):
        # per frame: plain int arithmetic, dtypes cached, one wait per producer stream
        out, streams = [], []
        for idx, (obj, iface) in enumerate(iface_list):
            shape = tuple(iface["shape"])
            if len(shape) != 2:
                raise _einval("%s plane %d: %d dimensions, expected 2" % (side, idx, len(shape)))
            isz = self._cuda_dtype(iface["typestr"], idx, side).itemsize
            strides = iface.get("strides")
            row = shape[1] * isz if strides is None else strides[0]
            self._check_shape(shape, idx, side)
            if strides is not None and strides[1] != isz:
                raise _einval("%s plane %d: CUDA array columns are not contiguous "
                              "(stride %d bytes)" % (side, idx, strides[1]))
            stream = iface.get("stream")
            if stream not in streams:
                streams.append(stream)
            out.append(_Plane(int(iface["data"][0]), row, shape, obj))
        self._cuda_sync(streams)
        return out

    def _split(self, pic, side):
        """The planes of one picture argument, as (object, cuda_interface or None)."""
        nplanes = len(self._shapes)
        iface = _cuda_interface(pic)
        if isinstance(pic, (list, tuple)):
            items = list(pic)
            if nplanes == 1 and len(items) in (1, 3):
                items = items[:1]
            if len(items) != nplanes:
                raise _einval("%s: %d planes given, %s needs %d"
                              % (side, len(items), self.pix_fmt, nplanes))
            return [(p, _cuda_interface(p)) for p in items]
        if iface is not None:
            shape = tuple(iface["shape"])
            if nplanes == 1 and len(shape) == 2:
                return [(pic, iface)]
            if len(shape) == 3 and self.fmt == L.PIX_444:
                dt = np.dtype(iface["typestr"])
                strides = iface.get("strides") or tuple(
                    int(np.prod(shape[i + 1:], dtype=np.int64)) * dt.itemsize for i in range(3))
                ptr = int(iface["data"][0])
                if shape[0] == 3:
                    subs = [(shape[1:], strides[1:], ptr + i * strides[0]) for i in range(3)]
                elif shape[2] == 3:
                    subs = [(shape[:2], strides[:2], ptr + i * strides[2]) for i in range(3)]
                else:
                    raise _einval("%s: shape %s is neither 3xHxW nor HxWx3" % (side, shape))
                return [(pic, {"shape": s, "strides": st, "data": (p, False),
                               "typestr": iface["typestr"], "stream": iface.get("stream")})
                        for s, st, p in subs]
            raise _einval("%s: a CUDA array of shape %s; give a tuple of planes" % (side, shape))
        a = np.asarray(pic)
        if nplanes == 1 and a.ndim == 2:
            return [(a, None)]
        if a.ndim == 3 and self.fmt == L.PIX_444:
            h, w = self.height, self.width
            if a.shape[0] == 3 and a.shape[1:] == (h, w):
                return [(a[i], None) for i in range(3)]
            if a.shape[2] == 3 and a.shape[:2] == (h, w):
                return [(a[:, :, i], None) for i in range(3)]
            raise _einval("%s: shape %s is neither 3x%dx%d nor %dx%dx3"
                          % (side, a.shape, h, w, h, w))
        raise _einval("%s: expected a tuple of %d planes%s, got an array of shape %s"
                      % (side, nplanes, " (or a 3xHxW / HxWx3 array)"
                         if self.fmt == L.PIX_444 else "", a.shape))

    def _picture(self, pic, side, p=None):
        """(Picture, planes kept alive); p: a Picture to fill instead of a new one."""
        items = self._split(pic, side)
        cuda = [i is not None for _, i in items]
        if any(cuda) and not all(cuda):
            raise _einval("%s: mixes CUDA and host planes" % side)
        if all(cuda):
            planes = self._cuda_planes(items, side)
            memory = L.MEM_CUDA
        else:
            planes = [self._host_plane(p, i, side) for i, (p, _) in enumerate(items)]
            memory = L.MEM_HOST
        if p is None:
            p = L.Picture()
        data, stride = p.data, p.stride
        for i, pl in enumerate(planes):
            data[i] = pl.ptr
            stride[i] = pl.stride
        p.format = self._format
        p.memory = memory
        return p, planes

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


class Ladder(Scorer):
    """A ladder: n_distorted renditions scored against one reference, the
    reference side computed once per frame (the CPU backend); each stream's
    scores are those of its own Scorer, bit for bit.

        with speedqa.Ladder(1920, 1080, "420", 8, n_distorted=3) as lad:
            for ref, a, b, c in frames:
                for frame in lad.send(ref, [a, b, c]):   # one list per frame
                    print([r and r["speed_chroma_uv"] for r in frame])
            rest = lad.flush()

    A rendition that has ended is None in send (and stays None until
    flush); its entry in a frame's list is None.
    """

    def __init__(self, width, height, pix_fmt="420", bitdepth=8, n_distorted=2, **kw):
        if not 1 <= int(n_distorted) <= L.MAX_DISTORTED:
            raise _einval("n_distorted %r is outside 1..%d" % (n_distorted, L.MAX_DISTORTED))
        super().__init__(width, height, pix_fmt, bitdepth, n_distorted=n_distorted, **kw)

    def _receive_one(self, out):
        """One speedqa_receive of n streams: a frame's list (None for an ended stream)."""
        n = self.n_distorted
        sc = (L.Scores * n)()
        r = self._call(L.lib().speedqa_receive, self._ctx, sc, n, 0)
        if r == 0:
            out.append([self._result(sc[d]) if sc[d].count else None for d in range(n)])
        elif r not in (L.EAGAIN, L.EOF_CODE):
            raise self._error(r)
        return r

    def send(self, ref, dis):
        """Score one frame: ref and a list of n_distorted pictures (None: ended)."""
        self._check_open()
        if len(dis) != self.n_distorted:
            raise _einval("%d distorted pictures for a ladder of %d" % (len(dis), self.n_distorted))
        pref, keep_r = self._picture(ref, "ref")
        keep, ptrs = [keep_r], (ctypes.POINTER(L.Picture) * self.n_distorted)()
        pics = []
        for d, p in enumerate(dis):
            if p is None:
                continue
            pic, k = self._picture(p, "dis %d" % (d + 1))
            pics.append(pic)
            keep.append(k)
            ptrs[d] = ctypes.pointer(pic)
        lib = L.lib()
        out = []
        while True:
            r = self._call(lib.speedqa_send_ladder, self._ctx, ctypes.byref(pref), ptrs,
                           self.n_distorted)
            if r != L.EAGAIN:
                break
            self._receive_one(out)
        del keep, pics  # the library copied the planes (no release callback)
        if r < 0:
            raise self._error(r)
        return self._drain(out)
