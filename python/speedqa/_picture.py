"""Picture conversion: a frame argument (numpy planes, a 3-plane array, CUDA
arrays) as the library's SpeedqaPicture, with the pixel-format names and
plane shapes it is checked against. Apart from the Scorer because it is
the part that grows with each kind of array a caller hands in."""
from __future__ import annotations

import ctypes
import errno as _errno
import re
from typing import Optional, Tuple, Union

import numpy as np

from . import _lib as L
from ._error import Error, _einval


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


def _release_callback(lent):
    """The release callback of lent pictures: drops the planes kept under the
    token (any thread; it holds the dict, not the Scorer)."""
    def release(opaque, data0):
        lent.pop(opaque or 0, None)
    return L.Release(release)



class _Pictures:
    """The Scorer's picture conversion. Reads what Scorer.__init__ sets:
    width, height, fmt, bitdepth, pix_fmt, _shapes, _max_shapes, _dtype,
    _cuda_dtypes, _cuda_sync and _format."""

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
