#!/usr/bin/env python3
"""memcpy, sync, ranges, idle, streams, gaps, metrics, overhead and GPU span and busy time (summary, devices,
idle, streams, the report), checked against values computed here in Python from the raw rows of session.db
(never with gpuprof's own statistics), on gpuprof-synth sessions, the demo recording and on real Kineto and
nsys traces from ../shared/traces (skipped, with the reason printed, when absent)."""
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

import checks
from checks import BIN, check, close, range_name


def analyze(name, db, *extra):
    out = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), name, db, "--format", "json"] + list(extra),
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def stats_match(tag, row, durs):
    check(f"{tag} count", row.get("count", row.get("calls")), len(durs))
    check(f"{tag} total", row["total_ns"], sum(durs))
    check(f"{tag} min/max", (row["min_ns"], row["max_ns"]), (min(durs), max(durs)))
    check(f"{tag} median", row["med_ns"], statistics.median(durs))
    close(f"{tag} stddev", row["stddev_ns"], statistics.stdev(durs) if len(durs) > 1 else 0.0)


def union(iv):
    total, ce, cs = 0, None, None
    for s, e in sorted(iv):
        if e <= s:
            continue
        if ce is not None and s <= ce:
            ce = max(ce, e)
            continue
        if ce is not None:
            total += ce - cs
        cs, ce = s, e
    return total + (ce - cs if ce is not None else 0)


def check_memcpy(tag, con, db):
    names = dict(con.execute("SELECT id, name FROM copy_kinds"))
    durs, nbytes = defaultdict(list), defaultdict(int)
    for k, s, e, b in con.execute("SELECT kind, start_ns, end_ns, bytes FROM memcpys"):
        durs[names.get(k, f"kind {k}")].append(e - s)
        nbytes[names.get(k, f"kind {k}")] += b
    for s, e, b in con.execute("SELECT start_ns, end_ns, bytes FROM memsets"):
        durs["memset"].append(e - s)
        nbytes["memset"] += b
    rows = {r["kind"]: r for r in analyze("memcpy", db)}
    check(f"{tag} memcpy kinds", sorted(rows), sorted(durs))
    for kind, d in durs.items():
        if kind in rows:
            stats_match(f"{tag} memcpy {kind}", rows[kind], d)
            check(f"{tag} memcpy {kind} bytes", rows[kind]["bytes"], nbytes[kind])
            close(f"{tag} memcpy {kind} GB/s", rows[kind]["gbps"] or 0.0, nbytes[kind] / sum(d) if sum(d) else 0.0)
    if "HtoD" in durs:
        check(f"{tag} memcpy --match", [r["kind"] for r in analyze("memcpy", db, "--match", "^HtoD$")], ["HtoD"])


def check_sync(tag, con, db):
    names = dict(con.execute("SELECT id, name FROM sync_kinds"))
    durs = defaultdict(list)
    for k, st, s, e in con.execute("SELECT kind, stream_id, start_ns, end_ns FROM syncs"):
        durs[(names[k], st)].append(e - s)
    rows = {(r["kind"], r["stream"]): r for r in analyze("sync", db)}
    check(f"{tag} sync groups", sorted(rows, key=str), sorted(durs, key=str))
    for key, d in durs.items():
        if key in rows:
            stats_match(f"{tag} sync {key}", rows[key], d)


