#!/usr/bin/env python3
"""Analyses read the kernel and API call columns from the column chunks ingest writes (lib/colstore.h) when
a session has them, else from the rows; gpuprof-report runs its sections on one connection that keeps
the decoded kernel columns (gpuprof_kernel_cache) and the shared TEMP tables (memory events, range paths)
from one section to the next. The chunks must give the bytes of the rows, and the report's sections the
bytes of each analysis run alone:

- a database holding two synthetic sessions (the first session's rows lie before the second's): every
  analysis on both sessions, with and without name filters and folding, and the whole report, whose JSON
  sections are each analysis's JSON (the report's connection keeping what the analyses share);
- the same database with real Kineto (its time base comes after its events, so ingest shifts the
  chunks it already wrote; and one without a single kernel) and nsys traces added: every analysis from
  the chunks and from the rows (column_chunks dropped) gives the same bytes;
- the triggers: changing a kernel row with sqlite3 retires the kernels' chunks (not the calls'), and
  the answers follow the change; a session ingested afterwards gets chunks again; a damaged chunk is
  an error, not a wrong answer;
- `gpuprof-ingest --reindex` rebuilds what edits retired, heals a damaged database once its sets are
  retired, and gives a database from before chunks its chunks, each with the answers of the rows;
- "the first call with a kernel's correlation id launched it" when a later call of another thread
  carries the same id, and a graph launch's kernels sharing one id all count, against the planted answer.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import BIN, TRACES, check, ok, summary  # noqa: E402


def run(args, expect=0):
    """args' output, checked to exit expect."""
    p = subprocess.run([os.path.join(BIN, args[0])] + args[1:], capture_output=True)
    ok(f"{' '.join(args)} exits {expect}", p.returncode == expect, p.stderr.decode(errors="replace")[:500])
    return p.stdout


def report_matches_analyses(what, db, session, extra, opts=()):
    """The report's JSON sections against each analysis run alone (its own connection, nothing kept), both
    with opts (--short, --group: options the report takes too)."""
    opts = list(opts)
    out = run(["gpuprof-report", db, "--session", session, "-f", "json", "-n", "0"] + opts)
    report = json.loads(out)["tables"] if out else {}
    ok(f"{what}: the report has sections", len(report) > 5, list(report))
    seen = set()
    for name in analysis_names():
        out = run(["gpuprof-analyze", name, db, "--session", session, "-f", "json", "-n", "0"] + opts
                  + extra.get(name, []))
        alone = json.loads(out) if out else []
        tables = alone if isinstance(alone, dict) else {name: alone}
        for t, rows in tables.items():
            if t in report:
                seen.add(t)
                check(f"{what}: report section {t} = gpuprof-analyze {name}", report[t], rows)
    check(f"{what}: every report section compared", sorted(seen), sorted(report))


def two_sessions(tmp):
    dirs = []
    for seed in (11, 12):
        d = os.path.join(tmp, f"synth{seed}")
        subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "3000", "--seed", str(seed),
                        "--no-expected", "-o", d], check=True)
        dirs.append(d)
    db = os.path.join(tmp, "two.db")
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q"] + dirs + ["-o", db], check=True)
    return db


def check_analyses(db):
    names = analysis_names()
    ok("the analyses are listed", "hotspots" in names and "ranges" in names, names)
    for session in ("1", "2"):
        for opts in (["--match", "gemm|elementwise"], ["--exclude", "nccl"], ["--short"],
                     ["--group", "gemm=gemm|sgemm"]):
            for name in ("hotspots", "classes", "launch", "ranges"):
                run(["gpuprof-analyze", name, db, "--session", session, "-f", "json"] + opts)
        report_matches_analyses(f"session {session}", db, session, {"compare": ["--base-session", "1"]})
        run(["gpuprof-report", db, "--session", session, "-f", "html"])
    for opts in (["--short"], ["--group", "gemm=gemm|sgemm"]):
        report_matches_analyses(f"session 1 {' '.join(opts)}", db, "1", {"compare": ["--base-session", "1"]}, opts)


