#!/usr/bin/env python3
"""make gpu-check, phase 2: ingest the session tests/gpu/run.sh recorded on a GPU machine and check what
the workload is known to have done, exactly. Usage: check.py DIR (the folder run.sh wrote)."""
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import checks  # noqa: E402
from checks import BIN, check  # noqa: E402

MiB = 1 << 20


def main():
    if len(sys.argv) != 2:
        print("usage: check.py DIR")
        return 2
    base = sys.argv[1]
    sessions = os.path.join(base, "sessions")
    dirs = [os.path.join(sessions, d) for d in os.listdir(sessions)] if os.path.isdir(sessions) else []
    check("one session recorded", len(dirs), 1)
    if not dirs:
        return checks.summary("gpu-check")
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", dirs[0], "-o", db], capture_output=True,
                           text=True)
        check("ingest", (r.returncode, r.stderr), (0, ""))
        con = sqlite3.connect(db)
        q = lambda sql: con.execute(sql).fetchall()
        check("clean end", q("SELECT clean_end FROM sessions"), [(1,)])
        check("kernels by name, with launch configuration", q("""SELECT name, count(*), grid_x, block_x
              FROM kernel_events GROUP BY name, grid_x, block_x ORDER BY name"""),
              [("kernel_a(float*, int)", 1000, 512, 128), ("kernel_b(float*, int, int)", 10, 64, 256)])
        check("every kernel has its launch call", q("""SELECT count(*) FROM kernels k JOIN api_calls a
              ON a.session_id = k.session_id AND a.pid = k.pid AND a.correlation_id = k.correlation_id"""),
              [(1010,)])
        check("copies by kind", q("SELECT kind, count(*), sum(bytes) FROM memcpys GROUP BY kind ORDER BY kind"),
              [(1, 7, 7 * MiB), (2, 2, 8 * MiB)])
        check("memset", q("SELECT count(*), sum(bytes) FROM memsets"), [(1, 256 << 10)])
        check("event syncs", q("SELECT count(*) FROM syncs WHERE kind = 1"), [(5,)])
        check("stream syncs", q("SELECT count(*) >= 1 FROM syncs WHERE kind = 3"), [(1,)])
        check("the unfreed device allocation", q("""SELECT a.bytes FROM memory_events a WHERE a.op = 1
              AND a.mem_kind = 3 AND NOT EXISTS (SELECT 1 FROM memory_events f WHERE f.op = 2
              AND f.address = a.address AND f.ts_ns >= a.ts_ns)"""), [(3 * MiB,)])
        check("NVTX ranges and nesting", q("""SELECT name, depth, count(*) FROM range_events
              GROUP BY name, depth ORDER BY depth, name"""),
              [("iteration", 0, 5), ("compute", 1, 5), ("copy_in", 1, 5)])
        check("no dropped records", q("SELECT coalesce(sum(count), 0) FROM drops"), [(0,)])
        check("device described", q("SELECT count(*) > 0 FROM devices WHERE name LIKE 'NVIDIA%'"), [(1,)])
        con.close()
    over = os.path.join(base, "overhead.txt")
    if os.path.exists(over):
        t = {}
        for line in open(over):
            mode, w, ns = line.split()
            t[(mode, w)] = int(ns)
        for mode, target in (("small", 3.0), ("ms", 1.0)):
            if (mode, "on") in t and (mode, "off") in t:
                pct = 100.0 * (t[(mode, "on")] - t[(mode, "off")]) / t[(mode, "off")]
                print(f"overhead {mode}: {t[(mode, 'off')] / 1e6:.1f} ms without, {t[(mode, 'on')] / 1e6:.1f} ms with"
                      f" the collector: {pct:+.2f} % (target <= {target} %)")
    return checks.summary("gpu-check")


if __name__ == "__main__":
    sys.exit(main())
