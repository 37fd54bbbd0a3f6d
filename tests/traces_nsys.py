#!/usr/bin/env python3
"""traces_nsys: ingest every Nsight Systems export in ../shared/traces/nsys and check what gpuprof stores
and computes against values read here straight from the export with sqlite3 (never with gpuprof code):
per-kernel-name statistics (nsys stats conventions), memcpy counts and bytes per copy kind, NVTX range
counts per text and push/pop depths, API calls per name, devices, absolute times, processes.
Re-ingesting changes nothing; a cut-off export and a text file given as nsys are refused with exit 3 and
leave the database as it was.

Prints one line per failure and ends with "traces_nsys: N passed, M failed"; exit 1 if any failed.
"""
import hashlib
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

import checks
from checks import BIN, ok as check
from collections import Counter, defaultdict

TRACES = os.path.join(checks.TRACES, "nsys")
TABLES = ["sessions", "processes", "devices", "strings", "kernels", "memcpys", "memsets", "syncs",
          "memory_events", "api_calls", "ranges", "markers", "overheads", "ingest_errors"]
# ENUM_CUPTI_OVERHEAD_TYPE names to CUPTI's CUpti_ActivityOverheadKind (cupti_activity.h)
OVERHEAD_KINDS = {"OVERHEAD_DRIVER_COMPILER": 1, "OVERHEAD_CUPTI_BUFFER_FLUSH": 1 << 16,
                  "OVERHEAD_CUPTI_INSTRUMENTATION": 2 << 16, "OVERHEAD_CUPTI_RESOURCE": 3 << 16,
                  "OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING": 4 << 16, "OVERHEAD_LAZY_FUNCTION_LOADING": 5 << 16,
                  "OVERHEAD_COMMAND_BUFFER_FULL": 6 << 16, "OVERHEAD_ACTIVITY_BUFFER_REQUEST": 7 << 16,
                  "OVERHEAD_UVM_ACTIVITY_INIT": 8 << 16}



def run(*args):
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    return subprocess.run(list(args), capture_output=True, text=True, env=env)


def ingest(path, db, *extra):
    return run(os.path.join(BIN, "gpuprof-ingest"), "-q", *extra, path, "-o", db)


# ---- the export, read directly ----

def tables(con):
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def columns(con, table):
    return {r[1] for r in con.execute(f'PRAGMA table_info("{table}")')}


def strings_of(con):
    return dict(con.execute("SELECT id, value FROM StringIds")) if "StringIds" in tables(con) else {}


def origin_of(con):
    if "TARGET_INFO_SESSION_START_TIME" in tables(con):
        row = con.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()
        if row and row[0] is not None:
            return row[0]
    return 0


def kernel_stats(con, strs):
    """Per demangled name: (count, total, min, max, median, sample stddev) of end - start."""
    cols = columns(con, "CUPTI_ACTIVITY_KIND_KERNEL")
    name = "coalesce(demangledName, shortName)" if "demangledName" in cols else "shortName"
    durs = defaultdict(list)
    for nid, d in con.execute(f'SELECT {name}, "end" - start FROM CUPTI_ACTIVITY_KIND_KERNEL'):
        durs[strs.get(nid, f"[nsys string {nid}]")].append(d)
    out = {}
    for k, v in durs.items():
        v.sort()
        n = len(v)
        med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
        out[k] = (n, sum(v), v[0], v[-1], med, statistics.stdev(v) if n > 1 else 0.0)
    return out


def nvtx_counts(con, strs):
    """(text, kind) -> count for push/pop (kind 1) and start/end (kind 2) ranges."""
    if "NVTX_EVENTS" not in tables(con):
        return Counter()
    cols = columns(con, "NVTX_EVENTS")
    text = "text" if "text" in cols else "NULL"
    tid = "textId" if "textId" in cols else "NULL"
    c = Counter()
    for t, i, et in con.execute(f"SELECT {text}, {tid}, eventType FROM NVTX_EVENTS WHERE eventType IN (59, 60)"):
        if t is None:
            t = strs.get(i, "") if i is not None else ""
        c[(t, 1 if et == 59 else 2)] += 1
    return c


