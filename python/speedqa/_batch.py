"""speedqa --batch from Python: the C tool's batch (ladders, threads, --resume), one call."""
import json
import os
import shutil
import subprocess

from ._scorer import Error


def batch(manifest, results, threads=1, backend="cpu", resume=False, precision="legacy",
          device=None, cli=None, extra=()):
    """Run `speedqa --batch MANIFEST -o RESULTS` (the CLI at cli, $SPEEDQA_CLI or on PATH).

    Returns (exit code, the result lines as dicts in manifest order): 0 when every
    pair was scored, the worst pair's exit code otherwise (its line has "error").
    Raises Error when the batch itself could not run (a bad manifest, no CLI).
    """
    exe = cli or os.environ.get("SPEEDQA_CLI") or shutil.which("speedqa")
    if not exe:
        raise Error(-2, "speedqa --batch needs the speedqa tool (SPEEDQA_CLI or PATH)")
    cmd = [exe, "--batch", str(manifest), "-o", str(results), "--threads", str(threads),
           "--backend", backend, "--precision", precision, "-q"]
    if resume:
        cmd.append("--resume")
    if device is not None:
        cmd += ["--device", str(device)]
    p = subprocess.run(cmd + list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode in (1, 2, 4, 5) and not os.path.exists(results):
        raise Error(-22, p.stderr.decode("utf-8", "replace").strip() or "speedqa --batch failed")
    with open(results) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    return p.returncode, lines
