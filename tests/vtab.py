#!/usr/bin/env python3
"""The virtual tables of build/lib/gpuprof_sqlite.so and the fast hotspots view, in the sqlite3 shell.
gpu_busy, gpu_stream_busy and gpu_gaps against their plain-SQL references as they ship (analyze/ref/NAME.sql:
busy_union and a window over the kernels, copies and memsets), with chunks and without, a declared device that ran nothing included, the
figures a connection remembers changing with the database (its own change, another connection's); the
start_ns/end_ns ranges api_columns and kernel_columns take against the same filter on the rows, alone and
joined with many windows (the chunks it skips), rowids the rows' positions either way.
kernel_columns (and api_columns) against the kernels (api_calls) table row for row (as multisets) for sessions with column chunks,
its launch columns too (NULL kept); kernel_launches against GROUP BY over kernel_columns; class_rules
against the rules file read here, and its checks; gpu_peaks likewise against analyze/gpu-peaks.rules (its
samples checked with Python's re) and each of its checks' messages; kernel_busy against busy_union over kernel_columns;
without them (retired with SQL), several sessions and processes, with and without `session_id = S`;
damaged chunks are an error while they count, not wrong rows; kernel_stats (and api_stats, by name and by a
keys table, kept between reads of a connection) against GROUP BY over
kernel_columns with median and stddev_samp; the hotspots view with the extension (a TEMP view over
kernel_stats) and without it (the stored plain-SQL view) against `gpuprof-analyze hotspots --format json`
on the demo session and Kineto traces from ../shared/traces; memory_pairs (analyze/ref/memory_pairs.sql) and range_path
against their plain-SQL forms; the kernel cache reading more columns and kept across TEMP writes;
kernel_windows against the plain join of kernels
and their first API call by correlation id (by thread, by stream, one or any of a process) over every range's
window; the hidden schema column reading an attached copy."""
import collections
import gzip
import json
import os
import random
import re
import shutil
import sqlite3
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
# A GPU is (node, device): a process's node is its (hostname, rank)'s place among the session's, from 0
# (analyze/views.sql's gpu_nodes); a pid without a process is node 0.
NODES = ("nodes AS (SELECT session_id, pid, dense_rank() OVER (PARTITION BY session_id ORDER BY hostname, rank) - 1 "
         "AS node FROM processes)")


def ref(name):
    """The plain-SQL reference of C table name (analyze/ref/NAME.sql) as it ships (tests/refs.py runs them all),
    less its header (the sqlite3 shell takes an argument starting with '-' for an option)."""
    with open(os.path.join(ROOT, "analyze", "ref", name + ".sql")) as f:
        return "".join(line for line in f if not line.startswith("--"))


# gpu_busy, gpu_stream_busy and gpu_gaps said in plain SQL over the kernels, copies and memsets.
BUSY_SQL, STREAM_SQL, GAPS_SQL = ref("gpu_busy"), ref("gpu_stream_busy"), ref("gpu_gaps")
LAUNCH = "grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_smem, dynamic_smem"
LAUNCH_KERNELS = f"SELECT session_id, pid, {LAUNCH}, coalesce(shared_mem, static_smem + dynamic_smem) FROM kernels"
# Before schema version 4 there is no shared_mem: Kineto's static_smem held the total, dynamic_smem NULL.
LAUNCH_KERNELS_3 = f"SELECT session_id, pid, {LAUNCH}, coalesce(static_smem + dynamic_smem, static_smem) FROM kernels"
LAUNCH_COLUMNS = f"SELECT session_id, pid, {LAUNCH}, shared_mem FROM kernel_columns"
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
    # The first session again from another host with the same pids, into that session: two nodes.
    other = os.path.join(tmp, "host-b")
    os.makedirs(other)
    for name in sorted(os.listdir(sources[0])):
        with gzip.open(os.path.join(sources[0], name), "rt") as f:
            lines = f.readlines()
        lines[0] = re.sub(r'"hostname":"[^"]*"', '"hostname":"host-b"', lines[0])
        with gzip.open(os.path.join(other, name), "wt") as f:
            f.writelines(lines)
    uuid = sql(db, "SELECT uuid FROM sessions ORDER BY id LIMIT 1", load=False)[0][0]
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", other, "--session", uuid, "-o", db], check=True)
    check("two hosts with the same pids: the second host's pids are remapped",
          sql(db, "SELECT count(DISTINCT hostname), count(DISTINCT pid), count(DISTINCT pid % 4294967296) "
                  "FROM processes WHERE session_id = 1", load=False), [["2", "4", "2"]])
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
        busy(tmp, d, what)
        stats = sql(d, "SELECT session_id, name_id, calls, total_ns, avg_ns, med_ns, min_ns, max_ns, stddev_ns "
                       "FROM kernel_stats")
        group = sql(d, "SELECT session_id, name_id, count(*), sum(dur_ns), avg(dur_ns), median(dur_ns), min(dur_ns), "
                       "max(dur_ns), stddev_samp(dur_ns) FROM kernel_columns GROUP BY 1, 2 ORDER BY 1, 2")
        check(f"kernel_stats ({what}): the groups", [r[:4] + r[6:8] for r in stats], [r[:4] + r[6:8] for r in group])
        for a, b in zip(stats, group):
            for i, col in ((4, "avg"), (5, "median"), (8, "stddev")):
                close(f"kernel_stats ({what}) {a[:2]}: {col}", float(a[i]), float(b[i]), 1e-12)
        # api_stats: the same statistics of the API calls by name, against GROUP BY over api_columns.
        stats = sql(d, "SELECT session_id, name_id, calls, total_ns, avg_ns, med_ns, min_ns, max_ns, stddev_ns "
                       "FROM api_stats")
        group = sql(d, "SELECT session_id, name_id, count(*), sum(dur_ns), avg(dur_ns), median(dur_ns), min(dur_ns), "
                       "max(dur_ns), stddev_samp(dur_ns) FROM api_columns GROUP BY 1, 2 ORDER BY 1, 2")
        check(f"api_stats ({what}): the groups", [r[:4] + r[6:8] for r in stats], [r[:4] + r[6:8] for r in group])
        ok(f"api_stats ({what}): some calls", len(stats) > 0, "no rows")
        for a, b in zip(stats, group):
            for i, col in ((4, "avg"), (5, "median"), (8, "stddev")):
                close(f"api_stats ({what}) {a[:2]}: {col}", float(a[i]), float(b[i]), 1e-12)
        stats_keys(d, what, first)
        one = sql(d, f"SELECT count(*) FROM kernel_stats WHERE session_id = {first}")
        check(f"kernel_stats ({what}): session_id = S", one,
              sql(d, f"SELECT count(DISTINCT name_id) FROM kernels WHERE session_id = {first}", load=False))
        launches(d, what, first)
    launches(old, "schema version 3", first, LAUNCH_KERNELS_3)


