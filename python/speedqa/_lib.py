"""ctypes mirror of include/speedqa/speedqa.h and the loaded library."""
import ctypes
import ctypes.util
import errno as _errno
import os
import threading

MAX_SCORES = 32
MAX_DISTORTED = 16
EOF_CODE = -_errno.ENODATA  # SPEEDQA_EOF
EAGAIN = -_errno.EAGAIN

PIX_400, PIX_420, PIX_422, PIX_444 = 0, 1, 2, 3
MEM_HOST, MEM_CUDA = 0, 1
BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2, "hip": 3, "opencl": 4}
LOG_ERROR, LOG_WARNING, LOG_INFO, LOG_DEBUG = 0, 1, 2, 3


class Format(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int),
                ("fmt", ctypes.c_int), ("bpc", ctypes.c_int)]


Release = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
Logger = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)
AllocFn = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
FreeFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)


class Picture(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p * 3),
                ("stride", ctypes.c_ssize_t * 3),
                ("format", Format),
                ("memory", ctypes.c_int),
                ("release", Release),
                ("release_opaque", ctypes.c_void_p),
                ("layout", ctypes.c_int),
                ("msb_aligned", ctypes.c_int)]


class Settings(ctypes.Structure):
    _fields_ = [("ref", Format), ("dis", Format),
                ("features", ctypes.POINTER(ctypes.c_char_p)),
                ("n_threads", ctypes.c_int),
                ("backend", ctypes.c_int),
                ("device", ctypes.c_int),
                ("device_name", ctypes.c_char_p),
                ("cpu_mask", ctypes.c_uint),
                ("logger", Logger),
                ("log_cookie", ctypes.c_void_p),
                ("log_level", ctypes.c_int),
                ("alloc", AllocFn),
                ("free", FreeFn),
                ("alloc_opaque", ctypes.c_void_p),
                ("n_distorted", ctypes.c_int),
                ("keep_device", ctypes.c_int),
                ("gpu_batch", ctypes.c_int),
                ("opencl_soft_f64", ctypes.c_int),
                ("reserved", ctypes.c_uint8 * 48)]


class Scores(ctypes.Structure):
    _fields_ = [("frame", ctypes.c_uint), ("sequence", ctypes.c_uint),
                ("sequence_frame", ctypes.c_uint), ("count", ctypes.c_int),
                ("undefined", ctypes.c_uint32),
                ("values", ctypes.c_double * MAX_SCORES)]


class Pooled(ctypes.Structure):
    _fields_ = [("min", ctypes.c_double), ("max", ctypes.c_double),
                ("mean", ctypes.c_double), ("harmonic_mean", ctypes.c_double)]


# Sizes on LP64 (checked against the C header by the tests).
assert ctypes.sizeof(Format) == 16
if ctypes.sizeof(ctypes.c_void_p) == 8:
    assert ctypes.sizeof(Picture) == 96
    assert ctypes.sizeof(Settings) == 184
assert ctypes.sizeof(Scores) == 24 + 8 * MAX_SCORES
assert ctypes.sizeof(Pooled) == 32

_lib = None
_lock = threading.Lock()


def _candidates():
    env = os.environ.get("SPEEDQA_LIB")
    if env:
        return [env]
    names = []
    from ._io import _libdirs
    d = _libdirs()
    if d and os.path.exists(os.path.join(d[0], "libspeedqa.so.0")):
        names.append(os.path.join(d[0], "libspeedqa.so.0"))  # meson install's own record
    found = ctypes.util.find_library("speedqa")
    if found:
        names.append(found)
    names += ["libspeedqa.so.0", "libspeedqa.so", "libspeedqa.dylib", "speedqa.dll"]
    return names + [os.path.join(x, "libspeedqa.so.0") for x in d[1:]]


def _declare(lib):
    P = ctypes.POINTER
    c_int, c_void_p, c_char_p = ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p
    sigs = {
        "speedqa_version": (c_char_p, []),
        "speedqa_version_int": (ctypes.c_uint, []),
        "speedqa_pix_fmt_name": (c_char_p, [c_int]),
        "speedqa_check_features": (c_int, [P(c_char_p), c_char_p, ctypes.c_size_t]),
        "speedqa_strerror": (c_char_p, [c_int]),
        "speedqa_default_settings": (None, [P(Settings)]),
        "speedqa_open": (c_int, [P(c_void_p), P(Settings)]),
        "speedqa_score_count": (c_int, [c_void_p]),
        "speedqa_score_name": (c_char_p, [c_void_p, c_int]),
        "speedqa_backend_name": (c_char_p, [c_void_p]),
        "speedqa_send": (c_int, [c_void_p, P(Picture), P(Picture)]),
        "speedqa_receive": (c_int, [c_void_p, P(Scores)]),
        "speedqa_send_ladder": (c_int, [c_void_p, P(Picture), P(P(Picture)), c_int]),
        "speedqa_receive_ladder": (c_int, [c_void_p, P(Scores), c_int]),
        "speedqa_receive_wait": (c_int, [c_void_p, P(Scores), c_int]),
        "speedqa_flush": (c_int, [c_void_p]),
        "speedqa_list_devices": (c_int, [c_int, c_char_p, ctypes.c_size_t]),
        "speedqa_pool": (c_int, [P(ctypes.c_double), ctypes.c_size_t, ctypes.c_ssize_t,
                                 P(Pooled)]),
        "speedqa_close": (None, [P(c_void_p)]),
        "speedqa_rows_read": (c_int, [c_void_p, c_int, P(ctypes.c_uint8), c_int]),
    }
    # newer than some libraries it may load
    optional = ("speedqa_rows_read", "speedqa_receive_wait")
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name, None)
        if fn is None and name in optional:
            continue
        fn = fn if fn is not None else getattr(lib, name)
        fn.restype = res
        fn.argtypes = args


def load_first(candidates, declare, what):
    """The first of candidates that loads, declared; OSError naming what otherwise."""
    errors = []
    for name in candidates:
        try:
            handle = ctypes.CDLL(name)
        except OSError as e:
            errors.append(str(e))
            continue
        declare(handle)
        return handle
    raise OSError("cannot load %s: %s" % (what, "; ".join(errors[:3])))


def lib():
    """The loaded libspeedqa (SPEEDQA_LIB, else the system's)."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                _lib = load_first(_candidates(), _declare,
                                  "libspeedqa (set SPEEDQA_LIB to its path)")
    return _lib
