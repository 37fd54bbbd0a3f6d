#!/usr/bin/env python3
"""Validate a gpuprof-synth session directory against the wire format and its expected.json.

usage: check_synth.py DIR [EXPECTED]

Reads DIR/*.ndjson (exactly one file), checks every line against schemas/wire-format.md (v2),
recomputes the planted answers from the NDJSON alone and compares them with DIR/expected.json
(or EXPECTED) exactly, stddev included (Python's statistics.stdev is correctly rounded, and so is
the generator). Prints "ok" and exits 0, or prints the first mismatch and exits 1.
Standard library only.
"""
import glob
import json
import math
import os
import statistics
import sys

INT, INTN, NUMN, STR, TEXT = "int", "int?", "num?", "str", "text"

SCHEMA = {
    "kernel": [("start", INT), ("end", INT), ("device", INT), ("context", INT), ("stream", INT),
               ("correlation", INT), ("name", STR), ("mangled", STR), ("grid_x", INT), ("grid_y", INT),
               ("grid_z", INT), ("block_x", INT), ("block_y", INT), ("block_z", INT), ("cluster_x", INT),
               ("cluster_y", INT), ("cluster_z", INT), ("registers", INT), ("static_smem", INT),
               ("dynamic_smem", INT), ("local_mem", INT), ("graph_id", INT), ("graph_node", INT)],
    "memcpy": [("start", INT), ("end", INT), ("device", INT), ("context", INT), ("stream", INT),
               ("correlation", INT), ("kind", INT), ("src_kind", INT), ("dst_kind", INT), ("bytes", INT),
               ("src_device", INT), ("dst_device", INT), ("async", INT)],
    "memset": [("start", INT), ("end", INT), ("device", INT), ("context", INT), ("stream", INT),
               ("correlation", INT), ("bytes", INT), ("value", INT), ("mem_kind", INT)],
    "sync": [("start", INT), ("end", INT), ("device", INT), ("context", INT), ("stream", INT),
             ("correlation", INT), ("kind", INT), ("event", INT), ("thread", INT)],
    "memory": [("ts", INT), ("device", INT), ("context", INT), ("stream", INT), ("correlation", INT),
               ("op", INT), ("mem_kind", INT), ("address", INT), ("bytes", INT), ("pc", INT), ("site", STR),
               ("thread", INT), ("async", INT)],
    "api": [("start", INT), ("end", INT), ("thread", INT), ("correlation", INT), ("name", STR), ("cbid", INT),
            ("domain", INT)],
    "range": [("start", INT), ("end", INTN), ("thread", INT), ("name", STR), ("domain", STR), ("kind", INT),
              ("depth", INTN), ("id", INT)],
    "marker": [("ts", INT), ("thread", INT), ("name", STR), ("domain", STR)],
    "pc_sample": [("ts", INT), ("device", INT), ("function", STR), ("cubin_crc", INT), ("pc_offset", INT),
                  ("reason", INT), ("samples", INT), ("correlation", INT), ("file", STR), ("line", INT)],
    "stall_reason": [("device", INT), ("id", INT), ("name", STR)],
    "device": [("id", INT), ("name", TEXT), ("uuid", TEXT), ("cc_major", INT), ("cc_minor", INT), ("sms", INT),
               ("memory_bytes", INT), ("core_clock_khz", INT), ("mem_bandwidth_kbs", INT),
               ("max_threads_per_sm", INT), ("max_regs_per_sm", INT), ("max_smem_per_sm", INT)],
    "device_metric": [("ts", INT), ("device", INT), ("gpu_util", INTN), ("mem_util", INTN), ("mem_used", INTN),
                      ("mem_total", INTN), ("temp_c", INTN), ("power_mw", INTN), ("sm_clock_mhz", INTN),
                      ("energy_mj", INTN)],
    "host_metric": [("ts", INT), ("cpu_pct", NUMN), ("rss_bytes", INTN), ("sys_mem_used", INTN),
                    ("sys_mem_total", INTN)],
    "overhead": [("start", INTN), ("end", INTN), ("kind", INT), ("object_kind", INT), ("thread", INT),
                 ("device", INT), ("context", INT), ("stream", INT), ("correlation", INT)],
}

