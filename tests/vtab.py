#!/usr/bin/env python3
"""The virtual tables of build/lib/gpuprof_sqlite.so and the fast hotspots view, in the sqlite3 shell.
kernel_columns (and api_columns) against the kernels (api_calls) table row for row (as multisets) for sessions with column chunks,
without them (retired with SQL), several sessions and processes, with and without `session_id = S`;
damaged chunks are an error while they count, not wrong rows; kernel_stats against GROUP BY over
kernel_columns with median and stddev_samp; the hotspots view with the extension (a TEMP view over
kernel_stats) and without it (the stored plain-SQL view) against `gpuprof-analyze hotspots --format json`
on the demo session and Kineto traces from ../shared/traces; memory_pairs against its plain-SQL form."""
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


# memory_pairs said in plain SQL: each event's stack level at its (session, pid, device, address) is the
# running count of allocations less frees (a free's level is the count before it); at one level allocations
# and frees alternate, so an allocation pairs with the next event there and a free with the one before.
PAIRS_SQL = """
WITH e AS (SELECT rowid AS id, session_id, pid, coalesce(device_id, -1) AS device, address, ts_ns AS ts, op = 1 AS alloc,
                  bytes, total_allocated AS total FROM memory_events),
w AS (SELECT *, row_number() OVER (PARTITION BY session_id ORDER BY ts, id) AS seq,
             sum(CASE WHEN alloc THEN 1 ELSE -1 END) OVER (PARTITION BY session_id, pid, device, address ORDER BY ts, id) AS s,
             total - lag(total, 1, 0) OVER (PARTITION BY session_id, device, pid, total IS NULL ORDER BY ts, id) AS total_step
      FROM e),
l AS (SELECT *, CASE WHEN address IS NULL THEN NULL WHEN alloc THEN lead(id) OVER k ELSE lag(id) OVER k END AS pair,
             CASE WHEN address IS NULL THEN 0 WHEN alloc THEN bytes ELSE -coalesce(lag(bytes) OVER k, 0) END AS live_step
      FROM w WINDOW k AS (PARTITION BY session_id, pid, device, address, CASE WHEN alloc THEN s ELSE s + 1 END ORDER BY ts, id))
SELECT session_id, id, seq, pair, sum(live_step) OVER d, sum(CASE WHEN alloc THEN bytes ELSE -bytes END) OVER d,
       sum(coalesce(total_step, 0)) OVER d
FROM l WINDOW d AS (PARTITION BY session_id, device ORDER BY ts, id)
"""
PAIRS = "SELECT session_id, event, seq, pair, live_bytes, sum_bytes, total_bytes FROM memory_pairs"


def memory_pairs(tmp):
    """memory_pairs against its plain-SQL form: the demo session's events, and a second session of random
    events made here (several processes and devices, a NULL device, addresses reused, nested and freed before
    the capture, some without address, equal times, running totals from two processes)."""
    import random
    import sqlite3
    db = os.path.join(tmp, "pairs.db")
    ingest(DEMO, db)
    r = random.Random(16)
    con = sqlite3.connect(db)
    rows = []
    for _ in range(600):
        dev = r.choice([0, 1, None])
        rows.append((2, r.choice([1, 2]), r.randint(0, 300), dev, r.choice([1, 1, 2]),
                     None if dev == 1 and r.random() < 0.2 else r.choice([0x1000, 0x2000, 0x3000, 0]),
                     r.randint(0, 10**6), r.choice([None, r.randint(0, 10**9)]) if dev is None else r.randint(0, 10**9)))
    con.executemany("INSERT INTO memory_events (session_id, pid, ts_ns, device_id, op, address, bytes, total_allocated) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    want = sql(db, PAIRS_SQL)
    check("memory_pairs: rows of both sessions", len(sql(db, PAIRS)), len(want))
    check(f"memory_pairs = its plain SQL ({len(want)} rows)", multiset(sql(db, PAIRS)) == multiset(want), True)
    check("memory_pairs WHERE session_id = 2 = its plain SQL",
          multiset(sql(db, PAIRS + " WHERE session_id = 2")) == multiset(w for w in want if w[0] == "2"), True)
    ok("memory_pairs: some frees of earlier blocks and some pairs",
       0 < sum(1 for w in want if w[3] == "") < len(want), "no mix of paired and unpaired events")
    check("memory_pairs: in time order (seq)", [w[2] for w in sql(db, PAIRS + " WHERE session_id = 2")],
          [str(i) for i in range(1, 601)])


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
        memory_pairs(tmp)
        hotspots(tmp, "demo", DEMO)
        for k in kineto:
            hotspots(tmp, os.path.basename(k).split(".")[0], k)
    return checks.summary("vtab")


if __name__ == "__main__":
    sys.exit(main())
