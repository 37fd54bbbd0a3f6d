#!/usr/bin/env python3
"""gpuprof-ingest -j N against -j 1 on every kind of input at once: the same database, row for row.

The inputs: every single-file input of tests/cases (good ones, rejected lines, truncated files, repeated
batches...), the Kineto layouts of tests/data, the demo session, the same session again (skipped), and
the real traces of ../shared/traces (a few Kineto traces and every Nsight Systems export; skipped with the
reason printed when absent). Both runs must exit alike, keep the same rows in the same order (an SQL dump
of the two databases, ingest times aside) and print the same messages in the same order (the readers'
messages go into their spools and are printed in input order).
A reader killed midway loses nothing of the inputs before it, and the output is left whole.
"""
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile

import checks
from checks import BIN, ROOT, TRACES, check, ok

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?")


def case_inputs(tmp):
    """The `--- file NAME` sections of tests/cases whose command ingests that one file."""
    out = []
    for name in sorted(os.listdir(os.path.join(ROOT, "tests", "cases"))):
        text = open(os.path.join(ROOT, "tests", "cases", name), encoding="utf-8").read()
        parts = re.split(r"^--- ", text, flags=re.M)
        files = {}
        cmd = ""
        for p in parts:
            head, _, body = p.partition("\n")
            if head.startswith("file "):
                files[head[5:].strip()] = body
            elif head.strip() == "cmd":
                cmd = body
        if len(files) != 1 or "gpuprof-ingest" not in cmd or "--format" in cmd:
            continue
        (fname, body), = files.items()
        d = os.path.join(tmp, "cases", name[:-5])
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, fname)
        with open(path, "w", encoding="utf-8") as f:
            f.write(body)
        out.append(path)
    return out


def dump(db):
    con = sqlite3.connect(db)
    lines = [STAMP.sub("TIME", line) for line in con.iterdump()]
    con.close()
    return lines


def messages(stderr):
    """The messages in their order, but the last ("done in") and what says a process was skipped (-j says it
    for the reader, in other words)."""
    return [l for l in stderr.splitlines() if "done in" not in l and "already in the database" not in l]


def ingest(inputs, db, jobs):
    return subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-j", str(jobs), *inputs, "-o", db],
                          capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory(prefix="gpuprof-jobs-") as tmp:
        inputs = case_inputs(tmp)
        layouts = os.path.join(ROOT, "tests", "data", "kineto-layouts")
        inputs += [os.path.join(layouts, f) for f in sorted(os.listdir(layouts)) if f.endswith(".json")]
        demo = os.path.join(ROOT, "tests", "data", "demo-session")
        inputs += [demo, demo]  # the second time: every process skipped
        if os.path.isdir(TRACES):
            for f in ("a100_nccl.json.gz", "v100_ns_resolution.json.gz", "mi250_rocm.json.gz",
                      "v100_memory_events.json.gz"):
                p = os.path.join(TRACES, "kineto", f)
                if os.path.exists(p):
                    inputs.append(p)
            nsys = os.path.join(TRACES, "nsys")
            inputs += [os.path.join(nsys, f) for f in sorted(os.listdir(nsys)) if f.endswith(".sqlite")]
        else:
            print(f"ingest_jobs: the real traces skipped: {TRACES} is absent")
        # Only what some reader takes (an unrecognised input stops gpuprof-ingest before it reads anything).
        def taken(p):
            r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", p, "-o", os.path.join(tmp, "probe.db")],
                               capture_output=True, text=True)
            return r.returncode in (0, 3) and "unrecognised input format" not in r.stderr
        inputs = [p for p in inputs if taken(p)]
        ok("inputs of every kind", len(inputs) >= 20, len(inputs))
        one, many = os.path.join(tmp, "one.db"), os.path.join(tmp, "many.db")
        r1, rn = ingest(inputs, one, 1), ingest(inputs, many, 4)
        check("-j 4 exits as -j 1", rn.returncode, r1.returncode)
        ok("some inputs were rejected in part (exit 3)", r1.returncode == 3, r1.returncode)
        d1, dn = dump(one), dump(many)
        ok("the dump has rows", len(d1) > 1000, len(d1))
        check(f"-j 4: the same database, row for row ({len(d1)} lines of SQL)", dn == d1, True)
        if dn != d1:
            diff = [(a, b) for a, b in zip(d1, dn) if a != b][:3]
            print("  first differences:", [(a[:160], b[:160]) for a, b in diff], len(d1), len(dn))
        check("-j 4: the same messages", messages(rn.stderr), messages(r1.stderr))
        ok("no spool files left", not [f for f in os.listdir(tmp) if ".part" in f], os.listdir(tmp))
        # Again into the same databases: what either adds (a rejected file is recorded again), the same.
        r1, rn = ingest(inputs, one, 1), ingest(inputs, many, 4)
        check("a second ingest: -j 4 exits as -j 1", rn.returncode, r1.returncode)
        d1 = dump(one)
        check("a second ingest: -j 4 leaves the database -j 1 leaves", dump(many) == d1, True)
        check("a second ingest: the same messages", messages(rn.stderr), messages(r1.stderr))

        # A reader killed midway: the inputs replayed before it stay, the output is a sound database.
        big = [os.path.join(tmp, f"big{i}") for i in range(6)]
        for i, d in enumerate(big):
            subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "200000", "--seed", str(i), "-o", d,
                            "--no-expected", "--session", f"big{i}"], check=True, capture_output=True)
        killed = os.path.join(tmp, "killed.db")
        p = subprocess.Popen([os.path.join(BIN, "gpuprof-ingest"), "-j", "2", *big, "-o", killed],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        import time
        time.sleep(0.4)
        kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
        if kids:
            os.kill(int(kids[-1]), signal.SIGKILL)
        err = p.communicate()[1]
        if kids:
            check("a reader killed: exit 4", p.returncode, 4)
            ok("a reader killed: says which input", "ended by signal 9" in err, err[-300:])
        else:
            print("ingest_jobs: no reader was running to kill; that check skipped")
        con = sqlite3.connect(killed)
        check("a reader killed: the database is whole", con.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        sessions = [r[0] for r in con.execute("SELECT uuid FROM sessions ORDER BY id")]
        con.close()
        ok("a reader killed: the sessions kept are those before it, whole", sessions == [f"big{i}" for i in
                                                                                      range(len(sessions))], sessions)
        ok("a reader killed: no spool files left", not [f for f in os.listdir(tmp) if ".part" in f], os.listdir(tmp))
    return checks.summary("ingest_jobs")


if __name__ == "__main__":
    sys.exit(main())
