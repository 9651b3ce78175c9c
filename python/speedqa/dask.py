"""Score a batch manifest on Dask.

    python -m speedqa.dask MANIFEST -o RESULTS.jsonl
        (--scheduler tcp://HOST:PORT | --local-workers N)
        [--backend B] [--threads N] [--precision legacy|max] [--chunk-frames N]

One task per pair, or per chunk of --chunk-frames frames of a pair. A chunk
[a, b) is scored from frame a - 1 with that first result dropped (except
a = 0), so its speed_temporal is that of one pass and the chunks' results
concatenated are one pass's, bit for bit. Tasks are pure (they read the
inputs and return numbers): Dask reruns the tasks of a lost worker. Only
this client writes: the RESULTS file, one JSON line per pair in manifest
order, and each pair's per-frame report (the manifest's output column).
GPU backends (cuda, hip, opencl) request the worker resource GPU=1 per task:
start such workers with `--resources GPU=1` (--local-workers does).
Exit status: 0, 1 when any pair failed, 2 for a usage or manifest error.
"""
import argparse
import json
import os
import sys
import uuid

from . import manifest as _m
from ._files import open_pair, score_range

GPU_BACKENDS = ("cuda", "hip", "opencl")


def score_task(ref, dis, features, backend, threads, start, stop, shown=None):
    """One task: raw scores of frames [start, stop) of a pair, or {"error": ...}.
    Reads only; returns the same thing however often it runs. shown: the
    (ref, dis) spellings of the manifest, for error messages."""
    try:
        names, nums, values = score_range(ref, dis, features, backend, threads, start, stop)
        return {"names": names, "nums": nums, "values": values}
    except Exception as e:  # noqa: BLE001 - the pair fails, the batch goes on
        msg = _m.one_line(e)
        if shown:
            msg = msg.replace("'%s'" % ref, "'%s'" % shown[0]).replace(
                "'%s'" % dis, "'%s'" % shown[1])
        return {"error": msg}


def frame_count(ref, dis):
    """Frames both inputs have (what a one-pass run scores)."""
    r, d = open_pair(ref, dis)
    try:
        return min(r.count(), d.count())
    finally:
        r.close()
        d.close()


def plan(entries, chunk_frames=0):
    """Per entry: a list of (start, stop) chunks, or an error string."""
    out = []
    for e in entries:
        if not chunk_frames:
            out.append([(0, None)])
            continue
        try:
            n = frame_count(e["ref"], e["dis"])
        except Exception as exc:  # noqa: BLE001
            out.append(_m.one_line(exc))
            continue
        out.append([(a, min(a + chunk_frames, n)) for a in range(0, n, chunk_frames)]
                   or [(0, None)])
    return out


