#!/usr/bin/env python3
"""The shared libraries libav needs, for bench/make_libav_archive.sh.

usage: lav_closure.py OUTDIR ROOT...   (roots: sonames in the multiarch dir)

Copies into OUTDIR every library the roots load (DT_NEEDED, transitively)
except glibc's own. The big libraries that only encoders, image or music
formats, network protocols or DASH manifests use (STUB below) are replaced by
stubs: same soname and symbol versions, every symbol libav imports from them
defined, each function returning 0 (NULL), each variable zero. libav's
static init asks some of them for versions and capabilities (x265_api_get,
aom_codec_version, vpx_codec_get_caps: 0 means none); nothing else calls
them when speedqa decodes video (its decoders are libav's own and libdav1d;
libgme and libopenmpt stay real, since avformat probes every input with
them). Dropping them (with what only they load: ICU, cairo,
pango, glib ...) takes the archive from ~50 MB to a fraction. Prints one
line per library: "copy NAME" or "stub NAME".
"""
import os
import re
import subprocess
import sys

LIBDIRS = ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"]
GLIBC = re.compile(r"^(libc|libm|libpthread|libdl|librt|libresolv|libutil|libanl|libnsl|libcrypt"
                   r"|ld-linux-x86-64|ld-linux-aarch64|libmvec|libBrokenLocale)\.so")
# (libgme and libopenmpt stay: avformat probes every input with them)
STUB = re.compile(r"^lib(x265|x264|codec2|rsvg-2|SvtAv1Enc|aom|jxl|jxl_threads|rav1e|vpx|xml2"
                  r"|zvbi|zmq|srt-gnutls|ssh-gcrypt|bluray|mfx|xvidcore|mp3lame"
                  r"|chromaprint|rabbitmq|shine|twolame)\.so")


def out(*cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, check=True).stdout.decode()


def find(name):
    for d in LIBDIRS:
        p = os.path.join(d, name)
        if os.path.exists(p):
            return os.path.realpath(p)
    sys.exit("lav_closure: %s not found" % name)


def needed(path):
    return re.findall(r"NEEDED\s+(\S+)", out("objdump", "-p", path))


def dynsyms(path):
    """(name, version, kind 'F'/'O'/'', size, defined) of the dynamic symbol table."""
    rows = []
    for line in out("objdump", "-T", path).splitlines():
        m = re.match(r"^[0-9a-f]+ (.{7}) (\S+)\s+([0-9a-f]+)\s+(?:\(?([^\s)]*)\)?\s+)?(\S+)$",
                     line)
        if not m:
            continue
        flags, sect, size, ver, name = m.groups()
        kind = "F" if "F" in flags else "O" if "O" in flags else ""
        rows.append((name, ver or "", kind, int(size, 16), sect != "*UND*"))
    return rows


def make_stub(name, src, importers, outdir, cc):
    want = {}
    for imp in importers:
        for sym, ver, _, _, defined in dynsyms(imp):
            if not defined:
                want.setdefault(sym, set()).add(ver)
    defs = {}
    for sym, ver, kind, size, defined in dynsyms(src):
        if defined and sym in want:
            defs.setdefault(sym, ("" if ver in ("Base", "") else ver, kind, size))
    c = ["/* stub of %s (bench/lav_closure.py) */" % name]
    nodes = {}
    for sym, (ver, kind, size) in sorted(defs.items()):
        if kind == "O":
            c.append("char %s[%d] __attribute__((aligned(16)));" % (sym, max(size, 1)))
        else:
            c.append("long %s(void) { return 0; }" % sym)
        if ver:
            nodes.setdefault(ver, []).append(sym)
    cfile = os.path.join(outdir, ".stub.c")
    vfile = os.path.join(outdir, ".stub.ver")
    with open(cfile, "w") as f:
        f.write("\n".join(c) + "\n")
    args = [cc, "-shared", "-fPIC", "-O1", "-w", "-o", os.path.join(outdir, name), cfile,
            "-Wl,-soname," + name]
    if nodes:
        with open(vfile, "w") as f:
            for v, syms in nodes.items():
                f.write("%s { global: %s; };\n" % (v, "; ".join(syms)))
        args.append("-Wl,--version-script=" + vfile)
    subprocess.run(args, check=True)
    for p in (cfile, vfile):
        if os.path.exists(p):
            os.remove(p)


def main():
    outdir, roots = sys.argv[1], sys.argv[2:]
    os.makedirs(outdir, exist_ok=True)
    keep, stubs, todo = {}, {}, list(roots)
    while todo:
        n = todo.pop()
        if n in keep or n in stubs or GLIBC.match(n):
            continue
        if STUB.match(n) and n not in roots:
            stubs[n] = find(n)
            continue
        keep[n] = find(n)
        todo.extend(needed(keep[n]))
    for n, p in sorted(keep.items()):
        subprocess.run(["cp", "-L", p, os.path.join(outdir, n)], check=True)
        print("copy", n)
    for n, p in sorted(stubs.items()):
        make_stub(n, p, list(keep.values()), outdir, os.environ.get("CC", "cc"))
        print("stub", n)


if __name__ == "__main__":
    main()
