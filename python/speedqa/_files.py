"""Y4M and raw YUV readers (numpy.memmap) and score_files: the speedqa CLI's
JSON document from Python."""
import errno as _errno
import mmap
import os
import re
import time

import numpy as np

from . import _lib as L
from ._scorer import Error, Scorer, file_plane_shapes, parse_pix_fmt, pool, version

Y4M_MAGIC = b"YUV4MPEG2"
_MAX_LINE = 4096


def _ask_huge_pages(mm):
    """What the mapping reads in from storage is then cached in 2 MiB folios,
    each mapped with one page-table entry, as the CLI's mapping asks
    (tools/input/map.c). A hint: quietly skipped where not offered."""
    raw = getattr(mm, "_mmap", None)  # numpy.memmap's mmap.mmap
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if raw is not None and advice is not None and hasattr(raw, "madvise"):
        try:
            raw.madvise(advice)
        except OSError:
            pass


def _einval(msg):
    return Error(-_errno.EINVAL, msg)


def _parse_chroma(val):
    if val in ("420jpeg", "420paldv", "420mpeg2"):
        return L.PIX_420, 8
    if val == "444alpha":
        raise _einval("chroma 'C444alpha': alpha planes are not supported")
    m = re.fullmatch(r"(?:(420|422|444)(?:p(\d+))?|mono(\d*))", val)
    if m:
        fmt = {"420": L.PIX_420, "422": L.PIX_422, "444": L.PIX_444}[m.group(1)] \
            if m.group(1) else L.PIX_400
        depth = m.group(2) if m.group(1) else m.group(3)
        bpc = int(depth) if depth else 8
        if 8 < bpc <= 16 or (bpc == 8 and not depth):
            return fmt, bpc
    raise _einval("unknown chroma tag 'C%s' in Y4M header" % val)