def contested(tmp):
    """Ten launch calls on two threads; calls 5 and 6 carry the same correlation id (5): call 5 (thread 1,
    inside range A), the first, launched it.
    A kernel and a call without a correlation id (0) do not match each other."""
    n = 10
    # An eleventh kernel shares id 1, as the kernels of a CUDA graph launch share the launch's id; the
    # twelfth has no id.
    kern = {"start": [10_000 + 1000 * i for i in range(n + 2)],
            "end": [10_000 + 1000 * i + 100 * (i + 1) for i in range(n)] + [20_000 + 777, 21_000 + 5000],
            "device": [0] * (n + 2), "context": [1] * (n + 2), "stream": [7] * (n + 2),
            "correlation": list(range(1, n + 1)) + [1, 0],
            "name": [1] * (n + 2), "mangled": [0] * (n + 2),
            **{k: [1] * (n + 2) for k in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z")},
            **{k: [0] * (n + 2) for k in ("cluster_x", "cluster_y", "cluster_z", "registers", "static_smem",
                                          "dynamic_smem", "local_mem", "graph_id", "graph_node")}}
    corr = [1, 2, 3, 4, 5, 5, 7, 8, 9, 10, 0]
    thread = [1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 1]
    api = {"start": [100 * i for i in range(n + 1)], "end": [100 * i + 50 for i in range(n + 1)], "thread": thread,
           "correlation": corr, "name": [2] * (n + 1), "cbid": [211] * (n + 1), "domain": [1] * (n + 1)}
    lines = [
        {"type": "header", "v": 1, "session": "contested", "pid": 1, "origin_ns": "1700000000000000000",
         "program": "p", "hostname": "h"},
        {"type": "strings", "v": 1, "ids": [1, 2, 3, 4], "values": ["k", "cudaLaunchKernel", "A", "B"]},
        {"type": "kernel", "v": 1, "seq": 0, "n": n + 2, **kern},
        {"type": "api", "v": 1, "seq": 0, "n": n + 1, **api},
        {"type": "range", "v": 1, "seq": 0, "n": 2, "start": [0, 0], "end": [5000, 5000], "thread": [1, 2],
         "name": [3, 4], "domain": [0, 0], "kind": [1, 1], "depth": [0, 0], "id": [1, 2]},
        {"type": "end", "v": 1, "ts": 100_000},
    ]
    d = os.path.join(tmp, "contested")
    os.makedirs(d)
    with open(os.path.join(d, "1.ndjson"), "w") as f:
        for ln in lines:
            f.write(json.dumps(ln) + "\n")
    db = os.path.join(tmp, "contested.db")
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", d, "-o", db], check=True)
    # Kernel i (1-based correlation i) lasts 100 * i ns. Thread 1 launched 1..5 (call 5 is first with
    # id 5) and the graph kernel of id 1; thread 2 launched 7..10 (its call with id 5 came second, and
    # id 6 launched nothing).
    want = {"A": (sum(100 * i for i in range(1, 6)) + 777, 6), "B": (sum(100 * i for i in range(7, 11)), 4)}
    rows = json.loads(run(["gpuprof-analyze", "ranges", db, "-f", "json"]))
    got = {r["name"]: (r["gpu_ns"], r["kernels"]) for r in rows}
    check("contested correlation id", got, want)


def analysis_names():
    out = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "--list"], capture_output=True, text=True,
                         check=True).stdout
    return [ln.split()[0] for ln in out.splitlines() if ln.strip()]


def query(db, sql, args=()):
    con = sqlite3.connect(db)
    rows = con.execute(sql, args).fetchall()
    con.close()
    return rows


def without_chunks(db, path):
    """A copy of db whose analyses must read the rows: the chunk tables emptied, as schemas/ allows."""
    shutil.copyfile(db, path)
    con = sqlite3.connect(path)
    con.executescript("DELETE FROM column_chunks; DELETE FROM column_sets;")
    con.close()
    return path


