#!/usr/bin/env python3
"""memory, leaks, peak and growth against values computed here: gpuprof-synth's planted leaks, small
wire-format sessions written by this script (growth freed only at exit, balanced steps, frees of memory
allocated before the capture), small Kineto traces written by this script whose `[memory]` events have no
`Addr` (nothing can be paired: the peak from the source's running total or the sum of `Bytes`, leaks
unknown), and the real traces kineto/v100_memory_events.json.gz and a100_pcie_memory_events.json.gz
(skipped, with the reason printed, when ../shared/traces is absent). Also the --fail-on-leak gate."""
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
        kib = exp["leak_bytes"] // 1024
        r = run("gpuprof-analyze", "leaks", db, f"--fail-on-leak={kib + 1}KiB")
        check(f"synth {seed}: --fail-on-leak takes a size with a unit ({kib + 1}KiB passes)", r.returncode, 0)
        over = 1 if exp["leak_bytes"] > kib * 1024 else 0
        r = run("gpuprof-analyze", "leaks", db, f"--fail-on-leak={kib}kib", expect=over)
        check(f"synth {seed}: ... and {kib}kib fails when the leaked bytes are more", r.returncode, over)


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


T0 = 1700000000000000  # Kineto times are microseconds


def kineto_trace(path, devices, steps=((0.5, 2.5), (2.5, 5.5))):
    """A tiny Kineto trace: for each device, a list of [memory] events (ts_us, bytes, addr or None,
    total_allocated or None); ProfilerStep#N ranges (start, end in us) for the growth analysis."""
    ev = []
    for dev, events in devices.items():
        for ts, b, addr, total in events:
            args = {"Device Type": 1, "Device Id": dev, "Bytes": b, "Total Reserved": 8 * MiB}
            if addr is not None:
                args["Addr"] = addr
            if total is not None:
                args["Total Allocated"] = total
            ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": 7,
                       "ts": T0 + ts, "args": args})
    for i, (a, b) in enumerate(steps):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 1}", "pid": 7, "tid": 7,
                   "ts": T0 + a, "dur": b - a, "args": {}})
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f)


def running(events):
    """Peak (value, ts) and final value of the running sum of signed Bytes and of Total Allocated."""
    s, sums, totals = 0, [], []
    for ts, b, _, total in events:
        s += b
        sums.append((s, ts))
        totals.append((total, ts))
    pk = lambda xs: max(xs, key=lambda x: (x[0], -x[1]))  # the first time the highest value is reached
    return pk(sums), sums[-1][0], pk(totals) if all(t is not None for t, _ in totals) else None


