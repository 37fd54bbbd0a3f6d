#!/usr/bin/env python3
"""nsys_stats: the analyses that answer as `nsys stats` reports do, checked row by row against values
computed here straight from the raw tables of every Nsight Systems export in ../shared/traces/nsys (never
with gpuprof code): api (cuda_api_sum, from CUPTI_ACTIVITY_KIND_RUNTIME and StringIds), kernexec
(cuda_kern_exec_sum, CUPTI_ACTIVITY_KIND_KERNEL joined on correlationId to RUNTIME) and memcpy's sizes
(cuda_gpu_mem_size_sum, from CUPTI_ACTIVITY_KIND_MEMCPY and MEMSET); then a small planted session with
hand-computed answers for the edge cases: an even count's median, a single call (stddev 0, as nsys prints it), a kernel that
started before its launch call returned, a kernel without a call, a call recorded twice, the filters.

Conventions (Nsight Systems' statistics): median the mean of the two middle values, stddev the sample one,
time_pct a share of all API time; queue time = kernel start - end of the launch call (the first RUNTIME row
of the kernel's process and correlation id, by rowid), counted only when positive (QCount).
Prints one line per failure and ends with "nsys_stats: N passed, M failed"; exit 1 if any failed.
"""
import json
import math
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

import checks
from checks import BIN, check, ok

TRACES = os.path.join(checks.TRACES, "nsys")
COPY_KINDS = {0: "unknown", 1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA", 8: "DtoD",
              9: "HtoH", 10: "PtoP"}	# CUPTI's CUpti_ActivityMemcpyKind


def analyze(name, db, *extra):
    p = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), name, db, "--format", "json", *extra],
                       capture_output=True, text=True, env=dict(os.environ, LC_ALL="C", TZ="UTC"))
    ok(f"{os.path.basename(db)} {name} {' '.join(extra)} exits 0", p.returncode == 0, p.stderr.strip()[:300])
    return json.loads(p.stdout) if p.returncode == 0 else None


def med(v):
    return statistics.median(v) if v else None


def sd(v):
    return statistics.stdev(v) if len(v) > 1 else 0.0


def pct(v, p):
    """Linear interpolation between the closest ranks (percentile_cont)."""
    if not v:
        return None
    v = sorted(v)
    x = p / 100 * (len(v) - 1)
    lo = math.floor(x)
    return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (x - lo)