def chunks_and_rows(tmp, db):
    """Real traces join the two synthetic sessions; every session's answers from chunks equal the rows'."""
    added = []
    for trace in ("kineto/a100_nccl.json.gz", "nsys/h100_2gpu_1s.sqlite", "kineto/cpu_only.json.gz"):
        path = os.path.join(TRACES, trace)
        if not os.path.exists(path):
            print(f"parallel: skipping {trace}: {path} is absent")
            continue
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", path, "-o", db], check=True)
        added.append(trace)
    sessions = [str(r[0]) for r in query(db, "SELECT id FROM sessions ORDER BY id")]
    chunked = query(db, "SELECT count(DISTINCT session_id) FROM column_sets WHERE tbl = 'kernels'")[0][0]
    check("every ingested session has kernel chunks", chunked, len(sessions))
    rows_db = without_chunks(db, os.path.join(tmp, "rows.db"))
    for session in sessions:
        for name in analysis_names():
            extra = ["--base-session", "1"] if name == "compare" else []
            args = [name, "--session", session, "-f", "json", "-n", "0"] + extra
            check(f"{name} session {session}: chunks give the bytes of rows",
                  run(["gpuprof-analyze", name, db] + args[1:]),
                  run(["gpuprof-analyze", name, rows_db] + args[1:]))
        for opts in (["--match", "gemm|nccl"], ["--short"]):
            for name in ("hotspots", "launch", "ranges"):
                check(f"{name} {' '.join(opts)} session {session}: chunks give the bytes of rows",
                      run(["gpuprof-analyze", name, db, "--session", session, "-f", "json"] + opts),
                      run(["gpuprof-analyze", name, rows_db, "--session", session, "-f", "json"] + opts))
        check(f"report json session {session}: chunks give the bytes of rows",
              run(["gpuprof-report", db, "--session", session, "-f", "json", "-n", "0"]),
              run(["gpuprof-report", rows_db, "--session", session, "-f", "json", "-n", "0"]))
    # A database without chunks gets them from --reindex, with the same answers.
    reindexed = os.path.join(tmp, "reindexed.db")
    shutil.copyfile(rows_db, reindexed)
    reindex(reindexed)
    check("--reindex gives every session of an older database its kernel and call chunks",
          query(reindexed, "SELECT count(*) FROM column_sets")[0][0],
          2 * query(reindexed, "SELECT count(*) FROM processes")[0][0])
    for session in sessions:
        check(f"after --reindex, report json session {session}: the bytes of the chunks ingest wrote",
              run(["gpuprof-report", reindexed, "--session", session, "-f", "json", "-n", "0"]),
              run(["gpuprof-report", db, "--session", session, "-f", "json", "-n", "0"]))
    chunks = ("SELECT tbl, session_id, pid, first_row, rows, base_ns, hex(data) FROM column_chunks "
              "ORDER BY tbl, session_id, first_row")
    check("--reindex writes the chunks ingest wrote", query(reindexed, chunks), query(db, chunks))
    return added


def reindex(db):
    p = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "--reindex", "-o", db], capture_output=True, text=True)
    ok(f"gpuprof-ingest --reindex {os.path.basename(db)} exits 0", p.returncode == 0, p.stderr)
    return p.stderr


def hotspot_total(db, session):
    rows = json.loads(run(["gpuprof-analyze", "hotspots", db, "--session", session, "-f", "json", "-n", "0"]))
    return sum(r["total_ns"] for r in rows), sum(r["calls"] for r in rows)


def edit(db, sql, copy_from=None):
    """Run sql on db (first a copy of copy_from) the way a user would, with sqlite3."""
    if copy_from:
        shutil.copyfile(copy_from, db)
    con = sqlite3.connect(db)
    con.execute(sql)
    con.commit()
    con.close()
    return db


