#!/usr/bin/env python3
"""Real PyTorch profiler (Kineto) traces from ../shared/traces/kineto: every one ingests, and what
session.db and gpuprof-analyze say equals what this script computes straight from the JSON with the
standard library (exact decimals: ts/dur are microseconds, nanoseconds are rounded half up).
Skipped, with the reason printed, when ../shared/traces is absent."""
import decimal
import gzip
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

import bisect

import checks
from checks import BIN, check, close, ok, range_name
from collections import defaultdict

TRACES = os.path.join(checks.TRACES, "kineto")

# The categories each Kineto layout writes for what gpuprof reads (pytorch/kineto output_json.cpp: PyTorch
# 1.8 and 1.9 wrote "Kernel", "Memcpy", "Memset", "Runtime", "User"; later ones the ActivityType names).
KERNEL = {"kernel", "Kernel"}
MEMCPY = {"gpu_memcpy", "Memcpy"}
MEMSET = {"gpu_memset", "Memset"}
API = {"cuda_runtime", "Runtime", "cuda_driver"}
RANGE = {"user_annotation", "gpu_user_annotation", "User"}
OPS = {"cpu_op", "Operator"}
FLOWS = {"fwdbwd", "forward_backward"}  # forward-backward links: read when a flow id has one "s" and one "f"
READ = KERNEL | MEMCPY | MEMSET | API | RANGE | OPS | {"cuda_sync"}
HOST = {"cpu_op", "Operator", "python_function", "cpu_instant_event", "user_annotation", "Trace"}
GPU_WORDS = ("kernel", "memcpy", "memset", "gpu", "cuda", "nccl", "rccl", "xpu", "mtia")
GPU_PREFIXES = ("hip", "roc")


def trace_events(doc):
    """The events: "traceEvents" of an object, or the whole document in the Chrome trace's array form."""
    return doc if isinstance(doc, list) else doc.get("traceEvents", [])


def category(e):
    """The category an event is read under: its "cat", or for PyTorch's pre-Kineto profiler (a bare array,
    no categories) "Kernel" on pid "CUDA functions"."""
    cat = e.get("cat")
    return "Kernel" if cat is None and e.get("pid") == "CUDA functions" else cat


def skipped(doc):
    """{(cat, ph): [events, gpu-looking events]} for the events gpuprof does not read, computed here: an
    unread complete event looks like GPU work when it is not of a host category and sits on a GPU's pid
    (labelled "GPU n", or holding a kernel/memcpy/memset) or its category names GPU work."""
    evs = trace_events(doc)
    gpu_pids = {e.get("pid") for e in evs if e.get("ph") == "M" and e.get("name") in ("process_labels", "process_name")
                and str((e.get("args") or {}).get("labels" if e["name"] == "process_labels" else "name", "")).startswith("GPU")}
    gpu_pids |= {e.get("pid") for e in evs if e.get("ph") == "X" and category(e) in KERNEL | MEMCPY | MEMSET and "ts" in e}
    out = defaultdict(lambda: [0, 0])
    ends = defaultdict(list)
    for e in evs:
        if e.get("cat") in FLOWS and e.get("ph") in ("s", "f") and "ts" in e and "id" in e and "name" in e:
            ends[(e.get("pid"), e["cat"], e["id"])].append(e["ph"])
    for e in evs:
        cat, ph, args = e.get("cat") or "", e.get("ph") or "", e.get("args") or {}
        if ph == "X" and category(e) in READ and "ts" in e and "name" in e:
            continue
        if cat in FLOWS and sorted(ends.get((e.get("pid"), cat, e.get("id")), [])) == ["f", "s"]:
            continue
        if ph == "i" and e.get("name") in ("[memory]", "[OutOfMemory]") and args.get("Device Type") in DEVICE_MEMORY:
            continue
        out[(cat, ph)][0] += 1
        if ph == "X" and cat not in HOST and (e.get("pid") in gpu_pids or any(w in cat.lower() for w in GPU_WORDS)
                                                                 or cat.lower().startswith(GPU_PREFIXES)):
            out[(cat, ph)][1] += 1
    return dict(out)



def ns(x):
    return int((decimal.Decimal(x) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def ingest(path, db, *extra):
    return subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", path, "-o", db] + list(extra),
                          capture_output=True, text=True)


def analyze(name, db, *extra):
    out = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), name, db, "--format", "json"] + list(extra),
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def program(name, *args):
    return subprocess.run([os.path.join(BIN, name)] + list(args), capture_output=True, text=True, check=True).stdout


def expected_ranges(doc):
    """(path, style) -> {count, total, gpu, kernels, window, window_kernels}, straight from the trace's
    events. user_annotation is a host range (PushPop) on its thread; gpu_user_annotation a GPU annotation
    (GPU) on its stream (tid). Each nests within its thread or stream: sorted by start, the longest first,
    a range is the child of the innermost open one that contains it. A host range's gpu/kernels are the
    kernels whose launch call (the first runtime or driver call with the kernel's correlation id) was made
    on its thread in [start, end), the window the same by any thread; a GPU annotation's are the kernels
    that started on its stream in [start, end), the window those of any stream."""
    tid = lambda e: e.get("tid") if isinstance(e.get("tid"), int) else 0
    rows, kernels, first_call = [], [], {}
    for seq, e in enumerate(doc["traceEvents"]):
        if e.get("ph") != "X" or "dur" not in e:
            continue
        cat, args = e.get("cat"), e.get("args") or {}
        start = ns(e["ts"])
        end = start + ns(e["dur"])
        if cat in ("user_annotation", "gpu_user_annotation"):
            rows.append((cat[0] == "g", tid(e), start, -end, seq, range_name(e["name"])))
        elif cat == "kernel":
            kernels.append((int(args.get("stream", tid(e))), int(args.get("correlation", 0)), start, end - start))
        elif cat in ("cuda_runtime", "cuda_driver"):
            first_call.setdefault(int(args.get("correlation", 0)), (tid(e), start))
    by_thread, by_stream = defaultdict(list), defaultdict(list)
    for stream, corr, start, dur in kernels:
        by_stream[stream].append((start, dur))
        by_stream[None].append((start, dur))
        if corr > 0 and corr in first_call:
            t, ts = first_call[corr]
            by_thread[t].append((ts, dur))
            by_thread[None].append((ts, dur))

    def index(lists):
        out = {}
        for k, v in lists.items():
            v.sort()
            sums = [0]
            for _, d in v:
                sums.append(sums[-1] + d)
            out[k] = ([t for t, _ in v], sums)
        return out

    def work(idx, key, s, e):
        if key not in idx:
            return 0, 0
        ts, sums = idx[key]
        a, b = bisect.bisect_left(ts, s), bisect.bisect_left(ts, e)
        return sums[b] - sums[a], b - a

    threads, streams = index(by_thread), index(by_stream)
    groups = defaultdict(lambda: dict(count=0, total=0, gpu=0, kernels=0, window=0, window_kernels=0))
    stack, key = [], None
    for gpu, t, s, negend, _, name in sorted(rows):
        e = -negend
        if key != (gpu, t):
            key, stack = (gpu, t), []
        while stack and (stack[-1][0] <= s or stack[-1][0] < e):
            stack.pop()
        path = (stack[-1][1] + "/" if stack else "") + name
        stack.append((e, path))
        g = groups[(path, "GPU" if gpu else "PushPop")]
        idx = streams if gpu else threads
        own, own_n = work(idx, t, s, e)
        win, win_n = work(idx, None, s, e)
        g["count"] += 1
        g["total"] += e - s
        g["gpu"] += own
        g["kernels"] += own_n
        g["window"] += win
        g["window_kernels"] += win_n
    return dict(groups)


