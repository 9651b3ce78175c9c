#!/usr/bin/env python3
"""The constants of simd/vif_terms_tmpl.h's vi_logd (VIF's log2 table computed
instead of read) and the margin they must keep: for each 16th j of [1, 2),
c_j, the double nearest 1 / (1 + (2j + 1) / 32), and 15 - log2 c_j; a
degree-4 Chebyshev fit of log2 (1 + r) on |r| <= 0.0304 (its constant term,
~1e-38, left out) and its error; and, over i in [2^15, 2^16), the
smallest distance from log2 i to the ends of the interval of doubles that
round (to float, then 2048 f rounded half away) to the table's entry.
Needs python3-mpmath (Debian). Prints C hex literals."""
import math
import struct

import mpmath

mpmath.mp.prec = 200


def f32(x):
    return struct.unpack("f", struct.pack("f", float(x)))[0]


def main():
    inv = [float(1 / (1 + mpmath.mpf(2 * j + 1) / 32)) for j in range(16)]
    t15 = [float(15 - mpmath.log(mpmath.mpf(c), 2)) for c in inv]
    poly, err = mpmath.chebyfit(lambda r: mpmath.log(1 + r, 2), [-0.0304, 0.0304], 5, error=True)
    cf = [float(c) for c in reversed(poly[:-1])]
    for name, vals in (("inv", inv), ("t15", t15), ("cf", cf)):
        print(name, ", ".join(v.hex() for v in vals))
    margin, arg = math.inf, None
    for i in range(1 << 15, 1 << 16):
        log = mpmath.log(i, 2)
        entry = math.floor(2048 * f32(log) + 0.5)
        half_ulp = 2.0 ** -21  # of a float in [8, 16)
        lo, hi = (entry - 0.5) / 2048 - half_ulp, (entry + 0.5) / 2048 - half_ulp
        d = float(min(abs(log - lo), abs(log - hi)))
        if d < margin:
            margin, arg = d, i
    print("margin %.3g (i = %d); the fit's error %.3g" % (margin, arg, float(err)))


if __name__ == "__main__":
    main()
