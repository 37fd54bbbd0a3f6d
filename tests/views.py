#!/usr/bin/env python3
"""The views of schemas/views.sql (the sqlite3 user's interface), each against the same answer computed
in Python from the raw tables: api_events, sync_events, memset_events, marker_events,
device_metric_events, host_metric_events, kernel_ranges and t_ns in every event view, on the demo session
and on planted rows (kernel_ranges' edge cases); and a database made before these views gets them, new
columns included, when gpuprof-ingest opens it."""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import checks
from checks import BIN, ROOT, check, ok

DEMO = os.path.join(ROOT, "tests", "data", "demo-session")


def ingest(*args):
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", *args], capture_output=True, text=True)
    ok(f"gpuprof-ingest {' '.join(args[-3:])}", r.returncode == 0, r.stderr[-1000:])


def strings(con):
    return {(s, i): v for s, i, v in con.execute("SELECT session_id, id, value FROM strings")}


def starts(con):
    return dict(con.execute("SELECT id, start_ns FROM sessions"))


def rows(con, sql):
    return sorted(con.execute(sql).fetchall(), key=repr)


def check_simple_views(con, name):
    """Each named view against the raw table with names and kinds looked up in Python."""
    st, t0 = strings(con), starts(con)
    dom = {1: "runtime", 2: "driver"}
    want = [(s, p, th, a, b, b - a, st.get((s, n)), dom.get(d), c, cb, a - t0[s])
            for s, p, th, a, b, n, d, c, cb in con.execute(
                "SELECT session_id, pid, thread_id, start_ns, end_ns, name_id, domain, correlation_id, cbid FROM api_calls")]
    check(f"{name}: api_events", rows(con, "SELECT * FROM api_events"), sorted(want, key=repr))
    ok(f"{name}: api_events has rows", len(want) > 0)
    kinds = dict(con.execute("SELECT id, name FROM sync_kinds"))
    want = [(s, p, th, a, b, b - a, kinds.get(k, f"kind {k}"), dv, cx, sm, c, ev, a - t0[s])
            for s, p, th, a, b, k, dv, cx, sm, c, ev in con.execute(
                "SELECT session_id, pid, thread_id, start_ns, end_ns, kind, device_id, context_id, stream_id,"
                " correlation_id, event_id FROM syncs")]
    check(f"{name}: sync_events", rows(con, "SELECT * FROM sync_events"), sorted(want, key=repr))
    mk = dict(con.execute("SELECT id, name FROM memory_kinds"))
    want = [(s, p, a, b, b - a, dv, sm, by, v, mk.get(k), c, a - t0[s])
            for s, p, a, b, dv, sm, by, v, k, c in con.execute(
                "SELECT session_id, pid, start_ns, end_ns, device_id, stream_id, bytes, value, mem_kind,"
                " correlation_id FROM memsets")]
    check(f"{name}: memset_events", rows(con, "SELECT * FROM memset_events"), sorted(want, key=repr))
    want = [(s, p, th, ts, st[(s, n)], st.get((s, d)), ts - t0[s])
            for s, p, th, ts, n, d in con.execute("SELECT session_id, pid, thread_id, ts_ns, name_id, domain_id FROM markers")]
    check(f"{name}: marker_events", rows(con, "SELECT * FROM marker_events"), sorted(want, key=repr))
    want = [r[:9] + (r[9], None if r[9] is None else r[9] / 1000.0) + r[10:] + (r[2] - t0[r[0]],)
            for r in con.execute("SELECT session_id, pid, ts_ns, device_id, gpu_util, mem_util, mem_used, mem_total,"
                                 " temp_c, power_mw, sm_clock_mhz, energy_mj FROM device_metrics")]
    check(f"{name}: device_metric_events", rows(con, "SELECT * FROM device_metric_events"), sorted(want, key=repr))
    # the system's I/O counters (schema version 5) come after t_ns: columns are only ever appended
    want = [r[:7] + (r[2] - t0[r[0]],) + r[7:] for r in con.execute(
        "SELECT session_id, pid, ts_ns, cpu_pct, rss_bytes, sys_mem_used, sys_mem_total, disk_read_bytes,"
        " disk_write_bytes, net_rx_bytes, net_tx_bytes FROM host_metrics")]
    check(f"{name}: host_metric_events", rows(con, "SELECT * FROM host_metric_events"), sorted(want, key=repr))
    # t_ns, the last column of every event view: the start (or instant) less the session's start
    for view, table, col in (("kernel_events", "kernels", "start_ns"), ("memcpy_events", "memcpys", "start_ns"),
                             ("range_events", "ranges", "start_ns"), ("memory_timeline", "memory_events", "ts_ns"),
                             ("overhead_events", "overheads", "start_ns")):
        cols = [d[1] for d in con.execute(f"PRAGMA table_info({view})")]
        check(f"{name}: {view}: t_ns is the last column", cols[-1:], ["t_ns"])
        got = sorted(con.execute(f"SELECT {col}, t_ns FROM {view}").fetchall(), key=repr)
        want = sorted([(v, None if v is None else v - t0[s]) for s, v in
                       con.execute(f"SELECT session_id, {col} FROM {table}")], key=repr)
        check(f"{name}: {view}: t_ns", got, want)
    # the question the issue asks: kernels in a window of the session, no join
    lo, hi = con.execute("SELECT min(t_ns), max(t_ns) FROM kernel_events").fetchone()
    a, b = lo + (hi - lo) // 3, lo + (hi - lo) // 2
    got = con.execute("SELECT count(*) FROM kernel_events WHERE t_ns BETWEEN ? AND ?", (a, b)).fetchone()[0]
    want = sum(1 for s, k in con.execute("SELECT session_id, start_ns FROM kernels") if a <= k - t0[s] <= b)
    check(f"{name}: kernels in a window by t_ns", got, want)


