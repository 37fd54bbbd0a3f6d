#!/usr/bin/env python3
"""The virtual tables of build/lib/gpuprof_sqlite.so and the fast hotspots view, in the sqlite3 shell.
kernel_columns (and api_columns) against the kernels (api_calls) table row for row (as multisets) for sessions with column chunks,
without them (retired with SQL), several sessions and processes, with and without `session_id = S`;
damaged chunks are an error while they count, not wrong rows; kernel_stats against GROUP BY over
kernel_columns with median and stddev_samp; the hotspots view with the extension (a TEMP view over
kernel_stats) and without it (the stored plain-SQL view) against `gpuprof-analyze hotspots --format json`
on the demo session and Kineto traces from ../shared/traces; kernel_windows against the plain join of kernels
and their first API call by correlation id (by thread, by stream, one or any of a process) over every range's
window; the hidden schema column reading an attached copy."""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

import checks
from checks import BIN, ROOT, TRACES, check, close, ok

EXT = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "lib", "gpuprof_sqlite")
DEMO = os.path.join(ROOT, "tests", "data", "demo-session")
KINETO = [os.path.join(TRACES, "kineto", n) for n in ("a100_alexnet.json.gz", "pg509_blocking_streams.json.gz")]

KERNELS = ("SELECT session_id, pid, start_ns, end_ns, device_id, coalesce(stream_id, -1), name_id, "
           "coalesce(correlation_id, 0), end_ns - start_ns FROM kernels")
COLUMNS = ("SELECT session_id, pid, start_ns, end_ns, device_id, stream_id, name_id, correlation_id, dur_ns "
           "FROM kernel_columns")
CALLS = ("SELECT session_id, pid, start_ns, end_ns, coalesce(thread_id, 0), coalesce(name_id, 0), "
         "coalesce(correlation_id, 0), end_ns - start_ns FROM api_calls")
API = ("SELECT session_id, pid, start_ns, end_ns, thread_id, name_id, correlation_id, dur_ns FROM api_columns")
HOT = ("name", "calls", "total_ns", "avg_ns", "med_ns", "min_ns", "max_ns", "stddev_ns", "time_pct")


def sql(db, query, *, load=True, expect_ok=True):
    """query's rows in the sqlite3 shell (the extension loaded unless load is False), as lists of strings."""
    args = ["sqlite3", "-batch", "-bail", "-noheader", "-separator", "\t", db]
    if load:
        args.append(f".load {EXT}")
    p = subprocess.run(args + [query], capture_output=True, text=True)
    if not expect_ok:
        return p
    if p.returncode != 0:
        print(f"FAIL sqlite3 exit {p.returncode}: {p.stderr.strip()[:300]}\n  for {query[:200]}")
        checks.counts["failed"] += 1
        return []
    return [line.split("\t") for line in p.stdout.splitlines()]


def ingest(src, db):
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", src, "-o", db], check=True)


def analyze(db, name, *extra):
    return json.loads(subprocess.run([os.path.join(BIN, "gpuprof-analyze"), name, db, "--format", "json"] + list(extra),
                                     capture_output=True, text=True, check=True).stdout)


def multiset(rows):
    return collections.Counter(tuple(r) for r in rows)


def same_rows(what, db, where="", api=False):
    got, want = sql(db, (API if api else COLUMNS) + where), sql(db, (CALLS if api else KERNELS) + where)
    ok(f"{what}: rows", len(want) > 0 or where, "no rows to compare")
    table = "api_columns = api_calls" if api else "kernel_columns = kernels"
    check(f"{what}: {table} ({len(want)} rows)", multiset(got) == multiset(want), True)


def chunked(db):
    """The sessions whose kernel chunks are complete (what kernel_columns reads them from)."""
    return [int(r[0]) for r in sql(db, "SELECT s.id FROM sessions s WHERE (SELECT count(*) FROM processes p "
                                       "WHERE p.session_id = s.id) = (SELECT count(*) FROM column_sets c WHERE "
                                       "c.session_id = s.id AND c.tbl = 'kernels') AND EXISTS (SELECT 1 FROM "
                                       "column_sets c WHERE c.session_id = s.id AND c.tbl = 'kernels') ORDER BY s.id", load=False)]


