#!/usr/bin/env python3
"""Ground truth: gpuprof-synth plants a workload and writes the exact answers it planted
(expected.json); the whole pipeline (ingest, session.db, analyze) must reproduce them.
Also checks that the C statistics of gpuprof-analyze equal the pure-SQL `hotspots` view."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

import checks
from checks import BIN, ROOT, check, close






def run(*args):
    return subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), check=True, capture_output=True,
                          text=True).stdout


def analyze(name, db, *extra):
    return json.loads(run("gpuprof-analyze", name, db, "--format", "json", *extra))


def con_rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def one_seed(tmp, seed, kernels, leaks):
    d = os.path.join(tmp, f"s{seed}")
    run("gpuprof-synth", "--kernels", str(kernels), "--seed", str(seed), "--leaks", str(leaks), "-o", d)
    exp = json.load(open(os.path.join(d, "expected.json")))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "synth", "check_synth.py"), d],
                       capture_output=True, text=True)
    check(f"seed {seed}: check_synth.py recomputes expected.json from the NDJSON alone", r.stdout, "ok\n")
    db = os.path.join(tmp, f"s{seed}.db")
    run("gpuprof-ingest", "-q", d, "-o", db)
    tag = f"seed {seed}"

    # Hotspots: every planted kernel name with its exact statistics.
    hot = {r["name"]: r for r in analyze("hotspots", db)}
    check(f"{tag} kernel names", sorted(hot), sorted(r["name"] for r in exp["kernels"]["by_name"]))
    for r in exp["kernels"]["by_name"]:
        h = hot.get(r["name"])
        if not h:
            continue
        for k in ("calls", "total_ns", "min_ns", "max_ns"):
            check(f"{tag} {r['name'][:40]} {k}", h[k], r[k])
        check(f"{tag} {r['name'][:40]} med_ns", h["med_ns"], r["med_ns"])
        close(f"{tag} {r['name'][:40]} stddev_ns", h["stddev_ns"], r["stddev_ns"])
    close(f"{tag} time_pct sums to 100", sum(h["time_pct"] for h in hot.values()), 100.0, 1e-9)
    order = [h["total_ns"] for h in analyze("hotspots", db)]
    check(f"{tag} hotspots sorted by total", order, sorted(order, reverse=True))

    # The pure-SQL view agrees with the C statistics.
    con = sqlite3.connect(db)
    view = {r[0]: r[1:] for r in con.execute(
        "SELECT name, calls, total_ns, avg_ns, med_ns, min_ns, max_ns, stddev_ns, time_pct FROM hotspots")}
    for name, h in hot.items():
        v = view.get(name)
        check(f"{tag} view has {name[:40]}", v is not None, True)
        if v:
            check(f"{tag} view calls/total/min/max {name[:30]}", (v[0], v[1], v[4], v[5]),
                  (h["calls"], h["total_ns"], h["min_ns"], h["max_ns"]))
            close(f"{tag} view med {name[:30]}", v[3], h["med_ns"])
            close(f"{tag} view avg {name[:30]}", v[2], h["avg_ns"])
            close(f"{tag} view stddev {name[:30]}", v[6], h["stddev_ns"], 1e-6)
            close(f"{tag} view time_pct {name[:30]}", v[7], h["time_pct"])

    # Summary: counts, summed kernel time, and kernel busy time as a union per device (not a sum). GPU
    # span and busy time with copies and memsets are checked against the rows in tests/analyses.py.
    s = analyze("summary", db)[0]
    devices = analyze("devices", db)
    check(f"{tag} kernels", s["kernels"], exp["kernels"]["count"])
    check(f"{tag} kernel_ns", s["kernel_ns"], exp["kernels"]["total_ns"])
    check(f"{tag} clean_end", s["clean_end"], 1)
    check(f"{tag} summary kernel busy = sum over devices", s["kernel_busy_ns"],
          sum(exp["kernels"]["busy_ns"].values()))
    busy = {str(r["device"]): r["kernel_busy_ns"] for r in devices}
    check(f"{tag} GPU span per device covers its kernels",
          all(r["span_ns"] >= exp["kernels"]["span_ns"].get(str(r["device"]), 0) for r in devices), True)
    check(f"{tag} kernel busy per device", busy, {k: v for k, v in exp["kernels"]["busy_ns"].items()})
    if exp["kernels"]["count"] > 100:
        check(f"{tag} busy < summed time (streams overlap)", sum(busy.values()) < exp["kernels"]["total_ns"], True)
    check(f"{tag} devices", len(devices), exp["devices"])
    check(f"{tag} process row finished", con_rows(db, "SELECT clean_end, end_ns IS NOT NULL, hostname FROM processes"),
          [(1, 1, "synth-host")])

    # Tables straight from session.db.
    q = lambda sql: con.execute(sql).fetchall()
    by_kind = {str(k): {"count": c, "bytes": b, "total_ns": t} for k, c, b, t in
               q("SELECT kind, count(*), sum(bytes), sum(end_ns - start_ns) FROM memcpys GROUP BY kind")}
    check(f"{tag} memcpy by kind", by_kind, exp["memcpy"]["by_kind"])
    check(f"{tag} memset", dict(zip(("count", "bytes", "total_ns"),
                                    q("SELECT count(*), sum(bytes), sum(end_ns - start_ns) FROM memsets")[0])),
          exp["memset"])
    check(f"{tag} sync by kind", {str(k): {"count": c, "total_ns": t} for k, c, t in
                                  q("SELECT kind, count(*), sum(end_ns - start_ns) FROM syncs GROUP BY kind")},
          exp["sync"]["by_kind"])
    check(f"{tag} api calls", q("SELECT count(*) FROM api_calls")[0][0], exp["api"]["count"])
    check(f"{tag} ranges", {n: {"count": c, "total_ns": t} for n, c, t in
                            q("SELECT name, count(*), sum(dur_ns) FROM range_events GROUP BY name")},
          exp["ranges"]["by_name"])
    check(f"{tag} markers", q("SELECT count(*) FROM markers")[0][0], exp["markers"]["count"])
    check(f"{tag} allocs", q("SELECT count(*) FROM memory_events WHERE op = 1")[0][0], exp["memory"]["allocs"])
    check(f"{tag} frees", q("SELECT count(*) FROM memory_events WHERE op = 2")[0][0], exp["memory"]["frees"])
    leaks = q("""SELECT a.device_id, a.address, a.bytes, s.value FROM memory_events a
                 LEFT JOIN strings s ON s.session_id = a.session_id AND s.id = a.site_id
                 WHERE a.op = 1 AND NOT EXISTS (SELECT 1 FROM memory_events f WHERE f.op = 2
                   AND f.session_id = a.session_id AND f.device_id = a.device_id AND f.address = a.address
                   AND f.ts_ns >= a.ts_ns) ORDER BY a.address""")
    want = sorted((l["device"], l["address"], l["bytes"], l["site"]) for l in exp["memory"]["leaks"])
    check(f"{tag} leaks", sorted(leaks), want)
    check(f"{tag} leak count", len(leaks), len(exp["memory"]["leaks"]))
    stalls = dict(q("""SELECT r.name, sum(p.samples) FROM pc_samples p JOIN stall_reasons r
                       ON r.session_id = p.session_id AND r.pid = p.pid AND r.device_id = p.device_id
                       AND r.id = p.stall_reason_id GROUP BY r.name"""))
    check(f"{tag} stall samples by reason", stalls, exp["stalls"])
    check(f"{tag} device metrics", q("SELECT count(*) FROM device_metrics")[0][0], exp["device_metrics"])
    check(f"{tag} host metrics", q("SELECT count(*) FROM host_metrics")[0][0], exp["host_metrics"])
    # CUPTI's overheads: per kind, the untimed one counted but adding no time; the analysis names the kinds.
    want = exp["overheads"]["by_kind"]
    check(f"{tag} overheads by kind", {str(k): {"count": c, "untimed": u, "total_ns": t} for k, c, u, t in
                                       q("""SELECT kind, count(*), count(*) - count(start_ns),
                                           coalesce(sum(end_ns - start_ns), 0) FROM overheads GROUP BY kind""")},
          want)
    names = dict(q("SELECT id, name FROM overhead_kinds"))
    check(f"{tag} overhead analysis", {r["kind"]: (r["count"], r["untimed"], r["total_ns"])
                                       for r in analyze("overhead", db)},
          {names[int(k)]: (v["count"], v["untimed"], v["total_ns"]) for k, v in want.items()})
    con.close()


def main():
    with tempfile.TemporaryDirectory(prefix="gpuprof-truth-") as tmp:
        one_seed(tmp, 1, 5000, 3)
        one_seed(tmp, 2, 20000, 5)
        one_seed(tmp, 3, 1, 0)
    return checks.summary("truth")


if __name__ == "__main__":
    sys.exit(main())