STATS_COLS = "session_id, name_id, calls, total_ns, avg_ns, med_ns, min_ns, max_ns, stddev_ns"


def stats_keys(db, what, first):
    """kernel_stats and api_stats grouped by a keys table (id, key) against its plain SQL, the JOIN and GROUP
    BY over kernel_columns (api_columns); reads by name and by keys in one connection (the grouping kept)
    as each alone; a change in that connection seen; errors for a missing table and an id given twice."""
    # Families of names: every third name id together, ids divisible by 5 left out, keys not name ids.
    keys = ("CREATE TEMP TABLE k(id INTEGER PRIMARY KEY, key INTEGER); "
            "INSERT INTO temp.k SELECT DISTINCT name_id, 1000 + name_id % 3 FROM {t} WHERE name_id % 5 <> 0;")
    for stats, cols in (("kernel_stats", "kernel_columns"), ("api_stats", "api_columns")):
        plain = sql(db, keys.format(t=cols) + "SELECT c.session_id, k.key, count(*), sum(dur_ns), avg(dur_ns), "
                    "median(dur_ns), min(dur_ns), max(dur_ns), stddev_samp(dur_ns) FROM " + cols +
                    " c JOIN temp.k ON k.id = c.name_id GROUP BY 1, 2 ORDER BY 1, 2")
        keyed = sql(db, keys.format(t=cols) + f"SELECT {STATS_COLS} FROM {stats} WHERE keys = 'temp.k'")
        ok(f"{stats} by keys ({what}): families of several names", len(plain) > 1 and
           len(plain) < len(sql(db, f"SELECT * FROM {stats}")), plain)
        check(f"{stats} by keys ({what}): the groups", [r[:4] + r[6:8] for r in keyed], [r[:4] + r[6:8] for r in plain])
        for a, b in zip(keyed, plain):
            for i, col in ((4, "avg"), (5, "median"), (8, "stddev")):
                close(f"{stats} by keys ({what}) {a[:2]}: {col}", float(a[i]), float(b[i]), 1e-12)
        # One connection: by name, by keys, by name again, then for one session: each as alone.
        byname = sql(db, f"SELECT {STATS_COLS} FROM {stats}")
        one = sql(db, keys.format(t=cols) + f"SELECT {STATS_COLS} FROM {stats} WHERE session_id = {first} AND keys = 'k'")
        both = sql(db, keys.format(t=cols) + f"SELECT {STATS_COLS} FROM {stats}; "
                   f"SELECT {STATS_COLS} FROM {stats} WHERE keys = 'temp.k'; SELECT {STATS_COLS} FROM {stats}; "
                   f"SELECT {STATS_COLS} FROM {stats} WHERE session_id = {first} AND keys = 'k';")
        check(f"{stats} ({what}): names, keys, names, keys of a session in one connection", both,
              byname + keyed + byname + one)
        # A change in the same connection: the grouping it kept is not used again (one session: reading
        # all of them, more than a connection keeps, would read each again anyway).
        table = "kernels" if stats == "kernel_stats" else "api_calls"
        change = (f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} WHERE session_id = {first} "
                  "ORDER BY rowid LIMIT 3);")
        copy = db + ".keys"
        shutil.copy(db, copy)
        reads = (f"SELECT {STATS_COLS} FROM {stats} WHERE session_id = {first} AND keys = 'temp.k'; "
                 f"SELECT {STATS_COLS} FROM {stats} WHERE session_id = {first};")
        before = sql(copy, keys.format(t=cols) + reads)
        seen = sql(copy, keys.format(t=cols) + reads + change + reads)
        after = sql(copy, keys.format(t=cols) + reads)
        check(f"{stats} ({what}): a change in the connection is seen", seen, before + after)
        ok(f"{stats} ({what}): the change changed the figures", after != before, "the same rows")
        os.remove(copy)
        if stats == "kernel_stats":
            exec_keys(db, what, first, keys.format(t=cols))
        p = sql(db, f"SELECT * FROM {stats} WHERE keys = 'temp.nosuch'", expect_ok=False)
        ok(f"{stats}: keys naming no table is an error", p.returncode != 0 and "keys 'temp.nosuch'" in p.stderr,
           p.stderr)
        p = sql(db, "CREATE TEMP TABLE t2(id, key); INSERT INTO t2 VALUES (1, 1), (1, 2);"
                f"SELECT * FROM {stats} WHERE keys = 't2'", expect_ok=False)
        ok(f"{stats}: an id twice in keys is an error", p.returncode != 0 and "id 1 twice" in p.stderr, p.stderr)


