#!/usr/bin/env python3
"""Fails on an include cycle between files of src/, or an include against the layers.

Edges are the `#include "x"` lines of every .c/.h/.cu/.hip/.def/.cl file under
SRC, resolved like the compilers do here: against SRC, then next to the
including file (the generated config.h resolves to nothing and is no edge).
A cycle is reported with its files in order. The layer rule: nothing under
core/, cpu/, x86/, arm/, gpu/ or math/ includes feature/ (the feature layer
builds plans and jobs, core/job.h, and sits above them), and math/ includes
only math/ (it is compiled by four compilers).
Usage: include_cycles.py SRC
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
EXTS = (".c", ".h", ".cu", ".hip", ".def", ".cl")
LOWER = ("core/", "cpu/", "x86/", "arm/", "gpu/", "math/")


def edges(src):
    graph = {}
    for dirpath, _, files in os.walk(src):
        for name in files:
            if not name.endswith(EXTS):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src)
            deps = graph.setdefault(rel, [])
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    for base in (src, dirpath):
                        cand = os.path.normpath(os.path.join(base, m.group(1)))
                        if os.path.isfile(cand):
                            deps.append(os.path.relpath(cand, src))
                            break
    return graph


def find_cycle(graph):
    """An iterative DFS: returns one cycle as a list of files, or None."""
    state = {}
    for root in sorted(graph):
        if state.get(root):
            continue
        stack = [(root, iter(graph.get(root, ())))]
        path = [root]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
                continue
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(graph.get(nxt, ()))))
                path.append(nxt)
    return None


def main():
    src = sys.argv[1]
    graph = edges(src)
    bad = 0
    for f in sorted(graph):
        for d in graph[f]:
            if f.startswith(LOWER) and d.startswith("feature/"):
                print("layer: %s includes %s" % (f, d))
                bad = 1
            if f.startswith("math/") and not d.startswith("math/"):
                print("layer: %s (math core) includes %s" % (f, d))
                bad = 1
    cycle = find_cycle(graph)
    if cycle:
        print("include cycle: " + " -> ".join(cycle))
        bad = 1
    n = sum(len(v) for v in graph.values())
    print("%d files, %d include edges: %s" % (len(graph), n, "FAILED" if bad else "ok"))
    return bad


if __name__ == "__main__":
    sys.exit(main())