def columns(tmp, sources):
    """kernel_columns on several sessions (and processes), with chunks and without."""
    db = os.path.join(tmp, "many.db")
    for src in sources:
        ingest(src, db)
    sessions = [int(r[0]) for r in sql(db, "SELECT id FROM sessions ORDER BY id", load=False)]
    ok("several sessions", len(sessions) >= 2, sessions)
    ok("a session of several processes", int(sql(db, "SELECT max(n) FROM (SELECT count(*) AS n FROM processes "
                                                      "GROUP BY session_id)", load=False)[0][0]) >= 2)
    check("every session has complete kernel chunks", chunked(db), sessions)
    same_rows("all sessions, chunks", db)
    same_rows("all sessions, chunks", db, api=True)
    for s in sessions:
        same_rows(f"session {s}, chunks", db, f" WHERE session_id = {s}")
        same_rows(f"session {s}, chunks", db, f" WHERE session_id = {s}", api=True)
    check("session_id = NULL", sql(db, COLUMNS + " WHERE session_id = NULL"), [])
    check("session_id = an unknown id", sql(db, COLUMNS + " WHERE session_id = 9999"), [])
    plan = sql(db, "EXPLAIN QUERY PLAN " + COLUMNS + f" WHERE session_id = {sessions[0]}")
    ok("session_id = S: the table takes the constraint (odd idxNum)",
       any("VIRTUAL TABLE INDEX" in r[-1] and int(r[-1].split("INDEX ")[1].split(":")[0]) & 1 for r in plan), plan)
    ok("CREATE VIRTUAL TABLE is refused (eponymous only)",
       sql(db, "CREATE VIRTUAL TABLE temp.k USING kernel_columns", expect_ok=False).returncode != 0)
    ok("read-only", sql(db, "DELETE FROM kernel_columns", expect_ok=False).returncode != 0)

    # The chunks are what it reads: damaged ones are an error while they count...
    first = sessions[0]
    bad = os.path.join(tmp, "bad.db")
    shutil.copy(db, bad)
    sql(bad, f"UPDATE column_chunks SET data = x'00' WHERE session_id = {first}", load=False)
    p = sql(bad, COLUMNS + f" WHERE session_id = {first}", expect_ok=False)
    ok("damaged chunks: an error", p.returncode != 0 and "kernels: column chunks are damaged" in p.stderr, p.stderr)
    p = sql(bad, API + f" WHERE session_id = {first}", expect_ok=False)
    ok("damaged chunks: api_columns errs", p.returncode != 0 and "api_calls: column chunks are damaged" in p.stderr,
       p.stderr)
    p = sql(bad, f"SELECT count(*) FROM kernel_stats WHERE session_id = {first}", expect_ok=False)
    ok("damaged chunks: kernel_stats errs too", p.returncode != 0 and "kernels: column chunks are damaged" in p.stderr,
       p.stderr)
    # Chunks out of order (first_row not the rows before them) are damaged too, for both.
    gap = os.path.join(tmp, "gap.db")
    shutil.copy(db, gap)
    sql(gap, f"UPDATE column_chunks SET first_row = first_row + 1 WHERE session_id = {first} AND tbl = 'kernels'",
        load=False)
    for what, q in (("kernel_columns", COLUMNS), ("kernel_stats", "SELECT count(*) FROM kernel_stats")):
        p = sql(gap, q + f" WHERE session_id = {first}", expect_ok=False)
        ok(f"chunks out of order: {what} errs", p.returncode != 0 and "kernels: column chunks are damaged" in p.stderr,
           p.stderr)
    # ...and once retired, the rows answer.
    sql(bad, f"DELETE FROM column_sets WHERE session_id = {first}", load=False)
    check("retired chunks: the session reads its rows", chunked(bad), sessions[1:])
    same_rows("one session without chunks, the others with", bad)
    same_rows(f"session {first} without chunks", bad, f" WHERE session_id = {first}")
    same_rows("api calls: one session without chunks, the others with", bad, api=True)
    # A database of schema version 3 has kernel chunks of other columns: they are not read.
    old = os.path.join(tmp, "old.db")
    shutil.copy(db, old)
    sql(old, f"UPDATE column_chunks SET data = x'00' WHERE tbl = 'kernels' AND session_id = {first}; "
             "PRAGMA user_version = 3", load=False)
    same_rows("schema version 3: its chunks are not read", old)
    sql(bad, "DELETE FROM column_sets; DELETE FROM column_chunks", load=False)
    same_rows("no chunks at all", bad)
    same_rows("no chunks at all", bad, api=True)

    for d, what in ((db, "chunks"), (bad, "rows")):
        stats = sql(d, "SELECT session_id, name_id, calls, total_ns, avg_ns, med_ns, min_ns, max_ns, stddev_ns "
                       "FROM kernel_stats")
        group = sql(d, "SELECT session_id, name_id, count(*), sum(dur_ns), avg(dur_ns), median(dur_ns), min(dur_ns), "
                       "max(dur_ns), stddev_samp(dur_ns) FROM kernel_columns GROUP BY 1, 2 ORDER BY 1, 2")
        check(f"kernel_stats ({what}): the groups", [r[:4] + r[6:8] for r in stats], [r[:4] + r[6:8] for r in group])
        for a, b in zip(stats, group):
            for i, col in ((4, "avg"), (5, "median"), (8, "stddev")):
                close(f"kernel_stats ({what}) {a[:2]}: {col}", float(a[i]), float(b[i]), 1e-12)
        one = sql(d, f"SELECT count(*) FROM kernel_stats WHERE session_id = {first}")
        check(f"kernel_stats ({what}): session_id = S", one,
              sql(d, f"SELECT count(DISTINCT name_id) FROM kernels WHERE session_id = {first}", load=False))


