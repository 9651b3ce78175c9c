#!/usr/bin/env python3
"""The soft-double OpenCL program must need no cl_khr_fp64.

Reads the embedded kernel source (kernels_cl.c, as sent to clBuildProgram),
preprocesses it as an OpenCL compiler would for a device on soft doubles
(-DSQ_SOFT_F64, no host macros) and fails on any `double`, `as_double`,
`cl_khr_fp64` token or floating literal without an f suffix (a double
literal). The hardware program is checked the other way round, so that the
check itself is seen to find doubles where there are some.
Usage: check_no_double.py CC KERNELS_CL_C
"""
import ast
import re
import subprocess
import sys

PPNUM = re.compile(r"\.?\d(?:[eEpP][+-]|[\w.])*")
IDENT = re.compile(r"[A-Za-z_]\w*")
BANNED = {"double", "as_double", "cl_khr_fp64"}


def source(path):
    text = open(path, encoding="utf-8").read()
    lines = re.findall(r'^    "(.*)\\n"$', text, re.M)
    return "\n".join(ast.literal_eval('"' + l + '"') for l in lines) + "\n"


def preprocess(cc, src, soft):
    args = [cc, "-E", "-P", "-undef", "-x", "c", "-D__OPENCL_VERSION__=120", "-D__OPENCL_C_VERSION__=120", "-"]
    if soft:
        args.insert(1, "-DSQ_SOFT_F64=1")
    return subprocess.run(args, input=src, capture_output=True, text=True, check=True).stdout


def doubles(text):
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        code = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
        for m in IDENT.finditer(code):
            if m.group(0) in BANNED and (m.start() == 0 or not code[m.start() - 1].isdigit()):
                found.append((n, m.group(0), line.strip()))
        for m in PPNUM.finditer(code):
            tok = m.group(0)
            if m.start() > 0 and (code[m.start() - 1].isalnum() or code[m.start() - 1] == "_"):
                continue
            hexa = tok.lower().startswith("0x")
            floating = ("p" in tok.lower()) if hexa else ("." in tok or "e" in tok.lower())
            if floating and not tok.lower().endswith("f"):
                found.append((n, tok, line.strip()))
    return found


def main():
    cc, kernels = sys.argv[1:3]
    src = source(kernels)
    bad = doubles(preprocess(cc, src, True))
    for n, tok, line in bad[:20]:
        print("FAIL soft program line %d: %s in: %s" % (n, tok, line))
    hw = doubles(preprocess(cc, src, False))
    print("%s soft program: %d double tokens or literals" % ("FAIL" if bad else "ok  ", len(bad)))
    print("%s hardware program: %d (the check finds them)" % ("ok  " if hw else "FAIL", len(hw)))
    return 1 if bad or not hw else 0


if __name__ == "__main__":
    sys.exit(main())