def check_ranges(name, doc, db):
    """ranges keyed by (path, style), never a host range and a GPU annotation merged, against the trace."""
    want = expected_ranges(doc)
    rows = analyze("ranges", db)
    got = {(r["path"], r["style"]): r for r in rows}
    check(f"{name} ranges: one row per (path, style)", len(got), len(rows))
    check(f"{name} ranges: (path, style) keys", sorted(got), sorted(want))
    for k, w in want.items():
        r = got.get(k)
        if r:
            check(f"{name} range {k[0][:40]} {k[1]}: count, total, gpu, kernels, window",
                  (r["count"], r["total_ns"], r["gpu_ns"], r["kernels"], r.get("window_gpu_ns"),
                   r.get("window_kernels")),
                  (w["count"], w["total"], w["gpu"], w["kernels"], w["window"], w["window_kernels"]))
    both = {p for p, st in want if st == "GPU"} & {p for p, st in want if st == "PushPop"}
    if both:
        print(f"traces_kineto: {name}: {len(both)} paths both host range and GPU annotation, kept apart")


def expected(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    durs = defaultdict(list)
    copies = defaultdict(lambda: [0, 0])
    memsets = [0, 0]
    ranges = defaultdict(int)
    mem = 0
    for e in trace_events(doc):
        cat, ph, args = category(e), e.get("ph"), e.get("args", {})
        if ph == "i" and e.get("name") == "[memory]" and args.get("Device Type") in DEVICE_MEMORY:
            mem += 1
        if ph != "X" or "ts" not in e:
            continue
        if cat in KERNEL:
            durs[e["name"]].append(ns(e.get("dur", 0)))
        elif cat in MEMCPY:
            kind = next((k for k in ("HtoD", "DtoH", "DtoD", "HtoH", "PtoP") if k in e["name"]), "?")
            copies[kind][0] += 1
            copies[kind][1] += int(args.get("bytes", 0))
        elif cat in MEMSET:
            memsets[0] += 1
            memsets[1] += int(args.get("bytes", 0))
        elif cat in RANGE:
            ranges[e["name"]] += 1
    return doc, durs, copies, memsets, ranges, mem


def one(tmp, path):
    name = os.path.basename(path)
    db = os.path.join(tmp, name + ".db")
    r = ingest(path, db)
    doc, durs, copies, memsets, ranges, mem = expected(path)
    skips = skipped(doc)
    gpu_skipped = sum(g for _, g in skips.values())
    # Events that look like GPU work but were not read are reported; with no GPU record at all, exit 3.
    want = 3 if gpu_skipped and not durs and not copies and not memsets[0] else 0
    check(f"{name} ingests (exit {want})", (r.returncode, r.stderr != ""), (want, gpu_skipped > 0))
    if gpu_skipped:
        check(f"{name} warning names what was skipped", f"{gpu_skipped} events that look like GPU work" in r.stderr,
              True)

    hot = {h["name"]: h for h in analyze("hotspots", db)}
    check(f"{name} kernel names", sorted(hot), sorted(durs))
    total_all = sum(sum(v) for v in durs.values())
    for kname, v in durs.items():
        h = hot.get(kname)
        if not h:
            continue
        tag = f"{name} {kname[:50]}"
        check(f"{tag} calls", h["calls"], len(v))
        check(f"{tag} total_ns", h["total_ns"], sum(v))
        check(f"{tag} min/max", (h["min_ns"], h["max_ns"]), (min(v), max(v)))
        check(f"{tag} median", h["med_ns"], statistics.median(v))
        close(f"{tag} stddev", h["stddev_ns"], statistics.stdev(v) if len(v) > 1 else 0.0)
        close(f"{tag} time_pct", h["time_pct"], 100.0 * sum(v) / total_all)

    con = sqlite3.connect(db)
    q = lambda sql: con.execute(sql).fetchall()
    names = {1: "HtoD", 2: "DtoH", 8: "DtoD", 9: "HtoH", 10: "PtoP", 0: "?"}
    got = {names.get(k, str(k)): [c, b] for k, c, b in q("SELECT kind, count(*), sum(bytes) FROM memcpys GROUP BY kind")}
    check(f"{name} memcpy count and bytes per kind", got, {k: v for k, v in copies.items()})
    check(f"{name} memsets", list(q("SELECT count(*), coalesce(sum(bytes), 0) FROM memsets")[0]), memsets)
    check(f"{name} ranges per name", dict(q("SELECT name, count(*) FROM range_events GROUP BY name")), dict(ranges))
    check_ranges(name, doc, db)
    check(f"{name} GPU memory events", q("SELECT count(*) FROM memory_events")[0][0], mem)
    check(f"{name} devices", q("SELECT count(*) FROM devices")[0][0], len(doc.get("deviceProperties", [])))
    check(f"{name} skipped events by category and phase",
          {(c, p): [n, g] for c, p, n, g in q("SELECT category, ph, events, gpu_events FROM ingest_skipped")}, skips)
    check(f"{name} ingest_errors", q("SELECT count(*) FROM ingest_errors")[0][0], 1 if want == 3 else 0)
    # Kineto's "shared memory" is static + dynamic: stored as the total, the parts unknown.
    smem = [int(e["args"]["shared memory"]) for e in doc["traceEvents"] if e.get("cat") in KERNEL
            and e.get("ph") == "X" and "shared memory" in (e.get("args") or {})]
    check(f"{name} kernel shared memory totals", list(q(
        "SELECT count(shared_mem), coalesce(sum(shared_mem), 0), count(static_smem), count(dynamic_smem) FROM kernels")[0]),
          [len(smem), sum(smem), 0, 0])
    rank = doc.get("distributedInfo", {}).get("rank")
    check(f"{name} rank", q("SELECT rank FROM processes")[0][0], rank)
    # Kernel start times are exact: the earliest equals the file's earliest, in epoch ns.
    kts = [ns(e["ts"]) for e in doc["traceEvents"] if e.get("cat") in KERNEL and e.get("ph") == "X"]
    if kts:
        base = int(doc.get("baseTimeNanoseconds", 0))
        check(f"{name} first kernel start (ns, exact)", q("SELECT min(start_ns) FROM kernels")[0][0], base + min(kts))
    before = q("SELECT (SELECT count(*) FROM kernels), (SELECT count(*) FROM api_calls), (SELECT count(*) FROM strings)")
    con.close()
    r = ingest(path, db)
    con = sqlite3.connect(db)
    check(f"{name} re-ingest changes nothing", (r.returncode, q(
        "SELECT (SELECT count(*) FROM kernels), (SELECT count(*) FROM api_calls), (SELECT count(*) FROM strings)")),
          (0, before))
    con.close()


LAYOUTS = os.path.join(checks.ROOT, "tests", "data", "kineto-layouts")

# c10::DeviceType values (c10/core/DeviceType.h) whose [memory] events are an accelerator's: CUDA 1, OPENGL 3,
# OPENCL 4, HIP 6, FPGA 7, MAIA 8, XLA 9, Vulkan 10, Metal 11, XPU 12, MPS 13, HPU 15, VE 16, IPU 18, MTIA 19,
# PrivateUse1 20; not CPU 0, MKLDNN 2, IDEEP 5 (host memory), Meta 14, Lazy 17 (no data).
DEVICE_MEMORY = {1, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 18, 19, 20}

# Per layout, made by hand from the exporter's source (see tests/data/kineto-layouts/README.md): SQL that
# reads what only that layout has, and its rows.
LAYOUT_CHECKS = {
    "pytorch-1.8-cuda.json": [
        # tid "stream 7"; Memcpy2 (peer) has fromDevice/inDevice/toDevice and no "device".
        ("SELECT device_id, stream_id, registers, static_smem, dynamic_smem, shared_mem, grid_x, block_x FROM kernels",
         [(0, 7, 32, None, None, 24576, 128, 256)]),
        ("SELECT kind, device_id, context_id, src_device, dst_device, bytes FROM memcpys ORDER BY start_ns",
         [(1, 0, 1, None, None, 4096), (10, 0, 1, 0, 1, 1024)]),
        ("SELECT s.value, cbid, correlation_id, domain FROM api_calls a JOIN strings s ON s.id = a.name_id ORDER BY start_ns",
         [("cudaLaunchKernel", 211, 101, 1), ("cudaMemcpyAsync", 41, 102, 1)]),
        ("SELECT r.kind, r.thread_id FROM ranges r", [(3, 7)]),
        ("SELECT mem_kind, bytes FROM memsets", [(3, 512)]),
    ],
    "pytorch-1.9-cuda.json": [
        ("SELECT device_id, stream_id, shared_mem, static_smem FROM kernels", [(1, 7, 32768, None)]),
        ("SELECT kind, src_kind, dst_kind, bytes FROM memcpys", [(2, 3, 2, 65536)]),
        ("SELECT kind, thread_id FROM ranges ORDER BY kind", [(1, 5151), (3, 7)]),
        ("SELECT rank FROM processes", [(1,)]),
    ],
    "pytorch-2-cuda.json": [
        ("SELECT min(start_ns), count(*), sum(shared_mem), count(static_smem) FROM kernels",
         [(1700000000000000000 + 5000006500, 2, 49152, 0)]),
        ("SELECT domain, count(*) FROM api_calls GROUP BY domain", [(1, 1), (2, 1)]),
        ("SELECT kind, stream_id FROM syncs", [(3, 7)]),
        ("SELECT kind, src_kind, dst_kind, bytes FROM memcpys", [(8, 3, 3, 2048)]),
    ],
    "rocm-roctracer.json": [
        ("SELECT device_id, stream_id, grid_x, block_x, registers, shared_mem FROM kernels", [(0, 0, 64, 256, None, None)]),
        ("SELECT kind, bytes FROM memcpys", [(1, 8192)]),
        ("SELECT s.value, cbid FROM api_calls a JOIN strings s ON s.id = a.name_id ORDER BY start_ns", [("hipLaunchKernel", 3), ("hipMemcpyAsync", 40)]),
        ("SELECT bytes FROM memsets", [(1024,)]),
    ],
    "rocm6-rocprofiler.json": [
        ("SELECT device_id, grid_x, block_x, registers, shared_mem FROM kernels", [(2, None, None, None, None)]),
        # rocprofiler-sdk's copies carry no byte count (only the hip call's "size" string): 0.
        ("SELECT device_id, kind, bytes FROM memcpys", [(2, 1, 0)]),
        ("SELECT s.value, cbid FROM api_calls a JOIN strings s ON s.id = a.name_id ORDER BY start_ns", [("hipMemcpyWithStream", 153), ("hipLaunchKernel", 3)]),
    ],
    "rocm-hip-memory.json": [
        # The caching allocator's events on a HIP device (c10::DeviceType 6) are the GPU's; the CPU one is not.
        ("SELECT device_id, op, address, bytes, total_allocated FROM memory_events ORDER BY ts_ns",
         [(0, 1, 140485387508736, 65536, 23475712), (0, 1, 140486627033088, 65536, 23541248),
          (0, 1, 140485373329408, 4456448, 27997696), (0, 1, 140485226135552, 4456448, 32454144),
          (0, 2, 140485373329408, 4456448, 27997696)]),
        ("SELECT device_id, bytes, total_allocated, total_reserved FROM alloc_failures",
         [(0, 214748364800, 27997696, 73400320)]),
        ("SELECT category, ph, events FROM ingest_skipped ORDER BY category, ph",
         [("", "M", 2), ("cpu_instant_event", "i", 1)]),
    ],
    "pytorch-1.7-autograd.json": [
        # A bare array; kernels on pid "CUDA functions" with the device as tid, on no known stream.
        ("SELECT device_id, stream_id, count(*), sum(end_ns - start_ns) FROM kernels GROUP BY device_id",
         [(0, None, 2, 7500), (1, None, 1, 2250)]),
        ("SELECT category, ph, events, gpu_events FROM ingest_skipped ORDER BY category, ph",
         [("", "X", 2, 0), ("cpu_to_cuda", "f", 3, 0), ("cpu_to_cuda", "s", 3, 0)]),
    ],
    "unknown-gpu-category.json": [
        ("SELECT category, ph, events, gpu_events FROM ingest_skipped ORDER BY category, ph",
         [("", "M", 2, 0), ("KERNEL", "X", 2, 2), ("gpu_op_v9", "X", 1, 1),
          ("hip_api_ext", "X", 1, 1), ("process_group_op", "X", 1, 0)]),
        ("SELECT line, reason FROM ingest_errors",
         [(0, "no GPU activity read, yet 4 events look like GPU work: KERNEL X 2, gpu_op_v9 X 1, hip_api_ext X 1")]),
        ("SELECT count(*) FROM api_calls", [(1,)]),
    ],
}


def layouts(tmp):
    """A small trace by hand in each Kineto layout PyTorch has shipped: what gpuprof stores equals what this
    script computes from the JSON, plus what only that layout has (LAYOUT_CHECKS)."""
    for f in sorted(LAYOUT_CHECKS):
        path = os.path.join(LAYOUTS, f)
        db = os.path.join(tmp, "layout-" + f + ".db")
        r = ingest(path, db)
        doc, durs, copies, memsets, ranges, mem = expected(path)
        skips = skipped(doc)
        gpu = sum(g for _, g in skips.values())
        want = 3 if gpu and not durs and not copies and not memsets[0] else 0
        check(f"layout {f}: exit", r.returncode, want)
        check(f"layout {f}: warns only when GPU-looking events were skipped", r.stderr != "", gpu > 0)
        con = sqlite3.connect(db)
        q = lambda sql: con.execute(sql).fetchall()
        check(f"layout {f}: kernels per name", dict(q(
            "SELECT name, count(*) FROM kernel_events GROUP BY name")), {k: len(v) for k, v in durs.items()})
        check(f"layout {f}: kernel time", q("SELECT coalesce(sum(end_ns - start_ns), 0) FROM kernels")[0][0],
              sum(sum(v) for v in durs.values()))
        check(f"layout {f}: memcpys", q("SELECT count(*), coalesce(sum(bytes), 0) FROM memcpys")[0],
              (sum(c for c, _ in copies.values()), sum(b for _, b in copies.values())))
        check(f"layout {f}: memsets", list(q("SELECT count(*), coalesce(sum(bytes), 0) FROM memsets")[0]), memsets)
        check(f"layout {f}: ranges", dict(q("SELECT name, count(*) FROM range_events GROUP BY name")), dict(ranges))
        check(f"layout {f}: GPU memory events", q("SELECT count(*) FROM memory_events")[0][0], mem)
        check(f"layout {f}: skipped events by category and phase",
              {(c, p): [n, g] for c, p, n, g in q("SELECT category, ph, events, gpu_events FROM ingest_skipped")}, skips)
        for sql, rows in LAYOUT_CHECKS[f]:
            check(f"layout {f}: {sql}", q(sql), rows)
        con.close()
    # Kineto's "shared memory" is the total: launch computes occupancy from it (A100: 48 KiB + 1 KiB reserve
    # a block, 3 blocks of 8 warps = 37.5 %; V100: 24 KiB, 4 blocks = 50 %), and shows no static part.
    for f, name, pct in (("pytorch-2-cuda.json", "ampere_sgemm_128x64_tn", 37.5),
                         ("pytorch-1.8-cuda.json", "void at::native::vectorized_elementwise_kernel<4>(int)", 50.0)):
        row = next(r for r in analyze("launch", os.path.join(tmp, "layout-" + f + ".db")) if r["name"] == name)
        check(f"layout {f}: launch shared memory", (row["static_smem"], row["dynamic_smem"], row["shared_mem"],
                                                    row["occupancy_pct"], row["limiter"]),
              (None, None, 24576 if pct == 50.0 else 49152, pct, "shared memory"))
    # The closing line names what was skipped, and the warning the GPU-looking part.
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), os.path.join(LAYOUTS, "unknown-gpu-category.json"), "-o",
                        os.path.join(tmp, "unknown-again.db")], capture_output=True, text=True)
    check("unknown layout: warning names the skipped GPU-looking categories",
          "4 events that look like GPU work were not read (category phase count: KERNEL X 2, gpu_op_v9 X 1, "
          "hip_api_ext X 1)"
          in r.stderr, True)
    check("unknown layout: the closing line names what was skipped",
          "7 other events skipped ((no category) M 2, KERNEL X 2, gpu_op_v9 X 1, hip_api_ext X 1, ...)" in r.stderr, True)


