"""Error, and the integer check every entry point makes before ctypes:
apart from the Scorer because files, manifests and batches raise and
check them too."""
from __future__ import annotations

import errno as _errno
from typing import Any, Optional

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
            2 if -code in (_errno.EINVAL, _errno.ERANGE, _errno.ENOTSUP, _errno.EEXIST) else 4 if -code in (
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
