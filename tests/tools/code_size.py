#!/usr/bin/env python3
"""Fails when a file under SRC has more than 500 lines or a C function more than 120.

Files: every .c/.h/.cu/.hip/.cl/.def/.py/meson.build under SRC, by line count.
Functions: in .c/.h/.cu/.hip files, a top-level brace block whose opening
line (or the lines just before it) reads like a function head, i.e. ends in
`)` before the `{`, and is not a struct, union, enum, array or macro body;
its length runs from the head's first line to the closing brace. Comments,
strings and character literals are blanked first so that their braces do
not count; preprocessor lines are skipped.

Usage: code_size.py [--files-only] [--except REL]... DIR...
--files-only: file sizes only (tools/ and python/ are held to the file
limit; their functions are not checked). --except REL: a file (relative to
its DIR) known to be over the file limit for now; once it is not, it fails
too, so that the list does not outlive it.
"""
import os
import re
import sys

MAX_FILE, MAX_FN = 500, 120
C_EXT = (".c", ".h", ".cu", ".hip")
ALL_EXT = C_EXT + (".cl", ".def", ".py")
TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def blank(text):
    """Comments and literals replaced by spaces, newlines kept."""
    return TOKEN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def functions(text):
    """(name, first line, length) of each top-level function body."""
    lines = blank(text).split("\n")
    out, depth, head_start, start = [], 0, None, None
    cont = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if cont or (depth == 0 and stripped.startswith("#")):
            cont = stripped.endswith("\\")
            continue
        if depth == 0 and stripped and head_start is None:
            head_start = i
        for ch in line:
            if ch == "{":
                if depth == 0:
                    head = " ".join(lines[head_start if head_start is not None else i:i + 1])
                    head = head[:head.rfind("{")].strip()
                    m = re.search(r"(\w+)\s*\([^;]*\)\s*(?:const\s*)?$", head)
                    is_fn = (m and not re.search(r"\b(struct|union|enum)\b[^(]*$", head)
                             and not head.endswith("=") and m.group(1) not in ("if", "for", "while", "switch"))
                    start = (m.group(1), head_start if head_start is not None else i) if is_fn else None
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    if start:
                        out.append((start[0], start[1] + 1, i - start[1] + 1))
                    start = None
                    head_start = None
        if depth == 0 and stripped.endswith(";"):
            head_start = None
    return out


def main():
    args = sys.argv[1:]
    files_only = "--files-only" in args
    args = [a for a in args if a != "--files-only"]
    allowed, dirs = set(), []
    while args:
        a = args.pop(0)
        if a == "--except":
            allowed.add(args.pop(0))
        else:
            dirs.append(a)
    bad = 0
    nfiles = nfns = 0
    seen = set()
    for src in dirs:
        for dirpath, subdirs, files in os.walk(src):
            subdirs[:] = sorted(d for d in subdirs if d not in ("__pycache__", "build"))
            for name in sorted(files):
                if not (name.endswith(ALL_EXT) or name == "meson.build"):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, src)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                nfiles += 1
                n = text.count("\n")
                if rel in allowed:
                    seen.add(rel)
                    if n <= MAX_FILE:
                        print("%s: %d lines, no longer over %d: drop its --except" % (rel, n, MAX_FILE))
                        bad = 1
                elif n > MAX_FILE:
                    print("%s: %d lines (at most %d)" % (rel, n, MAX_FILE))
                    bad = 1
                if name.endswith(C_EXT) and not files_only:
                    for fn, line, length in functions(text):
                        nfns += 1
                        if length > MAX_FN:
                            print("%s:%d: %s() is %d lines (at most %d)" % (rel, line, fn, length, MAX_FN))
                            bad = 1
    for rel in sorted(allowed - seen):
        print("%s: listed by --except but not found" % rel)
        bad = 1
    print("%d files, %d functions: %s" % (nfiles, nfns, "FAILED" if bad else "ok"))
    return bad


if __name__ == "__main__":
    sys.exit(main())
