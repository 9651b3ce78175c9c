#!/usr/bin/env python3
"""meson test wrapper: runs the Python package's pytest suite (python/tests)
with this interpreter; exit 77 (skipped) when numpy or pytest is missing."""
import os
import subprocess
import sys


def main():
    tests = sys.argv[1]
    for mod in ("numpy", "pytest"):
        try:
            __import__(mod)
        except ImportError:
            print("%s is not importable by %s: skipped" % (mod, sys.executable))
            return 77
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", "--durations=5", tests]
    print(" ".join(cmd), flush=True)
    return subprocess.call(cmd, env=env)


if __name__ == "__main__":
    sys.exit(main())