class Video:
    """A Y4M or raw planar YUV file, mapped. frame(i) -> tuple of planes
    (numpy views of the file, file-sized chroma), or None past the end."""

    def __init__(self, path, width=None, height=None, pix_fmt=None, bitdepth=None):
        self.path = path
        self.fps = None
        self.interlace = None
        try:
            size = os.path.getsize(path)
            with open(path, "rb") as f:
                head = f.read(_MAX_LINE + 1)
        except OSError as e:
            raise Error(-(e.errno or _errno.EIO), "cannot open '%s': %s" % (path, e.strerror))
        self.size = size
        if head.startswith(Y4M_MAGIC):
            self.kind = "y4m"
            self._parse_y4m_header(head)
        else:
            if width is None or height is None or pix_fmt is None:
                raise _einval("'%s' is not Y4M; raw YUV needs width, height, pix_fmt and "
                              "bitdepth" % path)
            fmt, bpc = parse_pix_fmt(pix_fmt, bitdepth)
            if bpc is None:
                raise _einval("raw YUV '%s' needs bitdepth" % path)
            self.kind = "yuv"
            self.width, self.height, self.fmt, self.bpc = int(width), int(height), fmt, int(bpc)
            self.data_start = 0
        if not (1 <= self.width <= 65536 and 1 <= self.height <= 65536):
            raise _einval("'%s': size %dx%d outside 1..65536" % (path, self.width, self.height))
        if not 8 <= self.bpc <= 16:
            raise _einval("'%s': bit depth %d outside 8..16" % (path, self.bpc))
        self.dtype = np.dtype(np.uint8) if self.bpc == 8 else np.dtype("<u2")
        self.shapes = file_plane_shapes(self.width, self.height, self.fmt)
        isz = self.dtype.itemsize
        self.plane_bytes = [h * w * isz for h, w in self.shapes]
        self.frame_bytes = sum(self.plane_bytes)
        self._mm = np.memmap(path, dtype=np.uint8, mode="r") if size > 0 else None
        _ask_huge_pages(self._mm)
        self._offsets = []   # payload offset of each frame found so far
        self._next = self.data_start  # file offset of the next frame header
        self._end = False

    def _parse_y4m_header(self, head):
        nl = head.find(b"\n")
        if nl < 0:
            raise _einval("'%s': Y4M header line is not terminated" % self.path)
        line = head[:nl].decode("ascii", "replace")
        self.data_start = nl + 1
        w = h = 0
        fmt, bpc = L.PIX_420, 8
        for tok in line[len(Y4M_MAGIC):].split(" "):
            if not tok:
                continue
            t, val = tok[0], tok[1:]
            if t in "WH":
                if not val.isdigit() or not 1 <= int(val) <= 65536:
                    raise _einval("bad %s '%s' in Y4M header" % ("width" if t == "W" else
                                                                 "height", val))
                if t == "W":
                    w = int(val)
                else:
                    h = int(val)
            elif t == "F":
                m = re.fullmatch(r"(\d+):(\d+)", val)
                if not m:
                    raise _einval("bad frame rate 'F%s' in Y4M header" % val)
                n, d = int(m.group(1)), int(m.group(2))
                if d:
                    self.fps = n / d
            elif t == "C":
                fmt, bpc = _parse_chroma(val)
            elif t == "I":
                self.interlace = val[:1] if val[:1] in ("t", "b", "m") else None
            # A (aspect), X (extensions) and unknown tags carry nothing we use
        if not w:
            raise _einval("Y4M header has no W (width) tag")
        if not h:
            raise _einval("Y4M header has no H (height) tag")
        self.width, self.height, self.fmt, self.bpc = w, h, fmt, bpc

    def _find(self, i):
        """Locate frames up to i; False when the file ends before it."""
        while len(self._offsets) <= i and not self._end:
            n = len(self._offsets)
            off = self._next
            if off >= self.size:
                self._end = True
                break
            if self.kind == "y4m":
                line = bytes(self._mm[off:off + _MAX_LINE + 1])
                nl = line.find(b"\n")
                if not line.startswith(b"FRAME") or nl < 0 or \
                        (nl > 5 and line[5:6] != b" "):
                    raise _einval("'%s': bad FRAME marker at frame %d" % (self.path, n))
                off += nl + 1
            if off + self.frame_bytes > self.size:
                raise _einval("'%s': truncated frame %d: got %d of %d bytes"
                              % (self.path, n, max(self.size - off, 0), self.frame_bytes))
            self._offsets.append(off)
            self._next = off + self.frame_bytes
        return len(self._offsets) > i

    def count(self):
        """Number of frames (reads every FRAME header of a Y4M)."""
        i = len(self._offsets)
        while self._find(i):
            i += 1
        return len(self._offsets)

    def frame(self, i):
        if not self._find(i):
            return None
        off = self._offsets[i]
        planes = []
        for (h, w), nbytes in zip(self.shapes, self.plane_bytes):
            planes.append(np.ndarray((h, w), dtype=self.dtype, buffer=self._mm, offset=off))
            off += nbytes
        if self.dtype.itemsize == 2 and not np.little_endian:
            planes = [p.astype("=u2") for p in planes]
        return tuple(planes)

    @property
    def pix_fmt(self):
        return L.lib().speedqa_pix_fmt_name(self.fmt).decode()

    def close(self):
        self._mm = None


def open_video(path, width=None, height=None, pix_fmt=None, bitdepth=None):
    return Video(path, width, height, pix_fmt, bitdepth)


def format_value(v, precision="legacy"):
    """A score as the CLI prints it, read back: %.6f (legacy) or %.17g (max)."""
    if v is None or not np.isfinite(v):
        return None
    if precision == "max":
        return float("%.17g" % v)
    if precision == "legacy":
        return float("%.6f" % v)
    raise _einval("precision %r is not legacy or max" % (precision,))


def _features_list(features):
    if features is None:
        return None
    if isinstance(features, str):
        features = [f for f in features.split(";") if f.strip()] if ";" in features \
            else [features]
    features = [f.strip() for f in features if f and f.strip()]
    return features or None