def check_idle(tag, con, db):
    per = defaultdict(lambda: {"all": [], "compute": [], "copy": []})
    streams = defaultdict(list)
    for table, cls in (("kernels", "compute"), ("memcpys", "copy"), ("memsets", "copy")):
        for d, st, s, e in con.execute(f"SELECT device_id, stream_id, start_ns, end_ns FROM {table}"):
            per[d]["all"].append((s, e))
            per[d][cls].append((s, e))
            streams[(d, st)].append((s, e))
    rows = {r["device"]: r for r in analyze("idle", db)}
    check(f"{tag} idle devices", sorted(rows), sorted(per))
    for d, iv in per.items():
        if d not in rows:
            continue
        span = max(e for _, e in iv["all"]) - min(s for s, _ in iv["all"])
        busy, comp, copy = union(iv["all"]), union(iv["compute"]), union(iv["copy"])
        r = rows[d]
        check(f"{tag} idle device {d} span/busy/idle", (r["span_ns"], r["busy_ns"], r["idle_ns"]),
              (span, busy, span - busy))
        check(f"{tag} idle device {d} kernel/copy/overlap", (r.get("kernel_busy_ns"), r.get("copy_busy_ns"), r["overlap_ns"]),
              (comp, copy, comp + copy - busy))
        close(f"{tag} idle device {d} idle_pct", r["idle_pct"], 100.0 * (span - busy) / span if span else 0)
    srows = {(r["device"], r["stream"]): r for r in analyze("streams", db)}
    check(f"{tag} streams", sorted(srows), sorted(streams))
    for key, iv in streams.items():
        if key in srows:
            check(f"{tag} stream {key} busy", srows[key]["busy_ns"], union(iv))
    # The longest gap per device equals the largest hole between merged intervals (empty ones are no
    # activity, as in idle's busy time).
    gaps = analyze("gaps", db, "--top", "1000")
    for d, iv in per.items():
        merged, holes = [], []
        for s, e in sorted(iv["all"]):
            if e <= s:
                continue
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        holes = sorted((b[0] - a[1] for a, b in zip(merged, merged[1:])), reverse=True)
        got = sorted((g["gap_ns"] for g in gaps if g["device"] == d), reverse=True)
        check(f"{tag} gaps of device {d}", got[:20], holes[:20])


def check_span(tag, con, db):
    """One definition of GPU span and busy time in summary, devices, idle, streams and the report: per device
    span = first start to last end of its kernels, copies and memsets, busy = the union of those intervals,
    idle = span - busy; summary sums them over devices. Kernel-only figures under kernel_ keys."""
    iv, kern = defaultdict(list), defaultdict(list)
    for table in ("kernels", "memcpys", "memsets"):
        for d, s, e in con.execute(f"SELECT device_id, start_ns, end_ns FROM {table}"):
            iv[d].append((s, e))
            if table == "kernels":
                kern[d].append((s, e))
    declared = {d for (d,) in con.execute("SELECT DISTINCT id FROM devices")}
    want = {}
    for d in set(iv) | declared:
        a, k = iv.get(d, []), kern.get(d, [])
        span = max(e for _, e in a) - min(s for s, _ in a) if a else 0
        busy = union(a)
        want[d] = {"span_ns": span, "busy_ns": busy, "idle_ns": span - busy, "kernels": len(k),
                   "kernel_ns": sum(e - s for s, e in k), "kernel_busy_ns": union(k)}
    keys = ("span_ns", "busy_ns", "idle_ns", "kernels", "kernel_ns", "kernel_busy_ns")
    devices = {r["device"]: r for r in analyze("devices", db)}
    check(f"{tag} span: devices rows", sorted(devices), sorted(want))
    for d, w in want.items():
        if d in devices:
            check(f"{tag} span: devices {d}", {k: devices[d].get(k) for k in keys if k != "idle_ns"},
                  {k: v for k, v in w.items() if k != "idle_ns"})
            close(f"{tag} span: devices {d} busy_pct", devices[d]["busy_pct"] or 0,
                  100.0 * w["busy_ns"] / w["span_ns"] if w["span_ns"] else 0)
    idle = {r["device"]: r for r in analyze("idle", db)}
    check(f"{tag} span: idle rows are the active devices", sorted(idle), sorted(iv))
    for d in idle:
        check(f"{tag} span: idle {d}", {k: idle[d].get(k) for k in keys[:3] + ("kernel_busy_ns",)},
              {k: want[d][k] for k in keys[:3] + ("kernel_busy_ns",)})
    total = {k: sum(w[k] for w in want.values()) for k in keys}
    s = analyze("summary", db)[0]
    check(f"{tag} span: summary sums the devices",
          tuple(s.get(k) for k in ("gpu_span_ns", "busy_ns", "idle_ns", "kernels", "kernel_ns", "kernel_busy_ns")),
          (total["span_ns"], total["busy_ns"], total["idle_ns"], total["kernels"], total["kernel_ns"],
           total["kernel_busy_ns"]))
    close(f"{tag} span: summary busy_pct", s["busy_pct"] or 0,
          100.0 * total["busy_ns"] / total["span_ns"] if total["span_ns"] else 0)
    for r in analyze("streams", db):
        sp = want[r["device"]]["span_ns"]
        close(f"{tag} span: stream {r['device']}/{r['stream']} busy_pct", r["busy_pct"] or 0,
              100.0 * r["busy_ns"] / sp if sp else 0)
    # The report shows the same figures as the analyses run one by one.
    out = subprocess.run([os.path.join(BIN, "gpuprof-report"), db, "--format", "json"], capture_output=True,
                         text=True, check=True).stdout
    rep = json.loads(out)["tables"]
    check(f"{tag} span: report summary", {k: rep["summary"][0].get(k) for k in ("gpu_span_ns", "busy_ns", "idle_ns")},
          {"gpu_span_ns": total["span_ns"], "busy_ns": total["busy_ns"], "idle_ns": total["idle_ns"]})
    check(f"{tag} span: report devices and idle",
          ([(r["device"], r["span_ns"], r["busy_ns"]) for r in rep["devices"] if r["device"] in iv],
           [(r["device"], r["span_ns"], r["busy_ns"]) for r in rep.get("idle", [])]),
          ([(d, want[d]["span_ns"], want[d]["busy_ns"]) for d in sorted(iv)],) * 2)