def unreadable_events(tmp):
    """Elements of "traceEvents" that are not event objects (a number, a string) are counted like any other
    unread event: in ingest_skipped (no category, no phase) and on the closing line. One that is no valid JSON
    (here a bad number) is rejected as bad input: a row in ingest_errors, an error naming its byte, the count
    on the closing line, and exit 3 with the rest kept; so the counts add up to every element."""
    path, db = os.path.join(tmp, "unreadable.json"), os.path.join(tmp, "unreadable.db")
    with open(path, "w") as f:
        f.write('{"schemaVersion": 1, "traceEvents": [1, "x", {"ph": 1e999e}, {"ph": "X", "cat": "kernel", '
                '"name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"stream": 7}}, '
                '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]}')
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), path, "-o", db], capture_output=True, text=True)
    check("unreadable events: exit", r.returncode, 3)
    ok("unreadable events: the closing line counts them",
       "2 other events skipped ((no category) 2); 1 rejected" in r.stderr, r.stderr)
    ok("unreadable events: the error names the rejected one",
       "error: " + path + ": byte 45: trace event is no valid JSON: " in r.stderr, r.stderr)
    con = sqlite3.connect(db)
    check("unreadable events: ingest_skipped", con.execute(
        "SELECT category, ph, events, gpu_events FROM ingest_skipped ORDER BY category").fetchall(),
          [("", "", 2, 0)])
    check("unreadable events: ingest_errors", con.execute(
        "SELECT session_id, line, reason LIKE 'byte 45: trace event is no valid JSON: %', excerpt FROM ingest_errors"
        ).fetchall(), [(1, 0, 1, '{"ph": 1e999e}')])
    check("unreadable events: the kernel is read", con.execute("SELECT count(*) FROM kernels").fetchall(), [(1,)])
    con.close()