def exec_keys(db, what, first, keys):
    """kernel_exec_summary's name rows by a keys table against GROUP BY over kernel_exec joined to it; its
    quarter rows as without keys."""
    cols = ("calls, launched, qcount, api_avg_ns, api_med_ns, api_min_ns, api_max_ns, queue_avg_ns, queue_med_ns, "
            "queue_min_ns, queue_max_ns, queue_p90_ns, queue_p99_ns, kernel_total_ns, kernel_avg_ns, kernel_med_ns, "
            "kernel_min_ns, kernel_max_ns")
    keyed = sql(db, keys + f"SELECT name_id, {cols} FROM kernel_exec_summary({first}, NULL, NULL, 'temp.k') "
                "WHERE kind = 'name' ORDER BY name_id")
    plain = sql(db, keys + "SELECT k.key, count(*), count(api_ns), count(q), avg(api_ns), median(api_ns), min(api_ns), "
                "max(api_ns), avg(q), median(q), min(q), max(q), percentile(q, 90), percentile(q, 99), sum(dur_ns), "
                "avg(dur_ns), median(dur_ns), min(dur_ns), max(dur_ns) FROM (SELECT name_id, dur_ns, api_ns, "
                f"CASE WHEN queue_ns > 0 THEN queue_ns END AS q FROM kernel_exec WHERE session_id = {first}) e "
                "JOIN temp.k ON k.id = e.name_id GROUP BY k.key ORDER BY k.key")
    ok(f"kernel_exec_summary by keys ({what}): families", len(plain) > 1, plain)
    ints = (0, 1, 2, 3, 6, 7, 10, 11, 14, 17, 18)
    check(f"kernel_exec_summary by keys ({what}): the groups", [[r[i] for i in ints] for r in keyed],
          [[r[i] for i in ints] for r in plain])
    for a, b in zip(keyed, plain):
        for i in set(range(len(a))) - set(ints):
            ok(f"kernel_exec_summary by keys ({what}) {a[0]}: column {i}", (a[i] == b[i] == "") or
               (a[i] != "" and b[i] != "" and abs(float(a[i]) - float(b[i])) <= 1e-12 * max(1.0, abs(float(b[i])))),
               f"got {a[i]!r}, want {b[i]!r}")
    # Ids far apart (the table's ids searched, not indexed), each name its own key, no key at all.
    far = sql(db, keys + "INSERT INTO temp.k VALUES (1000000000000000, 1000);"
              f"SELECT name_id, {cols} FROM kernel_exec_summary({first}, NULL, NULL, 'temp.k') "
              "WHERE kind = 'name' ORDER BY name_id")
    check(f"kernel_exec_summary by keys ({what}): ids far apart", far, keyed)
    own = sql(db, "CREATE TEMP TABLE k(id INTEGER PRIMARY KEY, key INTEGER); INSERT INTO temp.k SELECT DISTINCT "
              f"name_id, name_id FROM kernel_columns WHERE session_id = {first} AND name_id % 5 <> 0;"
              f"SELECT name_id, {cols} FROM kernel_exec_summary({first}, NULL, NULL, 'temp.k') WHERE kind = 'name'")
    check(f"kernel_exec_summary by keys ({what}): each name its own key", own,
          sql(db, f"SELECT name_id, {cols} FROM kernel_exec_summary({first}, NULL, NULL) WHERE kind = 'name' "
                  "AND name_id % 5 <> 0"))
    ok(f"kernel_exec_summary by keys ({what}): names left out", 0 < len(own) < len(
        sql(db, f"SELECT 1 FROM kernel_exec_summary({first}, NULL, NULL) WHERE kind = 'name'")), own)
    check(f"kernel_exec_summary by keys ({what}): an empty keys table, no name rows",
          sql(db, "CREATE TEMP TABLE e(id, key); SELECT count(*) FROM kernel_exec_summary("
                  f"{first}, NULL, NULL, 'temp.e') WHERE kind = 'name'"), [["0"]])
    quarters = f"SELECT * FROM kernel_exec_summary({first}, NULL, NULL{{}}) WHERE kind = 'quarter'"
    check(f"kernel_exec_summary by keys ({what}): the quarters as without", sql(db, keys + quarters.format(", 'k'")),
          sql(db, quarters.format("")))


def launches(db, what, first, kernels=LAUNCH_KERNELS):
    """kernel_columns' launch columns against the kernels table's, kernel_launches against GROUP BY."""
    got, want = sql(db, LAUNCH_COLUMNS), sql(db, kernels, load=False)
    ok(f"launch columns ({what}): some NULL", any("" in r for r in want), "no NULL launch field to compare")
    check(f"launch columns ({what}): kernel_columns = kernels ({len(want)} rows)", multiset(got) == multiset(want), True)
    keys = f"session_id, pid, device_id, name_id, {LAUNCH}, shared_mem"
    group = sql(db, f"SELECT {keys}, count(*), sum(dur_ns) FROM kernel_columns GROUP BY {keys}")
    table = sql(db, f"SELECT {keys}, calls, total_ns FROM kernel_launches")
    ok(f"kernel_launches ({what}): groups to compare", len(group) > 0)
    check(f"kernel_launches ({what}): GROUP BY over kernel_columns ({len(group)} groups)", multiset(table),
          multiset(group))
    check(f"kernel_launches ({what}): session_id = S",
          multiset(sql(db, f"SELECT {keys}, calls, total_ns FROM kernel_launches WHERE session_id = {first}")),
          multiset(r for r in group if r[0] == str(first)))


RULES = os.path.join(ROOT, "analyze", "kernel-classes.rules")


def class_rules(tmp):
    """class_rules(text, file): the rules of the built-in file in order, and a broken file's message."""
    want, order = [], ["compute"]
    with open(RULES) as f:
        for n, line in enumerate(f, 1):
            words = line.split(None, 2)
            if words and words[0] == "class":
                if words[1] not in order:
                    order.append(words[1])
                want.append([str(len(want) + 1), str(n), words[1], str(order.index(words[1])), words[2].rstrip()])
    got = sql(":memory:", f"SELECT ord, line, class, class_ord, pattern FROM class_rules(readfile('{RULES}'), 'k.rules')")
    check("class_rules: the built-in rules in order", got, want)
    check("class_rules: NULL text, no rules", sql(":memory:", "SELECT count(*) FROM class_rules(NULL)"), [["0"]])
    bad = os.path.join(tmp, "bad.rules")
    with open(bad, "w") as f:
        f.write("class memory ^Memcpy\nsample memory cudaMemcpyAsync\n")
    p = sql(":memory:", f"SELECT * FROM class_rules(readfile('{bad}'), 'bad.rules')", expect_ok=False)
    ok("class_rules: a sample its rule does not match is an error naming the line", p.returncode != 0 and
       "bad.rules:2: rule 'memory ^Memcpy' (line 1) does not match its sample 'cudaMemcpyAsync'" in p.stderr, p.stderr)


PEAKS = os.path.join(ROOT, "analyze", "gpu-peaks.rules")


