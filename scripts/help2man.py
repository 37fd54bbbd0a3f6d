#!/usr/bin/env python3
"""A man page from a program's --help and --version, the one source of both (help2man's idea, without its
Perl): scripts/help2man.py build/bin/gpuprof-ingest > gpuprof-ingest.1

The page's NAME line is the program's row in `gpuprof --help` (its sibling in the same folder), else the
first sentence of its help's first paragraph. The usage lines make SYNOPSIS; the rest of the help is
DESCRIPTION as written: a line ending in ':' a subsection, an indented "TERM  text" line (an option, a
format, an analysis) a tagged paragraph, more-indented lines after it its continuation."""
import os
import re
import subprocess
import sys


def roff(text):
    """Text escaped for roff: backslashes, hyphens as hyphen-minus (options stay typeable), leading dots."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def describe(prog, helptext):
    name = os.path.basename(prog)
    main = os.path.join(os.path.dirname(prog), "gpuprof")
    if name.startswith("gpuprof-") and os.access(main, os.X_OK):
        out = subprocess.run([main, "--help"], capture_output=True, text=True).stdout
        m = re.search(rf"^\s+{re.escape(name[len('gpuprof-'):])}\s+(.*)$", out, re.M)
        if m:
            return m.group(1).strip()
    for para in re.split(r"\n\s*\n", helptext):
        if para.split("\n")[0].endswith(":") and name == "gpuprof":  # the commands gpuprof runs
            cmds = re.findall(r"^\s+(\w+)\s{2,}", para, re.M)
            return "run a gpuprof command: " + ", ".join(cmds) if cmds else "gpuprof"
        para = " ".join(para.split())
        if para and not re.match(r"(usage|or):", para) and not para.startswith("-") and not para.endswith(":"):
            first = re.split(r"(?<=[.:])\s", para)[0].rstrip(".:")
            return first[:1].lower() + first[1:]
    return "part of gpuprof"


def page(prog):
    name = os.path.basename(prog)
    helptext = subprocess.run([prog, "--help"], capture_output=True, text=True, check=True).stdout
    version = subprocess.run([prog, "--version"], capture_output=True, text=True).stdout.strip().split()
    version = version[-1] if version else ""
    out = [f'.TH {name.upper()} 1 "" "gpuprof {version}" "gpuprof manual"', ".nh", ".ad l",
           ".SH NAME", f"{roff(name)} \\- {roff(describe(prog, helptext))}", ".SH SYNOPSIS", ".nf"]
    lines = helptext.rstrip("\n").split("\n")
    i = 0
    while i < len(lines) and (re.match(r"\s*(usage|or):", lines[i]) or re.match(rf"\s+{re.escape(name)}\b", lines[i])):
        out.append(roff(re.sub(r"^\s*(usage|or):\s*", "", lines[i]).strip()))
        i += 1
    out += [".fi", ".SH DESCRIPTION"]
    term = False  # inside a tagged paragraph, whose continuation lines are indented further
    for ln in lines[i:]:
        if not ln.strip():
            out.append(".PP")
            term = False
        elif re.match(r"\S.*:$", ln) and len(ln) < 80 and not term:
            out.append(".SS " + roff(ln[:-1]))
        elif (m := re.match(r"^( {1,8})(\S.*?)(?:\s{2,}(\S.*))?$", ln)) and (m.group(3) or m.group(2).startswith("-")) \
                and not (term and len(m.group(1)) > 6 and not m.group(2).startswith("-")):
            out += [".TP", "\\fB" + roff(m.group(2)) + "\\fR", roff(m.group(3) or "")]
            term = True
        elif term and ln.startswith("    "):
            out.append(roff(ln.strip()))
        else:
            out.append(roff(ln.strip()))
            term = False
    others = ["gpuprof", "gpuprof-ingest", "gpuprof-analyze", "gpuprof-report", "gpuprof-collect"]
    out += [".SH SEE ALSO", ", ".join(f"\\fB{roff(o)}\\fR(1)" for o in others if o != name) + ",",
            "and the README: how it works, the inputs, the database and its views for sqlite3 users."]
    return "\n".join(x for x in out if x is not None) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/help2man.py PROGRAM > PROGRAM.1")
    sys.stdout.write(page(sys.argv[1]))