def check_ranges(tag, con, db):
    """Rows by (path, style), paths by nesting per thread; GPU time of kernels whose launch call fell inside
    the range on its thread (gpu_ns) or on any thread of its process (window_gpu_ns); for GPU annotations,
    of the kernels that started inside it on its stream, or on any stream."""
    rows = con.execute("""SELECT r.pid, r.thread_id, r.start_ns, r.end_ns, r.kind, s.value FROM ranges r
                          JOIN strings s ON s.session_id = r.session_id AND s.id = r.name_id
                          ORDER BY r.pid, r.kind = 3, r.thread_id, r.start_ns""").fetchall()
    calls = {}
    for p, c, t, s in con.execute("SELECT pid, correlation_id, thread_id, start_ns FROM api_calls ORDER BY rowid"):
        calls.setdefault((p, c), (t, s))  # the first call with the id launched the kernel
    launches, on_stream = defaultdict(list), defaultdict(list)
    for p, c, st, ks, dur in con.execute("""SELECT pid, correlation_id, stream_id, start_ns, end_ns - start_ns
                                            FROM kernels"""):
        on_stream[(p, st)].append((ks, dur))
        on_stream[(p, None)].append((ks, dur))
        if (p, c) in calls:
            t, s = calls[(p, c)]
            launches[(p, t)].append((s, dur))
            launches[(p, None)].append((s, dur))
    # Sort so that an enclosing range comes before what it contains.
    rows = sorted(rows, key=lambda r: (r[0], r[4] == 3, r[1], r[2], -(r[3] if r[3] is not None else 2**63)))
    groups = defaultdict(lambda: {"durs": [], "count": 0, "gpu": 0, "kernels": 0, "window": 0, "window_kernels": 0})
    styles = {1: "PushPop", 2: "StartEnd", 3: "GPU"}
    stack, key = [], None
    for pid, thread, s, e, kind, name in rows:
        end = e if e is not None else 2**63 - 1
        if key != (pid, thread, kind == 3):
            key, stack = (pid, thread, kind == 3), []
        while stack and (stack[-1][1] <= s or stack[-1][1] < end):
            stack.pop()
        path = (stack[-1][2] + "/" if stack and kind != 2 else "") + range_name(name)
        if kind != 2:
            stack.append((s, end, path))
        g = groups[(path, styles.get(kind, ""))]
        g["count"] += 1
        if e is not None:
            g["durs"].append(e - s)
        work = on_stream if kind == 3 else launches
        for wkey, tot, n in (((pid, thread), "gpu", "kernels"), ((pid, None), "window", "window_kernels")):
            for ts, dur in work.get(wkey, []):
                if s <= ts < end:
                    g[tot] += dur
                    g[n] += 1
    got = {(r["path"], r["style"]): r for r in analyze("ranges", db)}
    check(f"{tag} range paths", sorted(got), sorted(groups))
    for path, g in groups.items():
        r = got.get(path)
        if not r:
            continue
        path = f"{path[0][:50]} {path[1]}"
        check(f"{tag} range {path} count", r["count"], g["count"])
        if g["durs"]:
            check(f"{tag} range {path} total/min/max", (r["total_ns"], r["min_ns"], r["max_ns"]),
                  (sum(g["durs"]), min(g["durs"]), max(g["durs"])))
            check(f"{tag} range {path} median", r["med_ns"], statistics.median(g["durs"]))
        check(f"{tag} range {path} gpu_ns/kernels/window", (r["gpu_ns"], r["kernels"], r.get("window_gpu_ns"),
              r.get("window_kernels")), (g["gpu"], g["kernels"], g["window"], g["window_kernels"]))