def run_batch(client, entries, results_path, backend="cpu", threads=1, precision="legacy",
              chunk_frames=0, on_task_done=None):
    """Score entries on client; write results_path (JSON lines, manifest order).
    Returns the result lines (dicts). on_task_done(n_done, n_tasks) is called
    on the client after each task (tests use it)."""
    _m.format_value(0.0, precision)
    # the results go next to results_path, renamed into place when complete
    tmp = "%s.tmp-%d" % (results_path, os.getpid())
    out = open(tmp, "w")
    try:
        with out:
            lines = _run(client, entries, out, backend, threads, precision, chunk_frames,
                         on_task_done)
        os.replace(tmp, results_path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return lines


def _run(client, entries, out, backend, threads, precision, chunk_frames, on_task_done):
    from distributed import as_completed

    plans = plan(entries, chunk_frames)
    resources = {"GPU": 1} if backend in GPU_BACKENDS else None
    token = uuid.uuid4().hex[:12]
    futures = {}
    pending = []
    for i, (e, p) in enumerate(zip(entries, plans)):
        if isinstance(p, str):
            pending.append(None)
            continue
        ref, dis = os.path.abspath(e["ref"]), os.path.abspath(e["dis"])
        pending.append(len(p))
        for c, (a, b) in enumerate(p):
            kw = {"key": "speedqa-%s-pair%d-chunk%d" % (token, i, c), "pure": False}
            if resources:
                kw["resources"] = resources
            f = client.submit(score_task, ref, dis, e["features"], backend, threads, a, b,
                              (e["ref"], e["dis"]), **kw)
            futures[f] = (i, c)
    chunks = [dict() for _ in entries]
    lines = [None] * len(entries)
    for i, p in enumerate(plans):
        if isinstance(p, str):
            lines[i] = _m.result_line(entries[i], error=p, precision=precision)

    written = 0
    ntasks, ndone = len(futures), 0

    def flush_prefix():
        nonlocal written
        while written < len(lines) and lines[written] is not None:
            out.write(json.dumps(lines[written]) + "\n")
            written += 1
        out.flush()

    flush_prefix()
    try:
        for fut in as_completed(list(futures)):
            i, c = futures.pop(fut)
            try:
                res = fut.result()
            except Exception as exc:  # noqa: BLE001 - e.g. KilledWorker
                res = {"error": "task failed: %s" % _m.one_line(exc)}
            fut.release()
            ndone += 1
            if lines[i] is None:
                chunks[i][c] = res
                if len(chunks[i]) == pending[i]:
                    lines[i] = _finish(entries[i], chunks[i], precision)
                    chunks[i] = None
                    flush_prefix()
            if on_task_done is not None:
                on_task_done(ndone, ntasks)
    finally:
        for f in futures:  # an interrupted run leaves nothing queued
            f.cancel()
    flush_prefix()
    return lines


def _finish(entry, parts, precision):
    errors = [parts[c]["error"] for c in sorted(parts) if "error" in parts[c]]
    if errors:
        return _m.result_line(entry, error=errors[0], precision=precision)
    names, nums, values = None, [], []
    for c in sorted(parts):
        r = parts[c]
        if names is None:
            names = r["names"]
        nums += r["nums"]
        values += r["values"]
    if nums != list(range(len(nums))):
        return _m.result_line(entry, error="chunks do not join (frames %s..)" % nums[:3],
                              precision=precision)
    return _m.result_line(entry, names, nums, values, precision=precision)


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python -m speedqa.dask",
                                 description="Score a speedqa batch manifest on Dask.")
    ap.add_argument("manifest")
    ap.add_argument("-o", "--output", required=True, help="RESULTS.jsonl")
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="tcp://HOST:PORT of a running scheduler")
    where.add_argument("--local-workers", type=int, metavar="N",
                       help="start a local cluster of N worker processes")
    ap.add_argument("--backend", default="cpu", choices=["cpu", "auto", "cuda", "hip", "opencl"])
    ap.add_argument("--threads", type=int, default=1, help="library threads per task")
    ap.add_argument("--precision", default="legacy", choices=["legacy", "max"])
    ap.add_argument("--chunk-frames", type=int, default=0, metavar="N",
                    help="split pairs into tasks of N frames (0: one task per pair)")
    args = ap.parse_args(argv)
    if args.local_workers is not None and args.local_workers < 1:
        ap.error("--local-workers must be at least 1")
    if args.chunk_frames < 0 or args.threads < 0:
        ap.error("--chunk-frames and --threads must not be negative")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        entries = _m.read_manifest(args.manifest)
    except _m.ManifestError as e:
        print("speedqa.dask: error: %s" % e, file=sys.stderr)
        return 2
    from distributed import Client, LocalCluster

    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        kw = {}
        if args.backend in GPU_BACKENDS:
            kw["resources"] = {"GPU": 1}
        cluster = LocalCluster(n_workers=args.local_workers, threads_per_worker=1,
                               processes=True, host="127.0.0.1", dashboard_address=":0", **kw)
        client = Client(cluster)
    try:
        lines = run_batch(client, entries, args.output, args.backend, args.threads,
                          args.precision, args.chunk_frames)
    except OSError as e:
        print("speedqa.dask: error: %s: %s" % (e.filename or args.output, e.strerror),
              file=sys.stderr)
        return 1
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    failed = [ln for ln in lines if "error" in ln]
    for ln in failed:
        print("speedqa.dask: %s vs %s: %s" % (ln["ref"], ln["dis"], ln["error"]),
              file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
