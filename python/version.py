#!/usr/bin/env python3
"""The Python package's version against meson.build's project() version.

  version.py write VERSION SRC OUT   SRC (speedqa/_version.py) with VERSION in it, as OUT
  version.py check VERSION PYDIR     fails (1) unless PYDIR/speedqa/_version.py says VERSION
                                     and PYDIR/pyproject.toml takes its version from there

A pip install of python/ sees only that folder, so its _version.py must be
kept equal to meson.build's by hand; this check is what makes a bump that
forgets it fail."""
import ast
import re
import sys

LINE = re.compile(r'^__version__ = "[^"]*"$', re.M)


def file_version(path):
    for node in ast.parse(open(path).read()).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == \
                ["__version__"] and isinstance(node.value, ast.Constant):
            return node.value.value
    return None


def main(argv):
    if len(argv) == 5 and argv[1] == "write":
        text, n = LINE.subn('__version__ = "%s"' % argv[2], open(argv[3]).read())
        if n != 1:
            sys.exit("%s: no single __version__ line" % argv[3])
        open(argv[4], "w").write(text)
        return 0
    if len(argv) != 4 or argv[1] != "check":
        sys.exit(__doc__)
    want, pydir = argv[2], argv[3]
    errors = []
    got = file_version(pydir + "/speedqa/_version.py")
    if got != want:
        errors.append("python/speedqa/_version.py says %r, meson.build's project() %r: "
                      "write %r there" % (got, want, want))
    toml = open(pydir + "/pyproject.toml").read()
    if not re.search(r'^dynamic = \["version"\]', toml, re.M) or \
            'attr = "speedqa._version.__version__"' not in toml:
        errors.append("python/pyproject.toml must take its version from speedqa._version "
                      "(dynamic), not write one of its own")
    if re.search(r"^version\s*=", toml.split("[tool.setuptools.dynamic]")[0], re.M):
        errors.append("python/pyproject.toml writes a version of its own")
    for e in errors:
        print(e)
    if not errors:
        print("python package version %s == meson.build's" % want)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
