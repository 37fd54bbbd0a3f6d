#!/usr/bin/env python3
"""The real recording in tests/data/demo-session: tests/gpu/train.py (a PyTorch transformer, 60 steps)
under `gpuprof-collect --engine pcsampling --pc-period 17` on an H100 (session 4 of #4). What the
program is known to have done is checked exactly: its NVTX ranges and their nesting, the ranges CUB
adds in its own domain, a launching call for every kernel, the stall shares, the tensors it keeps
alive, and a report in every format. `make demo` shows the same session."""
import gzip
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import BIN, ROOT, check, close, ok  # noqa: E402

DEMO = os.path.join(ROOT, "tests", "data", "demo-session")


def run(*args):
    return subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory(prefix="gpuprof-demo-") as tmp:
        db = os.path.join(tmp, "demo.db")
        r = run("gpuprof-ingest", "-q", DEMO, "-o", db)
        check("the recording ingests, silently", (r.returncode, r.stderr), (0, ""))
        con = sqlite3.connect(db)
        q = lambda sql: con.execute(sql).fetchall()
        check("clean end, engine", q("SELECT clean_end, engine FROM sessions"), [(1, "pcsampling")])
        with gzip.open(os.path.join(DEMO, "2064.ndjson.gz"), "rt") as f:
            header = json.loads(f.readline())
        check("the program's header: the default API selection, PC sampling settings",
              {k: header["options"].get(k) for k in ("api", "pc_mode", "pc_period")},
              {"api": "core", "pc_mode": "continuous", "pc_period": 17})
        check("nothing went wrong in the collector", q("SELECT what, reason FROM collector_errors"), [])
        check("nothing dropped", q("SELECT coalesce(sum(count), 0) FROM drops"), [(0,)])
        check("the device", q("SELECT name, cc_major, sms FROM devices"), [("NVIDIA H100 80GB HBM3", 9, 132)])
        check("the program's NVTX ranges and their nesting", q("""SELECT name, depth, count(*) FROM range_events
              WHERE domain IS NULL GROUP BY name, depth ORDER BY depth, name"""),
              [("eval", 0, 6), ("train_step", 0, 60), ("backward", 1, 60), ("data", 1, 60), ("forward", 1, 60),
               ("optimizer", 1, 60)])
        check("CUB's own ranges, in their domain", q("""SELECT domain, name, count(*) FROM range_events
              WHERE domain IS NOT NULL GROUP BY domain, name ORDER BY name"""),
              [("CCCL", "cub::DeviceRadixSort", 60), ("CCCL", "cub::DeviceScan::ExclusiveScan", 60),
               ("CCCL", "cub::DeviceSelect::UniqueByKey", 60)])
        kernels = q("SELECT count(*) FROM kernels")[0][0]
        check("kernels", kernels, 10440)
        check("every kernel has its launching call", q("""SELECT count(*) FROM kernels k WHERE EXISTS (SELECT 1
              FROM api_calls a WHERE a.session_id = k.session_id AND a.pid = k.pid
              AND a.correlation_id = k.correlation_id)"""), [(kernels,)])
        # PyTorch runs backward on autograd's own thread: train_step/backward launches almost nothing on its
        # own thread (gpu_ns) and its real work shows in the window (any thread of the process, launch call
        # in [start, end)), both summed here from the tables.
        first = {}
        for p, c, t, ts in q("SELECT pid, correlation_id, thread_id, start_ns FROM api_calls ORDER BY rowid"):
            first.setdefault((p, c), (t, ts))
        launched = [(p,) + first[(p, c)] + (d,) for p, c, d in
                    q("SELECT pid, correlation_id, end_ns - start_ns FROM kernels WHERE correlation_id > 0")
                    if (p, c) in first]
        own, window = [0, 0], [0, 0]
        for rp, rt, rs, re in q("""SELECT pid, thread_id, start_ns, end_ns FROM range_events
                                   WHERE domain IS NULL AND name = 'backward' AND depth = 1"""):
            for p, t, ts, d in launched:
                if p == rp and rs <= ts < re:
                    window[0] += d
                    window[1] += 1
                    if t == rt:
                        own[0] += d
                        own[1] += 1
        rows = json.loads(run("gpuprof-analyze", "ranges", db, "-f", "json", "--match", "^train_step/backward$").stdout)
        check("train_step/backward: gpu_ns, kernels, window_gpu_ns, window_kernels",
              [(r["gpu_ns"], r["kernels"], r.get("window_gpu_ns"), r.get("window_kernels")) for r in rows],
              [tuple(own + window)])
        ok("train_step/backward: most of its GPU work was launched by another thread", window[0] > 100 * own[0],
           (own, window))
        check("no call that only reads state (the default selection)", q("""SELECT count(*) FROM api_calls a
              JOIN strings s ON s.session_id = a.session_id AND s.id = a.name_id
              WHERE s.value GLOB '*Get*' OR s.value GLOB '*Peek*' OR s.value GLOB '*Occupancy*'"""), [(0,)])
        check("every sample's function is a traced kernel", q("""SELECT count(*) FROM pc_samples p
              WHERE NOT EXISTS (SELECT 1 FROM kernels k WHERE k.session_id = p.session_id
              AND k.name_id = p.function_id)"""), [(0,)])
        check("every sample's reason is one the device declared", q("""SELECT count(*) FROM pc_samples p
              WHERE NOT EXISTS (SELECT 1 FROM stall_reasons r WHERE r.session_id = p.session_id
              AND r.pid = p.pid AND r.device_id = p.device_id AND r.id = p.stall_reason_id)"""), [(0,)])
        overheads = q("SELECT count(*) FROM overheads")[0][0]
        ok("CUPTI's own overhead recorded", overheads > 0, overheads)
        con.close()

        r = run("gpuprof-analyze", "stalls", db, "-f", "json")
        rows = json.loads(r.stdout) if r.returncode == 0 else []
        close("stall shares sum to 100 %", sum(x["pct"] for x in rows), 100.0, 1e-9)
        # A reason's _not_issued twin counts a subset of its samples: shown apart, never added in.
        check("stall samples are the table's, twins apart", sum(x["samples"] for x in rows),
              sqlite3.connect(db).execute("""SELECT sum(p.samples) FROM pc_samples p JOIN stall_reasons r
              ON r.session_id = p.session_id AND r.pid = p.pid AND r.device_id = p.device_id
              AND r.id = p.stall_reason_id WHERE r.name NOT LIKE '%\\_not\\_issued' ESCAPE '\\'""").fetchone()[0])
        r = run("gpuprof-analyze", "growth", db, "-f", "json")
        growth = json.loads(r.stdout) if r.returncode == 0 else []
        ok("the tensors the loop keeps are found: memory grows every step",
           len(growth) == 1 and growth[0]["slope_bytes"] > 0 and growth[0]["severity"] == "high", growth)
        for fmt in ("text", "md", "json", "html", "xlsx"):
            out = os.path.join(tmp, "report." + fmt)
            r = run("gpuprof-report", db, "-f", fmt, "-o", out)
            ok(f"report as {fmt}", r.returncode == 0 and os.path.getsize(out) > 1000, r.stderr)
        r = run("gpuprof-report", db, "-f", "json")
        tables = json.loads(r.stdout).get("tables", {}) if r.returncode == 0 else {}
        for name in ("stalls", "stall_kernels", "ranges", "leaks", "growth", "overhead"):
            ok(f"report: the {name} section has rows", bool(tables.get(name)), sorted(tables))
    return checks.summary("demo")


if __name__ == "__main__":
    sys.exit(main())