def nvtx_depths(con):
    """Histogram of push/pop nesting depth per (thread, domain); NULL ends stay open."""
    if "NVTX_EVENTS" not in tables(con):
        return Counter()
    cols = columns(con, "NVTX_EVENTS")
    dom = "domainId" if "domainId" in cols else "0"
    rows = con.execute(f'SELECT globalTid, {dom}, start, "end" FROM NVTX_EVENTS WHERE eventType = 59').fetchall()
    big = 1 << 63
    rows.sort(key=lambda r: (r[0] or 0, r[1] or 0, r[2], -(r[3] if r[3] is not None else big)))
    hist, stack, key = Counter(), [], None
    for g, d, s, e in rows:
        if (g, d) != key:
            key, stack = (g, d), []
        while stack and stack[-1] <= s:
            stack.pop()
        hist[len(stack)] += 1
        stack.append(e if e is not None else big)
    return hist


def device_ids(con):
    """Device ids: the export's CUDA-context mapping (or TARGET_INFO_GPU ids) plus ids with activity."""
    t = tables(con)
    ids = set()
    if "TARGET_INFO_CUDA_CONTEXT_INFO" in t and {"hwId", "processId"} <= columns(con, "TARGET_INFO_CUDA_CONTEXT_INFO"):
        ids = {r[0] for r in con.execute("SELECT deviceId FROM TARGET_INFO_CUDA_CONTEXT_INFO "
                                         "WHERE processId IS NOT NULL AND deviceId IS NOT NULL")}
    elif "TARGET_INFO_CUDA_DEVICE" in t and {"gpuId", "pid"} <= columns(con, "TARGET_INFO_CUDA_DEVICE"):
        ids = {r[0] for r in con.execute("SELECT cudaId FROM TARGET_INFO_CUDA_DEVICE "
                                         "WHERE pid IS NOT NULL AND cudaId IS NOT NULL")}
    if not ids and "TARGET_INFO_GPU" in t:
        ids = {r[0] for r in con.execute("SELECT id FROM TARGET_INFO_GPU")}
    for k in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if k in t:
            ids |= {r[0] for r in con.execute(f"SELECT DISTINCT deviceId FROM {k}")}
    return ids


def count(con, table, where=""):
    return con.execute(f"SELECT count(*) FROM {table} {where}").fetchone()[0] if table in tables(con) else 0


# ---- session.db ----

def row_counts(db):
    con = sqlite3.connect(db)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        con.close()


def digest(db):
    con = sqlite3.connect(db)
    try:
        h = hashlib.sha256()
        for line in con.iterdump():
            h.update(line.encode())
        return h.hexdigest()
    finally:
        con.close()


def close(a, b, rel=1e-9, absolute=1e-6):
    return abs(a - b) <= max(absolute, rel * max(abs(a), abs(b)))