def check_group(tag, con, db):
    """--group folds names before the statistics: the family's count, total and median are those of
    all its members' kernels together (computed here with Python's re)."""
    import re
    pat = re.compile(r"gemm|cutlass|Kernel2")
    durs, other = [], 0
    for name, dur in con.execute("SELECT name, dur_ns FROM kernel_events"):
        if pat.search(name):
            durs.append(dur)
        else:
            other += 1
    if not durs:
        print(f"analyses: {tag}: no gemm kernel, --group family not checked")
        return
    rows = {r["name"]: r for r in analyze("hotspots", db, "--group", "GEMM=gemm|cutlass|Kernel2")}
    stats_match(f"{tag} --group family", rows["GEMM"], durs)
    check(f"{tag} --group leaves the rest", sum(r["calls"] for n, r in rows.items() if n != "GEMM"), other)


def check_metrics(tag, con, db):
    """metrics and host: plain aggregates of the sampled rows, recomputed here."""
    want = {}
    for d, n, gu, gmax, mu, mused, mtot, p, pmax, t, clk, e0, e1 in con.execute(
            """SELECT device_id, count(*), avg(gpu_util), max(gpu_util), avg(mem_util), max(mem_used),
               max(mem_total), avg(power_mw), max(power_mw), max(temp_c), avg(sm_clock_mhz), min(energy_mj),
               max(energy_mj) FROM device_metrics GROUP BY device_id"""):
        want[d] = (n, gmax, mused, mtot, t, None if e0 is None else e1 - e0)
        want[d] += (gu, mu, None if p is None else p / 1000.0, clk)
    got = {r["device"]: (r["samples"], r["gpu_util_max"], r["mem_used_max"], r["mem_total"], r["temp_max_c"],
                         r["energy_mj"], r["gpu_util_avg"], r["mem_util_avg"], r["power_avg_w"], r["sm_clock_avg_mhz"])
           for r in analyze("metrics", db)}
    check(f"{tag} metrics devices", sorted(got), sorted(want))
    for d in want:
        if d in got:
            check(f"{tag} metrics device {d} exact", got[d][:6], want[d][:6])
            for a, b in zip(got[d][6:], want[d][6:]):
                close(f"{tag} metrics device {d} averages", a if a is not None else 0.0, b if b is not None else 0.0)
    h = con.execute("SELECT count(*), max(rss_bytes), max(sys_mem_total) FROM host_metrics").fetchone()
    rows = analyze("host", db)
    if h[0]:
        check(f"{tag} host", (rows[0]["samples"], rows[0]["rss_max"], rows[0]["sys_mem_total"]), h)
    else:
        check(f"{tag} no host samples, no row", rows, [])