def gpu_peaks(tmp):
    """gpu_peaks(text, file): the built-in file's type and peak lines in order, read here independently; every
    sample claimed first by its own model's pattern (Python's re); a broken file's message names the line."""
    want, models, samples = [], [], []
    with open(PEAKS) as f:
        for n, line in enumerate(f, 1):
            words = line.split(None, 1)
            if not words or words[0].startswith("#"):
                continue
            if words[0] == "type":
                dtype, name = words[1].rstrip().split(None, 1)
                want.append(["type", str(n), "", "", "", dtype, name, "", ""])
            elif words[0] == "gpu":
                name, pattern = words[1].rstrip().split(None, 1)
                models.append((name, pattern))
            elif words[0] == "sample":
                name, device = words[1].rstrip().split(None, 1)
                samples.append((name, device))
            elif words[0] == "peak":
                name, dtype, tflops, source = words[1].rstrip().split(None, 3)
                ords = [m[0] for m in models]
                want.append(["peak", str(n), name, str(ords.index(name) + 1), models[ords.index(name)][1], dtype,
                             "", str(float(tflops)), source])
    got = sql(":memory:", "SELECT kind, line, coalesce(gpu, ''), coalesce(gpu_ord, ''), coalesce(pattern, ''), dtype, "
              f"coalesce(torch_name, ''), coalesce(tflops, ''), coalesce(source, '') FROM gpu_peaks(readfile('{PEAKS}'), "
              "'p.rules')")
    check("gpu_peaks: the built-in type and peak lines in order", got, want)
    check("gpu_peaks: every sample's first matching model is its own (Python re)",
          [(name, device) for name, device in samples
           if next((m for m, pattern in models if re.search(pattern, device)), None) != name], [])
    check("gpu_peaks: every model has a sample and a peak",
          sorted({m for m, _ in models} - {n for n, _ in samples} | {m for m, _ in models} - {w[2] for w in want}),
          [])
    check("gpu_peaks: NULL text, no rows", sql(":memory:", "SELECT count(*) FROM gpu_peaks(NULL)"), [["0"]])
    for text, msg in (("gpu a100 A100\nsample a100 NVIDIA H100\n", "bad.rules:2: GPU 'a100' (line 1) does not "
                       "match its sample 'NVIDIA H100'"),
                      ("gpu a100 A100\nsample a100 NVIDIA A100\npeak a100 fp17 1 x\n", "bad.rules:3: unknown data "
                       "type 'fp17'"),
                      ("gpu a100 A100\nsample a100 NVIDIA A100\npeak a100 fp32 -1 x\n", "bad.rules:3: peak '-1' is "
                       "not a number of TFLOP/s above 0"),
                      ("gpu a100 A100\nsample a100 NVIDIA A100\npeak a100 fp32 1 x\npeak a100 fp32 2 y\n",
                       "bad.rules:4: a second fp32 peak of GPU 'a100' (the first on line 3)"),
                      ("gpu a100 A100\nsample a100 NVIDIA A100\n", "bad.rules:1: GPU 'a100' has no peak"),
                      ("gpu x A\nsample x A100\npeak x fp32 1 s\ngpu a100 A100\nsample a100 NVIDIA A100\n",
                       "bad.rules:5: sample 'NVIDIA A100' of GPU 'a100' (line 4) is claimed first by GPU 'x' (line 1)"),
                      ("peak a100 fp32 1 x\n", "bad.rules:1: peak of GPU 'a100', which no gpu line before it declares"),
                      ("gpu a100 (\n", "bad.rules:1: bad regular expression '('"),
                      ("type fp32 float\ntype fp16 float\n", "bad.rules:2: type 'float' is given twice"),
                      ("flops a b\n", "bad.rules:1: unknown directive 'flops'")):
        bad = os.path.join(tmp, "bad.rules")
        with open(bad, "w") as f:
            f.write(text)
        p = sql(":memory:", f"SELECT * FROM gpu_peaks(readfile('{bad}'), 'bad.rules')", expect_ok=False)
        ok(f"gpu_peaks: an error naming the line: {msg}", p.returncode != 0 and msg in p.stderr, p.stderr)


# Names into classes a, b and c by id, one in five left out (no class): the map kernel_busy takes.
BUSY_CLASS = "CASE WHEN id % 5 = 0 THEN NULL WHEN id % 3 = 0 THEN 'a' WHEN id % 3 = 1 THEN 'b' ELSE 'c' END"


def kernel_busy(db):
    """kernel_busy against busy_union over kernel_columns: per device the classes' kernels, total and busy
    time, each pair's overlap as |A| + |B| - |A u B|, the union of the classes and of every kernel."""
    sessions = [r[0] for r in sql(db, "SELECT id FROM sessions ORDER BY id", load=False)]
    for s in sessions:
        names = f"(SELECT id, {BUSY_CLASS} AS class FROM strings WHERE session_id = {s})"
        # The GPU as one key: node * 1000 + device.
        k = (f"(WITH {NODES} SELECT coalesce(g.node, 0) * 1000 + k.device_id AS device_id, k.start_ns, k.end_ns, "
             f"k.dur_ns, n.class FROM kernel_columns k LEFT JOIN {names} n ON n.id = k.name_id "
             f"LEFT JOIN nodes g ON g.session_id = k.session_id AND g.pid = k.pid WHERE k.session_id = {s})")
        got = sql(db, f"SELECT node * 1000 + device_id, class, other_class, kernels, total_ns, busy_ns, device_busy_ns FROM "
                      f"kernel_busy((SELECT json_group_object(id, {BUSY_CLASS}) FROM strings WHERE session_id = {s})) "
                      f"WHERE session_id = {s}")
        every = {r[0]: r[1] for r in sql(db, f"SELECT device_id, busy_union(start_ns, end_ns) FROM {k} GROUP BY 1")}
        want = []
        per = {(r[0], r[1]): r for r in sql(db, f"SELECT device_id, class, count(*), sum(dur_ns), "
                                                f"busy_union(start_ns, end_ns) FROM {k} WHERE class IS NOT NULL "
                                                f"GROUP BY 1, 2")}
        classes = sorted(r[0] for r in sql(db, f"SELECT DISTINCT class FROM {names} WHERE class IS NOT NULL"))
        for dev in sorted(every, key=int):
            for c in classes:
                r = per.get((dev, c), [dev, c, "0", "0", "0"])
                want.append([dev, c, "", r[2], r[3], r[4], every[dev]])
            for i, a in enumerate(classes):
                for b in classes[i + 1:]:
                    u = sql(db, f"SELECT coalesce(busy_union(start_ns, end_ns), 0) FROM {k} WHERE device_id = {dev} "
                                f"AND class IN ('{a}', '{b}')")[0][0]
                    ba, bb = (int(per.get((dev, x), [0] * 5)[4]) for x in (a, b))
                    want.append([dev, a, b, "", "", str(ba + bb - int(u)), every[dev]])
            row = sql(db, f"SELECT count(*), coalesce(sum(dur_ns), 0), coalesce(busy_union(start_ns, end_ns), 0) "
                          f"FROM {k} WHERE device_id = {dev} AND class IS NOT NULL")[0]
            want.append([dev, "", "", row[0], row[1], row[2], every[dev]])
        got = [(r[:1] + sorted(r[1:3]) if r[2] else r[:3]) + r[3:] for r in got]  # a pair in either order
        ok(f"kernel_busy session {s}: rows to compare", len(want) > 0)
        check(f"kernel_busy session {s}: busy_union over kernel_columns ({len(want)} rows)",
              sorted(got, key=repr), sorted(want, key=repr))
        dflt = sql(db, f"SELECT count(*), sum(kernels) FROM kernel_busy('{{}}', 'x') WHERE session_id = {s} "
                       f"AND class = 'x'")
        check(f"kernel_busy session {s}: default_class takes the names the map lacks", dflt,
              sql(db, f"SELECT count(DISTINCT device_id), count(*) FROM {k}"))


