#!/usr/bin/env python3
"""Each C table of the extension kept for speed against the plain-SQL reference that ships beside it
(analyze/ref/NAME.sql), in the sqlite3 shell: the reference file run as it is (its :parameters bound) and
its `-- accelerator:` query over the C table give the same rows (as multisets; numbers that are not whole
equal to 1e-9 relative), on the demo session and on real traces by path (../shared/traces: Kineto, Nsight
Systems, a multi-rank session made here of two Kineto ranks, memory events; skipped with a printed
reason when absent). Every reference file has its header (reference, title, accelerator, a speed-up
line), names a table the extension registers, and every table the extension registers that is kept for
speed has a reference (the rules parsers class_rules and gpu_peaks are not: tests/vtab.py checks them; nor is gpuprof_module)."""
import collections
import glob
import gzip
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import checks
from checks import BIN, ROOT, TRACES, check, ok

EXT = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "lib", "gpuprof_sqlite")
REF = os.path.join(ROOT, "analyze", "ref")
DEMO = os.path.join(ROOT, "tests", "data", "demo-session")
# The tables registered in analyze/ext that are not accelerators: rule-file parsers with checks, and
# gpuprof_module, which sets a module's includes and parameters up (tests/modules_shell.py checks it).
NOT_ACCELERATORS = {"class_rules", "gpu_peaks", "gpuprof_module"}
TRACE_FILES = [("kineto", "a100_alexnet.json.gz"), ("kineto", "a100_pcie_memory_events.json.gz"),
               ("kineto", "h200_pt211_train.pt.trace.json.gz"), ("kineto", "pg509_blocking_streams.json.gz"),
               ("nsys", "a100x4_cloverleaf.sqlite"), ("nsys", "h100_2gpu_1s.sqlite")]
RANKS = [("kineto", "a100_sxm4_rank0.json.gz"), ("kineto", "a100_nccl.json.gz")]


def header(path):
    """The `-- KEY: VALUE` lines of a reference file's leading comments, and its prose lines."""
    keys, prose = {}, []
    for line in open(path):
        if not line.startswith("--"):
            break
        m = re.match(r"-- ([a-z_-]+): (.*)", line.rstrip("\n"))
        if m and m.group(1) in ("reference", "title", "accelerator"):
            keys[m.group(1)] = m.group(2)
        else:
            prose.append(line)
    return keys, prose


def quote(v):
    if v is None:
        return "NULL"
    if isinstance(v, int):
        return str(v)
    return "'" + str(v).replace("'", "''") + "'"


def shell(db, script):
    """script's output in the sqlite3 shell with the extension loaded, as (rc, lines split on tabs, stderr)."""
    p = subprocess.run(["sqlite3", "-batch", "-bail", "-noheader", "-separator", "\t", "-nullvalue", "NULL", db],
                       input=f".load {EXT}\n" + script, capture_output=True, text=True)
    return p.returncode, [line.split("\t") for line in p.stdout.splitlines()], p.stderr.strip()


def bound(params):
    """Shell commands binding params (a dict of name: value) for the statements after them."""
    lines = [".parameter init"]
    for k, v in params.items():
        lines.append(f"INSERT OR REPLACE INTO temp.sqlite_parameters VALUES (':{k}', {quote(v)});")
    return "\n".join(lines) + "\n"


def norm(row):
    """A row with its fractional numbers rounded to 9 significant digits (for sorting both sides alike)."""
    out = []
    for v in row:
        try:
            f = float(v)
        except ValueError:
            out.append(v)
            continue
        out.append(v if re.fullmatch(r"-?\d+", v) else f"{f:.9g}")
    return tuple(out)


def same(a, b):
    """Rows a and b equal as multisets, fractional numbers to 1e-9 relative."""
    if len(a) != len(b):
        return f"{len(a)} rows against {len(b)}"
    a, b = sorted(map(norm, a)), sorted(map(norm, b))
    for x, y in zip(a, b):
        if len(x) != len(y):
            return f"row {x} against {y}"
        for u, v in zip(x, y):
            if u == v:
                continue
            try:
                fu, fv = float(u), float(v)
            except ValueError:
                return f"row {x} against {y}"
            if not math.isclose(fu, fv, rel_tol=1e-9, abs_tol=1e-9):
                return f"row {x} against {y}"
    return None