def hotspots(tmp, name, src):
    """The hotspots view with the extension, and without, against gpuprof-analyze hotspots."""
    db = os.path.join(tmp, name + ".db")
    ingest(src, db)
    want = analyze(db, "hotspots", "-n", "0")
    ok(f"{name}: kernels to compare", len(want) > 0)
    newest = sql(db, "SELECT max(id) FROM sessions", load=False)[0][0]
    query = "SELECT " + ", ".join(HOT) + f" FROM hotspots WHERE session_id = {newest}"
    plain = os.path.join(tmp, name + "-nochunks.db")
    shutil.copy(db, plain)
    sql(plain, "DELETE FROM column_sets", load=False)
    for label, d, load in (("extension", db, True), ("extension, no chunks", plain, True), ("plain view", db, False)):
        got = sql(d, query, load=load)
        check(f"{name} ({label}): names in order", [r[0] for r in got], [r["name"] for r in want])
        for g, w in zip(got, want):
            check(f"{name} ({label}) {w['name'][:30]}: calls, total, min, max",
                  (int(g[1]), int(g[2]), int(g[5]), int(g[6])), (w["calls"], w["total_ns"], w["min_ns"], w["max_ns"]))
            for i, col in ((3, "avg_ns"), (4, "med_ns"), (7, "stddev_ns"), (8, "time_pct")):
                close(f"{name} ({label}) {w['name'][:30]}: {col}", float(g[i]), float(w[col]), 1e-12)
    ext = sql(db, "EXPLAIN QUERY PLAN SELECT * FROM hotspots")
    ok(f"{name}: with the extension hotspots reads kernel_stats", any("VIRTUAL TABLE" in r[-1] for r in ext), ext)
    noext = sql(db, "EXPLAIN QUERY PLAN SELECT * FROM hotspots", load=False)
    ok(f"{name}: without it, the stored view", not any("VIRTUAL TABLE" in r[-1] for r in noext), noext)
    schema = "\n".join(r[0] for r in sql(db, ".schema hotspots", load=False))
    ok(f"{name}: the stored view says how to load the extension", ".load build/lib/gpuprof_sqlite" in schema, schema)


# Kernels with their launching call (the first API call of the process with the correlation id, in table
# order) and the window of every range, in plain SQL: what kernel_windows answers.
LAUNCH = ("WITH first AS (SELECT session_id, pid, correlation_id AS corr, min(rowid) AS rid FROM api_calls "
          "WHERE correlation_id > 0 GROUP BY 1, 2, 3), "
          "launch AS (SELECT k.session_id, k.pid, coalesce(c.thread_id, 0) AS key, c.start_ns AS t, "
          "k.end_ns - k.start_ns AS dur FROM kernels k JOIN first f ON f.session_id = k.session_id "
          "AND f.pid = k.pid AND f.corr = k.correlation_id JOIN api_calls c ON c.rowid = f.rid), "
          "start AS (SELECT session_id, pid, coalesce(stream_id, -1) AS key, start_ns AS t, end_ns - start_ns AS dur "
          "FROM kernels) ")