def near(a, b, rel=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= max(1e-6, rel * max(abs(a), abs(b)))


def same(tag, got, want, floats=()):
    """Row got (JSON) against want (dict): exact for integers and medians, tight for the floats keys."""
    bad = [f"{k}: got {got.get(k)!r} want {v!r}" for k, v in want.items()
           if not (near(got.get(k), v) if k in floats else got.get(k) == v)]
    ok(tag, not bad, "; ".join(bad[:4]))


# ---- the export, read directly ----

def tables(con):
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def columns(con, table):
    return {r[1] for r in con.execute(f'PRAGMA table_info("{table}")')}


def api_name(strs, nid):
    return re.sub(r"_v[0-9]+$", "", strs[nid]) if nid in strs else "(unknown)"


def calls_of(src, strs):
    """Every API call: (rowid, pid, correlationId, start, end, name) of RUNTIME (and DRIVER) by rowid."""
    out = []
    for t in ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"):
        if t in tables(src):
            for rid, g, c, s, e, n in src.execute(f'SELECT rowid, globalTid, correlationId, start, "end", nameId '
                                                  f'FROM {t} ORDER BY rowid'):
                out.append((rid, (g >> 24) & 0xFFFFFF if g is not None else 0, c, s, e, api_name(strs, n)))
    return out


def expect_api(calls):
    durs = defaultdict(list)
    for _, _, _, s, e, n in calls:
        durs[n].append(e - s)
    grand = sum(sum(v) for v in durs.values())
    return {n: {"calls": len(v), "total_ns": sum(v), "min_ns": min(v), "max_ns": max(v), "med_ns": med(v),
                "avg_ns": sum(v) / len(v), "stddev_ns": sd(v), "time_pct": 100 * sum(v) / grand}
            for n, v in durs.items()}


def launches(src, strs, calls):
    """Per kernel: (name, start, kernel ns, api ns or None, queue ns or None), the launch call the first
    call (RUNTIME before DRIVER, by rowid) of the kernel's process and correlation id."""
    first = {}
    for _, pid, c, s, e, _ in calls:
        if c is not None and c > 0 and (pid, c) not in first:
            first[(pid, c)] = (s, e)
    cols = columns(src, "CUPTI_ACTIVITY_KIND_KERNEL")
    name = "coalesce(demangledName, shortName)" if "demangledName" in cols else "shortName"
    gpid = "globalPid" if "globalPid" in cols else "0"
    out = []
    for nid, g, c, s, e in src.execute(f'SELECT {name}, {gpid}, correlationId, start, "end" '
                                       f'FROM CUPTI_ACTIVITY_KIND_KERNEL'):
        call = first.get(((g >> 24) & 0xFFFFFF, c)) if c else None
        out.append((strs.get(nid, f"[nsys string {nid}]"), s, e - s, call[1] - call[0] if call else None,
                    s - call[1] if call else None))
    return out


def expect_exec(ks):
    per = defaultdict(list)
    for k in ks:
        per[k[0]].append(k)
    out = {}
    for n, v in per.items():
        api = [k[3] for k in v if k[3] is not None]
        q = [k[4] for k in v if k[4] is not None and k[4] > 0]
        kern = [k[2] for k in v]
        out[n] = {"calls": len(v), "launched": len(api), "qcount": len(q),
                  "api_avg_ns": sum(api) / len(api) if api else None, "api_med_ns": med(api),
                  "api_min_ns": min(api, default=None), "api_max_ns": max(api, default=None),
                  "queue_avg_ns": sum(q) / len(q) if q else None, "queue_med_ns": med(q),
                  "queue_min_ns": min(q, default=None), "queue_max_ns": max(q, default=None),
                  "queue_p90_ns": pct(q, 90), "queue_p99_ns": pct(q, 99),
                  "kernel_avg_ns": sum(kern) / len(kern), "kernel_med_ns": med(kern), "kernel_min_ns": min(kern),
                  "kernel_max_ns": max(kern)}
    return out


FLOATS_EXEC = {"api_avg_ns", "queue_avg_ns", "kernel_avg_ns", "queue_p90_ns", "queue_p99_ns"}
BUCKETS = ["no launch call", "none: started before its call returned", "under 1 us", "1 us to 10 us",
           "10 us to 100 us", "100 us to 1 ms", "1 ms to 10 ms", "10 ms or more"]


def bucket(k):
    q = k[4]
    if k[3] is None:
        return 0
    if q <= 0:
        return 1
    for i, lim in enumerate((1000, 10_000, 100_000, 1_000_000, 10_000_000)):
        if q < lim:
            return 2 + i
    return 7


def expect_queue(ks):
    """The queue table (bucket -> [kernels, q1..q4]) and the quarter table (quarter -> row)."""
    t0, t1 = min(k[1] for k in ks), max(k[1] for k in ks)
    quarter = lambda s: min(3, (s - t0) * 4 // (t1 - t0 + 1)) + 1
    hist = defaultdict(lambda: [0] * 5)
    qs = defaultdict(list)
    for k in ks:
        b = hist[BUCKETS[bucket(k)]]
        b[0] += 1
        b[quarter(k[1])] += 1
        qs[quarter(k[1])].append(k)
    trend = {}
    for q, v in qs.items():
        w = [max(k[4], 0) for k in v if k[3] is not None]
        trend[q] = {"kernels": len(v), "launched": len(w), "queued": sum(1 for x in w if x > 0), "wait_med_ns": med(w),
                    "wait_p90_ns": pct(w, 90), "wait_max_ns": max(w, default=None)}
    return dict(hist), trend


def expect_sizes(src):
    sizes = defaultdict(list)
    t = tables(src)
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in t:
        for k, b in src.execute("SELECT copyKind, bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY"):
            sizes[COPY_KINDS.get(k, f"kind {k}")].append(b)
    if "CUPTI_ACTIVITY_KIND_MEMSET" in t:
        for (b,) in src.execute("SELECT bytes FROM CUPTI_ACTIVITY_KIND_MEMSET"):
            sizes["memset"].append(b)
    return {n: {"count": len(v), "bytes": sum(v), "avg_bytes": sum(v) / len(v), "med_bytes": med(v),
                "min_bytes": min(v), "max_bytes": max(v), "stddev_bytes": statistics.stdev(v) if len(v) > 1 else 0.0}
            for n, v in sizes.items()}


def check_export(path, tmp):
    tag = os.path.basename(path)
    db = os.path.join(tmp, tag + ".db")
    p = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", path, "-o", db], capture_output=True, text=True)
    ok(f"{tag} ingest", p.returncode == 0, p.stderr.strip()[:300])
    if p.returncode != 0:
        return
    src = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    strs = dict(src.execute("SELECT id, value FROM StringIds"))
    calls = calls_of(src, strs)

    # api: every name, every statistic.
    want = expect_api(calls)
    got = analyze("api", db)
    if got is not None:
        check(f"{tag} api names", sorted(r["name"] for r in got), sorted(want))
        check(f"{tag} api keys", {tuple(sorted(r)) for r in got},
              {tuple(sorted("name calls total_ns avg_ns med_ns min_ns max_ns stddev_ns time_pct".split()))})
        for r in got:
            if r["name"] in want:
                same(f"{tag} api {r['name']}", r, want[r["name"]], {"avg_ns", "stddev_ns", "time_pct"})
        ok(f"{tag} api ordered by total", [r["total_ns"] for r in got] == sorted((r["total_ns"] for r in got),
                                                                                 reverse=True))
        if any(r["name"].startswith("cu") and not r["name"].startswith("cuda") for r in got):
            ok(f"{tag} api: driver calls (cu*) counted", True)

    # kernexec: per name, then the queue by size and by quarter.
    if "CUPTI_ACTIVITY_KIND_KERNEL" in tables(src):
        ks = launches(src, strs, calls)
        want = expect_exec(ks)
        doc = analyze("kernexec", db)
        if doc is not None:
            rows = doc["kernexec"]
            check(f"{tag} kernexec names", sorted(r["name"] for r in rows), sorted(want))
            check(f"{tag} kernexec: every kernel counted (none dropped)", sum(r["calls"] for r in rows), len(ks))
            check(f"{tag} kernexec: kernels without a launch call", sum(r["calls"] - r["launched"] for r in rows),
                  sum(1 for k in ks if k[3] is None))
            for r in rows:
                if r["name"] in want:
                    same(f"{tag} kernexec {r['name'][:50]}", r, want[r["name"]], FLOATS_EXEC)
            hist, trend = expect_queue(ks)
            check(f"{tag} kernexec_queue", {r["queue"]: [r["kernels"], r["q1"], r["q2"], r["q3"], r["q4"]]
                                           for r in doc["kernexec_queue"]}, hist)
            for r in doc["kernexec_trend"]:
                same(f"{tag} kernexec_trend quarter {r['quarter']}", r, trend.get(r["quarter"], {}),
                     {"wait_p90_ns"})
            check(f"{tag} kernexec_trend quarters", sorted(r["quarter"] for r in doc["kernexec_trend"]), sorted(trend))
            # --exclude the most frequent name: the queue tables count the other kernels only.
            top = Counter(k[0] for k in ks).most_common(1)[0][0]
            rest = [k for k in ks if k[0] != top]
            doc = analyze("kernexec", db, "--exclude", "^" + re.escape(top) + "$") if rest else None
            if doc is not None:
                hist, trend = expect_queue(rest)
                check(f"{tag} kernexec_queue --exclude its top name", {r["queue"]: [r["kernels"], r["q1"], r["q2"],
                      r["q3"], r["q4"]] for r in doc["kernexec_queue"]}, hist)
                for r in doc["kernexec_trend"]:
                    same(f"{tag} kernexec_trend --exclude, quarter {r['quarter']}", r, trend.get(r["quarter"], {}),
                         {"wait_p90_ns"})

    # memcpy: the sizes per kind.
    want = expect_sizes(src)
    got = analyze("memcpy", db)
    if got is not None:
        check(f"{tag} memcpy kinds", sorted(r["kind"] for r in got), sorted(want))
        for r in got:
            if r["kind"] in want:
                same(f"{tag} memcpy sizes {r['kind']}", r, want[r["kind"]], {"avg_bytes", "stddev_bytes"})
    src.close()


# ---- a planted session, answers by hand ----

def planted(tmp):
    """Process 1: kernels k (3 launches) and solo (1), one kernel without a call, calls on one thread.
    correlation 1: k at 1000-1100, cudaLaunchKernel 100-600 (api 500, queue 400)
    correlation 2: k at 2000-2300, cudaLaunchKernel 1500-1900 (api 400, queue 100), and a second call with
                   id 2 later (2500-2510): not the launch call, the first in table order is
    correlation 3: k at 2950-3050, cudaLaunchKernel 2900-3000: started 50 ns before the call returned
                   (api 100, queue -50: none)
    correlation 4: solo at 5000-5600, cuLaunchKernel 4000-4200 (api 200, queue 800)
    correlation 0: k at 7000-7200: no launch call
    cudaMemcpy: one call of 1000 ns (single: stddev 0)."""
    lines = [
        {"type": "header", "v": 1, "session": "planted-stats", "pid": 1, "origin_ns": "1700000000000000000",
         "program": "p", "hostname": "h"},
        {"type": "strings", "v": 1, "ids": [1, 2, 3, 4, 5],
         "values": ["k", "solo", "cudaLaunchKernel", "cuLaunchKernel", "cudaMemcpy"]},
    ]
    ks = [(1000, 1100, 1, 1), (2000, 2300, 2, 1), (2950, 3050, 3, 1), (5000, 5600, 4, 2), (7000, 7200, 0, 1)]
    n = len(ks)
    lines.append({"type": "kernel", "v": 1, "seq": 0, "n": n, "start": [k[0] for k in ks], "end": [k[1] for k in ks],
                  "device": [0] * n, "context": [1] * n, "stream": [7] * n, "correlation": [k[2] for k in ks],
                  "name": [k[3] for k in ks], "mangled": [0] * n,
                  **{f: [1] * n for f in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z")},
                  **{f: [0] * n for f in ("cluster_x", "cluster_y", "cluster_z", "registers", "static_smem",
                                          "dynamic_smem", "local_mem", "graph_id", "graph_node")}})
    cs = [(100, 600, 1, 3, 1), (1500, 1900, 2, 3, 1), (2500, 2510, 2, 3, 1), (2900, 3000, 3, 3, 1),
          (4000, 4200, 4, 4, 2), (8000, 9000, 5, 5, 1)]
    m = len(cs)
    lines.append({"type": "api", "v": 1, "seq": 0, "n": m, "start": [c[0] for c in cs], "end": [c[1] for c in cs],
                  "thread": [1] * m, "correlation": [c[2] for c in cs], "name": [c[3] for c in cs],
                  "cbid": [211] * m, "domain": [c[4] for c in cs]})
    lines.append({"type": "end", "v": 1, "ts": 10_000})
    d = os.path.join(tmp, "planted")
    os.makedirs(d)
    with open(os.path.join(d, "1.ndjson"), "w") as f:
        for ln in lines:
            f.write(json.dumps(ln) + "\n")
    db = os.path.join(tmp, "planted.db")
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", d, "-o", db], check=True)
    # The same session with correlation ids 10^9 apart: kernel_exec joins by a hash then, not by direct
    # slots (dense ids); the answers are the same.
    sparse = os.path.join(tmp, "sparse")
    os.makedirs(sparse)
    with open(os.path.join(sparse, "1.ndjson"), "w") as f:
        for ln in lines:
            ln = dict(ln)
            if ln["type"] == "header":
                ln["session"] = "planted-sparse"
            if ln["type"] in ("kernel", "api"):
                ln["correlation"] = [c * 1_000_000_000 for c in ln["correlation"]]
            f.write(json.dumps(ln) + "\n")
    sdb = os.path.join(tmp, "sparse.db")
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", sparse, "-o", sdb], check=True)
    check("planted kernexec: sparse correlation ids (the hash join) give the same", analyze("kernexec", sdb),
          analyze("kernexec", db))

    # api: cudaLaunchKernel 500, 400, 10, 100 (even count: median (100 + 400) / 2 = 250); cuLaunchKernel and
    # cudaMemcpy single calls: stddev 0. Total 2210: time % 1010/2210, 200/2210, 1000/2210.
    got = {r["name"]: r for r in analyze("api", db)}
    sd4 = statistics.stdev([500, 400, 10, 100])
    same("planted api cudaLaunchKernel", got.get("cudaLaunchKernel", {}),
         {"calls": 4, "total_ns": 1010, "avg_ns": 252.5, "med_ns": 250, "min_ns": 10, "max_ns": 500,
          "stddev_ns": sd4, "time_pct": 100 * 1010 / 2210}, {"avg_ns", "stddev_ns", "time_pct"})
    same("planted api cuLaunchKernel (driver, single call)", got.get("cuLaunchKernel", {}),
         {"calls": 1, "total_ns": 200, "med_ns": 200, "min_ns": 200, "max_ns": 200, "stddev_ns": 0.0,
          "time_pct": 100 * 200 / 2210}, {"time_pct"})
    check("planted api order", [r["name"] for r in analyze("api", db)], ["cudaLaunchKernel", "cudaMemcpy", "cuLaunchKernel"])
    check("planted api --match", [r["name"] for r in analyze("api", db, "--match", "^cu[A-Z]")], ["cuLaunchKernel"])
    check("planted api --exclude, time % of all calls still",
          [(r["name"], round(r["time_pct"], 6)) for r in analyze("api", db, "--exclude", "Launch")],
          [("cudaMemcpy", round(100 * 1000 / 2210, 6))])
    check("planted api --top 1", [r["name"] for r in analyze("api", db, "--top", "1")], ["cudaLaunchKernel"])

    # kernexec: k has 4 kernels, 3 launched (api 500, 400, 100: median 400), queue 400 and 100 (the third
    # started before its call returned: qcount 2, median 250 the mean of the two); kernel 100, 300, 100, 200:
    # median 150. solo: api 200, queue 800.
    doc = analyze("kernexec", db)
    rows = {r["name"]: r for r in doc["kernexec"]}
    same("planted kernexec k", rows.get("k", {}),
         {"calls": 4, "launched": 3, "qcount": 2, "api_med_ns": 400, "api_min_ns": 100, "api_max_ns": 500,
          "api_avg_ns": 1000 / 3, "queue_med_ns": 250, "queue_min_ns": 100, "queue_max_ns": 400, "queue_avg_ns": 250,
          "queue_p90_ns": 370, "queue_p99_ns": 397, "kernel_med_ns": 150, "kernel_min_ns": 100, "kernel_max_ns": 300,
          "kernel_avg_ns": 175}, {"api_avg_ns", "queue_avg_ns", "kernel_avg_ns", "queue_p90_ns", "queue_p99_ns"})
    same("planted kernexec solo", rows.get("solo", {}),
         {"calls": 1, "launched": 1, "qcount": 1, "api_med_ns": 200, "queue_med_ns": 800, "queue_max_ns": 800,
          "kernel_med_ns": 600})
    check("planted kernexec order (kernel time)", [r["name"] for r in doc["kernexec"]], ["k", "solo"])
    check("planted kernexec_queue", {r["queue"]: r["kernels"] for r in doc["kernexec_queue"]},
          {"no launch call": 1, "none: started before its call returned": 1, "under 1 us": 3})
    # Kernel starts 1000 .. 7000, quarters of 6001 ns: 1000 and 2000 in the first (waits 400, 100: median
    # 250), 2950 in the second (did not wait: 0), 5000 in the third, 7000 (no call) in the fourth.
    check("planted kernexec_trend", [(r["quarter"], r["kernels"], r["launched"], r["queued"], r["wait_med_ns"])
                                     for r in doc["kernexec_trend"]],
          [(1, 2, 2, 2, 250), (2, 1, 1, 0, 0), (3, 1, 1, 1, 800), (4, 1, 0, 0, None)])
    check("planted kernexec --match", [r["name"] for r in analyze("kernexec", db, "--match", "^solo$")["kernexec"]],
          ["solo"])
    check("planted kernexec --top 1", [r["name"] for r in analyze("kernexec", db, "--top", "1")["kernexec"]], ["k"])
    text = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "kernexec", db], capture_output=True, text=True).stdout
    ok("planted kernexec text: the note counts the kernel without a call",
       "1 of 5 kernels have no launch call" in text and "1 started before their launch call returned" in text, text[:400])
    # --group folds both names into one family: 5 kernels, 4 launched.
    fam = analyze("kernexec", db, "--group", "all=.")["kernexec"]
    check("planted kernexec --group", [(r["name"], r["calls"], r["launched"], r["qcount"]) for r in fam],
          [("all", 5, 4, 3)])


def main():
    tmp = tempfile.mkdtemp(prefix="nsys_stats.")
    try:
        planted(tmp)
        if not os.path.isdir(TRACES):
            print("nsys_stats: skipped the exports: ../shared/traces not found")
        else:
            files = sorted(f for f in os.listdir(TRACES) if f.endswith(".sqlite"))
            ok("exports to check", files, TRACES)
            for f in files:
                check_export(os.path.join(TRACES, f), tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("nsys_stats")


if __name__ == "__main__":
    sys.exit(main())
