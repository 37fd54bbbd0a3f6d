#!/usr/bin/env python3
"""trace_export: gpuprof-report --format trace, a session as a Chrome trace in Kineto's layout.

Round trip: every trace in ../shared/traces (Kineto and Nsight Systems), the demo session, a with_flops trace
(tests/data/kineto-flops) and host samples with the system's I/O counters are ingested,
exported, and the export ingested again: every record the layout carries comes back the same to the
nanosecond (compared here as multisets of rows read with sqlite3). The export of the demo session passes
tests/tef_check.py (the Trace Event Format, every flow paired), which is itself shown to catch faults.
Then the options: --match/--exclude/--from/--to against the same selection made here in SQL, -o -,
plain and gzip output, and usage errors.

Prints one line per failure and ends with "trace_export: N passed, M failed"; exit 1 if any failed.
"""
import glob
import gzip
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter

import checks
from checks import BIN, ok, check

HERE = os.path.dirname(os.path.abspath(__file__))
TEF = os.path.join(HERE, "tef_check.py")

# What the layout carries, per table: the columns compared, as SQL over the table (alias t). Unknown
# context, stream and correlation ids read back as 0, unknown memory kinds as 0 ('Unknown'), calls of no
# domain as runtime calls: the comparison says so by coalescing the same way on both sides.
STR = "(SELECT value FROM strings s WHERE s.session_id = t.session_id AND s.id = t.{})"
CARRIED = {
    "kernels": "start_ns, end_ns, device_id, coalesce(context_id, 0), coalesce(stream_id, 0), "
               "coalesce(correlation_id, 0), " + STR.format("name_id") + ", grid_x, grid_y, grid_z, block_x, "
               "block_y, block_z, registers, shared_mem",
    "memcpys": "start_ns, end_ns, device_id, coalesce(context_id, 0), coalesce(stream_id, 0), "
               "coalesce(correlation_id, 0), kind, coalesce(src_kind, 0), coalesce(dst_kind, 0), bytes, "
               "src_device, dst_device",
    "memsets": "start_ns, end_ns, device_id, coalesce(context_id, 0), coalesce(stream_id, 0), "
               "coalesce(correlation_id, 0), bytes, coalesce(mem_kind, 0)",
    "syncs": "start_ns, end_ns, device_id, coalesce(context_id, 0), "
             "CASE WHEN stream_id NOT IN (-1, 4294967295) THEN stream_id END, coalesce(correlation_id, 0), kind, "
             "coalesce(event_id, 0)",
    "api_calls": "start_ns, end_ns, coalesce(thread_id, 0), coalesce(correlation_id, 0), "
                 "coalesce(" + STR.format("name_id") + ", ''), coalesce(cbid, 0), CASE domain WHEN 2 THEN 2 ELSE 1 END",
    "ranges": "start_ns, end_ns, coalesce(thread_id, 0), " + STR.format("name_id") + ", "
              "CASE kind WHEN 3 THEN 3 ELSE 1 END, " + STR.format("domain_id"),
    "markers": "ts_ns, coalesce(thread_id, 0), " + STR.format("name_id") + ", " + STR.format("domain_id"),
    "memory_events": "ts_ns, coalesce(device_id, 0), op, coalesce(mem_kind, 0), address, bytes, "
                     "coalesce(thread_id, 0), total_allocated",
    "device_metrics": "ts_ns, device_id, gpu_util, mem_util, mem_used, mem_total, temp_c, power_mw, "
                      "sm_clock_mhz, energy_mj",
    "host_metrics": "ts_ns, cpu_pct, rss_bytes, sys_mem_used, sys_mem_total, disk_read_bytes, disk_write_bytes, "
                    "net_rx_bytes, net_tx_bytes",
    "flop_ops": "start_ns, end_ns, coalesce(thread_id, 0), " + STR.format("name_id") + ", flops, "
                + STR.format("dtype_id") + ", coalesce(external_id, 0)",
}
TIME = {"memory_events": "ts_ns", "markers": "ts_ns", "device_metrics": "ts_ns", "host_metrics": "ts_ns"}


def run(*args, **kw):
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    return subprocess.run(list(args), capture_output=True, env=env, **kw)