def no_addresses(tmp):
    """[memory] events without Addr (some PyTorch versions): frees must not be paired with the newest
    allocation. Paired that way, the free of the 300-byte block below would take the 100-byte one, the
    peak would read 550 instead of 400 and the 300-byte block would be a leak."""
    no_addr = [(1, 300, None, 300), (2, 100, None, 400), (3, -300, None, 100), (4, 250, None, 350),
               (5, -100, None, 250)]
    # Device 1 has addresses: it pairs exactly, beside device 0 that does not.
    with_addr = [(1, 4096, 0x7000, 1 * MiB + 4096), (2, 1024, 0x8000, 1 * MiB + 5120),
                 (3, -4096, 0x7000, 1 * MiB + 1024), (4, -512, 0x9000, 1 * MiB + 512)]
    p = os.path.join(tmp, "noaddr.json")
    kineto_trace(p, {0: no_addr, 1: with_addr})
    db = p + ".db"
    run("gpuprof-ingest", "-q", p, "-o", db)
    con = sqlite3.connect(db)
    check("no Addr: stored as NULL, Addr as given",
          con.execute("SELECT device_id, count(*), count(address) FROM memory_events GROUP BY 1 ORDER BY 1").fetchall(),
          [(0, 5, 0), (1, 4, 4)])
    con.close()
    (sum_peak, sum_peak_ts), sum_end, (tot_peak, tot_peak_ts) = running(no_addr)
    mem = {r["device"]: r for r in analyze("memory", db)}
    m = mem[0]
    check("no Addr: peak from Total Allocated",
          (m["peak_bytes"], m["peak_ns"], m.get("peak_from")), (tot_peak, (T0 + tot_peak_ts) * 1000, "total_allocated"))
    check("no Addr: the peak is 400 bytes", m["peak_bytes"], 400)
    check("no Addr: counts", (m["allocs"], m["frees"], m["alloc_bytes"]), (3, 2, 650))
    check("no Addr: live at end is the source's total", m["live_end_bytes"], no_addr[-1][3])
    check("no Addr: frees of earlier blocks unknown", (m["prior_frees"], m["prior_free_bytes"]), (None, None))
    m = mem[1]
    check("Addr: paired (peak from the total, which holds earlier blocks)",
          (m["peak_bytes"], m.get("peak_from"), m["live_end_bytes"], m["prior_frees"], m["prior_free_bytes"]),
          (1 * MiB + 5120, "total_allocated", 1024, 1, 512))
    leaks = analyze("leaks", db)
    check("no Addr: leaks unknown, never guessed; device 1's exact",
          [(r["device"], r.get("status"), r["bytes"], r["count"], r["site"]) for r in leaks],
          [(0, "unknown: the trace has no addresses", None, None, None), (1, "unfreed", 1024, 1, "in ProfilerStep#1")])
    r = run("gpuprof-analyze", "leaks", db, "--fail-on-leak=1000000", expect=1)
    check("no Addr: the leak gate cannot pass on unknowable leaks", r.returncode, 1)
    checks.ok("no Addr: the gate says why", "unknown" in r.stderr and "FAIL" in r.stderr, r.stderr)
    peak = analyze("peak", db)
    check("no Addr: what was live at the peak is unknown",
          [(r["device"], r["bytes"], r["address"], r["site"]) for r in peak if r["device"] == 0],
          [(0, 400, None, "unknown: the trace has no addresses")])
    g = {r["device"]: r for r in analyze("growth", db)}
    # Values at the ends of ProfilerStep#1 (2.5 us) and #2 (5.5 us): the source's total, not paired blocks.
    check("no Addr: growth from Total Allocated",
          (g[0]["source"], g[0]["points"], g[0]["first_bytes"], g[0]["last_bytes"], g[0]["leaked_bytes"]),
          ("total_allocated at iteration ends", 2, 400, 250, None))
    check("Addr: growth from paired blocks",
          (g[1]["source"], g[1]["first_bytes"], g[1]["last_bytes"], g[1]["leaked_bytes"]),
          ("allocations at iteration ends", 5120, 1024, 1024))

    # Without Total Allocated: the running sum of signed Bytes; a device with some addresses only
    # (mixed) pairs nothing either.
    bare = [(ts, b, None, None) for ts, b, _, _ in no_addr]
    mixed = [(1, 2048, 0xa000, None), (2, 512, None, None), (3, -2048, 0xa000, None)]
    p = os.path.join(tmp, "noaddr-nototal.json")
    kineto_trace(p, {0: bare, 1: mixed})
    db = p + ".db"
    run("gpuprof-ingest", "-q", p, "-o", db)
    mem = {r["device"]: r for r in analyze("memory", db)}
    (sum_peak, sum_peak_ts), sum_end, _ = running(bare)
    check("no Total Allocated: peak from the running sum of Bytes",
          (mem[0]["peak_bytes"], mem[0]["peak_ns"], mem[0].get("peak_from"), mem[0]["live_end_bytes"]),
          (sum_peak, (T0 + sum_peak_ts) * 1000, "bytes", sum_end))
    check("no Total Allocated: the peak is 400 bytes", mem[0]["peak_bytes"], 400)
    (sum_peak, sum_peak_ts), sum_end, _ = running(mixed)
    check("mixed: peak from the running sum of Bytes",
          (mem[1]["peak_bytes"], mem[1].get("peak_from"), mem[1]["live_end_bytes"]), (sum_peak, "bytes", sum_end))
    check("no Total Allocated, mixed: leaks unknown",
          [(r["device"], r.get("status"), r["bytes"]) for r in analyze("leaks", db)],
          [(0, "unknown: the trace has no addresses", None), (1, "unknown: 1 of 3 events have no address", None)])
    g = {r["device"]: r for r in analyze("growth", db)}
    check("no Total Allocated: growth from the running sum",
          (g[0]["source"], g[0]["first_bytes"], g[0]["last_bytes"]), ("bytes at iteration ends", 400, 250))


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