def kernel_busy_kept(tmp, db):
    """What a connection keeps of kernel_busy: the same rows for the same arguments, others for others, and
    fresh ones after a change to the database."""
    s = sql(db, "SELECT min(id) FROM sessions", load=False)[0][0]
    other = BUSY_CLASS.replace("'a'", "'x'").replace("id % 5 = 0", "id % 7 = 0")
    q = (f"SELECT device_id, class, other_class, kernels, total_ns, busy_ns, device_busy_ns FROM kernel_busy("
         f"(SELECT json_group_object(id, {{m}}) FROM strings WHERE session_id = {s}), 'a') "
         f"WHERE session_id = {s} ORDER BY 1, 2, 3;")
    a, b = sql(db, q.format(m=BUSY_CLASS)), sql(db, q.format(m=other))
    ok("kernel_busy kept: two maps give two answers", a != b and a and b)
    sep = "SELECT '--';"
    got = sql(db, q.format(m=BUSY_CLASS) + sep + q.format(m=other) + sep + q.format(m=BUSY_CLASS))
    check("kernel_busy kept: a, b, a again on one connection", got, a + [["--"]] + b + [["--"]] + a)
    changed = os.path.join(tmp, "kb-changed.db")
    shutil.copy(db, changed)
    change = (f"UPDATE kernels SET end_ns = end_ns + 1000000000 WHERE rowid = (SELECT max(rowid) FROM kernels "
              f"WHERE session_id = {s});")
    got = sql(changed, q.format(m=BUSY_CLASS) + change + sep + q.format(m=BUSY_CLASS))
    after = sql(changed, q.format(m=BUSY_CLASS))
    ok("kernel_busy kept: the change moves something", after != a)
    check("kernel_busy kept: after a change on the connection, fresh rows", got, a + [["--"]] + after)


def kernels_of(db):
    """kernels_of against kernel_columns WHERE name_id IN (...): every session, some names, in table order."""
    sessions = [r[0] for r in sql(db, "SELECT id FROM sessions ORDER BY id", load=False)]
    for s in sessions:
        ids = [r[0] for r in sql(db, f"SELECT DISTINCT name_id FROM kernel_columns WHERE session_id = {s} "
                                     f"ORDER BY name_id")][::3] + ["999999999"]
        arr = "[" + ",".join(ids) + "]"
        want = sql(db, f"SELECT session_id, pid, device_id, name_id, start_ns, end_ns FROM kernel_columns "
                       f"WHERE session_id = {s} AND name_id IN ({','.join(ids)})")
        got = sql(db, f"SELECT session_id, pid, device_id, name_id, start_ns, end_ns FROM kernels_of('{arr}') "
                      f"WHERE session_id = {s}")
        ok(f"kernels_of session {s}: kernels to compare", len(want) > 0)
        check(f"kernels_of session {s} = kernel_columns WHERE name_id IN ({len(ids)} ids, {len(want)} kernels)",
              got, want)
        check(f"kernels_of session {s}: no ids, no rows", sql(db, f"SELECT count(*) FROM kernels_of('[]') "
                                                                 f"WHERE session_id = {s}"), [["0"]])
    check("kernels_of without session_id: every session's",
          sql(db, "SELECT count(*) FROM kernels_of((SELECT json_group_array(DISTINCT name_id) FROM kernel_columns))"),
          sql(db, "SELECT count(*) FROM kernel_columns"))
    p = sql(db, "SELECT * FROM kernels_of('{\"a\": 1}')", expect_ok=False)
    ok("kernels_of: ids not an array of ids is an error", p.returncode != 0 and "JSON array of name ids" in p.stderr,
       p.stderr)