def kineto_doc(path):
    """A trace's document, its members in their order (a list of (key, value))."""
    with open(path) as f:
        return json.load(f, object_pairs_hook=lambda kv: kv if kv and kv[0][0] == "schemaVersion" else dict(kv))


def write_doc(path, members):
    with open(path, "w") as f:
        f.write("{" + ", ".join(json.dumps(k) + ": " + json.dumps(v) for k, v in members) + "}")


def with_members(members, **changes):
    """members with some values changed (None: dropped), new ones at the end, in order."""
    out = [(k, changes.pop(k, v)) for k, v in members]
    return [(k, v) for k, v in out + list(changes.items()) if v is not None]


def table_counts(db):
    con = sqlite3.connect(db)
    tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    counts = {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    con.close()
    return counts


def ingest_all(db, *args):
    return subprocess.run([os.path.join(BIN, "gpuprof-ingest"), *args, "-o", db], capture_output=True, text=True)


def one_session(tmp):
    """Traces of one session id: a process is the one already in the database only when its content is (the
    file's hash, kept in processes.options): the same file again, under any name, changes nothing; another
    trace under the same trace_id (or --session) and rank is kept as another process (pid + 2^32), with a
    warning naming both files, in one gpuprof-ingest or two, with -j1 or -j2; a database of before the hash
    was kept still skips the same file. distributedInfo after the events still gives the rank (the trace is
    read again). trace_ids that differ only after byte 152 are two sessions."""
    src = kineto_doc(os.path.join(LAYOUTS, "pytorch-2-cuda.json"))
    events = dict(src)["traceEvents"]
    kernels = [i for i, e in enumerate(events) if e.get("cat") == "kernel"]
    a, b, a2 = (os.path.join(tmp, n) for n in ("same-a.json", "same-b.json", "same-a-copy.json"))
    write_doc(a, src)
    write_doc(b, with_members(src, traceEvents=[e for i, e in enumerate(events) if i != kernels[0]]))
    shutil.copy(a, a2)
    for jobs in ("-j1", "-j2"):
        db = os.path.join(tmp, f"same{jobs}.db")
        r = ingest_all(db, jobs, a, b)
        tag = f"one trace_id, two traces ({jobs})"
        check(f"{tag}: exit", r.returncode, 0)
        ok(f"{tag}: a warning names both files",
           f"warning: {b}: session kineto:layout-2x has pid 0 from {a} already, of other content; this trace is kept "
           f"as another process, pid 4294967296" in r.stderr, r.stderr)
        con = sqlite3.connect(db)
        check(f"{tag}: both processes kept", con.execute(
            "SELECT s.uuid, p.pid, p.file, json_extract(p.options, '$.content_hash') LIKE 'fnv1a64:%' FROM processes p "
            "JOIN sessions s ON s.id = p.session_id ORDER BY p.pid").fetchall(),
              [("kineto:layout-2x", 0, a, 1), ("kineto:layout-2x", 1 << 32, b, 1)])
        check(f"{tag}: the kernels add up", con.execute("SELECT pid, count(*) FROM kernels GROUP BY pid").fetchall(),
              [(0, len(kernels)), (1 << 32, len(kernels) - 1)])
        con.close()
        before = table_counts(db)
        r = ingest_all(db, jobs, a, a2, b)
        check(f"{tag}: again, under another name too: exit", r.returncode, 0)
        check(f"{tag}: again: every one said to be there", r.stderr.count("already in the database"), 3)
        check(f"{tag}: again: nothing changes", table_counts(db), before)
    # --session, traces of no trace_id and no rank.
    c, d = os.path.join(tmp, "session-c.json"), os.path.join(tmp, "session-d.json")
    write_doc(c, with_members(src, trace_id=None))
    write_doc(d, with_members(src, trace_id=None, traceEvents=events[:-1]))
    db = os.path.join(tmp, "session.db")
    r = ingest_all(db, "--session", "job", c, d, c)
    check("--session, two traces of no rank: exit", r.returncode, 0)
    ok("--session, two traces of no rank: warned", f"{d}: session job has pid 0 from {c} already" in r.stderr, r.stderr)
    check("--session, two traces of no rank: both kept, the first once", sqlite3.connect(db).execute(
        "SELECT pid, file FROM processes ORDER BY pid").fetchall(), [(0, c), (1 << 32, d)])
    # A database made before the hash was kept: the same file (name) is still the one there; another is kept.
    db = os.path.join(tmp, "legacy.db")
    check("no hash kept: made", ingest(a, db).returncode, 0)
    con = sqlite3.connect(db)
    con.execute("UPDATE processes SET options = NULL")
    con.commit()
    con.close()
    before = table_counts(db)
    r = ingest_all(db, a)
    check("no hash kept: the same file again changes nothing", (r.returncode, table_counts(db)), (0, before))
    r = ingest_all(db, b)
    check("no hash kept: another file is another process", (r.returncode, sqlite3.connect(db).execute(
        "SELECT pid, file FROM processes ORDER BY pid").fetchall()), (0, [(0, a), (1 << 32, b)]))
    # Databases as inputs: the processes of two with one trace_id each are both kept, once.
    x, y, z = (os.path.join(tmp, n) for n in ("comb-x.db", "comb-y.db", "comb-z.db"))
    ingest(a, x)
    ingest(b, y)
    r = ingest_all(z, x, y)
    check("databases combined: both processes", (r.returncode, sqlite3.connect(z).execute(
        "SELECT pid, file FROM processes ORDER BY pid").fetchall()), (0, [(0, a), (1 << 32, b)]))
    before = table_counts(z)
    r = ingest_all(z, x, y)
    check("databases combined again: nothing changes", (r.returncode, table_counts(z)), (0, before))
    # distributedInfo after traceEvents: the rank still, and the trace read again to store it as that rank.
    late = os.path.join(tmp, "late-rank.json")
    write_doc(late, with_members(src, distributedInfo={"backend": "nccl", "rank": 1, "world_size": 2}))
    for jobs in ("-j1", "-j2"):
        db = os.path.join(tmp, f"late{jobs}.db")
        r = ingest_all(db, jobs, a, late)
        tag = f"distributedInfo after the events ({jobs})"
        check(f"{tag}: exit", r.returncode, 0)
        ok(f"{tag}: says it reads again", "distributedInfo (rank 1) comes after the events" in r.stderr, r.stderr)
        ok(f"{tag}: no warning", "warning" not in r.stderr, r.stderr)
        con = sqlite3.connect(db)
        check(f"{tag}: rank 1, stored as pid 1", con.execute(
            "SELECT pid, rank, file FROM processes ORDER BY pid").fetchall(), [(0, None, a), (1, 1, late)])
        check(f"{tag}: its rows under pid 1, once", con.execute(
            "SELECT pid, count(*) FROM kernels GROUP BY pid").fetchall(), [(0, len(kernels)), (1, len(kernels))])
        check(f"{tag}: its strings once", con.execute(
            "SELECT count(*) = count(DISTINCT value) FROM strings").fetchone()[0], 1)
        con.close()
    # trace_ids equal in their first 152 bytes (kineto.c once cut the session id there): two sessions.
    long_a, long_b = os.path.join(tmp, "long-a.json"), os.path.join(tmp, "long-b.json")
    write_doc(long_a, with_members(src, trace_id="t" * 200 + "a"))
    write_doc(long_b, with_members(src, trace_id="t" * 200 + "b"))
    db = os.path.join(tmp, "long.db")
    r = ingest_all(db, long_a, long_b)
    check("long trace_ids: two sessions, whole ids", (r.returncode, sqlite3.connect(db).execute(
        "SELECT s.uuid, p.pid FROM sessions s JOIN processes p ON p.session_id = s.id ORDER BY s.uuid").fetchall()),
          (0, [("kineto:" + "t" * 200 + "a", 0), ("kineto:" + "t" * 200 + "b", 0)]))


def own_export(tmp):
    """gpuprof-report --format trace writes the session's id as trace_id (and "gpuprof_source"): ingested
    again, the trace keeps that id (no "kineto:kineto:..."); into the database that has the session, it is
    skipped, since it holds nothing the session lacks."""
    src, db, back, out = (os.path.join(tmp, n) for n in ("export-src.json", "export.db", "export-back.db",
                                                         "export-trace.json"))
    write_doc(src, kineto_doc(os.path.join(LAYOUTS, "pytorch-2-cuda.json")))
    check("own export: source ingests", ingest(src, db).returncode, 0)
    program("gpuprof-report", db, "--format", "trace", "-o", out)
    check("own export: ingests", ingest(out, back).returncode, 0)
    check("own export: the session id kept", sqlite3.connect(back).execute("SELECT uuid FROM sessions").fetchall(),
          [("kineto:layout-2x",)])
    check("own export: its kernels", sqlite3.connect(back).execute("SELECT count(*) FROM kernels").fetchone(),
          sqlite3.connect(db).execute("SELECT count(*) FROM kernels").fetchone())
    before = table_counts(db)
    r = ingest_all(db, out)
    check("own export: into the database it came from: exit", r.returncode, 0)
    ok("own export: into the database it came from: skipped", "is gpuprof's export of it; skipped" in r.stderr,
       r.stderr)
    check("own export: into the database it came from: nothing changes", table_counts(db), before)
    # With --session, it goes where it is told.
    r = ingest_all(db, "--session", "other", out)
    check("own export: --session", (r.returncode, sqlite3.connect(db).execute(
        "SELECT uuid FROM sessions ORDER BY id").fetchall()), (0, [("kineto:layout-2x",), ("other",)]))


def deep_nesting(tmp):
    """JSON nested deeper than lib/json allows (JSON_MAX_DEPTH, 512) cannot be read: such an event, or a
    top-level member gpuprof reads, is rejected: a row in ingest_errors (file, byte, reason, excerpt), an
    error on stderr, the count on the closing line, and exit 3, the rest kept. 500 levels are read."""
    kernel = {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2,
              "args": {"device": 0, "stream": 7, "correlation": 1}}
    good = json.dumps(kernel)
    deep = json.dumps(dict(kernel, name="deep", args={"x": "@"})).replace('"@"', "[" * 600 + "]" * 600)
    fine = json.dumps(dict(kernel, name="fine", args={"x": "@"})).replace('"@"', "[" * 500 + "]" * 500)
    cases = {
        "event": ('{"traceEvents": [%s, %s, %s]}' % (good, deep, fine), 2,
                  "byte %d: trace event nested deeper than 512 arrays and objects" % (len('{"traceEvents": [') +
                                                                                      len(good) + 2)),
        "only": ('{"traceEvents": [%s]}' % deep, 0,
                 "byte 17: trace event nested deeper than 512 arrays and objects"),
        "member": ('{"distributedInfo": {"rank": 1, "x": %s}, "traceEvents": [%s]}' % ("[" * 600 + "]" * 600, good),
                   1, 'byte 20: top-level member "distributedInfo" nested deeper than 512 arrays and objects'),
    }
    for name, (text, kernels, reason) in cases.items():
        path, db = os.path.join(tmp, f"deep-{name}.json"), os.path.join(tmp, f"deep-{name}.db")
        with open(path, "w") as f:
            f.write(text)
        r = ingest_all(db, path)
        tag = f"deep nesting ({name})"
        check(f"{tag}: exit", r.returncode, 3)
        ok(f"{tag}: an error says where", f"error: {path}: {reason}, not read (1 such rejected" in r.stderr, r.stderr)
        ok(f"{tag}: the closing line counts it", "; 1 rejected" in r.stderr, r.stderr)
        con = sqlite3.connect(db)
        check(f"{tag}: ingest_errors", con.execute(
            "SELECT session_id IS NOT NULL, file, line, reason, length(excerpt) FROM ingest_errors").fetchall(),
              [(1, path, 0, reason, 120)])
        check(f"{tag}: the rest kept", con.execute("SELECT count(*) FROM kernels").fetchone()[0], kernels)
        con.close()
        before = table_counts(db)
        r = ingest_all(db, path)
        check(f"{tag}: again: nothing changes", (r.returncode, table_counts(db)), (0, before))


def rocm_memory(tmp):
    """A real CUDA trace's memory events as a HIP device's (Device Type 6, as TraceLens's MI300X trace has
    them; torch/csrc/autograd/profiler_kineto.cpp writes the allocator's c10::DeviceType there): read the
    same, so memory and leaks see the same."""
    path = os.path.join(TRACES, "a100_pcie_memory_events.json.gz")
    with gzip.open(path, "rt") as f:
        doc = json.load(f)
    n = 0
    for e in doc["traceEvents"]:
        if e.get("name") == "[memory]" and e.get("args", {}).get("Device Type") == 1:
            e["args"]["Device Type"] = 6
            n += 1
    hip = os.path.join(tmp, "hip_memory_events.json")
    with open(hip, "w") as f:
        json.dump(doc, f)
    cuda_db, hip_db = os.path.join(tmp, "cuda-mem.db"), os.path.join(tmp, "hip-mem.db")
    check("HIP memory: ingests", (ingest(path, cuda_db).returncode, ingest(hip, hip_db).returncode), (0, 0))
    q = "SELECT count(*), sum(bytes), sum(op = 2) FROM memory_events"
    check("HIP memory: every event read", sqlite3.connect(hip_db).execute(q).fetchone()[0], n)
    check("HIP memory: as CUDA's", sqlite3.connect(hip_db).execute(q).fetchall(),
          sqlite3.connect(cuda_db).execute(q).fetchall())
    for name in ("memory", "leaks"):
        check(f"HIP memory: {name} as CUDA's", analyze(name, hip_db), analyze(name, cuda_db))
    ok("HIP memory: leaks sees some", analyze("leaks", hip_db) != [], analyze("leaks", hip_db))


def migrate(tmp):
    """A database of schema version 3 (meta said 1, no user_version, no kernels.shared_mem, nor version 5's tables
    and processes.options, nor version 6's ingest_repairs, ops and op_links: a Kineto total in static_smem, 16-column kernel chunks): analyses read it as it is, launch taking the total from static_smem;
    gpuprof-ingest upgrades it (tests/schema_versions.py checks every version): the total moves to shared_mem,
    the old chunks are retired and --reindex rebuilds them, after which launch reads the same."""
    db = os.path.join(tmp, "v3.db")
    check("v3: made", ingest(os.path.join(LAYOUTS, "pytorch-2-cuda.json"), db).returncode, 0)
    con = sqlite3.connect(db)
    con.executescript("""DROP TABLE trace_windows; DROP TABLE pc_totals; ALTER TABLE processes DROP COLUMN options;
        DROP VIEW kernel_events; DROP TABLE ingest_skipped; ALTER TABLE kernels DROP COLUMN shared_mem;
        DROP VIEW host_metric_events; DROP TABLE flop_ops; ALTER TABLE host_metrics DROP COLUMN disk_read_bytes;
        ALTER TABLE host_metrics DROP COLUMN disk_write_bytes; ALTER TABLE host_metrics DROP COLUMN net_rx_bytes;
        ALTER TABLE host_metrics DROP COLUMN net_tx_bytes; DROP VIEW alloc_failure_events; DROP TABLE alloc_failures;
        DROP TABLE ingest_repairs;
        DROP VIEW op_events; DROP TABLE ops; DROP TABLE op_links; ALTER TABLE api_calls DROP COLUMN external_id;
        UPDATE kernels SET static_smem = 49152, dynamic_smem = NULL;
        UPDATE meta SET value = '1' WHERE key = 'schema_version'; PRAGMA user_version = 0;""")
    con.close()
    rows = analyze("launch", db)
    check("v3: launch reads it as it is", sorted((r["static_smem"], r["dynamic_smem"], r["shared_mem"]) for r in rows),
          [(49152, None, 49152)] * 2)
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", "--reindex", "-o", db], capture_output=True,
                       text=True)
    check("v3: --reindex upgrades", r.returncode, 0)
    con = sqlite3.connect(db)
    check("v3: upgraded rows", con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall() +
          con.execute("PRAGMA user_version").fetchall() +
          con.execute("SELECT DISTINCT static_smem, dynamic_smem, shared_mem FROM kernels").fetchall(),
          [("6",), (6,), (None, None, 49152)])
    check("v3: chunks rebuilt", con.execute("SELECT count(*) FROM column_sets WHERE tbl = 'kernels'").fetchall(), [(1,)])
    con.close()
    rows = analyze("launch", db)
    check("v3: launch reads the total", sorted((r["static_smem"], r["dynamic_smem"], r["shared_mem"]) for r in rows),
          [(None, None, 49152)] * 2)


