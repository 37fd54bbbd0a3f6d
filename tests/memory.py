#!/usr/bin/env python3
"""memory, leaks, peak and growth against values computed here: gpuprof-synth's planted leaks, small
wire-format sessions written by this script (growth freed only at exit, balanced steps, frees of memory
allocated before the capture), and the real trace kineto/v100_memory_events.json.gz (skipped, with the
reason printed, when ../shared/traces is absent). Also the --fail-on-leak gate."""
import gzip
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections import defaultdict

import checks
from checks import BIN, check

MiB = 1 << 20


def run(*args, expect=0):
    r = subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), capture_output=True, text=True)
    checks.ok(f"{' '.join(args)} exits {expect}", r.returncode == expect, f"exit {r.returncode}\n{r.stderr}")
    return r


def analyze(name, db, *extra):
    return json.loads(run("gpuprof-analyze", name, db, "--format", "json", *extra).stdout)


def wire_session(path, steps, alloc, free):
    """A wire-format file: `steps` iterations ('step' ranges); alloc(i) and free(i) give the (address,
    bytes) blocks allocated at the start and freed at the end of step i; free(steps), those freed at exit."""
    lines = [{"type": "header", "v": 1, "session": os.path.basename(path), "pid": 1, "origin_ns": "1700000000000000000"},
             {"type": "strings", "v": 1, "ids": [1], "values": ["step"]}]
    mem = {k: [] for k in ("ts", "op", "address", "bytes")}
    starts, ends = [], []
    for i in range(steps):
        t = 1000000 * i
        starts.append(t)
        ends.append(t + 900000)
        for a, b in alloc(i):
            for k, v in zip(("ts", "op", "address", "bytes"), (t + 10, 1, a, b)):
                mem[k].append(v)
        for a, b in free(i):
            for k, v in zip(("ts", "op", "address", "bytes"), (t + 800000, 2, a, b)):
                mem[k].append(v)
    for a, b in free(steps):  # at exit, after the last step
        for k, v in zip(("ts", "op", "address", "bytes"), (1000000 * steps - 50000, 2, a, b)):
            mem[k].append(v)
    n = len(mem["ts"])
    lines.append({"type": "memory", "v": 1, "seq": 0, "n": n, **mem, "device": [0] * n, "context": [1] * n,
                  "stream": [-1] * n, "correlation": [0] * n, "mem_kind": [3] * n, "pc": [0] * n, "site": [0] * n,
                  "thread": [1] * n, "async": [0] * n})
    lines.append({"type": "range", "v": 1, "seq": 0, "n": steps, "start": starts, "end": ends, "thread": [1] * steps,
                  "name": [1] * steps, "domain": [0] * steps, "kind": [1] * steps, "depth": [0] * steps,
                  "id": list(range(1, steps + 1))})
    lines.append({"type": "end", "v": 1, "ts": 1000000 * steps})
    with open(path, "w") as f:
        for l in lines:
            f.write(json.dumps(l) + "\n")


def planted(tmp):
    for seed, leaks in ((1, 3), (4, 7)):
        d = os.path.join(tmp, f"synth{seed}")
        run("gpuprof-synth", "--kernels", "4000", "--seed", str(seed), "--leaks", str(leaks), "-o", d)
        exp = json.load(open(os.path.join(d, "expected.json")))["memory"]
        db = d + ".db"
        run("gpuprof-ingest", "-q", d, "-o", db)
        want = defaultdict(lambda: [0, 0])
        for l in exp["leaks"]:
            want[l["site"]][0] += 1
            want[l["site"]][1] += l["bytes"]
        got = {r["site"]: [r["count"], r["bytes"]] for r in analyze("leaks", db)}
        check(f"synth {seed}: leaks by site (count, bytes)", got, dict(want))
        mem = analyze("memory", db)
        check(f"synth {seed}: allocations and frees", (sum(r["allocs"] for r in mem), sum(r["frees"] for r in mem)),
              (exp["allocs"], exp["frees"]))
        check(f"synth {seed}: live at end = leaked bytes", sum(r["live_end_bytes"] for r in mem), exp["leak_bytes"])
        # Peak per device: a running sum of the events, computed here.
        con = sqlite3.connect(db)
        live, peak = defaultdict(int), defaultdict(int)
        for dev, op, b in con.execute("SELECT device_id, op, bytes FROM memory_events ORDER BY ts_ns, rowid"):
            live[dev] += b if op == 1 else -b
            peak[dev] = max(peak[dev], live[dev])
        con.close()
        check(f"synth {seed}: peak per device", {r["device"]: r["peak_bytes"] for r in mem}, dict(peak))
        r = run("gpuprof-analyze", "leaks", db, "--fail-on-leak", expect=1)
        check(f"synth {seed}: --fail-on-leak fails", r.returncode, 1)
        r = run("gpuprof-analyze", "leaks", db, "--fail-on-leak", str(exp["leak_bytes"]))
        check(f"synth {seed}: --fail-on-leak at the leaked bytes passes", r.returncode, 0)
        r = run("gpuprof-analyze", "leaks", db, f"--fail-on-leak={exp['leak_bytes'] - 1}", expect=1)
        check(f"synth {seed}: one byte under fails", r.returncode, 1)