def ingest(src, db):
    """src: a file, or a directory of NDJSON files or of Kineto traces (rank*.json: one per rank)."""
    kineto = sorted(glob.glob(os.path.join(src, "rank*.json"))) if os.path.isdir(src) else []
    job = ["--session", "job"] if kineto else []
    return run(os.path.join(BIN, "gpuprof-ingest"), "-q", "-j1", *(kineto or [src]), *job, "-o", db)


def report(db, *args):
    return run(os.path.join(BIN, "gpuprof-report"), db, "--format", "trace", *args)


def rows(db, table, where="1"):
    """The carried columns of table's rows (of the newest session) as a Counter of tuples."""
    con = sqlite3.connect(db)
    session = con.execute("SELECT max(id) FROM sessions").fetchone()[0]
    ended = " AND end_ns IS NOT NULL" if table == "ranges" else ""	# only those are complete events
    sql = f"SELECT {CARRIED[table]} FROM {table} t WHERE session_id = ? AND ({where}){ended}"
    got = Counter(con.execute(sql, (session,)).fetchall())
    con.close()
    return got


def devices(db):
    con = sqlite3.connect(db)
    got = con.execute("SELECT id, coalesce(name, ''), cc_major, cc_minor, sms, memory_bytes, max_threads_per_sm, max_regs_per_sm, "
                      "max_smem_per_sm FROM devices GROUP BY id HAVING pid = min(pid) ORDER BY id").fetchall()
    con.close()
    return got


def scalar(db, sql):
    con = sqlite3.connect(db)
    v = con.execute(sql).fetchone()[0]
    con.close()
    return v


def round_trip(name, src, tmp):
    a, b = os.path.join(tmp, name + ".a.db"), os.path.join(tmp, name + ".b.db")
    out = os.path.join(tmp, name + ".json.gz")
    r = ingest(src, a)
    if r.returncode not in (0, 3):
        ok(f"{name}: ingest the source", False, r.stderr.decode()[-300:])
        return
    r = report(a, "-o", out)
    ok(f"{name}: export exits 0", r.returncode == 0, r.stderr.decode()[-300:])
    total = sum(sum(rows(a, t).values()) for t in CARRIED)
    r = ingest(out, b)
    check(f"{name}: the export ingests", r.returncode, 0 if total else 3)
    if not total:
        return
    for t in CARRIED:
        want, got = rows(a, t), rows(b, t)
        if want != got:
            lost, extra = want - got, got - want
            ok(f"{name}: {t} read back the same", False,
               f"{sum(want.values())} rows, {sum(lost.values())} differ, e.g. {list(lost)[:1]} came back as {list(extra)[:1]}")
        else:
            ok(f"{name}: {t} read back the same ({sum(want.values())} rows)", True)
    check(f"{name}: devices read back the same", devices(b), devices(a))
    unended = scalar(a, "SELECT count(*) FROM ranges WHERE end_ns IS NULL")
    check(f"{name}: unended ranges are the 'B' events the reader counts as skipped", unended,
          scalar(b, "SELECT coalesce(sum(events), 0) FROM ingest_skipped WHERE ph = 'B'"))
    # Every other event the reader did not take is a flow or metadata, never GPU work.
    check(f"{name}: nothing that looks like GPU work skipped on the way back",
          scalar(b, "SELECT coalesce(sum(gpu_events), 0) FROM ingest_skipped"), 0)
    con = sqlite3.connect(b)
    skipped = {(c, p) for c, p in con.execute("SELECT category, ph FROM ingest_skipped WHERE ph <> 'B'")}
    con.close()
    ok(f"{name}: the reader skipped only flows and metadata", skipped <= {("ac2g", "s"), ("ac2g", "f"), ("", "M")},
       str(skipped))


