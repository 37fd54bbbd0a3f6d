#!/usr/bin/env python3
"""Every repository path (dir/file.ext) that a comment of the tracked *.c, *.h, *.sql files or the Makefile
names exists: a comment naming a file that was deleted or renamed fails here with FILE:LINE. Names outside
the repository are not paths of it: those under a top directory it lacks (block/genhd.c, c10/core/...),
placeholders (schemas/read-N.sql, DIR/...) and build outputs (build/...)."""
import os
import re
import subprocess
import sys

import checks
from checks import ROOT, check

PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+\.(?:c|h|sql|py|sh|md|json|rules|txt|ndjson))\b")


def comments(path, text):
    """(line number, comment text) of the lines of text that hold a comment."""
    c_like = path.endswith((".c", ".h"))
    in_block = False
    for n, line in enumerate(text.split("\n"), 1):
        if c_like:
            if in_block or "/*" in line or "//" in line:
                yield n, line
            opens, closes = line.rfind("/*"), line.rfind("*/")
            in_block = opens > closes if opens >= 0 or closes >= 0 else in_block
        else:
            mark = "--" if path.endswith(".sql") else "#"
            if mark in line:
                yield n, line[line.index(mark):]


def main():
    if not os.path.isdir(os.path.join(ROOT, ".git")) and not os.path.isfile(os.path.join(ROOT, ".git")):
        print("comment_paths: skipped: not a git checkout (the tracked files are what it reads)")
        return checks.summary("comment_paths")
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "*.c", "*.h", "*.sql", "Makefile"], capture_output=True,
                           text=True, check=True).stdout.split()
    tops = {p.split("/")[0] for p in subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True,
                                                    check=True).stdout.split() if "/" in p}
    missing, named = [], 0
    for f in files:
        with open(os.path.join(ROOT, f), errors="replace") as fh:
            text = fh.read()
        for n, line in comments(f, text):
            for m in PATH.finditer(line):
                p = m.group(1)
                if p.split("/")[0] not in tops or p.startswith("build/") or re.search(r"-N\.|/N\.|/NAME\.|/[A-Z]+\.", p):
                    continue
                named += 1
                if not os.path.exists(os.path.join(ROOT, p)):
                    missing.append(f"{f}:{n}: {p}")
    check(f"comments name existing files ({named} paths named)", missing, [])
    return checks.summary("comment_paths")


if __name__ == "__main__":
    sys.exit(main())