def compare(db, label, name, params):
    path = os.path.join(REF, name + ".sql")
    keys, _ = header(path)
    pre = bound(params) if params else ""
    rc, want, err = shell(db, pre + f".read {path}\n")
    if rc:
        ok(f"{label}: {name}: the reference runs", False, err[:300])
        return None
    rc, got, err = shell(db, pre + keys["accelerator"] + ";\n")
    if rc:
        ok(f"{label}: {name}: the accelerator runs", False, err[:300])
        return None
    diff = same(got, want)
    shown = (" " + str(params))[:100] if params else ""
    ok(f"{label}: {name}{shown} = analyze/ref/{name}.sql ({len(want)} rows)",
       diff is None, diff)
    return want


def one(db, q):
    rc, rows, err = shell(db, q + ";\n")
    return rows if not rc else []


def params_for(db, name):
    """The parameter sets each parametrized reference is compared with on db."""
    sessions = [int(r[0]) for r in one(db, "SELECT id FROM sessions ORDER BY id")]
    if name in ("op_tree",):
        return [{"session": s} for s in sessions if one(db, f"SELECT count(*) FROM ops WHERE session_id = {s}")[0][0] != "0"]
    if name == "kernel_exec_summary":
        out = []
        for s in sessions:
            out.append({"session": s, "match": None, "exclude": None})
            out.append({"session": s, "match": "(?i)gemm|elementwise|copy", "exclude": None})
            out.append({"session": s, "match": None, "exclude": "(?i)elementwise"})
        return out
    if name == "kernels_of":
        ids = [r[0] for r in one(db, "SELECT DISTINCT name_id FROM kernels ORDER BY name_id")][::3]
        return [{"ids": "[" + ",".join(ids + ["999999999"]) + "]"}, {"ids": "[]"}]
    if name == "kernel_busy":
        out = []
        for s in sessions[:2]:
            m = one(db, "SELECT json_group_object(id, CASE WHEN id % 5 = 0 THEN NULL WHEN id % 3 = 0 THEN 'a' "
                        f"WHEN id % 3 = 1 THEN 'b' ELSE 'c' END) FROM strings WHERE session_id = {s}")[0][0]
            out += [{"classes": m, "default_class": None}, {"classes": m, "default_class": "d"},
                    {"classes": m, "default_class": "a"}]
        return out + [{"classes": "{}", "default_class": "x"}]
    if name == "kernel_windows":
        out = []
        # Host ranges as windows (each process's first ones), and each process's whole time.
        for s, pid, th, a, b in (tuple(int(x) if x != "NULL" else None for x in r) for r in one(
                db, "SELECT session_id, pid, thread_id, start_ns, end_ns FROM (SELECT *, row_number() OVER "
                    "(PARTITION BY session_id, pid ORDER BY rowid) AS n FROM ranges WHERE kind <> 3) WHERE n <= 3")):
            out.append({"session": s, "pid": pid, "by": "thread", "key": th, "start_ns": a, "end_ns": b})
            out.append({"session": s, "pid": pid, "by": "thread", "key": None, "start_ns": a, "end_ns": b})
        for s, pid, st, a in (tuple(int(x) for x in r) for r in one(
                db, "SELECT session_id, pid, min(stream_id), min(start_ns) FROM kernel_columns GROUP BY 1, 2")):
            out.append({"session": s, "pid": pid, "by": "thread", "key": None, "start_ns": a, "end_ns": None})
            out.append({"session": s, "pid": pid, "by": "stream", "key": st, "start_ns": a, "end_ns": None})
            out.append({"session": s, "pid": pid, "by": "stream", "key": None, "start_ns": a + 1000, "end_ns": a + 10**9})
        return out
    return [None]