def events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def check_options(db, tmp):
    """The filters against the same selection made here in SQL, over the demo session."""
    con = sqlite3.connect(db)
    start, end = con.execute("SELECT start_ns, end_ns FROM sessions").fetchone()
    con.close()
    names = lambda d: Counter(e["name"] for e in d["traceEvents"] if e["ph"] == "X" and e.get("cat") == "kernel")
    full = events(os.path.join(tmp, "demo.json.gz"))
    all_kernels = names(full)
    gemm = re.compile("gemm")
    r = report(db, "--match", "gemm", "-o", os.path.join(tmp, "m.json"))
    d = events(os.path.join(tmp, "m.json"))
    check("--match keeps the kernels whose name matches", names(d),
          Counter({k: v for k, v in all_kernels.items() if gemm.search(k)}))
    ok("--match: every event's name matches (metadata, memory and counters aside)",
       all(gemm.search(e["name"]) for e in d["traceEvents"]
           if e["ph"] in ("X", "B") and e["cat"] not in ("cpu_instant_event",)), "")
    # Flows only between kept events: with the launch calls matched too, each gemm kernel keeps its arrow
    # (tef_check finds both ends on slices of their rows), and no flow goes to a kernel left out.
    r = report(db, "--match", "gemm|LaunchKernel", "-o", os.path.join(tmp, "mf.json"))
    mf = events(os.path.join(tmp, "mf.json"))
    flows = sum(1 for e in mf["traceEvents"] if e["ph"] == "f")
    ok("--match 'gemm|LaunchKernel': flows, at most one a gemm kernel", 0 < flows <= sum(names(mf).values()),
       f"{flows} flows, {sum(names(mf).values())} kernels")
    r = run(sys.executable, TEF, os.path.join(tmp, "mf.json"))
    check("--match: every flow between two events written (tef_check)",
          (r.returncode, r.stdout.decode().splitlines()[:-1]), (0, []))
    check("--match gemm: no flow without its launch call", [e for e in d["traceEvents"] if e["ph"] in ("s", "f")], [])
    r = report(db, "--exclude", "gemm|elementwise", "-o", os.path.join(tmp, "x.json"))
    d = events(os.path.join(tmp, "x.json"))
    check("--exclude leaves out the kernels whose name matches", names(d),
          Counter({k: v for k, v in all_kernels.items() if not re.search("gemm|elementwise", k)}))
    # A window in the middle of the kernels: events that overlap it, whole.
    con = sqlite3.connect(db)
    k0, k1 = con.execute("SELECT min(start_ns), max(end_ns) FROM kernels").fetchone()
    con.close()
    lo, hi = k0 - start + (k1 - k0) // 3, k0 - start + 2 * (k1 - k0) // 3
    r = report(db, "--from", f"{lo / 1e9:.9f}s", "--to", f"{hi}ns", "-o", os.path.join(tmp, "w.json"))
    check("--from/--to exit 0", r.returncode, 0)
    d = events(os.path.join(tmp, "w.json"))
    base = d["baseTimeNanoseconds"]
    got = Counter((round(float(e["ts"]) * 1000) + base, round(float(e["dur"]) * 1000)) for e in d["traceEvents"]
                  if e["ph"] == "X" and e.get("cat") == "kernel")
    con = sqlite3.connect(db)
    want = Counter(con.execute("SELECT start_ns, end_ns - start_ns FROM kernels WHERE end_ns >= ? AND start_ns <= ?",
                               (start + lo, start + hi)).fetchall())
    con.close()
    check("--from/--to keep the kernels that overlap the window, whole", got, want)
    ok("the window holds some but not all kernels", 0 < sum(want.values()) < sum(all_kernels.values()),
       f"{sum(want.values())} of {sum(all_kernels.values())}")
    ok("base time: the first event's whole second", base % 1000000000 == 0 and
       min(float(e["ts"]) for e in d["traceEvents"] if e["ph"] != "M") < 1e6, str(base))
    r = report(db, "--from", "-1s", "-o", os.path.join(tmp, "tail.json"))
    d = events(os.path.join(tmp, "tail.json"))
    con = sqlite3.connect(db)
    want = con.execute("SELECT count(*) FROM kernels WHERE end_ns >= ?", (end - 1000000000,)).fetchone()[0]
    con.close()
    check("--from -1s: the session's last second", sum(names(d).values()), want)
    # Standard output, plain; the same bytes as a plain file.
    r = report(db, "-o", "-")
    plain = os.path.join(tmp, "plain.json")
    report(db, "-o", plain)
    with open(plain, "rb") as f:
        check("-o - writes the trace to standard output", r.stdout, f.read())
    with gzip.open(os.path.join(tmp, "demo.json.gz"), "rb") as f:
        check("a .gz path is gzip of the same trace", f.read(), r.stdout)
    r = report(db)
    check("no -o: standard output", len(r.stdout), len(open(plain, "rb").read()))
    # Usage errors: exit 2, one line.
    for args, msg in [(["--from", "abc"], "--from needs a time"), (["--to", "1x"], "--to needs a time"),
                      (["--match", "("], "bad regular expression")]:
        r = report(db, *args)
        check(f"usage: {' '.join(args)}", (r.returncode, msg in r.stderr.decode()), (2, True))
    r = run(os.path.join(BIN, "gpuprof-report"), db, "--from", "1s")
    check("--from without --format trace is refused", (r.returncode, "go with --format trace" in r.stderr.decode()),
          (2, True))
    r = report(db, "--from", "2s", "--to", "1s")
    check("an empty window is refused", (r.returncode, "window is empty" in r.stderr.decode()), (2, True))
    r = report(db, "--match", "no such kernel anywhere", "-o", os.path.join(tmp, "none.json"))
    d = events(os.path.join(tmp, "none.json"))
    check("nothing matching: no named event, memory and counters kept (they have no name of their own)",
          (r.returncode, sorted({(e["ph"], e.get("cat")) for e in d["traceEvents"]})),
          (0, [("C", "device_metrics"), ("C", "host_metrics"), ("M", None), ("i", "cpu_instant_event")]))
    r = report(db, "--from", "100000s", "-o", os.path.join(tmp, "none.json"))
    check("an empty window: a warning, a valid trace of no events",
          (r.returncode, "no events" in r.stderr.decode(),
           [e for e in events(os.path.join(tmp, "none.json"))["traceEvents"] if e["ph"] != "M"]), (0, True, []))
    r = report(db, "-o", "/nonexistent/dir/t.json")
    check("an unwritable path: exit 4", (r.returncode, "cannot write" in r.stderr.decode()), (4, True))