def check_overhead(tag, con, db):
    """overhead: per kind the records, the untimed ones (NULL times), their time and its share of the span."""
    names = dict(con.execute("SELECT id, name FROM overhead_kinds"))
    span = con.execute("SELECT end_ns - start_ns FROM sessions").fetchone()[0]
    durs = defaultdict(list)
    for k, s, e in con.execute("SELECT kind, start_ns, end_ns FROM overheads"):
        durs[names.get(k, f"kind {k}")].append(None if s is None else e - s)
    got = analyze("overhead", db)
    rows = {r["kind"]: r for r in got}
    check(f"{tag} overhead kinds", sorted(rows), sorted(durs))
    for kind, d in durs.items():
        timed = [x for x in d if x is not None]
        r = rows.get(kind)
        if not r:
            continue
        check(f"{tag} overhead {kind} count, untimed, total, max", (r["count"], r["untimed"], r["total_ns"], r["max_ns"]),
              (len(d), len(d) - len(timed), sum(timed), max(timed) if timed else None))
        if timed:
            close(f"{tag} overhead {kind} avg", r["avg_ns"], sum(timed) / len(timed))
        close(f"{tag} overhead {kind} share of the wall span", r["wall_pct"], 100.0 * sum(timed) / span)
    check(f"{tag} overhead by total time", [r["total_ns"] for r in got],
          sorted((r["total_ns"] for r in got), reverse=True))


def one(tmp, tag, make):
    db = os.path.join(tmp, tag + ".db")
    make(db)
    con = sqlite3.connect(db)
    try:
        check_memcpy(tag, con, db)
        check_sync(tag, con, db)
        check_idle(tag, con, db)
        check_span(tag, con, db)
        check_ranges(tag, con, db)
        check_group(tag, con, db)
        check_metrics(tag, con, db)
        check_overhead(tag, con, db)
    finally:
        con.close()


def synth(seed, kernels):
    def make(db):
        d = db + ".session"
        subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", str(kernels), "--seed", str(seed), "-o", d,
                        "--no-expected"], check=True, capture_output=True)
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", d, "-o", db], check=True)
    return make


def trace(path):
    def make(db):
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", path, "-o", db], check=True)
    return make


def main():
    with tempfile.TemporaryDirectory(prefix="gpuprof-analyses-") as tmp:
        one(tmp, "synth-5", synth(5, 6000))
        one(tmp, "synth-6", synth(6, 400))
        one(tmp, "demo", trace(os.path.join(checks.ROOT, "tests", "data", "demo-session")))
        real = [os.path.join(checks.TRACES, "kineto", f) for f in
                ("a100_alexnet.json.gz", "event_sync_multistream.json.gz", "v100_ns_resolution.json.gz")]
        real += [os.path.join(checks.TRACES, "nsys", f) for f in ("h100_2gpu_1s.sqlite", "a100_saxpy_nsys2022.sqlite")]
        if os.path.isdir(checks.TRACES):
            for p in real:
                one(tmp, os.path.basename(p).split(".")[0], trace(p))
            # GPU span and busy time on every other trace too (kineto and nsys; ingest exits 3 on bad rows).
            for sub, ext in (("kineto", ".json.gz"), ("nsys", ".sqlite")):
                for f in sorted(os.listdir(os.path.join(checks.TRACES, sub))):
                    p = os.path.join(checks.TRACES, sub, f)
                    if f.endswith(ext) and p not in real:
                        db = os.path.join(tmp, f + ".db")
                        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", p, "-o", db], capture_output=True)
                        con = sqlite3.connect(db)
                        try:
                            check_span(f.split(".")[0], con, db)
                        finally:
                            con.close()
        else:
            print("analyses: real traces skipped: ../shared/traces not found")
    return checks.summary("analyses")


if __name__ == "__main__":
    sys.exit(main())