def databases(tmp):
    """(label, database) pairs: the demo, real traces, a multi-rank session of two Kineto ranks."""
    out = []
    demo = os.path.join(tmp, "demo.db")
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", DEMO, "-o", demo], check=True)
    out.append(("demo", demo))
    for kind, name in TRACE_FILES:
        src = os.path.join(TRACES, kind, name)
        if not os.path.exists(src):
            print(f"refs: skipped {kind}/{name}: {src} is absent")
            continue
        db = os.path.join(tmp, name.split(".")[0] + ".db")
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", src, "-o", db], check=True)
        out.append((name.split(".")[0], db))
    srcs = [os.path.join(TRACES, k, n) for k, n in RANKS]
    if all(os.path.exists(s) for s in srcs):
        # Rank 1 is the second trace with its distributedInfo's rank set to 1: two nodes in one session.
        second = os.path.join(tmp, "rank1.json.gz")
        with gzip.open(srcs[1], "rt") as f:
            text = f.read()
        with gzip.open(second, "wt") as f:
            f.write(re.sub(r'("distributedInfo": \{[^}]*"rank": )0', r"\g<1>1", text, count=1))
        db = os.path.join(tmp, "ranks.db")
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", srcs[0], "-o", db], check=True)
        uuid = one(db, "SELECT uuid FROM sessions")[0][0]
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", second, "--session", uuid, "-o", db], check=True)
        check("multi-rank: one session of two ranks (nodes)", one(db, "SELECT count(*), count(DISTINCT rank) FROM processes"),
              [["2", "2"]])
        out.append(("multi-rank", db))
        # Every session in one database, the demo's among them.
        many = os.path.join(tmp, "many.db")
        shutil.copy(db, many)
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", DEMO, "-o", many], check=True)
        out.append(("two sessions", many))
    else:
        print(f"refs: skipped the multi-rank session: {[s for s in srcs if not os.path.exists(s)]} absent")
    return out


def registered():
    """The tables the extension's sources register (sqlite3_create_module*)."""
    names = set()
    for f in glob.glob(os.path.join(ROOT, "analyze", "ext", "*.c")):
        text = open(f).read()
        names |= set(re.findall(r'sqlite3_create_module(?:_v2)?\(db, "(\w+)"', text))
        m = re.search(r'names\[\] = \{([^}]*)\}', text)
        if m and "create_module" in text:
            names |= set(re.findall(r'"(\w+)"', m.group(1)))
    return names


def main():
    if not shutil.which("sqlite3"):
        print("refs: skipped: no sqlite3 command-line shell")
        return checks.summary("refs")
    if not os.path.exists(EXT + ".so"):
        ok("the extension is built", False, EXT + ".so is missing (make builds it)")
        return checks.summary("refs")
    refs = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(REF, "*.sql")))
    tables = registered()
    ok("the extension registers its tables (found in analyze/ext)", len(tables) >= 15, sorted(tables))
    check("every table kept for speed has a reference in analyze/ref", sorted(tables - NOT_ACCELERATORS - set(refs)), [])
    check("every reference names a registered table", sorted(set(refs) - tables), [])
    for name in refs:
        keys, prose = header(os.path.join(REF, name + ".sql"))
        check(f"{name}.sql: -- reference: names the file", keys.get("reference"), name)
        ok(f"{name}.sql: has a title", keys.get("title"), keys)
        ok(f"{name}.sql: its accelerator query reads {name}", re.search(rf"\b{name}\b", keys.get("accelerator", "")),
           keys)
        ok(f"{name}.sql: states the speed-up", any("Speed-up:" in p for p in prose), "no '-- Speed-up:' line")
    with tempfile.TemporaryDirectory(prefix="gpuprof-refs-") as tmp:
        for label, db in databases(tmp):
            for name in refs:
                for params in params_for(db, name):
                    compare(db, label, name, params)
    return checks.summary("refs")


if __name__ == "__main__":
    sys.exit(main())