def kernel_ranges_py(con):
    """kernel_ranges computed in Python: first call by rowid per (session, pid, correlation id); the deepest,
    then latest started, push/pop range of the call's thread with start <= call start < end (None: open)."""
    st, t0 = strings(con), starts(con)
    first = {}
    calls = {}
    for rid, s, p, th, a, c, n in con.execute(
            "SELECT rowid, session_id, pid, thread_id, start_ns, correlation_id, name_id FROM api_calls ORDER BY rowid"):
        if c is not None and c != 0 and (s, p, c) not in first:
            first[(s, p, c)] = (th, a, st.get((s, n)))
    ranges = {}
    for rid, s, p, th, a, b, n, d, dep in con.execute(
            "SELECT rowid, session_id, pid, thread_id, start_ns, end_ns, name_id, domain_id, depth FROM ranges WHERE kind = 1"):
        ranges.setdefault((s, p, th), []).append((rid, a, b, st[(s, n)], st.get((s, d)), dep))
    out = []
    for s, p, a, b, dv, sm, c, n in con.execute(
            "SELECT session_id, pid, start_ns, end_ns, device_id, stream_id, correlation_id, name_id FROM kernels"):
        call = first.get((s, p, c))
        th, cns, cname = call if call else (None, None, None)
        best = None
        if call:
            for rid, ra, rb, rn, rd, dep in ranges.get((s, p, th), []):
                if ra <= cns and (rb is None or rb > cns):
                    key = (dep if dep is not None else -1, ra, rid)
                    if best is None or key > best[0]:
                        best = (key, (rn, rd, dep, ra, rb))
        r = best[1] if best else (None,) * 5
        out.append((s, p, a, b, b - a, dv, sm, c, st[(s, n)], th, cns, cname) + r + (a - t0[s],))
    return sorted(out, key=repr)


def check_kernel_ranges(con, name):
    got = rows(con, "SELECT * FROM kernel_ranges")
    want = kernel_ranges_py(con)
    check(f"{name}: kernel_ranges rows", len(got), len(want))
    check(f"{name}: kernel_ranges", got, want)
    return got


def planted(path):
    """A session of hand-placed rows for kernel_ranges' edge cases; returns the expected range per kernel."""
    con = sqlite3.connect(path)
    s = con.execute("SELECT max(id) + 1 FROM sessions").fetchone()[0]
    con.execute("INSERT INTO sessions (id, uuid, source, start_ns, end_ns, ingested_at) VALUES (?, 'planted', 'ndjson',"
                " 1000, 100000, '2026-01-01T00:00:00Z')", (s,))
    names = ["outer", "inner", "other-thread", "open", "k", "cudaLaunchKernel", "cuLaunchKernel", "startend",
             "early", "late", "empty", "deep-open"]
    for i, v in enumerate(names, 1):
        con.execute("INSERT INTO strings (session_id, id, value) VALUES (?, ?, ?)", (s, i, v))
    R = "INSERT INTO ranges (session_id, pid, start_ns, end_ns, thread_id, name_id, kind, depth) VALUES (?,?,?,?,?,?,?,?)"
    con.execute(R, (s, 1, 2000, 9000, 7, 1, 1, 0))     # outer on thread 7
    con.execute(R, (s, 1, 3000, 5000, 7, 2, 1, 1))     # inner, nested
    con.execute(R, (s, 1, 2000, 9000, 8, 3, 1, 0))     # another thread
    con.execute(R, (s, 1, 9500, None, 7, 4, 1, 0))     # never ended
    con.execute(R, (s, 1, 2500, 8000, 7, 8, 2, None))  # start/end: never the kernel's range
    # Thread 9: two ranges of one depth that cross, one of none, one of no length, one never ended.
    con.execute(R, (s, 1, 2000, 6000, 9, 9, 1, 1))     # early
    con.execute(R, (s, 1, 3000, 8000, 9, 10, 1, 1))    # late: crosses early, latest started wins
    con.execute(R, (s, 1, 4000, 4000, 9, 11, 1, 7))    # empty: contains no time
    con.execute(R, (s, 1, 7500, None, 9, 12, 1, None)) # deep-open: no depth, below any depth
    C = "INSERT INTO api_calls (session_id, pid, start_ns, end_ns, thread_id, correlation_id, name_id, domain) VALUES (?,?,?,?,?,?,?,?)"
    K = "INSERT INTO kernels (session_id, pid, start_ns, end_ns, device_id, stream_id, correlation_id, name_id) VALUES (?,?,?,?,0,7,?,5)"
    cases = [  # (call start, correlation id, expected range, thread)
        (3000, 1, "inner", 7),      # at the inner range's start: inside
        (5000, 2, "outer", 7),      # at the inner range's end: outside it, inside outer
        (2500, 3, "outer", 7),      # before inner
        (9000, 4, None, 7),         # at outer's end: none
        (9600, 5, "open", 7),       # in the range that never ended
        (4000, 6, "other-thread", 8),
        (1500, 7, None, 7),         # before any range
        (2500, 9, "early", 9),
        (4000, 10, "late", 9),      # in both crossing ranges, and at the empty one
        (6000, 11, "late", 9),      # at early's end
        (7600, 12, "late", 9),      # late has a depth, deep-open none
        (8000, 13, "deep-open", 9),
    ]
    for i, (at, corr, _, th) in enumerate(cases):
        con.execute(C, (s, 1, at, at + 100, th, corr, 6, 1))
        con.execute(K, (s, 1, at + 200 + i, at + 300 + i, corr))
    con.execute(C, (s, 1, 4000, 4050, 7, 8, 6, 1))       # a call recorded twice: the first row counts
    con.execute(C, (s, 1, 6000, 6050, 7, 8, 7, 2))
    con.execute(K, (s, 1, 6200, 6300, 8))
    con.execute(K, (s, 1, 7000, 7100, 0))                # correlation id 0: no call
    con.execute(K, (s, 2, 7000, 7100, 1))                # another process: correlation 1 is not its
    con.commit()
    con.close()
    want = {c[1]: c[2] for c in cases}
    want.update({8: "inner", 0: None})
    return s, want