def triggers(tmp, db):
    """Edits through sqlite3 retire the chunks they touch; the answers follow the edit."""
    before = hotspot_total(db, "1")
    edited = edit(os.path.join(tmp, "edited.db"), "UPDATE kernels SET end_ns = end_ns + 1000000 WHERE rowid = "
                  "(SELECT min(rowid) FROM kernels WHERE session_id = 1)", db)
    chunked = ("SELECT tbl, session_id FROM column_sets UNION SELECT tbl, session_id FROM column_chunks "
               "ORDER BY 1, 2")
    check("an UPDATE of a kernel of session 1 retires session 1's kernel chunks only", query(edited, chunked),
          [("api_calls", 1), ("api_calls", 2), ("kernels", 2)])
    check("hotspots after the UPDATE: one kernel 1 ms longer", hotspot_total(edited, "1"),
          (before[0] + 1000000, before[1]))
    edit(edited, "DELETE FROM kernels WHERE rowid = (SELECT max(rowid) FROM kernels WHERE session_id = 1)")
    ok("a DELETE too", hotspot_total(edited, "1")[1] == before[1] - 1)
    edit(edited, "DELETE FROM api_calls WHERE rowid = (SELECT max(rowid) FROM api_calls WHERE session_id = 2)")
    check("a DELETE of a call of session 2 retires session 2's call chunks only", query(edited, chunked),
          [("api_calls", 1), ("kernels", 2)])
    # A session ingested now gets chunks; the edited one still reads its rows.
    d = os.path.join(tmp, "synth13")
    subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "2000", "--seed", "13", "--no-expected",
                    "-o", d], check=True)
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", d, "-o", edited], check=True)
    new = str(query(edited, "SELECT max(id) FROM sessions")[0][0])
    check("a session ingested after an edit has kernel chunks",
          query(edited, "SELECT count(*) FROM column_sets WHERE tbl = 'kernels' AND session_id = ?",
                (int(new),))[0][0], 1)
    rows_db = without_chunks(edited, os.path.join(tmp, "edited-rows.db"))
    for session in ("1", new):
        for name in ("hotspots", "streams", "launch", "ranges", "trend"):
            args = [name, "--session", session, "-f", "json", "-n", "0"]
            check(f"after edits, {name} session {session}: chunks give the bytes of rows",
                  run(["gpuprof-analyze", name, edited] + args[1:]),
                  run(["gpuprof-analyze", name, rows_db] + args[1:]))
    # Ingest put its triggers back: an INSERT retires the new session's chunks too.
    edit(edited, "INSERT INTO kernels (session_id, pid, start_ns, end_ns, device_id, name_id) "
         f"SELECT session_id, pid, start_ns, end_ns, device_id, name_id FROM kernels WHERE session_id = {new} LIMIT 1")
    check("after ingest, an INSERT retires that session's kernel chunks again", query(edited, chunked),
          [("api_calls", 1), ("api_calls", int(new)), ("kernels", 2)])
    # --reindex rebuilds what the edits retired, from the edited rows.
    said = reindex(edited)
    ok("--reindex says what it rebuilt: sessions 1, 2 and the new one",
       "rebuilt the column chunks of 3 sessions" in said, said)
    check("--reindex leaves nothing to rebuild", "rebuilt the column chunks of 0 sessions" in reindex(edited), True)
    check("after --reindex, every session's kernels and calls are in chunks", query(edited, chunked),
          [(t, i) for t in ("api_calls", "kernels") for i in (1, 2, int(new))])
    rows_db = without_chunks(edited, os.path.join(tmp, "edited-rows2.db"))
    for session in ("1", new):
        for name in ("hotspots", "streams", "launch", "ranges", "gaps", "trend"):
            args = [name, "--session", session, "-f", "json", "-n", "0"]
            check(f"after --reindex, {name} session {session}: chunks give the bytes of rows",
                  run(["gpuprof-analyze", name, edited] + args[1:]),
                  run(["gpuprof-analyze", name, rows_db] + args[1:]))
    # A damaged chunk is refused with a message that says what to do.
    damaged = edit(os.path.join(tmp, "damaged.db"), "UPDATE column_chunks SET data = x'FFFFFF7F' || "
                   "substr(data, 5) WHERE id = (SELECT max(id) FROM column_chunks WHERE tbl = 'api_calls' AND "
                   "session_id = 1)", db)
    for name in ("ranges", "gaps"):
        p = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), name, damaged, "--session", "1"],
                           capture_output=True, text=True)
        ok(f"{name} on a damaged chunk fails", p.returncode != 0 and not p.stdout, p.returncode)
        ok(f"{name} on a damaged chunk says so", "column chunks are damaged" in p.stderr, p.stderr)
    # What the message says to do heals it.
    reindex(edit(damaged, "DELETE FROM column_sets"))
    for name in ("ranges", "gaps"):
        check(f"{name} after retiring the damaged chunks and --reindex",
              run(["gpuprof-analyze", name, damaged, "--session", "1", "-f", "json"]),
              run(["gpuprof-analyze", name, db, "--session", "1", "-f", "json"]))


def main():
    with tempfile.TemporaryDirectory(prefix="parallel.") as tmp:
        db = two_sessions(tmp)
        check_analyses(db)
        triggers(tmp, db)
        chunks_and_rows(tmp, db)
        contested(tmp)
    return summary("parallel")


if __name__ == "__main__":
    sys.exit(main())