def check_file(path, tmp):
    tag = os.path.basename(path)
    db = os.path.join(tmp, tag + ".db")
    r = ingest(path, db)
    check(f"{tag} ingest", r.returncode == 0, f"exit {r.returncode}: {r.stderr.strip()[:300]}")
    if r.returncode != 0:
        return
    src = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = sqlite3.connect(db)
    strs = strings_of(src)
    t = tables(src)

    # Kernels: hotspots against the export, nsys stats conventions.
    exp = kernel_stats(src, strs) if "CUPTI_ACTIVITY_KIND_KERNEL" in t else {}
    a = run(os.path.join(BIN, "gpuprof-analyze"), "hotspots", db, "--format", "json")
    check(f"{tag} hotspots runs", a.returncode == 0, a.stderr.strip()[:300])
    got = {row["name"]: row for row in json.loads(a.stdout or "[]")} if a.returncode == 0 else {}
    check(f"{tag} kernel names", set(got) == set(exp),
          f"{len(set(exp) - set(got))} missing, {len(set(got) - set(exp))} unexpected")
    grand = sum(v[1] for v in exp.values())
    bad = []
    for name, (n, total, lo, hi, med, sd) in exp.items():
        g = got.get(name)
        if not g:
            continue
        if (g["calls"], g["total_ns"], g["min_ns"], g["max_ns"]) != (n, total, lo, hi) or \
                not close(g["med_ns"], med) or not close(g["avg_ns"], total / n) or \
                not close(g["stddev_ns"], sd, 1e-9, 1e-3) or not close(g["time_pct"], 100.0 * total / grand):
            keys = ("calls", "total_ns", "min_ns", "max_ns", "med_ns", "stddev_ns")
            bad.append(f"{name[:60]}: got {[g[k] for k in keys]} expected {[n, total, lo, hi, med, sd]}")
    check(f"{tag} kernel statistics", not bad, "; ".join(bad[:3]))

    # Processes: kernels per pid = (globalPid >> 24) & 0xFFFFFF.
    if "CUPTI_ACTIVITY_KIND_KERNEL" in t and "globalPid" in columns(src, "CUPTI_ACTIVITY_KIND_KERNEL"):
        e = dict(src.execute("SELECT (globalPid >> 24) & 16777215, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                             "GROUP BY 1"))
        g = dict(out.execute("SELECT pid, count(*) FROM kernels GROUP BY 1"))
        check(f"{tag} kernels per process", e == g, f"got {g} expected {e}")

    # Absolute times: origin (utcEpochNs, or 0) + the export's session-relative ns.
    if exp:
        origin = origin_of(src)
        e = src.execute("SELECT min(start), max(\"end\") FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
        g = out.execute("SELECT min(start_ns), max(end_ns) FROM kernels").fetchone()
        check(f"{tag} absolute kernel times", g == (origin + e[0], origin + e[1]),
              f"got {g} expected origin {origin} + {e}")

    # Copies per kind; memsets, syncs, API calls by count.
    e = {}
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in t:
        e = {k: (c, b) for k, c, b in src.execute(
            "SELECT copyKind, count(*), sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1")}
    g = {k: (c, b) for k, c, b in out.execute("SELECT kind, count(*), sum(bytes) FROM memcpys GROUP BY 1")}
    check(f"{tag} memcpy count and bytes per kind", e == g, f"got {g} expected {e}")
    e = (count(src, "CUPTI_ACTIVITY_KIND_MEMSET"),
         src.execute("SELECT coalesce(sum(bytes), 0) FROM CUPTI_ACTIVITY_KIND_MEMSET").fetchone()[0]
         if "CUPTI_ACTIVITY_KIND_MEMSET" in t else 0)
    g = out.execute("SELECT count(*), coalesce(sum(bytes), 0) FROM memsets").fetchone()
    check(f"{tag} memsets", tuple(g) == e, f"got {g} expected {e}")
    e = count(src, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")
    g = out.execute("SELECT count(*) FROM syncs").fetchone()[0]
    check(f"{tag} syncs", g == e, f"got {g} expected {e}")
    e = Counter()
    for k in ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"):
        if k in t:
            for nid, c in src.execute(f"SELECT nameId, count(*) FROM {k} GROUP BY 1"):
                e[re.sub(r"_v[0-9]+$", "", strs[nid]) if nid is not None else None] += c
    g = Counter(dict(out.execute("SELECT s.value, count(*) FROM api_calls a LEFT JOIN strings s "
                                 "ON s.session_id = a.session_id AND s.id = a.name_id GROUP BY 1")))
    check(f"{tag} API calls per name (version suffix dropped)", g == e,
          f"{sum(g.values())} calls, {sum(e.values())} expected; e.g. {list((e - g).items())[:2]}")

    # CUPTI's overheads: count and time per kind (the export's type names mapped to CUPTI's kinds), each on
    # the thread of its globalTid.
    e = Counter()
    if "CUPTI_ACTIVITY_KIND_OVERHEAD" in t:
        names = dict(src.execute("SELECT id, name FROM ENUM_CUPTI_OVERHEAD_TYPE")) \
            if "ENUM_CUPTI_OVERHEAD_TYPE" in t else {}
        for typ, tid, s, en in src.execute('SELECT overheadType, globalTid & 16777215, start, "end" '
                                           'FROM CUPTI_ACTIVITY_KIND_OVERHEAD'):
            e[(OVERHEAD_KINDS.get(names.get(typ), 0), 2, tid)] += en - s
    g = Counter()
    for k, obj, tid, d in out.execute("SELECT kind, object_kind, thread_id, end_ns - start_ns FROM overheads"):
        g[(k, obj, tid)] += d
    check(f"{tag} overheads: time per (kind, thread)", g == e, f"got {dict(g)} expected {dict(e)}")
    e = count(src, "CUPTI_ACTIVITY_KIND_OVERHEAD")
    g = out.execute("SELECT count(*) FROM overheads").fetchone()[0]
    check(f"{tag} overheads", g == e, f"got {g} expected {e}")

    # NVTX ranges per (text, kind), and push/pop depths.
    e = nvtx_counts(src, strs)
    g = Counter({(v, k): c for v, k, c in out.execute(
        "SELECT s.value, r.kind, count(*) FROM ranges r JOIN strings s ON s.session_id = r.session_id "
        "AND s.id = r.name_id GROUP BY 1, 2")})
    check(f"{tag} NVTX ranges per text", e == g,
          f"{len(e - g)} (text, kind) short, {len(g - e)} over; "
          f"e.g. {list((e - g).items())[:2]} {list((g - e).items())[:2]}")
    e = nvtx_depths(src)
    g = Counter(dict(out.execute("SELECT depth, count(*) FROM ranges WHERE kind = 1 GROUP BY 1")))
    check(f"{tag} NVTX push/pop depths", e == g, f"got {dict(g)} expected {dict(e)}")

    # Devices.
    e = device_ids(src)
    g = {r[0] for r in out.execute("SELECT DISTINCT id FROM devices")}
    check(f"{tag} devices", g == e, f"got {sorted(g)} expected {sorted(e)}")
    src.close()
    out.close()

    # Ingesting the same file again changes nothing.
    before = row_counts(db)
    r = ingest(path, db)
    after = row_counts(db)
    check(f"{tag} re-ingest", r.returncode == 0 and before == after,
          f"exit {r.returncode}; changed: {[k for k in before if before[k] != after[k]]}")


def check_corrupt(files, tmp):
    good = min(files, key=os.path.getsize)
    big = max(files, key=os.path.getsize)
    db = os.path.join(tmp, "corrupt.db")
    r = ingest(good, db)
    check("corrupt: setup ingest", r.returncode == 0, r.stderr.strip()[:300])
    snap = digest(db)

    cut = os.path.join(tmp, "cut.sqlite")
    with open(big, "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2])
    r = ingest(cut, db)
    check("corrupt: truncated export exits 3", r.returncode == 3, f"exit {r.returncode}: {r.stderr.strip()[:300]}")
    check("corrupt: truncated export leaves the database unchanged", digest(db) == snap)

    text = os.path.join(tmp, "notes.sqlite")
    with open(text, "w") as f:
        f.write("this is a text file, not an Nsight Systems export\n" * 20)
    r = ingest(text, db, "--format", "nsys")
    check("corrupt: text file as nsys exits 3", r.returncode == 3, f"exit {r.returncode}: {r.stderr.strip()[:300]}")
    check("corrupt: text file leaves the database unchanged", digest(db) == snap)


def main():
    if not os.path.isdir(TRACES):
        print("traces_nsys: skipped: ../shared/traces not found")
        print("traces_nsys: 0 passed, 0 failed")
        return 0
    files = sorted(os.path.join(TRACES, f) for f in os.listdir(TRACES) if f.endswith(".sqlite"))
    if not files:
        print(f"traces_nsys: skipped: no .sqlite export in {TRACES}")
    tmp = tempfile.mkdtemp(prefix="traces_nsys.")
    try:
        for f in files:
            check_file(f, tmp)
        if files:
            check_corrupt(files, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("traces_nsys")


if __name__ == "__main__":
    sys.exit(main())
