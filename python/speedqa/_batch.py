"""speedqa --batch from Python: the CLI's batch runner in libspeedqa_io."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _io
from ._files import common_flags
from ._error import Error


def batch(manifest: Union[str, "os.PathLike[str]"], results: Optional[Union[str, "os.PathLike[str]"]],
          threads: int = 1, backend: str = "cpu", resume: bool = False, precision: str = "max",
          device=None, features=None, extra: Sequence[str] = (), model=None,
          no_prediction: bool = False) -> Tuple[int, List[Dict[str, Any]]]:
    """`speedqa --batch MANIFEST -o RESULTS` in this process (same results
    file, --resume, pair reports, exit codes). Returns (exit code, the
    result lines this run wrote, as dicts, in manifest order): 0 when every
    pair was scored, the worst pair's exit code otherwise (its line has
    "error"). A run that wrote no line (a bad manifest, an output clash, an
    unwritable results file) raises Error with the CLI's line and exit code;
    never a previous run's lines. model / no_prediction: --model (a str or a
    list of str in its syntax) and -n, as score_files takes them; a pair's
    manifest model column overrides model."""
    args = ["--batch", os.fspath(manifest), "-q"]  # no summary line on the caller's stderr
    if results is not None:
        args += ["-o", os.fspath(results)]
    if resume:
        args.append("--resume")
    args += common_flags(features, backend, threads, 0, precision, device, extra, model,
                         no_prediction)
    with _io.Io(args) as io:
        r, text, line = _io.batch_call(_io.lib().speedqa_io_batch, io.h)
    lines = [json.loads(ln) for ln in text.splitlines() if ln.strip()]
    if r and not lines:
        raise Error(-5 if r == 3 else -22, line or "speedqa --batch failed", r)
    return r, lines