def corrupt(tmp):
    """A cut-off trace and a non-trace: exit 3, and the database keeps what it had."""
    src = os.path.join(TRACES, "a100_alexnet.json.gz")
    db = os.path.join(tmp, "corrupt.db")
    check("good trace first", ingest(os.path.join(TRACES, "a100_triton.json.gz"), db).returncode, 0)
    con = sqlite3.connect(db)
    before = con.execute("SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM kernels)").fetchall()
    con.close()
    raw = gzip.open(src).read()
    cut = os.path.join(tmp, "cut.json")
    open(cut, "wb").write(raw[: len(raw) // 2])
    r = ingest(cut, db, "--format", "kineto")
    check("cut-off trace exit", r.returncode, 3)
    check("cut-off trace message", "cut.json: byte" in r.stderr and "nothing was ingested" in r.stderr, True)
    cutgz = os.path.join(tmp, "cut.json.gz")
    data = open(src, "rb").read()
    open(cutgz, "wb").write(data[: len(data) // 2])
    check("cut-off .gz exit", ingest(cutgz, db, "--format", "kineto").returncode, 3)
    junk = os.path.join(tmp, "junk.json")
    open(junk, "w").write("[1, 2, 3]\n")
    check("non-trace exit", ingest(junk, db, "--format", "kineto").returncode, 3)
    con = sqlite3.connect(db)
    check("database unchanged after bad traces",
          con.execute("SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM kernels)").fetchall(), before)
    con.close()


def merge(tmp):
    """Two ranks of one run into one session with --session: one session, a process per rank."""
    db = os.path.join(tmp, "merged.db")
    a = os.path.join(TRACES, "a100_sxm4_rank0.json.gz")
    b = os.path.join(TRACES, "v100_memory_events.json.gz")
    check("merge rank 0", ingest(a, db, "--session", "run-1").returncode, 0)
    check("merge rank 1", ingest(b, db, "--session", "run-1").returncode, 0)
    con = sqlite3.connect(db)
    check("merged: one session", con.execute("SELECT count(*) FROM sessions").fetchall(), [(1,)])
    check("merged: ranks", con.execute("SELECT rank FROM processes ORDER BY rank").fetchall(), [(0,), (1,)])
    con.close()
    kernels = sum(len(v) for v in expected(a)[1].values()) + sum(len(v) for v in expected(b)[1].values())
    check("merged: all kernels", sum(h["calls"] for h in analyze("hotspots", db)), kernels)
    db2 = os.path.join(tmp, "separate.db")
    ingest(a, db2)
    ingest(b, db2)
    con = sqlite3.connect(db2)
    check("without --session: a session per trace", con.execute("SELECT count(*) FROM sessions").fetchall(), [(2,)])
    con.close()


def late_base_hosts(tmp):
    """Two hosts' traces, both pid 0 (no rank), whose time base comes after their events, merged into one
    session: shifting the second trace's times must leave the first's alone, in rows and in chunks."""
    base = 1763822000000000000

    def trace(path, host, ts, extra=()):
        early = {"baseTimeNanoseconds": base} if extra else {}
        doc = {"host_name": host, "schemaVersion": 1, **early, "traceEvents": [
            {"ph": "X", "cat": "kernel", "name": f"k_{host}", "pid": 0, "tid": 7, "ts": ts, "dur": 2.5,
             "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [1, 1, 1], "block": [32, 1, 1]}},
            *extra], "baseTimeNanoseconds": base}
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    db = os.path.join(tmp, "hosts.db")
    a, b = trace(os.path.join(tmp, "host-a.json"), "a", 10.0), trace(os.path.join(tmp, "host-b.json"), "b", 20.0)
    for path in (a, b):
        check(f"late base, {os.path.basename(path)} into run-9", ingest(path, db, "--session", "run-9").returncode, 0)
    con = sqlite3.connect(db)
    check("late base, two hosts: each kernel shifted once", con.execute(
        "SELECT s.value, k.start_ns, k.end_ns FROM kernels k JOIN strings s ON s.session_id = k.session_id "
        "AND s.id = k.name_id ORDER BY 1").fetchall(),
        [("k_a", base + 10000, base + 12500), ("k_b", base + 20000, base + 22500)])
    con.close()
    rows = {r["name"]: r["total_ns"] for r in analyze("hotspots", db)}
    check("late base, two hosts: hotspots from chunks", rows, {"k_a": 2500, "k_b": 2500})
    first = json.loads(subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "summary", db, "-f", "json"],
                                      capture_output=True, text=True).stdout)[0]
    check("late base, two hosts: the session starts at the first kernel", first["start_ns"], base + 10000)
    # A time past what 64-bit nanoseconds hold after the base (given first here): the event is skipped, not
    # wrapped around.
    far = {"ph": "X", "cat": "kernel", "name": "k_far", "pid": 0, "tid": 7, "ts": 9.2e15, "dur": 1.0,
           "args": {"device": 0, "stream": 7, "correlation": 2}}
    db = os.path.join(tmp, "far.db")
    r = ingest(trace(os.path.join(tmp, "far.json"), "far", 10.0, [far]), db)
    check("time overflow: ingest exits 0", r.returncode, 0)
    con = sqlite3.connect(db)
    check("time overflow: the event is skipped", con.execute("SELECT count(*), min(start_ns) FROM kernels").fetchall(),
          [(1, base + 10000)])
    con.close()


def late_base_many(tmp):
    """A time base after 45 kernels and their 45 launch calls: the sink writes such rows many to an INSERT
    (ingest/sink_rows.c), so some still wait when the base comes; every one is shifted, once."""
    base = 1763822000000000000
    events = []
    for i in range(45):
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 100,
                       "ts": 1000 + 10 * i, "dur": 2, "args": {"correlation": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "name": f"k{i % 3}", "pid": 0, "tid": 7, "ts": 1003 + 10 * i,
                       "dur": 5, "args": {"device": 0, "stream": 7, "correlation": i + 1}})
    path = os.path.join(tmp, "late-many.json")
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events, "baseTimeNanoseconds": base}, f)
    db = os.path.join(tmp, "late-many.db")
    check("late base, 45 kernels: ingest exits 0", ingest(path, db).returncode, 0)
    con = sqlite3.connect(db)
    check("late base, 45 kernels: every kernel shifted once",
          con.execute("SELECT start_ns - 1003000 - 10000 * (correlation_id - 1) FROM kernels ORDER BY rowid").fetchall(),
          [(base,)] * 45)
    check("late base, 45 calls: every call shifted once",
          con.execute("SELECT start_ns - 1000000 - 10000 * (correlation_id - 1) FROM api_calls ORDER BY rowid").fetchall(),
          [(base,)] * 45)
    con.close()
    check("late base, 45 kernels: from chunks as from rows", analyze("kernexec", db) and
          sorted((r["name"], r["calls"], r["launched"]) for r in analyze("kernexec", db)["kernexec"]),
          [("k0", 15, 15), ("k1", 15, 15), ("k2", 15, 15)])