def check_tef(tmp):
    """tef_check passes the demo's export and catches what it is meant to catch."""
    path = os.path.join(tmp, "demo.json.gz")
    r = run(sys.executable, TEF, path)
    check("the demo's export is well-formed Trace Event Format", (r.returncode, r.stdout.decode().splitlines()[:-1]),
          (0, []))
    counts = json.loads(r.stdout.decode().splitlines()[-1])
    ok("the demo's export has flows, slices, memory and counters",
       counts.get("flows", 0) > 1000 and counts.get("X", 0) > 10000 and counts.get("i", 0) and counts.get("C", 0),
       str(counts))
    doc = events(path)
    evs = doc["traceEvents"]
    faults = {
        "an unpaired flow": lambda: evs.remove(next(e for e in evs if e["ph"] == "f")),
        "a complete event without dur": lambda: next(e for e in evs if e["ph"] == "X").pop("dur"),
        "a flow off its slice": lambda: next(e for e in evs if e["ph"] == "f").update(ts=-1.0),
    }
    for what, fault in faults.items():
        bad = json.loads(json.dumps(doc))
        evs = bad["traceEvents"]
        fault()
        p = os.path.join(tmp, "bad.json")
        with open(p, "w") as f:
            json.dump(bad, f)
        r = run(sys.executable, TEF, p)
        check(f"tef_check catches {what}", r.returncode, 1)
    with open(os.path.join(tmp, "bad.json"), "w") as f:
        f.write('{"traceEvents": [{"ph": "X", "name": "k", "pid": 0, "tid": 0, "ts": 1.5, "dur": 2.000}]}')
    r = run(sys.executable, TEF, os.path.join(tmp, "bad.json"))
    check("tef_check catches times without nanosecond decimals", r.returncode, 1)


