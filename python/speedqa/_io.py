"""ctypes binding of include/speedqa/speedqa_io.h (libspeedqa_io): the CLI's
readers, manifests, report and result-line writers, number format and batch
runner. Nothing here parses a video, a manifest or formats a number."""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from typing import List, Optional, Sequence, Tuple

from . import _lib as _L
from ._error import Error

_lib = None
_lock = threading.Lock()
ERR_LEN = 1200


class Report(ctypes.Structure):
    _fields_ = [("exit", ctypes.c_int), ("error", ctypes.c_char * ERR_LEN),
                ("text", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class Format(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int),
                ("fmt", ctypes.c_int), ("bpc", ctypes.c_int)]


class VideoInfo(ctypes.Structure):
    _fields_ = [("format", Format), ("fps_num", ctypes.c_int), ("fps_den", ctypes.c_int),
                ("frames", ctypes.c_longlong), ("reader", ctypes.c_char * 8),
                ("frame_bytes", ctypes.c_size_t)]


Exec = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                        ctypes.POINTER(ctypes.c_int), ctypes.c_int)


def _libdirs() -> List[str]:
    """Where an installed libspeedqa_io may lie: the install's own record
    (_paths.py, written by meson install), then the usual prefixes."""
    dirs = []
    try:
        from . import _paths  # type: ignore[attr-defined]
        dirs.append(_paths.LIBDIR)
    except ImportError:
        pass
    multiarch = getattr(sys.implementation, "_multiarch", "")
    for prefix in (sys.prefix, "/usr/local", "/usr"):
        if multiarch:
            dirs.append(os.path.join(prefix, "lib", multiarch))
        dirs += [os.path.join(prefix, "lib64"), os.path.join(prefix, "lib")]
    return dirs


def _candidates() -> List[str]:
    env = os.environ.get("SPEEDQA_IO_LIB")
    if env:
        return [env]
    names = []
    core = os.environ.get("SPEEDQA_LIB")
    if core:  # a build tree: the I/O library lies in tools/ next to src/
        d = os.path.dirname(os.path.abspath(core))
        names += [os.path.join(d, "libspeedqa_io.so.0"),
                  os.path.join(os.path.dirname(d), "tools", "libspeedqa_io.so.0")]
    found = ctypes.util.find_library("speedqa_io")
    if found:
        names.append(found)
    names.append("libspeedqa_io.so.0")
    names += [os.path.join(d, "libspeedqa_io.so.0") for d in _libdirs()]
    return names


def _declare(lib) -> None:
    P, c_int, c_char_p, c_void_p = ctypes.POINTER, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p
    size_t, buf = ctypes.c_size_t, ctypes.c_char_p
    sigs = {
        "speedqa_io_new": (c_int, [P(c_void_p), c_int, P(c_char_p), buf, size_t]),
        "speedqa_io_free": (None, [P(c_void_p)]),
        "speedqa_io_score": (c_int, [c_void_p, P(Report), c_int]),
        "speedqa_io_reports_free": (None, [P(Report), c_int]),
        "speedqa_io_format_value": (c_char_p, [buf, size_t, ctypes.c_double, c_int]),
        "speedqa_io_batch": (c_int, [c_void_p, P(c_void_p), P(size_t), buf, size_t]),
        "speedqa_io_batch_pairs": (c_int, [c_void_p, P(c_int), c_int, P(c_void_p), P(size_t),
                                           buf, size_t]),
        "speedqa_io_batch_exec": (c_int, [c_void_p, Exec, c_void_p, P(c_void_p), P(size_t),
                                          buf, size_t]),
        "speedqa_io_batch_deliver": (c_int, [c_void_p, P(c_int), c_int, c_char_p, c_int]),
        "speedqa_io_manifest_load": (c_int, [P(c_void_p), c_char_p, buf, size_t]),
        "speedqa_io_manifest_count": (c_int, [c_void_p]),
        "speedqa_io_manifest_get": (c_char_p, [c_void_p, c_int, c_char_p]),
        "speedqa_io_manifest_line": (c_int, [c_void_p, c_int]),
        "speedqa_io_manifest_free": (None, [P(c_void_p)]),
        "speedqa_io_video_open": (c_int, [P(c_void_p), c_char_p, c_void_p, P(VideoInfo), buf,
                                          size_t]),
        "speedqa_io_video_read": (c_int, [c_void_p, c_void_p, size_t, buf, size_t]),
        "speedqa_io_video_close": (None, [P(c_void_p)]),
        "speedqa_io_free_buf": (None, [c_void_p]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args


def lib():
    """The loaded libspeedqa_io."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                _lib = _L.load_first(_candidates(), _declare, "libspeedqa_io (install speedqa, "
                                     "or set SPEEDQA_IO_LIB to its path)")
    return _lib


def fs(path) -> bytes:
    return os.fsencode(os.fspath(path))


def text(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def lines_text(b: bytes) -> str:
    """Result lines as text that encodes back to the same bytes (paths need not be UTF-8)."""
    return b.decode("utf-8", "surrogateescape")


class Io:
    """The CLI's flags, parsed by the CLI's parser (exit 2 raises Error)."""

    def __init__(self, args: Sequence[str]):
        argv = [a if isinstance(a, bytes) else fs(a) if isinstance(a, os.PathLike) else
                str(a).encode() for a in args]
        arr = (ctypes.c_char_p * max(1, len(argv)))(*argv)
        err = ctypes.create_string_buffer(ERR_LEN)
        self.h = ctypes.c_void_p()
        r = lib().speedqa_io_new(ctypes.byref(self.h), len(argv), arr, err, ERR_LEN)
        if r:
            raise Error(-22, text(err.value), r)

    def close(self) -> None:
        if getattr(self, "h", None):
            lib().speedqa_io_free(ctypes.byref(self.h))

    def __enter__(self) -> "Io":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def take(ptr: ctypes.c_void_p, n: ctypes.c_size_t) -> str:
    """A buffer the library malloc'd, as text, freed."""
    if not ptr.value:
        return ""
    try:
        return lines_text(ctypes.string_at(ptr.value, n.value))
    finally:
        lib().speedqa_io_free_buf(ptr)


def int_array(values: Sequence[int]):
    return (ctypes.c_int * max(1, len(values)))(*values)


class keep_signals:
    """The C layer's report files install the CLI's handlers (remove the
    temporary file, then die by the signal) for SIGINT, SIGTERM, SIGHUP and
    SIGQUIT; the interpreter gets its own back when the call returns."""

    NAMES = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")

    def __enter__(self):
        self.saved = []
        if threading.current_thread() is threading.main_thread():
            for name in self.NAMES:
                sig = getattr(signal, name, None)
                if sig is not None:
                    self.saved.append((sig, signal.getsignal(sig)))
        return self

    def __exit__(self, *exc):
        for sig, handler in self.saved:
            if handler is not None:
                signal.signal(sig, handler)


def batch_call(fn, *args) -> Tuple[int, str, str]:
    """Runs a speedqa_io_batch* function: (exit code, lines text, error line)."""
    ptr, n = ctypes.c_void_p(), ctypes.c_size_t()
    err = ctypes.create_string_buffer(ERR_LEN)
    with keep_signals():
        r = fn(*args, ctypes.byref(ptr), ctypes.byref(n), err, ERR_LEN)
    return r, take(ptr, n), text(err.value)
