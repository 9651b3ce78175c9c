#!/usr/bin/env python3
"""Writes speedqa(1) from the output of `speedqa --help` and `--version`, so
the man page and --help have one source (tools/cli_help.c).

usage: help2man.py SPEEDQA OUT.1
"""
import re
import subprocess
import sys

# "  -o, --output PATH    text", "      --json | --csv", "      --feature NAME[...]"
OPT = re.compile(r"^ {2,6}((?:-\w, )?--[\w-]+(?: \| --[\w-]+)*)(?: (\S+))?(?: {2,}(.*))?$")
CONT = " " * 28


def esc(t):
    t = t.replace("\\", "\\e").replace("-", "\\-").replace("'", "\\(aq")
    # a line starting with '.' would be read as a roff request
    return "\\&" + t if t.startswith(".") else t


def bold_opt(s):
    return " ".join("\\fB%s\\fR" % esc(w) if w.startswith("-") else "\\fI%s\\fR" % esc(w)
                    for w in s.split())


def main():
    exe, out = sys.argv[1:3]
    text = subprocess.run([exe, "--help"], stdout=subprocess.PIPE, check=True, text=True).stdout
    ver = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, check=True,
                         text=True).stdout.split("\n")[0].split()[-1]
    lines = text.rstrip("\n").split("\n")
    usage = lines[0][len("usage: "):]
    o = ['.TH SPEEDQA 1 "" "speedqa %s" "User Commands"' % ver,
         ".SH NAME", "speedqa \\- SpEED\\-QA video quality scores with libvmaf's numbers",
         ".SH SYNOPSIS", ".B speedqa", esc(usage.split(" ", 1)[1]), ".SH DESCRIPTION"]
    i = 1
    while i < len(lines) and not lines[i].endswith(":"):
        if lines[i].strip():
            o.append(esc(lines[i].strip()))
        else:
            o.append(".PP")
        i += 1
    plain = False  # the last line was paragraph text: the next one continues it
    for line in lines[i:]:
        if not line.strip():
            plain = False
            continue
        if not line.startswith(" "):
            head = line.rstrip(":")
            name, _, rest = head.partition(" (")
            o.append(".SH %s" % esc(name.upper()))
            if rest:
                o.append(esc("(" + rest))
                o.append(".PP")
            continue
        m = OPT.match(line)
        if m:
            tag = bold_opt(m.group(1).replace(",", ""))
            tag = tag.replace("\\fR \\fB", "\\fR, \\fB", 1) if ", --" in m.group(1) else tag
            if m.group(2):
                tag += " \\fI%s\\fR" % esc(m.group(2))
            o += [".TP", tag]
            if m.group(3):
                o.append(esc(m.group(3)))
        elif line.startswith(CONT):
            o.append(esc(line.strip()))
        else:
            o += ([] if plain else [".PP"]) + [esc(line.strip())]
            plain = True
            continue
        plain = False
    o += [".SH SEE ALSO", "doc/cli.md and doc/features.md in the speedqa sources."]
    with open(out, "w") as f:
        f.write("\n".join(o) + "\n")


if __name__ == "__main__":
    main()