def step_trace(path, host_us, kernel_us):
    """A tiny trace written here: ProfilerStep#6 as a host range (user_annotation, thread 100) and as a
    GPU annotation (gpu_user_annotation, stream 7) over the kernels thread 100 launched inside it, back to
    back from t = 1010 us. Returns what ranges must say per (path, style): count, total, gpu, kernels,
    window, window kernels (ns)."""
    k0 = 1010
    events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#6", "pid": 1, "tid": 100, "ts": 1000,
               "dur": host_us, "args": {}},
              {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#6", "pid": 0, "tid": 7, "ts": k0,
               "dur": sum(kernel_us), "args": {"device": 0}}]
    for i, d in enumerate(kernel_us):
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 100,
                       "ts": 1001 + i, "dur": 1, "args": {"correlation": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": k0, "dur": d,
                       "args": {"device": 0, "stream": 7, "correlation": i + 1}})
        k0 += d
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events}, f)
    k = (1000 * sum(kernel_us), len(kernel_us))
    return {("ProfilerStep#6", "PushPop"): (1, 1000 * host_us) + k + k,
            ("ProfilerStep#6", "GPU"): (1, 1000 * sum(kernel_us)) + k + k}


def profiler_steps(tmp):
    """Issue #15: a host range and a GPU annotation of one name are two rows in ranges, compare_ranges and
    the report, each with its own count and totals, in JSON and text."""
    base, new = os.path.join(tmp, "step-base.db"), os.path.join(tmp, "step-new.db")
    want = {}
    for db, host, kern in ((base, 500, (100, 50)), (new, 600, (120, 80))):
        want[db] = step_trace(db + ".json", host, kern)
        check(f"step trace {os.path.basename(db)} ingests", ingest(db + ".json", db).returncode, 0)
        got = {(r["path"], r["style"]): (r["count"], r["total_ns"], r["gpu_ns"], r["kernels"], r.get("window_gpu_ns"),
                                          r.get("window_kernels")) for r in analyze("ranges", db)}
        tag = f"step trace {os.path.basename(db)}"
        check(f"{tag}: ranges, a row per style", got, want[db])
        doc = json.loads(program("gpuprof-report", db, "--format", "json"))
        check(f"{tag}: report json", sorted((r["path"], r["style"], r["count"], r["total_ns"])
                                            for r in doc["tables"]["ranges"]),
              sorted(k + v[:2] for k, v in want[db].items()))
        text = program("gpuprof-analyze", "ranges", db)
        lines = [ln.split() for ln in text.splitlines() if "ProfilerStep#6" in ln]
        check(f"{tag}: text, a line per style", sorted(ln[-3] for ln in lines), ["GPU", "PushPop"])
        ok(f"{tag}: text explains the window", "Window: by any thread of its process" in text, text[:300])
    html = os.path.join(tmp, "step.html")
    program("gpuprof-report", new, "--format", "html", "-o", html)
    with open(html, encoding="utf-8") as f:
        section = f.read().split('<section id="t-ranges">', 1)[-1].split("</section>", 1)[0]
    ok("step trace: html explains the window", '<p class="note">GPU time: kernels launched by' in section, section[:300])
    rows = [row for row in section.split("<tr>") if "ProfilerStep#6" in row]
    check("step trace: html, a row per style",
          sorted(st for st in ("PushPop", "GPU") for row in rows if f'<td class="txt">{st}</td>' in row),
          ["GPU", "PushPop"])
    doc = analyze("compare", new, "--baseline", base)
    got = {(r["name"], r.get("style")): (r["base_calls"], r["new_calls"], r["base_total_ns"], r["new_total_ns"])
           for r in doc["compare_ranges"]}
    check("step traces: compare_ranges, a row per style", got,
          {k: (want[base][k][0], want[new][k][0], want[base][k][1], want[new][k][1]) for k in want[new]})
    doc = json.loads(program("gpuprof-report", new, "--baseline", base, "--format", "json"))
    check("step traces: report --baseline json compare_ranges", sorted((r["name"], r.get("style"), r["new_total_ns"])
          for r in doc["tables"]["compare_ranges"]), sorted(k + (v[1],) for k, v in want[new].items()))
    text = program("gpuprof-analyze", "compare", new, "--baseline", base)
    part = text[text.index("NVTX ranges against the baseline"):]
    check("step traces: compare text, a line per style",
          sorted(ln.split()[-2] for ln in part.splitlines() if ln.endswith("ProfilerStep#6")), ["GPU", "PushPop"])


def main():
    tmp = tempfile.mkdtemp(prefix="gpuprof-kineto-")
    try:
        layouts(tmp)
        unreadable_events(tmp)
        one_session(tmp)
        own_export(tmp)
        deep_nesting(tmp)
        migrate(tmp)
        profiler_steps(tmp)
        late_base_many(tmp)
        if not os.path.isdir(TRACES):
            print("traces_kineto: real traces skipped: ../shared/traces not found")
            return checks.summary("traces_kineto")
        for f in sorted(os.listdir(TRACES)):
            if f.endswith(".json.gz"):
                one(tmp, os.path.join(TRACES, f))
        corrupt(tmp)
        rocm_memory(tmp)
        merge(tmp)
        late_base_hosts(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("traces_kineto")


if __name__ == "__main__":
    sys.exit(main())