def check_upgrade(tmp, db):
    """A database holding the previous views (no t_ns, none of the new ones) gets this build's on ingest."""
    old = subprocess.run(["git", "-C", ROOT, "show", "23971aa:schemas/views.sql"], capture_output=True, text=True)
    if old.returncode:
        print("views: skipped the upgrade check: no git history")
        return
    con = sqlite3.connect(db)
    for (v,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'view'").fetchall():
        con.execute(f"DROP VIEW {v}")
    con.executescript(old.stdout)
    con.execute("DELETE FROM meta WHERE key = 'views'")	# as an older build left it: no hash of its views
    con.commit()
    check("old views: kernel_events lacks t_ns", "t_ns" in [d[1] for d in con.execute("PRAGMA table_info(kernel_events)")], False)
    con.close()
    ingest("--reindex", "-o", db)
    con = sqlite3.connect(db)
    views = {v for (v,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'view'")}
    for v in ("api_events", "sync_events", "memset_events", "marker_events", "device_metric_events",
              "host_metric_events", "kernel_ranges", "kernel_events", "hotspots", "session_overview"):
        ok(f"upgraded database: view {v}", v in views, sorted(views))
    check("upgraded database: kernel_events ends with t_ns",
          [d[1] for d in con.execute("PRAGMA table_info(kernel_events)")][-1], "t_ns")
    con.close()


def main():
    tmp = tempfile.mkdtemp(prefix="views.")
    try:
        db = os.path.join(tmp, "demo.db")
        ingest(DEMO, "-o", db)
        con = sqlite3.connect(db)
        check_simple_views(con, "demo")
        got = check_kernel_ranges(con, "demo")
        ok("demo: kernel_ranges: some kernels in a range", sum(1 for r in got if r[12]) > 1000)
        ok("demo: kernel_ranges: every kernel has its launch call", all(r[10] is not None for r in got))
        # Its work, counted in SQLite's VM steps (not seconds: the machine is shared): 18.9 M when each
        # kernel's call searched its thread's ranges, 3.4 M as sweeps.
        steps = [0]
        con.set_progress_handler(lambda: steps.__setitem__(0, steps[0] + 1), 1000)
        con.execute("SELECT * FROM kernel_ranges").fetchall()
        con.set_progress_handler(None, 0)
        ok("demo: kernel_ranges: under 6 M VM steps", steps[0] * 1000 < 6e6, f"{steps[0] * 1000} steps")
        con.close()
        s, want = planted(db)
        con = sqlite3.connect(db)
        got = {(p, c): r for p, c, r in con.execute(
            "SELECT pid, correlation_id, range_name FROM kernel_ranges WHERE session_id = ?", (s,))}
        check("planted: kernel_ranges", {c: r for (p, c), r in got.items() if p == 1}, want)
        check("planted: another process's kernel has no call", got.get((2, 1)), None)
        check("planted: the first of a call recorded twice",
              con.execute("SELECT call_name, call_ns FROM kernel_ranges WHERE session_id = ? AND correlation_id = 8",
                          (s,)).fetchone(), ("cudaLaunchKernel", 4000))
        check_kernel_ranges(con, "planted")
        check_simple_views(con, "demo and planted")
        con.close()
        check_upgrade(tmp, db)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("views")


if __name__ == "__main__":
    os.environ.setdefault("LC_ALL", "C")
    os.environ.setdefault("TZ", "UTC")
    sys.exit(main())