def busy(tmp, d, what):
    """gpu_busy, gpu_stream_busy and gpu_gaps against their plain-SQL forms; the ranges of api_columns."""
    sessions = [r[0] for r in sql(d, "SELECT id FROM sessions ORDER BY id", load=False)]
    idle = os.path.join(tmp, "idle.db")
    shutil.copy(d, idle)
    sql(idle, f"INSERT INTO devices (session_id, pid, id) VALUES ({sessions[0]}, 0, 99)", load=False)
    for label, db in ((what, d), (what + ", a declared device that ran nothing", idle)):
        got = sql(db, "SELECT * FROM gpu_busy")
        check(f"gpu_busy ({label}) = plain SQL ({len(got)} devices)", got, sql(db, BUSY_SQL))
        for s in sessions:
            check(f"gpu_busy ({label}): session_id = {s}", sql(db, f"SELECT * FROM gpu_busy WHERE session_id = {s}"),
                  [r for r in got if r[0] == s])
    idle_row = sql(idle, f"SELECT * FROM gpu_busy WHERE session_id = {sessions[0]} AND device_id = 99")
    check(f"gpu_busy ({what}): an idle device", idle_row, [[sessions[0], "99", "", ""] + ["0"] * 9])
    # A connection remembers a session's figures only while the database is unchanged: by itself or by another.
    s0 = sessions[0]
    q = f"SELECT device_id, last_ns, busy_ns FROM gpu_busy WHERE session_id = {s0} AND first_ns IS NOT NULL LIMIT 1"
    dev, last, busy0 = sql(d, q)[0]
    late = int(last) + 1000000
    add = (f"INSERT INTO memcpys (session_id, pid, start_ns, end_ns, device_id, kind, bytes) "
           f"VALUES ({s0}, 0, {late}, {late + 500}, {dev}, 1, 8)")
    changed = os.path.join(tmp, "changed.db")
    shutil.copy(d, changed)
    got = sql(changed, f"{q}; {add}; {q}; SELECT count(*) FROM gpu_gaps WHERE session_id = {s0} AND end_ns = {late}")
    check(f"gpu_busy ({what}): the same connection's change is seen",
          got, [[dev, last, busy0], [dev, str(late + 500), str(int(busy0) + 500)], ["1"]])
    shutil.copy(d, changed)
    later = late + 10**6
    writer = os.path.join(tmp, "writer.py")
    with open(writer, "w") as f:
        f.write("import sqlite3\nc = sqlite3.connect(%r)\nc.execute(%r)\nc.commit()\n"
                % (changed, add.replace(f"{late}, {late + 500}", f"{later}, {later + 500}")))
    p = subprocess.run(["sqlite3", "-batch", "-bail", "-noheader", changed, f".load {EXT}", q,
                        f".shell {sys.executable} {writer}", q], capture_output=True, text=True)
    check(f"gpu_busy ({what}): another connection's commit is seen", p.stdout.split(),
          [f"{dev}|{last}|{busy0}", f"{dev}|{later + 500}|{int(busy0) + 500}"])
    streams = sql(d, "SELECT * FROM gpu_stream_busy")
    ok(f"gpu_stream_busy ({what}): several streams", len(streams) >= 3, streams)
    check(f"gpu_stream_busy ({what}) = plain SQL", streams, sql(d, STREAM_SQL))
    gaps = sql(d, "SELECT * FROM gpu_gaps")
    ok(f"gpu_gaps ({what}): gaps", len(gaps) >= 10, len(gaps))
    check(f"gpu_gaps ({what}) = plain SQL ({len(gaps)} gaps)", gaps, sql(d, GAPS_SQL))
    for s in sessions:
        mine = [r for r in gaps if r[0] == s]
        mine.sort(key=lambda r: (-int(r[4]), int(r[2]), int(r[1]), int(r[5])))
        for limit in (0, 1, 5, 1000000):
            q = (f"SELECT * FROM gpu_gaps WHERE session_id = {s} ORDER BY gap_ns DESC, start_ns, device_id, node "
                 f"LIMIT {limit}")
            check(f"gpu_gaps ({what}) session {s}: longest first, LIMIT {limit}", sql(d, q), mine[:limit])
        plan = sql(d, f"EXPLAIN QUERY PLAN SELECT * FROM gpu_gaps WHERE session_id = {s} ORDER BY gap_ns DESC, "
                      "start_ns, device_id LIMIT 3")
        ok(f"gpu_gaps ({what}): longest first by the table, with the LIMIT (idxNum 7)",
           not any("TEMP B-TREE" in r[-1] for r in plan) and any("INDEX 7:" in r[-1] for r in plan), plan)
        check(f"gpu_gaps ({what}) session {s}: OFFSET", sql(d, f"SELECT * FROM gpu_gaps WHERE session_id = {s} "
                                                            "ORDER BY gap_ns DESC, start_ns, device_id LIMIT 2 OFFSET 3"),
              mine[3:5])

    # api_columns and kernel_columns take start_ns < (<=) x and end_ns > (>=) y themselves.
    for table, rows, cols in (("api_columns", "api_calls", "pid, start_ns, end_ns, coalesce(name_id, 0)"),
                              ("kernel_columns", "kernels", "pid, start_ns, end_ns, name_id")):
        for s in sessions:
            lo, hi = (int(x) for x in sql(d, f"SELECT min(start_ns), max(end_ns) FROM {rows} WHERE session_id = {s}",
                                          load=False)[0])
            third = (hi - lo) // 3
            for cond in (f"start_ns < {lo + third} AND end_ns > {lo + third // 2}",
                         f"start_ns <= {lo + 2 * third} AND end_ns >= {lo + third}",
                         f"start_ns < {lo} AND end_ns > {lo}", f"end_ns > {hi}", f"start_ns <= {lo}",
                         f"start_ns < {hi} AND end_ns > {lo} AND start_ns < {lo + third}"):
                got = sql(d, f"SELECT {cols.replace('coalesce(name_id, 0)', 'name_id')} FROM {table} "
                             f"WHERE session_id = {s} AND {cond}")
                check(f"{table} ({what}) session {s}: {cond}", multiset(got),
                      multiset(sql(d, f"SELECT {cols} FROM {rows} WHERE session_id = {s} AND {cond}", load=False)))
        # Rowids are the rows' positions in table order, with a range as without.
        s = sessions[-1]
        every = {r[0]: r[1:] for r in sql(d, f"SELECT rowid, start_ns, end_ns FROM {table} WHERE session_id = {s}")}
        check(f"{table} ({what}): rowids 0..n-1", sorted(int(k) for k in every), list(range(len(every))))
        part = sql(d, f"SELECT rowid, start_ns, end_ns FROM {table} WHERE session_id = {s} AND end_ns > "
                      f"(SELECT avg(start_ns) FROM {rows} WHERE session_id = {s})")
        ok(f"{table} ({what}): a range's rows", len(part) > 0, part)
        check(f"{table} ({what}): a range keeps the rowids", {r[0]: r[1:] for r in part},
              {k: v for k, v in every.items() if k in {r[0] for r in part}})
    # Many windows joined, each a filter again (the chunks outside skipped): the same as the rows say.
    s = sessions[-1]
    win = (f"WITH w AS MATERIALIZED (SELECT row_number() OVER () AS k, start_ns - 50000 AS a, end_ns + 50000 AS b "
           f"FROM gpu_gaps WHERE session_id = {s} ORDER BY gap_ns DESC, start_ns, device_id LIMIT 40) ")
    got = sql(d, win + f"SELECT w.k, a.rowid, a.start_ns FROM w CROSS JOIN api_columns a WHERE a.session_id = {s} "
                       "AND a.start_ns < w.b AND a.end_ns > w.a")
    ok(f"api_columns ({what}): calls in gap windows", len(got) > 0, got)
    want = sql(d, win + f"SELECT w.k, a.r, a.start_ns FROM w CROSS JOIN (SELECT rowid AS r, start_ns, end_ns FROM "
                        f"api_columns WHERE session_id = {s}) a WHERE a.start_ns + 0 < w.b AND a.end_ns + 0 > w.a")
    check(f"api_columns ({what}): calls in gap windows ({len(got)})", multiset(got), multiset(want))


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
    # Once, outside the strings it joins: read once per string row, the bench session took 160 s.
    steps = [r[-1].lstrip("|`- ") for r in ext]
    loops = [t for t in steps if t.startswith(("SCAN g", "SEARCH g", "SCAN s", "SEARCH s"))]
    ok(f"{name}: hotspots reads kernel_stats once, before the strings", loops and "VIRTUAL TABLE" in loops[0], ext)
    noext = sql(db, "EXPLAIN QUERY PLAN SELECT * FROM hotspots", load=False)
    ok(f"{name}: without it, the stored view", not any("VIRTUAL TABLE" in r[-1] for r in noext), noext)
    schema = "\n".join(r[0] for r in sql(db, ".schema hotspots", load=False))
    ok(f"{name}: the stored view says how to load the extension", ".load build/lib/gpuprof_sqlite" in schema, schema)


