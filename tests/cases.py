#!/usr/bin/env python3
"""Data-driven CLI cases: each tests/cases/*.case holds inputs, a command, and what must come out.

Sections start with a line "--- NAME". Names:
  desc            what the case checks
  file PATH       a file written into the case's temporary directory before the command
  cmd             shell command, run in that directory with build/bin first in PATH (required)
  exit            expected exit status (default 0)
  stderr          expected standard error, exactly (timings are not printed under -q)
  stdout          expected standard output, exactly
  sql DB          a query run with sqlite3 on DB after the command; its output must equal the next
  rows            expected output of the preceding sql section
  truncate PATH   strip the final newline of a file written earlier (a writer killed mid-line)
Usage: cases.py [CASE...]   prints one line per failure and "cases: N passed, M failed".
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse(path):
    sections, name, lines = [], None, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("--- "):
                if name is not None:
                    sections.append((name, "".join(lines)))
                name, lines = line[4:].strip(), []
            else:
                lines.append(line)
    if name is not None:
        sections.append((name, "".join(lines)))
    return sections


def run_case(path):
    """Returns a list of failure messages (empty when the case passes) and the number of checks."""
    failures, checks = [], 0
    tmp = tempfile.mkdtemp(prefix="gpuprof-case-")
    # $ROOT in a command is the project's root, for test data too big to inline (tests/data/...).
    env = dict(os.environ, LC_ALL="C", TZ="UTC", ROOT=ROOT,
               PATH=os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "bin") + ":" + os.environ["PATH"])
    try:
        sections = parse(path)
        result = None
        pending_sql = None
        for name, body in sections:
            kind, _, arg = name.partition(" ")
            if kind == "desc":
                continue
            if kind == "file":
                dest = os.path.join(tmp, arg)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "w", encoding="utf-8") as f:
                    f.write(body)
            elif kind == "truncate":
                # "--- truncate PATH": drop the final newline, as a killed writer leaves a file
                dest = os.path.join(tmp, arg)
                data = open(dest, "rb").read()
                open(dest, "wb").write(data.rstrip(b"\n"))
            elif kind == "cmd":
                result = subprocess.run(["bash", "-c", body], cwd=tmp, env=env, capture_output=True, text=True)
            elif kind == "exit":
                checks += 1
                if result.returncode != int(body.strip()):
                    failures.append(f"exit status {result.returncode}, expected {body.strip()}\n"
                                    f"stderr:\n{result.stderr}")
            elif kind in ("stderr", "stdout"):
                checks += 1
                got = result.stderr if kind == "stderr" else result.stdout
                if got != body:
                    failures.append(f"{kind} differs:\n--- expected\n{body}--- got\n{got}")
            elif kind == "sql":
                pending_sql = (arg, body)
            elif kind == "rows":
                checks += 1
                db, query = pending_sql
                got = subprocess.run(["sqlite3", os.path.join(tmp, db), query], capture_output=True,
                                     text=True)
                if got.stdout != body:
                    failures.append(f"sql {query.strip()!r} gave:\n{got.stdout}{got.stderr}expected:\n{body}")
            else:
                failures.append(f"unknown section '{name}'")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return failures, checks


def main():
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(ROOT, "tests/cases/*.case")))
    passed = failed = 0
    for p in paths:
        failures, checks = run_case(p)
        if failures:
            failed += 1
            for msg in failures:
                print(f"FAIL {os.path.relpath(p, ROOT)}: {msg}")
        else:
            passed += 1
    print(f"cases: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