def check_ranks(tmp):
    """A job of 4 ranks on 2 hosts: a GPU process per (rank, device), never shared, labelled by rank."""
    d = os.path.join(tmp, "ranks4")
    r = run(os.path.join(BIN, "gpuprof-synth"), "--ranks", "4", "--gpus-per-host", "2", "--seed", "3", "-o", d)
    check("synth ranks4", r.returncode, 0)
    round_trip("ranks4", d, tmp)
    doc = events(os.path.join(tmp, "ranks4.json.gz"))
    labels = {e["pid"]: e["args"]["labels"] for e in doc["traceEvents"]
              if e["ph"] == "M" and e["name"] == "process_labels" and e["args"]["labels"] != "CPU"}
    check("ranks4: a GPU process per rank, labelled by rank", sorted(labels.values()),
          ["GPU 0 (rank 0)", "GPU 0 (rank 2)", "GPU 1 (rank 1)", "GPU 1 (rank 3)"])
    gpu_events = Counter(e["pid"] for e in doc["traceEvents"] if e.get("cat") == "kernel")
    con = sqlite3.connect(os.path.join(tmp, "ranks4.a.db"))
    want = Counter(dict(con.execute("SELECT p.rank, count(*) FROM kernels k JOIN processes p USING (session_id, pid) "
                                    "GROUP BY p.rank")))
    con.close()
    check("ranks4: each rank's kernels on its own GPU process", sorted(gpu_events.values()), sorted(want.values()))
    hosts = [e["pid"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "process_labels" and
             e["args"]["labels"] == "CPU"]
    ok("ranks4: host processes apart from the GPUs and within 32 bits",
       len(hosts) == 4 and not set(hosts) & set(labels) and all(0 <= p < 2**32 for p in hosts + list(labels)),
       str(hosts))
    check("ranks4: no distributedInfo for several ranks", "distributedInfo" in doc, False)
    # One trace per rank (--rank R), as HTA reads a job: ingested together they are the job again, each
    # rank's records under its own pid (distributedInfo gives the rank back).
    files = []
    for rank in range(4):
        files.append(os.path.join(tmp, f"ranks4-{rank}.json"))
        r = report(os.path.join(tmp, "ranks4.a.db"), "--rank", str(rank), "-o", files[-1])
        check(f"ranks4: --rank {rank} exits 0", r.returncode, 0)
        d = events(files[-1])
        check(f"ranks4: --rank {rank}: distributedInfo", d.get("distributedInfo"), {"rank": rank, "world_size": 4})
        check(f"ranks4: --rank {rank}: its GPU is pid = device, as in its own Kineto trace",
              sorted({e["pid"] for e in d["traceEvents"] if e.get("cat") == "kernel"}), [rank % 2])
    job = os.path.join(tmp, "ranks4.c.db")
    run(os.path.join(BIN, "gpuprof-ingest"), "-q", "-j1", *files, "--session", "job", "-o", job)
    for t in ("kernels", "api_calls", "ranges"):
        want = Counter(sqlite3.connect(os.path.join(tmp, "ranks4.a.db")).execute(
            f"SELECT pid, {CARRIED[t]} FROM {t} t").fetchall())
        got = Counter(sqlite3.connect(job).execute(f"SELECT pid, {CARRIED[t]} FROM {t} t").fetchall())
        check(f"ranks4: the per-rank traces give back each rank's {t} ({sum(want.values())})", got, want)
    r = report(os.path.join(tmp, "ranks4.a.db"), "--rank", "4")
    check("ranks4: --rank of no rank: exit 2, the ranks said", (r.returncode, r.stderr.decode()),
          (2, "gpuprof-report: error: --rank 4: the session has ranks 0 to 3\n"))
    r = run(sys.executable, TEF, os.path.join(tmp, "ranks4.json.gz"))
    check("ranks4: well-formed Trace Event Format", (r.returncode, r.stdout.decode().splitlines()[:-1]), (0, []))


def check_shell(tmp):
    """The export's rows are analyze/trace.sql's views, which sqlite3 users read the same: with the extension
    loaded and :session set, each view has as many rows as the export has events of its kind."""
    if not shutil.which("sqlite3"):
        print("trace_export: sqlite3 is absent: the views through the sqlite3 shell are skipped")
        return
    db, out = os.path.join(tmp, "demo.a.db"), os.path.join(tmp, "demo.json.gz")
    ext = os.path.join(checks.ROOT, os.environ.get("GPUPROF_BUILD", "build"), "lib", "gpuprof_sqlite")
    views = ("trace_kernels", "trace_memcpys", "trace_memsets", "trace_syncs", "trace_api_calls", "trace_ranges",
             "trace_memory_events", "trace_device_metrics", "trace_kernel_flows", "trace_memcpy_flows",
             "trace_memset_flows")
    r = subprocess.run(["sqlite3", "-readonly", db, "-cmd", ".load " + ext, "-cmd", ".parameter set :session 1",
                        "-cmd", ".read " + os.path.join(checks.ROOT, "analyze", "views.sql"),
                        "-cmd", ".read " + os.path.join(checks.ROOT, "analyze", "trace.sql"),
                        "SELECT " + ", ".join(f"(SELECT count(*) FROM temp.{v})" for v in views)],
                       capture_output=True, text=True)
    got = dict(zip(views, map(int, r.stdout.strip().split("|")))) if r.returncode == 0 else {}
    check("sqlite3 shell: analyze/trace.sql runs", (r.returncode, r.stderr), (0, ""))
    n = Counter(e.get("cat") for e in events(out)["traceEvents"])
    check("sqlite3 shell: each view's rows are the export's events of its kind",
          got and [got["trace_kernels"], got["trace_memcpys"], got["trace_memsets"], got["trace_syncs"],
                   got["trace_api_calls"], got["trace_ranges"], got["trace_memory_events"],
                   got["trace_device_metrics"],
                   2 * (got["trace_kernel_flows"] + got["trace_memcpy_flows"] + got["trace_memset_flows"])],
          [n["kernel"], n["gpu_memcpy"], n["gpu_memset"], n["cuda_sync"], n["cuda_runtime"] + n["cuda_driver"],
           n["user_annotation"] + n["gpu_user_annotation"] - scalar(db, "SELECT count(*) FROM markers"),
           n["cpu_instant_event"] - scalar(db, "SELECT count(*) FROM alloc_failures"), n["device_metrics"],
           n["ac2g"]])


def main():
    tmp = tempfile.mkdtemp(prefix="gpuprof-trace-")
    try:
        demo = os.path.join(checks.ROOT, "tests", "data", "demo-session")
        round_trip("demo", demo, tmp)
        check_tef(tmp)
        check_shell(tmp)
        check_options(os.path.join(tmp, "demo.a.db"), tmp)
        check_ranks(tmp)
        # Ops with FLOP counts (a with_flops trace), and host samples with the system's I/O counters.
        round_trip("kineto-flops", os.path.join(checks.ROOT, "tests", "data", "kineto-flops", "pytorch-2-flops.json"),
                   tmp)
        io = os.path.join(tmp, "host-io.ndjson")
        with open(io, "w") as f:
            for line in ({"type": "header", "v": 3, "session": "trace-host-io", "pid": 5, "hostname": "h",
                          "origin_ns": "1700000000000000000"},
                         {"type": "host_metric", "v": 3, "seq": 0, "n": 3, "ts": [0, 100000000, 200000000],
                          "cpu_pct": [None, 12.5, 50], "rss_bytes": [1, 2, 3], "sys_mem_used": [10, 11, 12],
                          "sys_mem_total": [100, 100, 100], "disk_read_bytes": [512, 1024, None],
                          "disk_write_bytes": [0, 4096, None], "net_rx_bytes": [7, 8, 9], "net_tx_bytes": [1, 2, 3]},
                         {"type": "kernel", "v": 3, "seq": 0, "n": 1, "start": [0], "end": [10], "device": [0],
                          "context": [1], "stream": [7], "correlation": [0], "name": [1], "mangled": [0],
                          "grid_x": [1], "grid_y": [1], "grid_z": [1], "block_x": [1], "block_y": [1], "block_z": [1],
                          "cluster_x": [0], "cluster_y": [0], "cluster_z": [0], "registers": [8], "static_smem": [0],
                          "dynamic_smem": [0], "local_mem": [0], "graph_id": [0], "graph_node": [0]}):
                if line["type"] == "kernel":
                    f.write(json.dumps({"type": "strings", "v": 3, "ids": [1], "values": ["k"]}) + "\n")
                f.write(json.dumps(line) + "\n")
        round_trip("host-io", io, tmp)
        traces = sorted(glob.glob(os.path.join(checks.TRACES, "kineto", "*.json*")) +
                        glob.glob(os.path.join(checks.TRACES, "nsys", "*.sqlite")))
        if not traces:
            print(f"trace_export: {checks.TRACES} is absent: the round trips of shared traces are skipped")
        for path in traces:
            round_trip(os.path.basename(path).split(".")[0], path, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("trace_export")


if __name__ == "__main__":
    sys.exit(main())