PLAIN = ("SELECT r.rowid, coalesce(sum(l.dur), 0), count(l.dur) FROM ranges r LEFT JOIN {src} l "
         "ON l.session_id = r.session_id AND l.pid = r.pid AND {key} AND l.t >= r.start_ns "
         "AND (r.end_ns IS NULL OR l.t < r.end_ns) GROUP BY r.rowid ORDER BY r.rowid")
WINDOWS = ("SELECT r.rowid, w.gpu_ns, w.kernels FROM ranges r, kernel_windows(r.session_id, r.pid, '{by}', {key}, "
           "r.start_ns, r.end_ns{schema}) w ORDER BY r.rowid")


def windows(tmp):
    """kernel_windows against the plain join, and the schema column on an attached copy."""
    db = os.path.join(tmp, "many.db")
    n = int(sql(db, "SELECT count(*) FROM ranges", load=False)[0][0])
    ok("windows: ranges to check", n > 0, n)
    for by, src in (("thread", "launch"), ("stream", "start")):
        for one in (True, False):
            key = "coalesce(r.thread_id, 0)" if one else "NULL"
            want = sql(db, LAUNCH + PLAIN.format(src=src, key="l.key = coalesce(r.thread_id, 0)" if one else "1"),
                       load=False)
            got = sql(db, WINDOWS.format(by=by, key=key, schema=""))
            if by == "thread" or not one:	# (the ranges here are host ranges: threads, not streams)
                ok(f"windows: by {by}, {'its' if one else 'any'} {by}: kernels in some", any(r[2] != "0" for r in want))
            check(f"windows: by {by}, {'its' if one else 'any'} {by} ({len(want)} ranges)", got, want)
    # The schema column: an emptied copy as main, the database attached as base.
    empty = os.path.join(tmp, "emptied.db")
    shutil.copy(db, empty)
    sql(empty, "DELETE FROM kernels; DELETE FROM api_calls; DELETE FROM column_chunks; DELETE FROM column_sets",
        load=False)
    attach = f"ATTACH '{db}' AS base; "
    got = sql(empty, attach + WINDOWS.format(by="thread", key="NULL", schema=", 'base'"))
    check("windows: schema 'base' reads the attached database", got,
          sql(db, WINDOWS.format(by="thread", key="NULL", schema="")))
    for t, cols in (("kernel_stats", "session_id, name_id, calls, total_ns, med_ns"), ("kernel_columns", COLUMNS[7:-19]),
                    ("api_columns", API[7:-16])):
        want = sql(db, f"SELECT {cols} FROM {t}")
        ok(f"{t}: main emptied", not sql(empty, f"SELECT {cols} FROM {t}"))
        got = sql(empty, attach + f"SELECT {cols} FROM {t} WHERE schema = 'base'")
        check(f"{t}: schema 'base' reads the attached database ({len(want)} rows)", multiset(got), multiset(want))
    joined = sql(empty, attach + "SELECT s.id, count(*) FROM base.sessions s JOIN kernel_stats k ON k.session_id = s.id "
                 "AND k.schema = 'base' GROUP BY s.id ORDER BY s.id")
    check("kernel_stats joined on session and schema", joined,
          sql(db, "SELECT session_id, count(*) FROM kernel_stats GROUP BY 1 ORDER BY 1"))


def main():
    if not shutil.which("sqlite3"):
        print("vtab: skipped: no sqlite3 command-line shell")
        return checks.summary("vtab")
    if not os.path.exists(EXT + ".so"):
        ok("the extension is built", False, EXT + ".so is missing (make builds it)")
        return checks.summary("vtab")
    kineto = [k for k in KINETO if os.path.exists(k)]
    if len(kineto) < len(KINETO):
        print(f"vtab: skipped the Kineto traces that are absent: {sorted(set(KINETO) - set(kineto))}")
    with tempfile.TemporaryDirectory(prefix="gpuprof-vtab-") as tmp:
        if kineto:
            columns(tmp, [DEMO] + kineto)
        else:
            # Two sessions still: the demo recording twice, as two sources.
            columns(tmp, [DEMO, os.path.join(DEMO, sorted(os.listdir(DEMO))[0])])
        windows(tmp)
        hotspots(tmp, "demo", DEMO)
        for k in kineto:
            hotspots(tmp, os.path.basename(k).split(".")[0], k)
    return checks.summary("vtab")


if __name__ == "__main__":
    sys.exit(main())
