#!/usr/bin/env python3
"""meson test wrapper: runs the Python package's pytest suite (python/tests)
with this interpreter; exit 77 (skipped) when numpy or pytest is missing."""
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    tests = sys.argv[1]
    for mod in ("numpy", "pytest"):
        try:
            __import__(mod)
        except ImportError:
            print("%s is not importable by %s: skipped" % (mod, sys.executable))
            return 77
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    # pytest keeps its last three runs' files; a passing run here keeps none
    # (CI disks can be small), a failing one keeps them in the folder printed
    base = tempfile.mkdtemp(prefix="speedqa-pytest-")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", "--durations=5",
           "--basetemp", base, tests]
    print(" ".join(cmd), flush=True)
    rc = subprocess.call(cmd, env=env)
    if rc == 0:
        shutil.rmtree(base, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