# memory_pairs said in plain SQL (analyze/ref/memory_pairs.sql says how it pairs).
PAIRS_SQL = ref("memory_pairs")
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
    # Session 2's processes on two hosts: each device is two GPUs, whose running figures are apart.
    con.execute("INSERT INTO sessions (id, uuid, source, ingested_at) VALUES (2, 'pairs-2', 'ndjson', 'now')")
    con.executemany("INSERT INTO processes (session_id, pid, hostname) VALUES (2, ?, ?)", [(1, "b"), (2, "a")])
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


def kernel_cache(tmp, src):
    """gpuprof_kernel_cache(1): a connection keeps a session's kernel columns for the next table that reads
    them; the tables give what they give without it, for each session in turn, and after a change."""
    db = os.path.join(tmp, "cache.db")
    shutil.copy(src, db)
    sessions = [r[0] for r in sql(db, "SELECT id FROM sessions ORDER BY id", load=False)]
    reads = lambda s: (f"SELECT * FROM kernel_stats WHERE session_id = {s}; SELECT * FROM gpu_busy WHERE session_id = {s}; "
                       f"SELECT * FROM kernel_busy('{{}}', 'all') WHERE session_id = {s};")
    plain = [sql(db, "".join(reads(s) for s in sessions))]
    kept = sql(db, "SELECT gpuprof_kernel_cache(); SELECT gpuprof_kernel_cache(1); " +
               "".join(reads(s) + reads(s) + f"SELECT gpuprof_kernel_cache(), count(*) FROM kernels WHERE session_id = {s};"
                       for s in sessions))
    check("kernel cache: off by default, nothing kept", kept[:2], [["0"], ["0"]])
    n = len(plain[0]) // len(sessions) if sessions else 0
    got, i, want = [], 2, []
    for s in sessions:
        want_s = sql(db, reads(s))
        block = kept[i:i + 2 * len(want_s) + 1]
        i += 2 * len(want_s) + 1
        check(f"kernel cache: session {s}: read, then kept, as without it", block[:-1], want_s + want_s)
        check(f"kernel cache: session {s}: holds its kernels", block[-1][0], block[-1][1])
    ok("kernel cache: sessions compared", len(sessions) > 1 and n > 0)
    s = sessions[0]
    changed = sql(db, "SELECT gpuprof_kernel_cache(1);" + reads(s) +
                  f"DELETE FROM kernels WHERE rowid = (SELECT min(rowid) FROM kernels WHERE session_id = {s});" +
                  reads(s) + "SELECT gpuprof_kernel_cache(0);")
    after = sql(db, reads(s))
    check("kernel cache: a change is seen (the kept columns dropped)", changed[-1 - len(after):-1], after)
    check("kernel cache: the change changed something", changed[1:1 + len(after)] != after, True)
    check("kernel cache: off empties it", changed[-1], ["0"])
    # A read that needs columns not kept (kernel_windows: correlation ids) after one that kept others, and
    # reads after a TEMP table's write (which leaves the kernels kept): all as without the cache.
    win = (f"SELECT w.gpu_ns, w.kernels FROM (SELECT DISTINCT pid FROM kernels WHERE session_id = {s}) p, "
           f"kernel_windows({s}, p.pid, 'thread', NULL, 0, NULL) w;")
    temp = "CREATE TEMP TABLE IF NOT EXISTS t(x); INSERT INTO t VALUES (1);"
    plain = sql(db, reads(s) + win + temp + reads(s))
    kept = sql(db, "SELECT gpuprof_kernel_cache(1);" + reads(s) + win + temp + reads(s) + "SELECT gpuprof_kernel_cache();")
    check("kernel cache: more columns, then a TEMP write: as without it", kept[1:-1], plain)
    check("kernel cache: still holds the session after the TEMP write", kept[-1],
          sql(db, f"SELECT count(*) FROM kernels WHERE session_id = {s}", load=False)[0])
    # Kept narrow: each column of a block as offsets of 0, 1, 2 or 4 bytes from its least value (8 only
    # when they span more): the seven columns those reads keep take a fraction of 8 bytes each.
    kept = sql(db, "SELECT gpuprof_kernel_cache(1);" + reads(s) + win +
               "SELECT gpuprof_kernel_cache(), gpuprof_kernel_cache_bytes(); SELECT gpuprof_kernel_cache(0);")
    n, size = (int(v) for v in kept[-2]) if len(kept) > 1 else (0, 0)
    ok(f"kernel cache: narrow ({size} bytes for {n} kernels, 7 columns: 56 a kernel as int64)", 0 < size <= 32 * n,
       f"{size / max(n, 1):.1f} bytes a kernel")
    # Values that need every width, 8 bytes too (times and durations apart by more than 2^32, negative
    # ones), in blocks of COLSTORE_ROWS rows (a session without chunks): kept and given back as they are.
    con = sqlite3.connect(db)
    con.execute("INSERT INTO sessions (id, uuid, source, ingested_at) VALUES (90, 'wide-90', 'ndjson', 'now')")
    con.execute("INSERT INTO processes (session_id, pid, hostname) VALUES (90, 7, 'h')")
    r = random.Random(90)
    wide = []
    for i in range(70000):
        start = r.choice([r.randint(-2**61, 2**61), r.randint(0, 300), 10**12 + i])
        wide.append((start, start + r.choice([0, 1, r.randint(0, 2**40)]), r.choice([0, 1, 3]),
                     r.choice([None, 7, 2**33]), r.randint(1, 70000), r.choice([1, 2, 3, 2**20])))
    con.executemany("INSERT INTO kernels (session_id, pid, start_ns, end_ns, device_id, stream_id, correlation_id, "
                    "name_id) VALUES (90, 7, ?, ?, ?, ?, ?, ?)", wide)
    con.commit()
    con.close()
    reads90 = ("SELECT * FROM kernel_stats WHERE session_id = 90; SELECT * FROM gpu_busy WHERE session_id = 90; "
               "SELECT count(*), sum(pid), sum(name_id), sum(start_ns % 1000003), sum(dur_ns % 1000003), "
               "min(start_ns), max(start_ns) FROM kernel_exec WHERE session_id = 90;")
    plain = sql(db, reads90 + reads90)
    kept = sql(db, "SELECT gpuprof_kernel_cache(1);" + reads90 + reads90 + "SELECT gpuprof_kernel_cache();")
    check("kernel cache: every width (8 bytes, negative times): as without it", kept[1:-1], plain)
    check("kernel cache: every width: all 70000 kept", kept[-1], ["70000"])


