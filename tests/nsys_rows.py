#!/usr/bin/env python3
"""nsys_rows: Nsight Systems rows of the wrong type, and GPU activity gpuprof does not read.

Copies of real exports from ../shared/traces/nsys are made in a temporary folder and a few rows are
changed with SQL (NOT NULL constraints lifted where a test needs a NULL): a text start, a NULL end, an end
before its start, name ids missing from StringIds, a fractional REAL, a blob, text in optional columns.
Each such row must be rejected, named with its table and rowid on stderr and in ingest_errors (line = the
rowid), and the exit must be 3; every other row must be kept exactly (compared with the copy, read here
with sqlite3). Also: the cap on printed messages, GPU-activity tables that are not read (a warning, rows in
`ingest_skipped`), exports from which no GPU activity is read (exit 3), a bad TARGET_INFO_GPU row, a time origin
that is text.

Prints one line per failure and ends with "nsys_rows: N passed, M failed"; exit 1 if any failed.
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter

import checks
from checks import BIN, check, ok

TRACES = os.path.join(checks.TRACES, "nsys")
RICH = "h100_2gpu_1s.sqlite"		# kernels, copies, memsets, syncs, API calls, overheads, NVTX
SMALL = "healthy_1pct.sqlite"		# 400 kernels, 400 API calls
OLD = "a100_saxpy_nsys2022.sqlite"	# nsys 2022, EXPORT_META_DATA, TARGET_INFO_GPU
UNREAD = "rtx4060ti_test_cuda.sqlite"	# holds CUPTI_ACTIVITY_KIND_CUDA_EVENT rows


def run(*args):
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    return subprocess.run(list(args), capture_output=True, text=True, env=env)


def ingest(path, db):
    return run(os.path.join(BIN, "gpuprof-ingest"), path, "-o", db)


def mutate(tmp, name, sql, loosen=()):
    """A writable copy of export `name` with the NOT NULL constraints of tables `loosen` lifted and `sql` run."""
    dst = os.path.join(tmp, f"{len(os.listdir(tmp))}-{name}")
    shutil.copy(os.path.join(TRACES, name), dst)
    os.chmod(dst, 0o644)
    if loosen:
        con = sqlite3.connect(dst)
        con.execute("PRAGMA writable_schema = ON")
        for t in loosen:
            con.execute("UPDATE sqlite_master SET sql = replace(sql, 'NOT NULL', '') WHERE type = 'table' "
                        "AND name = ?", (t,))
        con.commit()
        con.close()
    con = sqlite3.connect(dst)
    con.executescript(sql)
    con.commit()
    con.close()
    return dst


def origin_of(con):
    try:
        row = con.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()
        return row[0] if row and row[0] is not None else 0
    except sqlite3.OperationalError:
        return 0


# nsys table -> (session.db table, its columns, the export's columns); times get the origin added.
KEPT = {
    "CUPTI_ACTIVITY_KIND_KERNEL": ("kernels", "start_ns, end_ns, correlation_id, device_id",
                                   'start, "end", correlationId, deviceId'),
    "CUPTI_ACTIVITY_KIND_MEMCPY": ("memcpys", "start_ns, end_ns, correlation_id, bytes",
                                   'start, "end", correlationId, bytes'),
    "CUPTI_ACTIVITY_KIND_MEMSET": ("memsets", "start_ns, end_ns, correlation_id, bytes",
                                   'start, "end", correlationId, bytes'),
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION": ("syncs", "start_ns, end_ns, correlation_id",
                                            'start, "end", correlationId'),
    "CUPTI_ACTIVITY_KIND_RUNTIME": ("api_calls", "start_ns, end_ns, correlation_id",
                                    'start, "end", correlationId'),
    "CUPTI_ACTIVITY_KIND_OVERHEAD": ("overheads", "start_ns, end_ns", 'start, "end"'),
    "NVTX_EVENTS": ("ranges", "start_ns, end_ns", 'start, "end"'),
}


def kept_rows(src_path, db, rejected):
    """For each table of KEPT: (got, expected) multisets of rows; expected = the copy's rows less `rejected`
    ({table: {rowid}}), times plus the origin."""
    src = sqlite3.connect(src_path)
    out = sqlite3.connect(db)
    origin = origin_of(src)
    tables = {r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    res = {}
    for t, (dt, dcols, scols) in KEPT.items():
        if t not in tables:
            continue
        where = " WHERE eventType IN (59, 60)" if t == "NVTX_EVENTS" else ""
        exp = Counter()
        for row in src.execute(f"SELECT rowid, {scols} FROM {t}{where}"):
            if row[0] in rejected.get(t, ()):
                continue
            s, e = row[1], row[2]
            exp[(s + origin, e + origin if e is not None else None) + tuple(row[3:])] += 1
        got = Counter(out.execute(f"SELECT {dcols} FROM {dt}").fetchall())
        res[t] = (got, exp)
    src.close()
    out.close()
    return res


def errors_of(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT session_id, file, line, reason, excerpt FROM ingest_errors ORDER BY id").fetchall()
    finally:
        con.close()


def query(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_wrong_rows(tmp):
    """One bad row of each kind in the rich export: each rejected and recorded, all others kept."""
    orig = sqlite3.connect(f"file:{os.path.join(TRACES, RICH)}?mode=ro", uri=True)
    k19 = orig.execute('SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = 19').fetchone()[0]
    o1 = orig.execute('SELECT start FROM CUPTI_ACTIVITY_KIND_OVERHEAD WHERE rowid = 1').fetchone()[0]
    n59 = [r[0] for r in orig.execute("SELECT rowid FROM NVTX_EVENTS WHERE eventType = 59 ORDER BY rowid LIMIT 3")]
    s59 = orig.execute("SELECT start FROM NVTX_EVENTS WHERE rowid = ?", (n59[2],)).fetchone()[0]
    orig.close()
    sql = f"""
        UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'abc' WHERE rowid = 17;
        UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = NULL WHERE rowid = 18;
        UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start - 1 WHERE rowid = 19;
        UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET shortName = 999999 WHERE rowid = 20;
        UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 999998 WHERE rowid = 21;
        UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 1.5 WHERE rowid = 22;
        UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = X'00' WHERE rowid = 23;
        UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 'seven' WHERE rowid = 24;
        UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = NULL WHERE rowid = 3;
        UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET copyKind = 'HtoD' WHERE rowid = 4;
        UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET "end" = 'soon' WHERE rowid = 1;
        UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET globalPid = 'x' WHERE rowid = 3;
        UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = X'01' WHERE rowid = 6;
        UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET start = NULL WHERE rowid = 2;
        UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = 88888 WHERE rowid = 5;
        UPDATE CUPTI_ACTIVITY_KIND_OVERHEAD SET "end" = start - 5 WHERE rowid = 1;
        UPDATE NVTX_EVENTS SET text = NULL, textId = 99999 WHERE rowid = {n59[0]};
        UPDATE NVTX_EVENTS SET start = 'x' WHERE rowid = {n59[1]};
        UPDATE NVTX_EVENTS SET "end" = start - 1 WHERE rowid = {n59[2]};
    """
    path = mutate(tmp, RICH, sql, loosen=("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                          "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"))
    K, M = "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY"
    want = [
        (K, 17, '"start" is text, not an integer', "start = 'abc'"),
        (K, 18, '"end" is NULL', "end = NULL"),
        (K, 19, f'"end" {k19 - 1} is before "start" {k19}', f"end = {k19 - 1}"),
        (K, 20, '"shortName" 999999 is not in StringIds', "shortName = 999999"),
        (K, 21, '"demangledName" 999998 is not in StringIds', "demangledName = 999998"),
        (K, 22, '"start" is 1.5, not an integer', "start = 1.5"),
        (K, 23, '"deviceId" is a blob, not an integer', "deviceId = a blob of 1 bytes"),
        (K, 24, '"gridX" is text, not an integer', "gridX = 'seven'"),
        (M, 3, '"bytes" is NULL', "bytes = NULL"),
        (M, 4, '"copyKind" is text, not an integer', "copyKind = 'HtoD'"),
        ("CUPTI_ACTIVITY_KIND_MEMSET", 1, '"end" is text, not an integer', "end = 'soon'"),
        ("CUPTI_ACTIVITY_KIND_MEMSET", 3, '"globalPid" is text, not an integer', "globalPid = 'x'"),
        ("CUPTI_ACTIVITY_KIND_RUNTIME", 6, '"globalTid" is a blob, not an integer', "globalTid = a blob of 1 bytes"),
        ("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", 2, '"start" is NULL', "start = NULL"),
        ("CUPTI_ACTIVITY_KIND_RUNTIME", 5, '"nameId" 88888 is not in StringIds', "nameId = 88888"),
        ("CUPTI_ACTIVITY_KIND_OVERHEAD", 1, f'"end" {o1 - 5} is before "start" {o1}', f"end = {o1 - 5}"),
        ("NVTX_EVENTS", n59[0], '"textId" 99999 is not in StringIds', "textId = 99999"),
        ("NVTX_EVENTS", n59[1], '"start" is text, not an integer', "start = 'x'"),
        ("NVTX_EVENTS", n59[2], f'"end" {s59 - 1} is before "start" {s59}', f"end = {s59 - 1}"),
    ]
    db = os.path.join(tmp, "wrong.db")
    r = ingest(path, db)
    check("wrong rows: exit", r.returncode, 3)
    errs = errors_of(db)
    got = sorted((e[2], e[3], e[4]) for e in errs)
    exp = sorted((rowid, f"{t} rowid {rowid}: {why}", excerpt) for t, rowid, why, excerpt in want)
    check("wrong rows: ingest_errors (line, reason, excerpt)", got, exp)
    check("wrong rows: ingest_errors name the export and the session",
          {(e[0] is not None, e[1]) for e in errs}, {(True, path)})
    for t, rowid, why, _ in want:
        line = f"gpuprof-ingest: error: {path}: {t} rowid {rowid}: {why}"
        ok(f"wrong rows: stderr has {t} rowid {rowid}", line in r.stderr.splitlines(), r.stderr[-600:])
    ok("wrong rows: stderr counts them", f"{len(want)} row(s) rejected" in r.stderr, r.stderr[-300:])
    rejected = {}
    for t, rowid, _, _ in want:
        rejected.setdefault(t, set()).add(rowid)
    for t, (g, e) in kept_rows(path, db, rejected).items():
        ok(f"wrong rows: every other {t} row kept exactly", g == e,
           f"{sum(g.values())} rows, {sum(e.values())} expected; missing {list((e - g).items())[:2]}, "
           f"extra {list((g - e).items())[:2]}")
    procs = {r[0] for r in query(os.path.join(TRACES, RICH), "SELECT DISTINCT (globalPid >> 24) & 16777215 "
                                 "FROM CUPTI_ACTIVITY_KIND_KERNEL")}
    check("wrong rows: no process made up from a text process id",
          {r[0] for r in query(db, "SELECT pid FROM processes")}, procs)
    # Again: the processes are in the database already; nothing is added, nothing recorded twice.
    r = ingest(path, db)
    check("wrong rows: re-ingest exit", r.returncode, 0)
    check("wrong rows: re-ingest records nothing again", len(errors_of(db)), len(want))


def test_cap(tmp):
    """30 bad rows: 20 printed one by one, then one line, then the count; all 30 recorded."""
    path = mutate(tmp, SMALL, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'x' WHERE rowid <= 30;")
    db = os.path.join(tmp, "cap.db")
    r = ingest(path, db)
    check("cap: exit", r.returncode, 3)
    rows = [l for l in r.stderr.splitlines() if re.search(r": CUPTI_ACTIVITY_KIND_KERNEL rowid [0-9]+: ", l)]
    check("cap: rows printed one by one", len(rows), 20)
    ok("cap: then that more follow", "more rows are rejected; all are recorded in table ingest_errors" in r.stderr,
       r.stderr[-300:])
    ok("cap: then the count", "30 row(s) rejected" in r.stderr, r.stderr[-300:])
    check("cap: all recorded", sorted(e[2] for e in errors_of(db)), list(range(1, 31)))
    total = query(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")[0][0]
    check("cap: every other kernel kept", query(db, "SELECT count(*) FROM kernels")[0][0], total - 30)


def test_no_gpu(tmp):
    """Nothing GPU read: every kernel rejected, or the kernels gone, or only in a table not read: exit 3."""
    path = mutate(tmp, SMALL, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'x';")
    db = os.path.join(tmp, "nogpu1.db")
    r = ingest(path, db)
    check("no GPU (all rejected): exit", r.returncode, 3)
    ok("no GPU (all rejected): says so", "no GPU activity was read" in r.stderr, r.stderr[-300:])
    calls = query(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME")[0][0]
    check("no GPU (all rejected): API calls kept", query(db, "SELECT count(*) FROM api_calls")[0][0], calls)

    path = mutate(tmp, SMALL, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL;")
    db = os.path.join(tmp, "nogpu2.db")
    r = ingest(path, db)
    # Nothing GPU at all, as a CPU-only capture: a note, exit 0 (as a CPU-only Kineto trace).
    check("no GPU (none in the export): exit", r.returncode, 0)
    ok("no GPU (none in the export): says so", "the export holds no GPU activity" in r.stderr, r.stderr[-300:])

    # CPU-only with a bad API row: that row rejected (exit 3), but the export still holds no GPU activity.
    path = mutate(tmp, SMALL, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL;"
                  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = 'x' WHERE rowid = 1;")
    db = os.path.join(tmp, "nogpu2b.db")
    r = ingest(path, db)
    check("no GPU (none, a bad API row): exit", r.returncode, 3)
    ok("no GPU (none, a bad API row): a note, not an error",
       "the export holds no GPU activity" in r.stderr and "no GPU activity was read" not in r.stderr, r.stderr[-400:])
    check("no GPU (none, a bad API row): only that row in ingest_errors", [e[2] for e in errors_of(db)], [1])

    path = mutate(tmp, SMALL, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO CUPTI_ACTIVITY_KIND_GRAPH_TRACE;")
    db = os.path.join(tmp, "nogpu3.db")
    r = ingest(path, db)
    n = query(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE")[0][0]
    check("no GPU (only a table not read): exit", r.returncode, 3)
    ok("no GPU (only a table not read): warns with the count",
       f"CUPTI_ACTIVITY_KIND_GRAPH_TRACE {n}" in r.stderr, r.stderr[-300:])
    check("no GPU (only a table not read): counted in ingest_skipped",
          query(db, "SELECT file, category, ph, sum(events), sum(gpu_events) FROM ingest_skipped GROUP BY 1, 2, 3"),
          [(path, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "", n, n)])
    check("no GPU (only a table not read): no drops", query(db, "SELECT count(*) FROM drops")[0][0], 0)
    check("no GPU (only a table not read): recorded in ingest_errors",
          query(db, "SELECT session_id IS NOT NULL, line, reason FROM ingest_errors"),
          [(1, 0, "no GPU activity was read (no kernels, copies or memsets)")])


def test_unread(tmp):
    """A real export with GPU activity gpuprof does not read (CUDA events): a warning, rows in ingest_skipped,
    none in drops (nothing was lost), exit 0."""
    path = os.path.join(TRACES, UNREAD)
    db = os.path.join(tmp, "unread.db")
    r = ingest(path, db)
    check("unread: exit", r.returncode, 0)
    src = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    n = src.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT").fetchone()[0]
    src.close()
    ok("unread: warns with the count", f"warning: {path}: {n} row(s) of GPU activity" in r.stderr and
       f"CUPTI_ACTIVITY_KIND_CUDA_EVENT {n}" in r.stderr, r.stderr[-400:])
    check("unread: counted in ingest_skipped",
          query(db, "SELECT category, ph, sum(events), sum(gpu_events) FROM ingest_skipped GROUP BY 1, 2"),
          [("CUPTI_ACTIVITY_KIND_CUDA_EVENT", "", n, n)])
    check("unread: no drops", query(db, "SELECT count(*) FROM drops")[0][0], 0)


def test_gpu_row(tmp):
    """A TARGET_INFO_GPU row with text in a number column: rejected (in the session), the kernels kept."""
    path = mutate(tmp, OLD, "UPDATE TARGET_INFO_GPU SET smCount = 'many';")
    rowid = query(path, "SELECT rowid FROM TARGET_INFO_GPU")[0][0]
    db = os.path.join(tmp, "gpu.db")
    r = ingest(path, db)
    check("GPU row: exit", r.returncode, 3)
    check("GPU row: recorded in the session",
          [(e[0] is not None, e[2], e[3]) for e in errors_of(db)],
          [(True, rowid, f'TARGET_INFO_GPU rowid {rowid}: "smCount" is text, not an integer')])
    check("GPU row: kernels kept", query(db, "SELECT count(*) FROM kernels")[0][0],
          query(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")[0][0])
    # The whole row is rejected: not its SM count read as 0 and the rest of it kept.
    check("GPU row: no made-up SM count, nothing else of the row",
          query(db, "SELECT DISTINCT name, uuid, sms FROM devices"), [(None, None, 0)])
    r = ingest(path, db)
    check("GPU row: re-ingest exits 0, silent, records nothing again",
          (r.returncode, "error:" in r.stderr, len(errors_of(db))), (0, False, 1))


def test_lookup_rows(tmp):
    """Rows of lookup tables (an enumeration, PROCESSES) are checked too; a view has no rowid (line 0)."""
    pids = query(os.path.join(TRACES, RICH), "SELECT DISTINCT (globalPid >> 24) & 16777215 "
                 "FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY 1")
    enum_rowid = query(os.path.join(TRACES, RICH), "SELECT min(rowid) FROM ENUM_CUPTI_OVERHEAD_TYPE")[0][0]
    proc_rowid = query(os.path.join(TRACES, RICH), f"SELECT min(rowid) FROM PROCESSES WHERE pid = {pids[0][0]}")[0][0]
    sql = f"""
        UPDATE ENUM_CUPTI_OVERHEAD_TYPE SET name = X'4f5645' WHERE rowid = {enum_rowid};
        UPDATE PROCESSES SET name = X'2f62696e' WHERE rowid = {proc_rowid};
        ALTER TABLE CUPTI_ACTIVITY_KIND_MEMSET RENAME TO memset_rows;
        CREATE VIEW CUPTI_ACTIVITY_KIND_MEMSET AS SELECT * FROM memset_rows;
        UPDATE memset_rows SET bytes = 'lots' WHERE rowid = 2;
    """
    path = mutate(tmp, RICH, sql)
    db = os.path.join(tmp, "lookup.db")
    r = ingest(path, db)
    check("lookup rows: exit", r.returncode, 3)
    check("lookup rows: recorded",
          sorted((e[0] is not None, e[2], e[3]) for e in errors_of(db)),
          sorted([(True, enum_rowid, f'ENUM_CUPTI_OVERHEAD_TYPE rowid {enum_rowid}: "name" is a blob, not text'),
                  (True, proc_rowid, f'PROCESSES rowid {proc_rowid}: "name" is a blob, not text'),
                  (True, 0, 'CUPTI_ACTIVITY_KIND_MEMSET: "bytes" is text, not an integer')]))
    check("lookup rows: the process has no made-up program name",
          query(db, f"SELECT program FROM processes WHERE pid = {pids[0][0]}"), [(None,)])
    check("lookup rows: other memsets kept", query(db, "SELECT count(*) FROM memsets")[0][0],
          query(path, "SELECT count(*) FROM memset_rows")[0][0] - 1)
    check("lookup rows: every overhead kept", query(db, "SELECT count(*) FROM overheads")[0][0],
          query(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_OVERHEAD")[0][0])


def test_origin(tmp):
    """A time origin that is text places no time: the export is refused whole."""
    path = mutate(tmp, OLD, "UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = 'yesterday';")
    db = os.path.join(tmp, "origin.db")
    r = ingest(path, db)
    check("origin: exit", r.returncode, 3)
    ok("origin: says why", '"utcEpochNs" is no integer' in r.stderr, r.stderr[-300:])
    check("origin: nothing stored", query(db, "SELECT count(*) FROM kernels")[0][0] if os.path.exists(db) else 0, 0)


def main():
    if not all(os.path.exists(os.path.join(TRACES, f)) for f in (RICH, SMALL, OLD, UNREAD)):
        print(f"nsys_rows: skipped: the exports are not in {TRACES}")
        print("nsys_rows: 0 passed, 0 failed")
        return 0
    tmp = tempfile.mkdtemp(prefix="nsys_rows.")
    try:
        test_wrong_rows(tmp)
        test_cap(tmp)
        test_no_gpu(tmp)
        test_unread(tmp)
        test_gpu_row(tmp)
        test_lookup_rows(tmp)
        test_origin(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("nsys_rows")


if __name__ == "__main__":
    sys.exit(main())
