"""Ladder: several renditions against one reference in one context. Apart
from the Scorer because its send and receive take a list per frame."""
from __future__ import annotations

import ctypes

from . import _lib as L
from ._error import _einval
from ._scorer import Scorer


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
