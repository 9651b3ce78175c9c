"""`speedqa --batch` on a Dask cluster: the same flags, results file, exit
codes and bytes, because it is the same C batch runner (libspeedqa_io).
The client runs the batch (manifest checks, output rules, --resume, the
results file written in manifest order as lines arrive); the pairs left to
score go to the workers in chunks, each chunk scored by the batch runner
there (speedqa_io_batch_pairs: groups sharing a reference as ladders,
--threads per task) and its result lines sent back.

    python3 -m speedqa.dask MANIFEST -o RESULTS.jsonl --local-workers 2 [speedqa flags]
    python3 -m speedqa.dask MANIFEST -o RESULTS.jsonl --scheduler tcp://host:8786 --backend cuda

Workers need this package and libspeedqa_io; input paths are read on the
workers as the manifest gives them (relative ones from the client's working
directory when the worker has it).
"""
from __future__ import annotations

import argparse
import ctypes
import os
import sys
from typing import List, Optional, Sequence, Tuple

from . import _io

GPU_BACKENDS = ("cuda", "hip", "opencl")


def run_chunk(argv: Sequence[str], pairs: Sequence[int], cwd: Optional[str] = None
              ) -> Tuple[int, str, str]:
    """On a worker: pairs (0-based manifest indices) of the batch argv
    describes, through the C batch runner. (exit code, lines, error line)."""
    if cwd and os.path.isdir(cwd) and os.getcwd() != cwd:
        os.chdir(cwd)
    with _io.Io(argv) as io:
        arr = _io.int_array(pairs)
        return _io.batch_call(_io.lib().speedqa_io_batch_pairs, io.h, arr, len(pairs))


def _gpu(argv: Sequence[str]) -> bool:
    """Whether argv's --backend is a GPU one (tasks then ask for GPU=1)."""
    for i, a in enumerate(argv):
        v = a.split("=", 1)[1] if a.startswith("--backend=") else \
            argv[i + 1] if a == "--backend" and i + 1 < len(argv) else None
        if v in GPU_BACKENDS:
            return True
    return False


def _chunks(pairs: List[int], size: int) -> List[List[int]]:
    return [pairs[i:i + size] for i in range(0, len(pairs), size)]


def run_batch(client, argv: Sequence[str], chunk_pairs: int = 0, workers: int = 0
              ) -> Tuple[int, str, str]:
    """The batch of argv (speedqa flags with --batch) with its scoring on
    client's workers: (exit code, the lines written, the run's error line).
    chunk_pairs: pairs per task (0: about four tasks per worker)."""
    from distributed import as_completed

    argv = list(argv)
    io = _io.Io(argv)  # a usage error raises here, before any work
    gpu = _gpu(argv)
    failure: List[BaseException] = []
    cwd = os.getcwd()

    def execute(_opaque, sink, pairs_p, n):
        try:
            pairs = [pairs_p[i] for i in range(n)]
            nw = workers or max(1, len(client.scheduler_info().get("workers", {})))
            size = chunk_pairs or max(1, -(-n // (4 * nw)))
            futs = {}
            for ch in _chunks(pairs, size):
                kw = {"resources": {"GPU": 1}} if gpu else {}
                futs[client.submit(run_chunk, argv, ch, cwd, pure=False, **kw)] = ch
            for fut in as_completed(list(futs)):
                ch = futs[fut]
                try:
                    code, lines, _err = fut.result()
                except Exception as e:  # a worker lost: its pairs fail (exit 1)
                    failure.append(e)
                    continue
                if lines.count("\n") == len(ch):
                    arr = _io.int_array(ch)
                    raw = lines.encode("utf-8", "surrogateescape")  # the worker's bytes
                    _io.lib().speedqa_io_batch_deliver(sink, arr, len(ch), raw, code)
                else:  # its pairs fail (exit 1) with the C's line; the chunk's line is the run's
                    failure.append(RuntimeError(_err or "a chunk gave %d lines for %d pairs"
                                                % (lines.count("\n"), len(ch))))
            return 0
        except BaseException as e:  # never raise through C
            failure.append(e)
            return -1

    cb = _io.Exec(execute)
    try:
        r, text, line = _io.batch_call(_io.lib().speedqa_io_batch_exec, io.h, cb, None)
    finally:
        io.close()
    if failure and not line:
        line = "%s: %s" % (type(failure[0]).__name__, failure[0])
    return r, text, line


def parse_args(argv: Sequence[str]):
    # -h is speedqa's --height: only --help is help
    ap = argparse.ArgumentParser(
        prog="python -m speedqa.dask", add_help=False,
        description="Score a speedqa batch manifest on Dask; every other flag is speedqa's "
                    "(-o, --resume, --precision, --threads, --backend, --feature ...).")
    ap.add_argument("--help", action="help", help="show this help and exit")
    ap.add_argument("manifest")
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="tcp://HOST:PORT of a running scheduler")
    where.add_argument("--local-workers", type=int, metavar="N",
                       help="start a local cluster of N worker processes")
    ap.add_argument("--chunk-pairs", type=int, default=0, metavar="N",
                    help="pairs per Dask task (0: about four tasks per worker)")
    args, rest = ap.parse_known_args(argv)
    if args.local_workers is not None and args.local_workers < 1:
        ap.error("--local-workers must be at least 1")
    if args.chunk_pairs < 0:
        ap.error("--chunk-pairs must not be negative")
    return args, ["--batch", os.path.abspath(args.manifest)] + rest


def main(argv: Optional[Sequence[str]] = None) -> int:
    args, flags = parse_args(sys.argv[1:] if argv is None else argv)
    # the manifest as given, so that every message names it as the CLI would
    flags[1] = args.manifest
    try:
        _io.Io(flags).close()  # flags the CLI refuses: exit 2, before a cluster starts
    except _io.Error as e:
        print("speedqa: error: %s" % e, file=sys.stderr)
        return e.exit_code
    from distributed import Client, LocalCluster

    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        kw = {"resources": {"GPU": 1}} if _gpu(flags) else {}
        cluster = LocalCluster(n_workers=args.local_workers, threads_per_worker=1,
                               processes=True, host="127.0.0.1", dashboard_address=":0", **kw)
        client = Client(cluster)
    try:
        r, _text, line = run_batch(client, flags, args.chunk_pairs, args.local_workers or 0)
    finally:
        client.close()
        if cluster is not None:
            # a worker slow to exit on a loaded machine is killed at close;
            # distributed's warning about it says nothing of the run's outcome
            import logging
            logging.getLogger("distributed").setLevel(logging.ERROR)
            cluster.close()
    if line:
        print("speedqa: error: %s" % line, file=sys.stderr)
    return r


if __name__ == "__main__":
    sys.exit(main())