def open_pair(ref, dis, width=None, height=None, pix_fmt=None, bitdepth=None):
    r = open_video(ref, width, height, pix_fmt, bitdepth)
    d = open_video(dis, width, height, pix_fmt, bitdepth)
    if (r.width, r.height, r.fmt, r.bpc) != (d.width, d.height, d.fmt, d.bpc):
        raise _einval("reference is %dx%d %s %d-bit, distorted is %dx%d %s %d-bit"
                      % (r.width, r.height, r.pix_fmt, r.bpc, d.width, d.height, d.pix_fmt,
                         d.bpc))
    return r, d


def score_range(ref, dis, features=None, backend="cpu", threads=1, start=0, stop=None,
                width=None, height=None, pix_fmt=None, bitdepth=None, device=None):
    """Raw scores of frames [start, stop) (stop None: to the end both have).
    Scoring starts at start - 1 (its result dropped) so that speed_temporal
    sees the previous frame, as in one pass. Returns (names, frame numbers,
    rows of values), values unrounded."""
    r, d = open_pair(ref, dis, width, height, pix_fmt, bitdepth)
    first = max(start - 1, 0)
    values, nums = [], []
    # a worker scores task after task: each later Scorer finds the device context
    with Scorer(r.width, r.height, r.fmt, r.bpc, features=_features_list(features),
                backend=backend, threads=threads, device=device, keep_device=True) as s:
        def take(results):
            for res in results:
                n = first + res["frame"]
                if n >= start:
                    nums.append(n)
                    values.append([res[k] for k in s.names])
        i = first
        while stop is None or i < stop:
            fr = r.frame(i)
            if fr is None:
                break
            fd = d.frame(i)
            if fd is None:
                break
            # views of read-only mappings: lent with threads (read in place: 1.22x
            # as fast at 2 threads, 1080p, bench/py_lend.py); one thread scores
            # inside send, where the library's own compact copy is 3% faster
            take(s.send(fr, fd, lend=int(threads) > 1))
            i += 1
        take(s.flush())
        names = list(s.names)
    r.close()
    d.close()
    return names, nums, values


def pooled(names, values):
    """{name: pool dict} from raw rows, with speedqa_pool (zeros for no frames,
    as the CLI writes)."""
    out = {}
    arr = np.asarray(values, dtype=np.float64).reshape(len(values), len(names))
    for k, name in enumerate(names):
        if len(values):
            out[name] = pool(arr[:, k])
        else:
            out[name] = {"min": 0.0, "max": 0.0, "mean": 0.0, "harmonic_mean": 0.0}
    return out


def document(names, nums, values, precision="legacy", fps=None):
    """The vmaf JSON document (as the CLI's --json writes it, parsed)."""
    fv = lambda v: format_value(v, precision)  # noqa: E731
    frames = [{"frameNum": n, "metrics": {name: fv(v) for name, v in zip(names, row)}}
              for n, row in zip(nums, values)]
    pm = {name: {k: fv(v) for k, v in p.items()}
          for name, p in pooled(names, values).items()}
    return {"version": version(), "fps": None if fps is None else round(fps, 2),
            "frames": frames, "pooled_metrics": pm, "aggregate_metrics": {}}


def score_files(ref, dis, features=None, backend="cpu", threads=1, width=None, height=None,
                pix_fmt=None, bitdepth=None, frame_cnt=0, precision="legacy", device=None):
    """Score two Y4M (or raw .yuv: give width, height, pix_fmt, bitdepth)
    files; returns the document `speedqa -r REF -d DIS --json --precision P`
    writes, as json.load reads it (fps is this run's)."""
    format_value(0.0, precision)  # validate early
    t0 = time.monotonic()
    names, nums, values = score_range(ref, dis, features, backend, threads, 0,
                                      frame_cnt if frame_cnt else None, width, height,
                                      pix_fmt, bitdepth, device)
    el = time.monotonic() - t0
    return document(names, nums, values, precision, len(nums) / el if el > 0 else 0.0)
