"""Batch manifests (shared with `speedqa --batch`) and their result lines.

A manifest is CSV with a header row naming the columns ref, dis (required)
and features, output (optional), in any order, RFC 4180 quoting, features
separated by ';' (empty: the default features); or JSON lines (the file's
first non-blank character is '{'): {"ref": ..., "dis": ..., "features":
[...] or "a;b", "output": ...}. Blank lines and lines starting with '#' are
skipped. Paths are relative to the current directory.
"""
import csv
import errno as _errno
import io
import json
import os

from ._scorer import Error
from ._files import document, format_value, pooled


class ManifestError(ValueError):
    pass


def split_features(value):
    """'a;b' or ['a', 'b'] -> list of feature strings, or None (default features)."""
    if value is None:
        return None
    if isinstance(value, str):
        items = value.split(";")
    elif isinstance(value, (list, tuple)):
        items = list(value)
        if not all(isinstance(x, str) for x in items):
            raise ManifestError("features must be strings")
    else:
        raise ManifestError("features must be a string or a list of strings")
    items = [x.strip() for x in items if x.strip()]
    return items or None


def _lines(text):
    """Lines of the manifest without blank and '#' lines (outside quotes)."""
    in_quote = False
    for no, line in enumerate(io.StringIO(text), 1):
        if not in_quote and (not line.strip() or line.startswith("#")):
            continue
        if line.count('"') % 2:
            in_quote = not in_quote
        yield no, line


def parse_manifest(text, name="manifest"):
    """A list of entries {"ref", "dis", "features" (list or None), "output" (or
    absent), "line"}. ManifestError on a malformed manifest."""
    if text.startswith("\ufeff"):
        text = text[1:]
    # JSON lines when the first character is '{' (also after '#' lines)
    first = next((line for _, line in _lines(text)), "")
    entries = []
    if first.lstrip().startswith("{"):
        for no, line in _lines(text):
            try:
                obj = json.loads(line)
            except ValueError as e:
                raise ManifestError("%s:%d: bad JSON: %s" % (name, no, e))
            if not isinstance(obj, dict):
                raise ManifestError("%s:%d: not a JSON object" % (name, no))
            for k in ("ref", "dis"):
                if not isinstance(obj.get(k), str) or not obj[k]:
                    raise ManifestError("%s:%d: \"%s\" missing or not a string" % (name, no, k))
            e = {"ref": obj["ref"], "dis": obj["dis"], "line": no}
            try:
                e["features"] = split_features(obj.get("features"))
            except ManifestError as err:
                raise ManifestError("%s:%d: %s" % (name, no, err))
            if obj.get("output") is not None:
                if not isinstance(obj["output"], str):
                    raise ManifestError("%s:%d: \"output\" is not a string" % (name, no))
                if obj["output"]:
                    e["output"] = obj["output"]
            entries.append(e)
        return entries
    rows = []
    numbered = list(_lines(text))
    reader = csv.reader([line for _, line in numbered])
    try:
        for row in reader:
            rows.append((numbered[min(reader.line_num, len(numbered)) - 1][0], row))
    except csv.Error as e:
        raise ManifestError("%s: bad CSV: %s" % (name, e))
    if not rows:
        raise ManifestError("%s: empty manifest (no header row)" % name)
    header = [c.strip().lower() for c in rows[0][1]]
    for k in ("ref", "dis"):
        if k not in header:
            raise ManifestError("%s: the header row has no '%s' column" % (name, k))
    col = {k: header.index(k) for k in ("ref", "dis", "features", "output") if k in header}
    for no, row in rows[1:]:
        if len(row) != len(header):
            raise ManifestError("%s:%d: %d fields, the header has %d"
                                % (name, no, len(row), len(header)))
        e = {"ref": row[col["ref"]], "dis": row[col["dis"]], "line": no}
        if not e["ref"] or not e["dis"]:
            raise ManifestError("%s:%d: empty ref or dis" % (name, no))
        e["features"] = split_features(row[col["features"]]) if "features" in col else None
        if "output" in col and row[col["output"]]:
            e["output"] = row[col["output"]]
        entries.append(e)
    return entries


def read_manifest(path):
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except OSError as e:
        raise ManifestError("cannot read manifest '%s': %s" % (path, e.strerror))
    return parse_manifest(text, path)


def one_line(exc):
    msg = str(exc) if not isinstance(exc, Error) else exc.message
    msg = " ".join(msg.split())
    return msg or type(exc).__name__


def write_report(path, doc):
    """Write a per-frame report (.json only), next to path then renamed."""
    if not path.lower().endswith(".json"):
        raise Error(-_errno.EINVAL, "output '%s': only .json reports are supported" % path)
    tmp = "%s.tmp-%d" % (path, os.getpid())
    try:
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise Error(-(e.errno or _errno.EIO), "cannot write '%s': %s" % (path, e.strerror))


def result_line(entry, names=None, nums=None, values=None, error=None, precision="legacy"):
    """The RESULTS line of one pair (a dict); writes the pair's report when
    the entry has an output. A failure (error, or writing the report) gives
    the error line."""
    line = {"ref": entry["ref"], "dis": entry["dis"]}
    if "output" in entry:
        line["output"] = entry["output"]
    if entry.get("features"):
        # as the CLI records them: its --resume keeps a line only for the same features
        line["features"] = ";".join(entry["features"])
    if error is None:
        try:
            if "output" in entry:
                write_report(entry["output"], document(names, nums, values, precision))
            pm = {n: {k: format_value(v, precision) for k, v in p.items()}
                  for n, p in pooled(names, values).items()}
            line["frames"] = len(nums)
            line["pooled_metrics"] = pm
            return line
        except Exception as e:  # noqa: BLE001 - one line per failed pair
            error = one_line(e)
    line["error"] = error
    return line