def crafted(tmp):
    # 12 steps each keeping 1 MiB, all freed only at exit: no leak at the end, but steady growth.
    p = os.path.join(tmp, "growth.ndjson")
    kept = [(0x10000000 + i * MiB, MiB) for i in range(12)]
    wire_session(p, 12, lambda i: [kept[i]] if i < 12 else [], lambda i: kept if i == 12 else [])
    db = p + ".db"
    run("gpuprof-ingest", "-q", p, "-o", db)
    check("growth freed at exit: no leak", analyze("leaks", db), [])
    g = analyze("growth", db)
    check("growth freed at exit: verdict", (g[0]["verdict"], g[0]["severity"], g[0]["points"]),
          ("growing 1.05 MB per step, R^2 1.00", "low", 12))
    check("growth slope is 1 MiB per step exactly", g[0]["slope_bytes"], MiB)
    check("leaks gate passes (nothing unfreed)",
          run("gpuprof-analyze", "leaks", db, "--fail-on-leak").returncode, 0)

    # Balanced: every step frees what it allocated; no false positive.
    p = os.path.join(tmp, "balanced.ndjson")
    wire_session(p, 20, lambda i: [(0x20000000, 4 * MiB), (0x30000000 + i, 1000)],
                 lambda i: [(0x20000000, 4 * MiB), (0x30000000 + i, 1000)] if i < 20 else [])
    db = p + ".db"
    run("gpuprof-ingest", "-q", p, "-o", db)
    check("balanced: no leak", analyze("leaks", db), [])
    g = analyze("growth", db)
    check("balanced: severity none", (g[0]["severity"], g[0]["verdict"].startswith("no steady growth")), ("none", True))
    check("balanced: peak", analyze("memory", db)[0]["peak_bytes"], 4 * MiB + 1000)

    # Frees of blocks allocated before the capture are counted apart, never as leaks.
    p = os.path.join(tmp, "prior.ndjson")
    wire_session(p, 5, lambda i: [(0x50000000 + i, 64)] if i < 4 else [],
                 lambda i: [] if i == 5 else [(0x40000000 + i, 512)] + ([(0x50000000 + i, 64)] if i < 3 else []))
    db = p + ".db"
    run("gpuprof-ingest", "-q", p, "-o", db)
    m = analyze("memory", db)[0]
    check("prior frees counted apart", (m["prior_frees"], m["prior_free_bytes"]), (5, 5 * 512))
    check("prior frees are no leak; the one unfreed block is",
          [(r["count"], r["bytes"]) for r in analyze("leaks", db)], [(1, 64)])


def metrics_only(tmp):
    """No allocation events: the growth verdict comes from the devices' used-memory samples."""
    p = os.path.join(tmp, "metrics.ndjson")
    n = 50
    ts = [100000000 * i for i in range(n)]  # every 100 ms
    used = [8 * 2**30 + 10 * MiB * i for i in range(n)]  # 10 MiB per sample = 100 MiB/s
    lines = [{"type": "header", "v": 1, "session": "metrics", "pid": 1, "origin_ns": "1700000000000000000"},
             {"type": "device_metric", "v": 1, "seq": 0, "n": n, "ts": ts, "device": [0] * n, "gpu_util": [50] * n,
              "mem_util": [10] * n, "mem_used": used, "mem_total": [80 * 2**30] * n, "temp_c": [60] * n,
              "power_mw": [300000] * n, "sm_clock_mhz": [1980] * n, "energy_mj": [None] * n},
             {"type": "end", "v": 1, "ts": ts[-1] + 1}]
    with open(p, "w") as f:
        for l in lines:
            f.write(json.dumps(l) + "\n")
    db = p + ".db"
    run("gpuprof-ingest", "-q", p, "-o", db)
    g = analyze("growth", db)
    check("metrics only: source and points", (len(g), g[0]["source"], g[0]["points"]), (1, "device memory samples", n))
    check("metrics only: 100 MiB per second", round(g[0]["slope_bytes"]), 100 * MiB)
    check("metrics only: verdict", (g[0]["verdict"], g[0]["severity"]), ("growing 104.86 MB per s, R^2 1.00", "medium"))


def real(tmp):
    path = os.path.join(checks.TRACES, "kineto", "v100_memory_events.json.gz")
    if not os.path.exists(path):
        print("memory: real trace skipped: ../shared/traces not found")
        return
    db = os.path.join(tmp, "v100.db")
    run("gpuprof-ingest", "-q", path, "-o", db)
    events = [e for e in json.load(gzip.open(path))["traceEvents"]
              if e.get("name") == "[memory]" and e.get("args", {}).get("Device Type") == 1]
    events.sort(key=lambda e: e["ts"])  # stable: file order among equal times, as the database keeps it
    live, prior, prior_bytes, allocs, frees = {}, 0, 0, 0, 0
    peak_total = max(e["args"]["Total Allocated"] for e in events)
    for e in events:
        a, b = e["args"]["Addr"], e["args"]["Bytes"]
        if b >= 0:
            allocs += 1
            live.setdefault(a, []).append(b)
        else:
            frees += 1
            if live.get(a):
                live[a].pop()
            else:
                prior += 1
                prior_bytes += -b
    m = analyze("memory", db)
    check("v100: one device", len(m), 1)
    m = m[0]
    check("v100: allocations and frees", (m["allocs"], m["frees"]), (allocs, frees))
    check("v100: frees of earlier blocks", (m["prior_frees"], m["prior_free_bytes"]), (prior, prior_bytes))
    check("v100: peak from the allocator's total", (m["peak_bytes"], m["peak_source"]), (peak_total, "allocator total"))
    unfreed = sum(sum(v) for v in live.values())
    check("v100: unfreed bytes", sum(r["bytes"] for r in analyze("leaks", db)), unfreed)
    check("v100: live at end", m["live_end_bytes"], unfreed)


def main():
    with tempfile.TemporaryDirectory(prefix="gpuprof-memory-") as tmp:
        planted(tmp)
        crafted(tmp)
        metrics_only(tmp)
        real(tmp)
    return checks.summary("memory")


if __name__ == "__main__":
    sys.exit(main())