def real_trace(tmp, name):
    path = os.path.join(checks.TRACES, "kineto", name + ".json.gz")
    db = os.path.join(tmp, name + ".db")
    run("gpuprof-ingest", "-q", path, "-o", db)
    doc = json.load(gzip.open(path))
    events = [e for e in doc["traceEvents"]
              if e.get("name") == "[memory]" and e.get("args", {}).get("Device Type") == 1]
    events.sort(key=lambda e: e["ts"])  # stable: file order among equal times, as the database keeps it
    live, prior, prior_bytes, allocs, frees, cur, paired_peak = {}, 0, 0, 0, 0, 0, 0
    peak_total = max(e["args"]["Total Allocated"] for e in events)
    for e in events:
        a, b = e["args"]["Addr"], e["args"]["Bytes"]
        if b >= 0:
            allocs += 1
            live.setdefault(a, []).append(b)
            cur += b
            paired_peak = max(paired_peak, cur)
        else:
            frees += 1
            if live.get(a):
                cur -= live[a].pop()
            else:
                prior += 1
                prior_bytes += -b
    m = analyze("memory", db)
    check(f"{name}: one device", len(m), 1)
    m = m[0]
    check(f"{name}: allocations and frees", (m["allocs"], m["frees"]), (allocs, frees))
    check(f"{name}: frees of earlier blocks", (m["prior_frees"], m["prior_free_bytes"]), (prior, prior_bytes))
    want = (peak_total, "total_allocated") if peak_total >= paired_peak else (paired_peak, "addresses")
    check(f"{name}: peak", (m["peak_bytes"], m.get("peak_from")), want)
    unfreed = sum(sum(v) for v in live.values())
    leaks = analyze("leaks", db)
    check(f"{name}: unfreed bytes", sum(r["bytes"] for r in leaks), unfreed)
    check(f"{name}: every leak row known", {r.get("status") for r in leaks} - {"unfreed"}, set())
    check(f"{name}: live at end", m["live_end_bytes"], unfreed)
    return doc


def stripped(tmp, name, doc):
    """The same trace without Addr, then without Total Allocated too: nothing pairs; the peak is the
    source's total, then the running sum of Bytes, and leaks are unknown."""
    events = [e for e in doc["traceEvents"] if e.get("name") == "[memory]" and e.get("args", {}).get("Device Type") == 1]
    ordered = sorted(events, key=lambda e: e["ts"])
    total = max(ordered, key=lambda e: e["args"]["Total Allocated"])  # max: the first of equal values
    s, best = 0, None
    for e in ordered:
        s += e["args"]["Bytes"]
        if best is None or s > best[0]:
            best = (s, e)
    for what, keys, want in (("no Addr", ("Addr",), (total["args"]["Total Allocated"], total, "total_allocated")),
                             ("no Addr, no Total Allocated", ("Addr", "Total Allocated"), (best[0], best[1], "bytes"))):
        for e in events:
            for k in keys:
                e["args"].pop(k, None)
        p = os.path.join(tmp, f"{name}-{len(keys)}.json.gz")
        with gzip.open(p, "wt") as f:
            json.dump(doc, f)
        db = p + ".db"
        run("gpuprof-ingest", "-q", p, "-o", db)
        m = analyze("memory", db)[0]
        con = sqlite3.connect(db)
        at = con.execute("SELECT min(ts_ns) FROM memory_events WHERE bytes = ? AND op = ? AND ts_ns >= ?",
                         (abs(want[1]["args"]["Bytes"]), 1 if want[1]["args"]["Bytes"] >= 0 else 2,
                          m["peak_ns"])).fetchone()[0]
        con.close()
        check(f"{name} {what}: peak and where it comes from", (m["peak_bytes"], m.get("peak_from")), (want[0], want[2]))
        check(f"{name} {what}: the peak's time is its event's", at, m["peak_ns"])
        check(f"{name} {what}: leaks unknown",
              [(r.get("status"), r["bytes"]) for r in analyze("leaks", db)], [("unknown: the trace has no addresses", None)])


def real(tmp):
    if not os.path.isdir(checks.TRACES):
        print("memory: real traces skipped: ../shared/traces not found")
        return
    # Without Addr, pairing each free with the newest allocation would give a100_pcie a peak 12.7 % too
    # high (14.83 GB against 13.16) and 14.69 GB of leaks that are not; v100 a peak of 3.74 GB against the
    # 2.53 GB its Bytes add up to.
    for name in ("a100_pcie", "v100"):
        stripped(tmp, name, real_trace(tmp, name + "_memory_events"))


def main():
    with tempfile.TemporaryDirectory(prefix="gpuprof-memory-") as tmp:
        planted(tmp)
        crafted(tmp)
        no_addresses(tmp)
        metrics_only(tmp)
        real(tmp)
    return checks.summary("memory")


if __name__ == "__main__":
    sys.exit(main())