# Columns kept for recomputation (everything else is only validated).
KEEP = {
    "kernel": ("start", "end", "device", "stream", "correlation", "name"),
    "api": ("start", "end", "correlation", "name"),
    "memcpy": ("start", "end", "kind", "bytes", "correlation", "src_device", "dst_device"),
    "memset": ("start", "end", "bytes", "correlation"),
    "sync": ("start", "end", "kind", "correlation"),
    "memory": ("ts", "device", "op", "address", "bytes", "site", "correlation"),
    "range": ("start", "end", "thread", "name", "domain", "kind", "depth", "id"),
    "marker": ("ts", "name"),
    "pc_sample": ("device", "reason", "samples"),
    "stall_reason": ("device", "id", "name"),
    "device": ("id",),
    "device_metric": ("ts",),
    "host_metric": ("ts",),
    "overhead": ("start", "end", "kind", "object_kind", "thread", "device", "context", "stream"),
}

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


class Mismatch(Exception):
    pass


def fail(msg):
    raise Mismatch(msg)


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool) and I64_MIN <= x <= I64_MAX


def check_value(kind, x, declared):
    if kind == INT:
        return is_int(x)
    if kind == INTN:
        return x is None or is_int(x)
    if kind == NUMN:
        return x is None or (isinstance(x, (int, float)) and not isinstance(x, bool))
    if kind == STR:
        return is_int(x) and x >= 0 and (x == 0 or x in declared)
    if kind == TEXT:
        return isinstance(x, str)
    return False


