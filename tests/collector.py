#!/usr/bin/env python3
"""The collector without a GPU: hand-built CUPTI buffers through the real conversion path, ingested and
compared field by field; libgpuprof.so loaded the way the driver loads it; its exported symbols.
Skipped, with the reason printed, when the collector was not built (no CUPTI)."""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

import checks
from checks import BIN, check

BUILD = os.path.dirname(BIN)
LIB = os.path.join(BUILD, "lib", "libgpuprof.so")


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return [list(r) for r in con.execute(sql).fetchall()]
    finally:
        con.close()


def activity(tmp):
    out = os.path.join(tmp, "act.ndjson")
    exp = json.loads(subprocess.run([os.path.join(BUILD, "tests", "collector", "test_activity"), out],
                                    capture_output=True, text=True, check=True).stdout)
    db = os.path.join(tmp, "act.db")
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", out, "-o", db], capture_output=True, text=True)
    check("activity session ingests, the lost record reported", (r.returncode, r.stderr),
          (0, f"gpuprof-ingest: warning: {out}: the collector lost 1 unfinished records (cupti)\n"))
    check("every record walked by cuptiActivityGetNextRecord", exp["records_walked"], 16)
    k = exp["kernel"]
    cols = [c for c in k if c not in ("name", "mangled")]
    got = rows(db, "SELECT " + ", ".join(cols) + " FROM kernels")
    check("one kernel (the unfinished one dropped)", len(got), 1)
    if got:
        for c, v in zip(cols, got[0]):
            check(f"kernel {c}", v, k[c])
    check("kernel names (demangled, mangled kept)",
          rows(db, "SELECT name, mangled FROM kernel_events"), [[k["name"], k["mangled"]]])
    check("memcpys incl. peer-to-peer", rows(db, """SELECT start_ns, end_ns, kind, src_kind, dst_kind, bytes,
          src_device, dst_device, async, stream_id FROM memcpys ORDER BY start_ns"""), exp["memcpys"])
    check("memset", rows(db, "SELECT start_ns, end_ns, bytes, value, mem_kind, stream_id, correlation_id FROM memsets"),
          [exp["memset"]])
    check("sync", rows(db, "SELECT start_ns, end_ns, kind, stream_id, correlation_id FROM syncs"), [exp["sync"]])
    check("alloc and free", rows(db, """SELECT m.ts_ns, m.op, m.mem_kind, m.address, m.bytes, m.pc, s.value, m.stream_id
          FROM memory_events m LEFT JOIN strings s ON s.session_id = m.session_id AND s.id = m.site_id
          ORDER BY m.ts_ns"""), exp["memory"])
    launch = re.sub(r"_v[0-9]+$", "", exp["launch_name"])
    check("launch call", rows(db, """SELECT a.start_ns, a.end_ns, a.thread_id, a.correlation_id, a.cbid, a.domain
          FROM api_calls a"""), [exp["api"]])
    check("launch call name without the API version", rows(db, """SELECT s.value FROM api_calls a JOIN strings s
          ON s.session_id = a.session_id AND s.id = a.name_id"""), [[launch]])
    check("kernel joins its launch by correlation", rows(db, """SELECT count(*) FROM kernels k JOIN api_calls a
          ON a.session_id = k.session_id AND a.pid = k.pid AND a.correlation_id = k.correlation_id"""), [[1]])
    check("NVTX ranges paired, nested, unfinished kept", rows(db, """SELECT n.value, r.start_ns, r.end_ns,
          r.thread_id, r.kind, r.depth, d.value FROM ranges r
          JOIN strings n ON n.session_id = r.session_id AND n.id = r.name_id
          LEFT JOIN strings d ON d.session_id = r.session_id AND d.id = r.domain_id ORDER BY n.value"""),
          exp["ranges"])
    check("instant marker", rows(db, """SELECT s.value, m.ts_ns, m.thread_id FROM markers m JOIN strings s
          ON s.session_id = m.session_id AND s.id = m.name_id"""), [exp["marker"]])
    check("device", rows(db, """SELECT id, name, uuid, cc_major, cc_minor, sms, memory_bytes, core_clock_khz,
          mem_bandwidth_kbs, max_threads_per_sm, max_regs_per_sm, max_smem_per_sm FROM devices"""), [exp["device"]])
    check("unfinished records counted as dropped", rows(db, "SELECT source, what, count FROM drops"),
          [["cupti", "unfinished records", exp["dropped_unfinished"]]])
    check("clean end", rows(db, "SELECT clean_end FROM sessions"), [[1]])


def inject(tmp):
    out = os.path.join(tmp, "inj", "inject-test")
    env = dict(os.environ, GPUPROF_OUTPUT=os.path.join(tmp, "inj"), GPUPROF_SESSION="inject-test")
    env.pop("GPUPROF_LAUNCHER", None)
    prog = os.path.join(BUILD, "tests", "collector", "test_inject")
    r = subprocess.run([prog, LIB], env=env, capture_output=True, text=True, timeout=60)
    check("InitializeInjection without a GPU: returns 1 twice, exit 0, prints nothing",
          (r.returncode, r.stdout, r.stderr), (0, "", ""))
    files = sorted(os.listdir(out)) if os.path.isdir(out) else []
    check("one file for the process", len(files), 1)
    db = os.path.join(tmp, "inj.db")
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", out, "-o", db], capture_output=True, text=True)
    check("the session ingests", (r.returncode, r.stderr), (0, ""))
    check("clean end", rows(db, "SELECT clean_end, engine FROM sessions"), [[1, "trace"]])
    reasons = [r[0] + ": " + r[1] for r in rows(db, "SELECT what, reason FROM collector_errors")]
    check("why tracing is off is recorded",
          any(x.startswith("cupti: cuptiActivityEnable(CONCURRENT_KERNEL)") for x in reasons), True)
    check("no NVML here is recorded", any(x.startswith("nvml: ") for x in reasons), True)
    check("host metrics sampled by the library itself", rows(db, "SELECT count(*) > 0 FROM host_metrics"), [[1]])

    env["GPUPROF_DISABLED"] = "1"
    env["GPUPROF_OUTPUT"] = os.path.join(tmp, "off")
    r = subprocess.run([prog, LIB], env=env, capture_output=True, text=True, timeout=60)
    check("GPUPROF_DISABLED=1: inert", (r.returncode, os.path.exists(os.path.join(tmp, "off"))), (0, False))


def symbols():
    out = subprocess.run(["nm", "-D", "--defined-only", LIB], capture_output=True, text=True, check=True).stdout
    exported = sorted(l.split()[-1] for l in out.splitlines() if l.split() and l.split()[-2] in ("T", "D", "B", "W"))
    check("only InitializeInjection is exported", exported, ["InitializeInjection"])


def main():
    if not os.path.exists(LIB):
        print("collector: skipped: libgpuprof.so was not built (no CUPTI at /usr/local/cuda)")
        print("collector: 0 passed, 0 failed")
        return 0
    with tempfile.TemporaryDirectory(prefix="gpuprof-collector-") as tmp:
        activity(tmp)
        inject(tmp)
        symbols()
    return checks.summary("collector")


if __name__ == "__main__":
    sys.exit(main())
