"""Batch manifests (the CSV and JSON-lines formats of `speedqa --batch`),
read by the CLI's own reader through libspeedqa_io: one set of rules, so
Python and the CLI always see the same pairs (a key or column given twice is
refused by both, naming the file and line)."""
from __future__ import annotations

import ctypes
import os
from typing import Dict, List, Optional, Union

from . import _io


class ManifestError(ValueError):
    """A manifest `speedqa --batch` refuses: str() is its one line; exit_code 2."""

    exit_code = 2


def read_manifest(path: Union[str, "os.PathLike[str]"]) -> List[Dict[str, Optional[str]]]:
    """The pairs of a manifest, in order: dicts with ref, dis, output (None
    when none), features (';'-joined, "" for the default pair), model
    (';'-joined --model values, "" for the command's --model) and line."""
    h, err = ctypes.c_void_p(), ctypes.create_string_buffer(_io.ERR_LEN)
    L = _io.lib()
    r = L.speedqa_io_manifest_load(ctypes.byref(h), _io.fs(path), err, _io.ERR_LEN)
    if r:
        if r != 2:
            raise MemoryError(_io.text(err.value))
        raise ManifestError(_io.text(err.value))
    try:
        out = []
        for i in range(L.speedqa_io_manifest_count(h)):
            get = lambda k: L.speedqa_io_manifest_get(h, i, k)  # noqa: E731
            o = get(b"output")
            out.append({"ref": os.fsdecode(get(b"ref")), "dis": os.fsdecode(get(b"dis")),
                        "output": os.fsdecode(o) if o is not None else None,
                        "features": _io.text(get(b"features")),
                        "model": _io.text(get(b"model")),
                        "line": L.speedqa_io_manifest_line(h, i)})
        return out
    finally:
        L.speedqa_io_manifest_free(ctypes.byref(h))
