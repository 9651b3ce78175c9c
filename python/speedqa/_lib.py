"""ctypes mirror of include/speedqa/speedqa.h and the loaded library."""
import ctypes
import ctypes.util
import errno as _errno
import os
import threading

# The library this mirror is written for: speedqa.h of 0.2 (its soname
# carries the minor version while it is 0.x: the structs may change with it).
VERSION_MAJOR, VERSION_MINOR = 0, 2
SONAME = "libspeedqa.so.%d.%d" % (VERSION_MAJOR, VERSION_MINOR)
MAX_DISTORTED = 16
RECEIVE_WAIT = 1  # SPEEDQA_RECEIVE_WAIT
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
                ("msb_aligned", ctypes.c_int),
                ("reserved", ctypes.c_uint8 * 32)]


class CudaSettings(ctypes.Structure):
    _fields_ = [("keep_device", ctypes.c_int),
                ("reserved", ctypes.c_uint8 * 28)]


class OpenclSettings(ctypes.Structure):
    _fields_ = [("soft_f64", ctypes.c_int),
                ("reserved", ctypes.c_uint8 * 28)]


class Settings(ctypes.Structure):
    _fields_ = [("format", Format),
                ("features", ctypes.POINTER(ctypes.c_char_p)),
                ("n_threads", ctypes.c_int),
                ("backend", ctypes.c_int),
                ("n_distorted", ctypes.c_int),
                ("cpu_mask", ctypes.c_uint),
                ("device", ctypes.c_int),
                ("device_name", ctypes.c_char_p),
                ("gpu_batch", ctypes.c_int),
                ("log_level", ctypes.c_int),
                ("logger", Logger),
                ("log_cookie", ctypes.c_void_p),
                ("alloc", AllocFn),
                ("free", FreeFn),
                ("alloc_opaque", ctypes.c_void_p),
                ("cuda", CudaSettings),
                ("opencl", OpenclSettings),
                ("reserved", ctypes.c_uint8 * 88)]


class Scores(ctypes.Structure):
    # values and undefined point into the context until its next receive
    _fields_ = [("frame", ctypes.c_uint), ("sequence", ctypes.c_uint),
                ("sequence_frame", ctypes.c_uint), ("count", ctypes.c_int),
                ("values", ctypes.POINTER(ctypes.c_double)),
                ("undefined", ctypes.POINTER(ctypes.c_uint8)),
                ("reserved", ctypes.c_uint8 * 32)]


class Pooled(ctypes.Structure):
    _fields_ = [("min", ctypes.c_double), ("max", ctypes.c_double),
                ("mean", ctypes.c_double), ("harmonic_mean", ctypes.c_double),
                ("reserved", ctypes.c_double * 4)]


# Sizes on LP64 (checked against the C header by the tests).
assert ctypes.sizeof(Format) == 16
assert ctypes.sizeof(CudaSettings) == ctypes.sizeof(OpenclSettings) == 32
if ctypes.sizeof(ctypes.c_void_p) == 8:
    assert ctypes.sizeof(Picture) == 128
    assert ctypes.sizeof(Settings) == 256
    assert ctypes.sizeof(Scores) == 64
assert ctypes.sizeof(Pooled) == 64

_lib = None
_lock = threading.Lock()


def _candidates():
    env = os.environ.get("SPEEDQA_LIB")
    if env:
        return [env]
    names = []
    from ._io import _libdirs
    d = _libdirs()
    if d and os.path.exists(os.path.join(d[0], SONAME)):
        names.append(os.path.join(d[0], SONAME))  # meson install's own record
    found = ctypes.util.find_library("speedqa")
    if found:
        names.append(found)
    names += [SONAME, "libspeedqa.so", "libspeedqa.dylib", "speedqa.dll"]
    return names + [os.path.join(x, SONAME) for x in d[1:]]


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
        "speedqa_receive": (c_int, [c_void_p, P(Scores), c_int, ctypes.c_uint]),
        "speedqa_send_ladder": (c_int, [c_void_p, P(Picture), P(P(Picture)), c_int]),
        "speedqa_auto_threads": (c_int, []),
        "speedqa_flush": (c_int, [c_void_p]),
        "speedqa_list_devices": (c_int, [c_int, c_char_p, ctypes.c_size_t]),
        "speedqa_pool": (c_int, [P(ctypes.c_double), ctypes.c_size_t, ctypes.c_ssize_t,
                                 P(Pooled)]),
        "speedqa_close": (None, [P(c_void_p)]),
        "speedqa_rows_read": (c_int, [c_void_p, c_int, P(ctypes.c_uint8), c_int]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    # the structs above are this minor version's: another 0.x library has others
    v = lib.speedqa_version_int()
    if (v >> 16, v >> 8 & 255) != (VERSION_MAJOR, VERSION_MINOR):
        raise OSError("libspeedqa %s is not the %d.%d this package mirrors"
                      % (lib.speedqa_version().decode(), VERSION_MAJOR, VERSION_MINOR))


def load_first(candidates, declare, what):
    """The first of candidates that loads, declared; OSError naming what otherwise."""
    errors = []
    for name in candidates:
        try:
            handle = ctypes.CDLL(name)
            declare(handle)  # a library of another version is refused: try the next
        except (OSError, AttributeError) as e:
            errors.append(str(e))
            continue
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