# The ranges' nesting walk as a recursive CTE carrying the stack as a JSON array of [end, path] (what
# gpuprof ran before range_path): per partition (side, pid, thread, kind = 3) in rn order, a range pops the
# entries that do not contain it (end < max(its end, start + 1)) and is pushed; kind 2 touches nothing.
NEST_ROWS = ("CREATE TABLE rr(rn INTEGER PRIMARY KEY, side INTEGER, pid INTEGER, thread INTEGER, kind INTEGER, "
             "start_ns INTEGER, end_ns INTEGER, open_end INTEGER, name TEXT);")
NEST_SQL = """
WITH RECURSIVE walk(rn, side, pid, thread, gpu, stack) AS (
  SELECT 0, NULL, NULL, NULL, NULL, '[]'
  UNION ALL
  SELECT r.rn, r.side, r.pid, r.thread, r.kind = 3,
         (SELECT CASE WHEN r.kind = 2 THEN kept ELSE json_insert(kept, '$[#]',
                 json_array(r.open_end, coalesce((kept ->> '$[#-1][1]') || '/', '') || r.name)) END
          FROM (SELECT CASE WHEN r.side IS NOT w.side OR r.pid IS NOT w.pid OR r.thread IS NOT w.thread
                                 OR (r.kind = 3) IS NOT w.gpu THEN '[]'
                            WHEN r.kind = 2 THEN w.stack
                            ELSE (SELECT json_group_array(json(value)) FROM json_each(w.stack)
                                  WHERE value ->> 0 >= max(r.open_end, r.start_ns + 1)) END AS kept))
  FROM walk w JOIN rr r ON r.rn = w.rn + 1
)
SELECT r.rn, CASE WHEN r.kind = 2 THEN r.name ELSE w.stack ->> '$[#-1][1]' END FROM walk w JOIN rr r ON r.rn = w.rn
ORDER BY 1
"""
NEST = ("SELECT rn, range_path(start_ns, end_ns, kind, name) OVER (PARTITION BY side, pid, thread, kind = 3 "
        "ORDER BY rn ROWS UNBOUNDED PRECEDING) FROM rr ORDER BY rn")


def range_path(tmp):
    """range_path against the recursive walk: random ranges in nesting order (two sides, processes, threads,
    host and GPU kinds, start/end ranges, equal starts, ranges that cross instead of nesting, zero-length and
    never-ended ones, names with '/' and non-ASCII); a sliding frame is an error."""
    import random
    import sqlite3
    db = os.path.join(tmp, "nest.db")
    r = random.Random(17)
    rows = []
    for _ in range(3000):
        start = r.randint(0, 2000)
        end = None if r.random() < 0.05 else start + r.choice([0, 1, r.randint(0, 400), r.randint(0, 40)])
        rows.append((r.choice([0, 1]), r.choice([1, 2]), r.choice([7, 8]), r.choice([1, 1, 1, 2, 3]), start, end,
                     end if end is not None else 2**63 - 1, r.choice(["step", "fwd", "a/b", "ß", "x" * 40])))
    rows.sort(key=lambda x: (x[0], x[1], x[3] == 3, x[2], x[4], -x[6]))
    con = sqlite3.connect(db)
    con.execute(NEST_ROWS)
    con.executemany("INSERT INTO rr(side, pid, thread, kind, start_ns, end_ns, open_end, name) VALUES (?,?,?,?,?,?,?,?)",
                    rows)
    con.commit()
    con.close()
    want = sql(db, NEST_SQL, load=False)
    got = sql(db, NEST)
    check(f"range_path = the recursive walk ({len(want)} ranges)", got, want)
    ok("range_path: some ranges nest four deep", max(w[1].count("/") for w in want) >= 4)
    ok("range_path: some are popped by a range that crosses them",
       any(a[5] is not None and b[5] is not None and a[4] < b[4] < a[5] < b[5] for a, b in zip(rows, rows[1:])))
    err = sql(db, "SELECT range_path(start_ns, end_ns, kind, name) OVER (ORDER BY rn ROWS BETWEEN 1 PRECEDING "
              "AND CURRENT ROW) FROM rr", expect_ok=False)
    ok("range_path: a sliding frame is an error", err.returncode != 0 and "UNBOUNDED PRECEDING" in err.stderr,
       err.stderr)
# Kernels with their launching call (the first API call of the process with the correlation id, in table
# order) and the window of every range, in plain SQL: what kernel_windows answers.
# Each kernel's launch (its first call by process and correlation id) as an indexed temp table: as a CTE,
# SQLite computed the grouping again for each range (64 s a query), not a reference anyone waits for.
LAUNCHED = ("CREATE TEMP TABLE first AS SELECT session_id, pid, correlation_id AS corr, min(rowid) AS rid FROM api_calls "
            "WHERE correlation_id > 0 GROUP BY 1, 2, 3; CREATE INDEX temp.first_k ON first(session_id, pid, corr); "
            "CREATE TEMP TABLE launch AS SELECT k.session_id, k.pid, coalesce(c.thread_id, 0) AS key, c.start_ns AS t, "
            "k.end_ns - k.start_ns AS dur FROM kernels k JOIN first f ON f.session_id = k.session_id "
            "AND f.pid = k.pid AND f.corr = k.correlation_id JOIN api_calls c ON c.rowid = f.rid; "
            "CREATE INDEX temp.launch_t ON launch(session_id, pid, t); "
            "WITH start AS (SELECT session_id, pid, coalesce(stream_id, -1) AS key, start_ns AS t, "
            "end_ns - start_ns AS dur FROM kernels) ")
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
            want = sql(db, LAUNCHED + PLAIN.format(src=src, key="l.key = coalesce(r.thread_id, 0)" if one else "1"),
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
        class_rules(tmp)
        gpu_peaks(tmp)
        kernel_busy(os.path.join(tmp, "many.db"))
        kernels_of(os.path.join(tmp, "many.db"))
        kernel_busy_kept(tmp, os.path.join(tmp, "many.db"))
        kernel_cache(tmp, os.path.join(tmp, "many.db"))
        memory_pairs(tmp)
        range_path(tmp)
        windows(tmp)
        hotspots(tmp, "demo", DEMO)
        for k in kineto:
            hotspots(tmp, os.path.basename(k).split(".")[0], k)
    return checks.summary("vtab")


if __name__ == "__main__":
    sys.exit(main())