def sqrt_frac(n, m):
    """sqrt(n/m) correctly rounded (the algorithm of CPython's statistics module)."""
    if n == 0:
        return 0.0
    q = (n.bit_length() - m.bit_length() - 109) // 2
    if q >= 0:
        a = math.isqrt((n // (m << 2 * q)))
        num = (a | (a * a * (m << 2 * q) != n)) << q
        den = 1
    else:
        a = math.isqrt((n << -2 * q) // m)
        num = a | (a * a * m != (n << -2 * q))
        den = 1 << -q
    return num / den


def stdev_exact(values):
    n = len(values)
    if n < 2:
        return 0
    s = sum(values)
    ss = sum(v * v for v in values)
    val = sqrt_frac(n * ss - s * s, n * (n - 1))
    if n <= 2000:  # cross-check with the standard library
        ref = statistics.stdev(values)
        if ref != val:
            fail("internal: stdev %r != statistics.stdev %r" % (val, ref))
    return val


def median_exact(sorted_vals):
    n = len(sorted_vals)
    if n % 2:
        return sorted_vals[n // 2]
    a, b = sorted_vals[n // 2 - 1], sorted_vals[n // 2]
    return (a + b) // 2 if (a + b) % 2 == 0 else (a + b) / 2


def union_length(intervals):
    intervals.sort()
    total = 0
    cs = ce = None
    for s, e in intervals:
        if ce is not None and s <= ce:
            if e > ce:
                ce = e
        else:
            if ce is not None:
                total += ce - cs
            cs, ce = s, e
    if ce is not None:
        total += ce - cs
    return total


def read_session(path):
    strings = {}
    cols = {t: {c: [] for c in KEEP[t]} for t in SCHEMA}
    rows = {t: 0 for t in SCHEMA}
    lines_per_type = {t: 0 for t in SCHEMA}
    next_seq = {t: 0 for t in SCHEMA}
    stall_declared = set()
    header = end = None
    drops = {}
    lineno = 0
    with open(path, "rb") as f:
        data = f.read()
    if not data.endswith(b"\n"):
        fail("%s: last line has no final newline" % path)
    for raw in data.split(b"\n")[:-1]:
        lineno += 1
        where = "%s:%d" % (os.path.basename(path), lineno)
        if not raw.strip():
            continue
        if end is not None:
            fail("%s: line after the end record" % where)
        try:
            rec = json.loads(raw)
        except ValueError as e:
            fail("%s: not JSON: %s" % (where, e))
        if not isinstance(rec, dict):
            fail("%s: not an object" % where)
        t, v = rec.get("type"), rec.get("v")
        if not isinstance(t, str) or not is_int(v):
            fail("%s: missing type or v" % where)
        if header is None:
            if t != "header":
                fail("%s: first line is not the header" % where)
            if v not in (1, 2):
                fail("%s: header v %r" % (where, v))
            for k in ("session", "pid", "origin_ns"):
                if k not in rec:
                    fail("%s: header lacks %s" % (where, k))
            if not isinstance(rec["session"], str) or not 1 <= len(rec["session"]) <= 128:
                fail("%s: bad session id" % where)
            if not isinstance(rec["origin_ns"], str) or not rec["origin_ns"].lstrip("-").isdigit():
                fail("%s: origin_ns is not a decimal string" % where)
            if rec.get("clock") != "realtime" or rec.get("engine") != "synthetic":
                fail("%s: clock or engine" % where)
            header = rec
            continue
        if v > header["v"]:
            fail("%s: v %d newer than the header's" % (where, v))
        if t == "header":
            fail("%s: second header" % where)
        elif t == "strings":
            ids, vals = rec.get("ids"), rec.get("values")
            if not isinstance(ids, list) or not isinstance(vals, list) or len(ids) != len(vals) or not ids:
                fail("%s: bad strings line" % where)
            for i, s in zip(ids, vals):
                if not is_int(i) or i <= 0 or not isinstance(s, str):
                    fail("%s: bad string id %r" % (where, i))
                if i in strings:
                    fail("%s: string id %d declared twice" % (where, i))
                strings[i] = s
        elif t == "drops":
            for k in ("ts", "source", "what", "count"):
                if k not in rec:
                    fail("%s: drops lacks %s" % (where, k))
            if rec["source"] not in ("cupti", "ring", "pcsampling", "hwbuffer") or \
                    rec["what"] not in ("records", "samples", "events") or not is_int(rec["count"]):
                fail("%s: bad drops line" % where)
            drops[rec["source"]] = drops.get(rec["source"], 0) + rec["count"]
        elif t == "error":
            if not is_int(rec.get("ts")) or not isinstance(rec.get("what"), str):
                fail("%s: bad error line" % where)
        elif t == "end":
            if not is_int(rec.get("ts")) or not isinstance(rec.get("totals"), dict) or \
                    not isinstance(rec.get("batches"), dict):
                fail("%s: bad end line" % where)
            end = rec
        elif t in SCHEMA:
            n, seq = rec.get("n"), rec.get("seq")
            if not is_int(n) or n < 1:
                fail("%s: bad n" % where)
            if seq != next_seq[t]:
                fail("%s: %s seq %r, expected %d" % (where, t, seq, next_seq[t]))
            next_seq[t] += 1
            for field, kind in SCHEMA[t]:
                arr = rec.get(field)
                if not isinstance(arr, list):
                    fail("%s: %s lacks field %s" % (where, t, field))
                if len(arr) != n:
                    fail("%s: %s.%s has %d values, n is %d" % (where, t, field, len(arr), n))
                for x in arr:
                    if not check_value(kind, x, strings):
                        fail("%s: %s.%s: bad %s value %r" % (where, t, field, kind, x))
            if t == "stall_reason":
                for d, i in zip(rec["device"], rec["id"]):
                    stall_declared.add((d, i))
            if t == "pc_sample":
                for d, i in zip(rec["device"], rec["reason"]):
                    if (d, i) not in stall_declared:
                        fail("%s: pc_sample reason %d of device %d not declared" % (where, i, d))
            for c in KEEP[t]:
                cols[t][c].extend(rec[c])
            rows[t] += n
            lines_per_type[t] += 1
        else:
            fail("%s: unknown type %r" % (where, t))
    if header is None:
        fail("%s: empty file" % path)
    if end is None:
        fail("%s: no end record (truncated)" % path)
    totals = {t: rows[t] for t in SCHEMA if rows[t]}
    batches = {t: lines_per_type[t] for t in SCHEMA if lines_per_type[t]}
    if end["totals"] != totals:
        fail("end totals %r != counted %r" % (end["totals"], totals))
    if end["batches"] != batches:
        fail("end batches %r != counted %r" % (end["batches"], batches))
    return header, end, strings, cols, totals, drops


def semantic_checks(strings, c):
    k, a = c["kernel"], c["api"]
    api_by_corr = {}
    for s, e, corr, name in zip(a["start"], a["end"], a["correlation"], a["name"]):
        if corr in api_by_corr:
            fail("api correlation %d used twice" % corr)
        if e < s:
            fail("api %d ends before it starts" % corr)
        api_by_corr[corr] = (s, strings[name])
    for s, e, corr in zip(k["start"], k["end"], k["correlation"]):
        if e - s < 1:
            fail("kernel %d has duration %d" % (corr, e - s))
        if corr not in api_by_corr:
            fail("kernel correlation %d has no api record" % corr)
        if api_by_corr[corr][1] != "cudaLaunchKernel" or not api_by_corr[corr][0] < s:
            fail("kernel %d: launch api missing or not before the kernel" % corr)
    for t in ("memcpy", "memset", "sync", "memory"):
        for corr in c[t]["correlation"]:
            if corr not in api_by_corr:
                fail("%s correlation %d has no api record" % (t, corr))
    # kernels on one stream never overlap
    lanes = {}
    for s, e, d, st in zip(k["start"], k["end"], k["device"], k["stream"]):
        lanes.setdefault((d, st), []).append((s, e))
    for key, iv in lanes.items():
        iv.sort()
        for (s0, e0), (s1, e1) in zip(iv, iv[1:]):
            if s1 < e0:
                fail("kernels overlap on device %d stream %d" % key)
    # ranges: ids unique; push/pop ranges nest per thread with the depth they claim
    r = c["range"]
    if len(set(r["id"])) != len(r["id"]):
        fail("range ids are not unique")
    per_thread = {}
    for s, e, th, kind, depth in zip(r["start"], r["end"], r["thread"], r["kind"], r["depth"]):
        if kind == 1:
            if depth is None or e is None:
                fail("push/pop range without depth or end")
            per_thread.setdefault(th, []).append((s, -e, depth))
        elif kind == 2:
            if depth is not None:
                fail("start/end range with a depth")
        else:
            fail("range kind %r" % kind)
    for th, rs in per_thread.items():
        rs.sort()
        stack = []
        for s, neg_e, depth in rs:
            e = -neg_e
            while stack and stack[-1] <= s:
                stack.pop()
            if stack and e > stack[-1]:
                fail("ranges on thread %d overlap without nesting" % th)
            if depth != len(stack):
                fail("range on thread %d at %d has depth %d, nesting says %d" % (th, s, depth, len(stack)))
            stack.append(e)
    # overheads: both times or neither; the ids the object kind names (2 thread, 3 device, 4 context,
    # 5 stream), -1 for the rest
    o = c["overhead"]
    for s, e, obj, th, d, ctx, st in zip(o["start"], o["end"], o["object_kind"], o["thread"], o["device"],
                                         o["context"], o["stream"]):
        if (s is None) != (e is None) or (s is not None and e < s):
            fail("overhead interval %r .. %r" % (s, e))
        if (th >= 0, d >= 0, ctx >= 0, st >= 0) != (obj == 2, obj >= 3, obj >= 4, obj == 5):
            fail("overhead of object kind %d names thread %d device %d context %d stream %d" % (obj, th, d, ctx, st))


def recompute(header, end, strings, c, totals, drops, ndjson_name):
    exp = {
        "session": header["session"],
        "file": ndjson_name,
        "seed": header["options"]["seed"],
        "origin_ns": header["origin_ns"],
        "steps": header["options"]["steps"],
        "end_ts": end["ts"],
    }
    k = c["kernel"]
    per_name = {}
    per_dev = {}
    for s, e, d, name in zip(k["start"], k["end"], k["device"], k["name"]):
        per_name.setdefault(strings[name], []).append(e - s)
        per_dev.setdefault(d, []).append((s, e))
    by_name = []
    for name, ds in per_name.items():
        ds.sort()
        by_name.append({"name": name, "calls": len(ds), "total_ns": sum(ds), "min_ns": ds[0], "max_ns": ds[-1],
                        "med_ns": median_exact(ds), "stddev_ns": stdev_exact(ds)})
    by_name.sort(key=lambda x: (-x["total_ns"], x["name"].encode()))
    devs = sorted(c["device"]["id"])
    for d in per_dev:
        if d not in devs:
            fail("kernel on device %d, which has no device record" % d)
    for d in devs:
        per_dev.setdefault(d, [])
    exp["kernels"] = {
        "count": len(k["start"]),
        "total_ns": sum(e - s for s, e in zip(k["start"], k["end"])),
        "busy_ns": {str(d): union_length(list(per_dev[d])) for d in devs},
        "span_ns": {str(d): (max(e for _, e in per_dev[d]) - min(s for s, _ in per_dev[d])) if per_dev[d] else 0
                    for d in devs},
        "by_device": {str(d): {"count": len(per_dev[d]), "total_ns": sum(e - s for s, e in per_dev[d])}
                      for d in devs},
        "distinct_names": len(per_name),
        "by_name": by_name,
    }
    m = c["memcpy"]
    kinds = {}
    for s, e, kind, b, sd, dd in zip(m["start"], m["end"], m["kind"], m["bytes"], m["src_device"], m["dst_device"]):
        x = kinds.setdefault(str(kind), {"count": 0, "bytes": 0, "total_ns": 0})
        x["count"] += 1
        x["bytes"] += b
        x["total_ns"] += e - s
        if (kind == 10) != (sd >= 0 and dd >= 0):
            fail("memcpy kind %d with src_device %d dst_device %d" % (kind, sd, dd))
    exp["memcpy"] = {"by_kind": kinds}
    ms = c["memset"]
    exp["memset"] = {"count": len(ms["start"]), "bytes": sum(ms["bytes"]),
                     "total_ns": sum(e - s for s, e in zip(ms["start"], ms["end"]))}
    sy = {}
    for s, e, kind in zip(c["sync"]["start"], c["sync"]["end"], c["sync"]["kind"]):
        x = sy.setdefault(str(kind), {"count": 0, "total_ns": 0})
        x["count"] += 1
        x["total_ns"] += e - s
    exp["sync"] = {"by_kind": sy}
    api_names = {}
    for name in c["api"]["name"]:
        api_names[strings[name]] = api_names.get(strings[name], 0) + 1
    exp["api"] = {"count": len(c["api"]["start"]), "by_name": api_names}
    rg = {}
    r = c["range"]
    for s, e, name in zip(r["start"], r["end"], r["name"]):
        x = rg.setdefault(strings[name], {"count": 0, "total_ns": 0})
        x["count"] += 1
        x["total_ns"] += e - s
    exp["ranges"] = {"by_name": rg}
    mk = {}
    for name in c["marker"]["name"]:
        mk[strings[name]] = mk.get(strings[name], 0) + 1
    exp["markers"] = {"count": len(c["marker"]["ts"]), "by_name": mk}
    # leaks: allocations whose address was never freed afterwards, per device
    mem = c["memory"]
    live = {}
    allocs = frees = 0
    events = sorted(zip(mem["ts"], mem["op"], mem["device"], mem["address"], mem["bytes"], mem["site"]),
                    key=lambda x: (x[0], x[1]))
    for ts, op, d, addr, b, site in events:
        if op == 1:
            allocs += 1
            if (d, addr) in live:
                fail("address %d of device %d allocated twice" % (addr, d))
            live[(d, addr)] = (b, site)
        elif op == 2:
            frees += 1
            if (d, addr) not in live:
                fail("free of unallocated address %d" % addr)
            if live[(d, addr)][0] != b:
                fail("free of %d bytes at %d, allocated %d" % (b, addr, live[(d, addr)][0]))
            del live[(d, addr)]
        else:
            fail("memory op %r" % op)
    leaks = [{"device": d, "address": a, "bytes": b, "site": strings[s] if s else ""}
             for (d, a), (b, s) in sorted(live.items())]
    exp["memory"] = {"allocs": allocs, "frees": frees, "leaks": leaks, "leak_bytes": sum(x["bytes"] for x in leaks)}
    # stalls: pc_sample.reason joined to the same device's stall_reason table
    table = {}
    sr = c["stall_reason"]
    for d, i, name in zip(sr["device"], sr["id"], sr["name"]):
        if (d, i) in table:
            fail("stall reason %d of device %d declared twice" % (i, d))
        table[(d, i)] = strings[name]
    stalls = {}
    ps = c["pc_sample"]
    for d, reason, n in zip(ps["device"], ps["reason"], ps["samples"]):
        name = table[(d, reason)]
        stalls[name] = stalls.get(name, 0) + n
    exp["stalls"] = {k2: v for k2, v in stalls.items() if v}
    exp["pc_samples"] = {"rows": len(ps["samples"]), "samples": sum(ps["samples"])}
    exp["devices"] = len(c["device"]["id"])
    exp["device_metrics"] = len(c["device_metric"]["ts"])
    exp["host_metrics"] = len(c["host_metric"]["ts"])
    ov = {}
    o = c["overhead"]
    for s, e, kind in zip(o["start"], o["end"], o["kind"]):
        x = ov.setdefault(str(kind), {"count": 0, "untimed": 0, "total_ns": 0})
        x["count"] += 1
        if s is None:
            x["untimed"] += 1
        else:
            x["total_ns"] += e - s
    exp["overheads"] = {"by_kind": ov}
    exp["drops"] = drops
    exp["records"] = totals
    return exp


def compare(path, want, got):
    """Compare recomputed `want` with expected.json's `got`; raise on the first difference."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            fail("%s: expected.json has %r, recomputed an object" % (path, got))
        for key in want:
            if key not in got:
                fail("%s.%s: missing in expected.json" % (path, key))
            compare("%s.%s" % (path, key), want[key], got[key])
        for key in got:
            if key not in want:
                fail("%s.%s: in expected.json but not recomputed" % (path, key))
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            fail("%s: list of %d, expected.json has %r" % (path, len(want),
                                                           len(got) if isinstance(got, list) else got))
        for i, (w, g) in enumerate(zip(want, got)):
            compare("%s[%d]" % (path, i), w, g)
    else:
        if type(want) is bool or type(got) is bool or want != got:
            fail("%s: recomputed %r, expected.json says %r" % (path, want, got))
        if isinstance(want, str) != isinstance(got, str):
            fail("%s: type differs (%r vs %r)" % (path, want, got))


def main(argv):
    if len(argv) not in (2, 3) or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    d = argv[1]
    files = sorted(glob.glob(os.path.join(d, "*.ndjson")))
    try:
        if len(files) != 1:
            fail("%s: expected exactly one .ndjson file, found %d" % (d, len(files)))
        exp_path = argv[2] if len(argv) == 3 else os.path.join(d, "expected.json")
        with open(exp_path) as f:
            expected = json.load(f)
        header, end, strings, cols, totals, drops = read_session(files[0])
        semantic_checks(strings, cols)
        want = recompute(header, end, strings, cols, totals, drops, os.path.basename(files[0]))
        compare("expected", want, expected)
        k = want["kernels"]
        for dv, busy in k["busy_ns"].items():
            # streams of a device overlap in time, so the union is below the plain sum
            if k["by_device"][dv]["count"] >= 1000 and not busy < k["by_device"][dv]["total_ns"]:
                fail("device %s: kernels do not overlap (busy %d, sum %d)" % (dv, busy, k["by_device"][dv]["total_ns"]))
    except Mismatch as e:
        print("mismatch: %s" % e)
        return 1
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("mismatch: %s: %s" % (type(e).__name__, e))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
