#!/usr/bin/env python3
"""The launch and classes analyses against answers computed here, with the standard library only:
- occupancy: hand-computed cases on a hand-built session (A100, V100, Turing, GA10x, Ada, Hopper, unknown
  devices), and NVIDIA's occupancy rules re-implemented in Python for every configuration of the other
  sessions;
- launch: configurations, calls and total time per name equal a GROUP BY over session.db done in Python,
  sorted by total time, with --top, --match and --exclude;
- classes: the rules file (analyze/kernel-classes.rules) parsed and applied with Python's `re`, class
  totals summed, busy time, pairwise overlap and the union of all kernels computed by a per-device sweep,
  on gpuprof-synth sessions and on real traces (../shared/traces, skipped with the reason when absent);
- broken rules files (GPUPROF_CLASS_RULES) fail with exit status 4 and a message naming the rule."""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
from collections import defaultdict

import checks
from checks import BIN, ROOT, TRACES, check, close, ok

RULES = os.path.join(ROOT, "analyze", "kernel-classes.rules")


def run(*args, env=None):
    return subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), capture_output=True, text=True,
                          env=env)


def analyze(name, db, *extra, env=None):
    r = run("gpuprof-analyze", name, db, "--format", "json", *extra, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"gpuprof-analyze {name} {db} {' '.join(extra)}: exit {r.returncode}: {r.stderr}")
    return json.loads(r.stdout)


def ingest(src, db):
    r = run("gpuprof-ingest", "-q", src, "-o", db)
    if r.returncode != 0:
        raise RuntimeError(f"gpuprof-ingest {src}: exit {r.returncode}: {r.stderr}")


# ---------------------------------------------------------------------------------------------------
# Occupancy: NVIDIA's rules (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor), written anew.

# (major, minor) -> (max resident blocks per SM, shared-memory allocation unit, reserved smem per block)
ARCH = {(7, 0): (32, 256, 0), (7, 2): (32, 256, 0), (7, 5): (16, 256, 0), (8, 0): (32, 128, 1024),
        (8, 6): (16, 128, 1024), (8, 7): (16, 128, 1024), (8, 9): (24, 128, 1024), (9, 0): (32, 128, 1024),
        (10, 0): (32, 128, 1024), (10, 3): (32, 128, 1024), (11, 0): (24, 128, 1024),
        (12, 0): (24, 128, 1024), (12, 1): (24, 128, 1024)}


def occupancy(dev, threads, regs, smem):
    """(percent or None, limiter) for a block of `threads` threads on device dev =
    (cc_major, cc_minor, max_threads_per_sm, max_regs_per_sm, max_smem_per_sm), or dev None."""
    if dev is None or (dev[0], dev[1]) not in ARCH or not dev[2] or not dev[3] or not dev[4] \
            or dev[2] < 32 or threads is None or threads <= 0 or regs is None or smem is None:
        return None, "unknown"
    max_blocks, unit, reserved = ARCH[(dev[0], dev[1])]
    max_warps = dev[2] // 32
    wpb = -(-threads // 32)
    inf = float("inf")
    lim_warps = 0 if threads > 1024 else max_warps // wpb
    per_warp = -(-regs * 32 // 256) * 256
    if regs > 256 or per_warp * (-(-wpb // 4) * 4) > 65536:
        lim_regs = 0
    elif per_warp == 0:
        lim_regs = inf
    else:
        lim_regs = (dev[3] // 4 // per_warp) * 4 // wpb
    alloc = -(-(smem + reserved) // unit) * unit
    lim_smem = inf if alloc == 0 else 0 if alloc > dev[4] else dev[4] // alloc
    limits = [("warps", lim_warps), ("registers", lim_regs), ("shared memory", lim_smem), ("blocks", max_blocks)]
    active = min(v for _, v in limits)
    return 100.0 * active * wpb / max_warps, "+".join(n for n, v in limits if v == active)


def new_db(path):
    """An empty session.db with the real schema and one session."""
    con = sqlite3.connect(path)
    with open(os.path.join(ROOT, "schemas", "session.sql")) as f:
        con.executescript(f.read())
    con.execute("INSERT INTO sessions (id, uuid, source, ingested_at) VALUES (1, 'hand-made', 'ndjson', 'now')")
    return con


# Hand-computed: device, block threads, registers, static smem, dynamic smem -> occupancy %, limiter.
A100 = (8, 0, 2048, 65536, 167936)
HAND = [
    # 8 warps a block: 64/8 = 8 blocks by warps; 32 regs = 1024 a warp, 16 warps per quarter -> 64 -> 8.
    ("a100 256x32", A100, (256, 1, 1), 32, 0, 0, 100.0, "warps+registers"),
    # 128 regs = 4096 a warp: 4 warps per quarter, 16 warps, 2 blocks of 8 warps: 16/64.
    ("a100 256x128", A100, (256, 1, 1), 128, 0, 0, 25.0, "registers"),
    # 1024 threads, 64 regs = 2048 a warp: 8 per quarter, 32 warps = 1 block; 48 KB smem + 1 KB fit 3.
    ("a100 1024x64 48K", A100, (1024, 1, 1), 64, 49152, 0, 50.0, "registers"),
    # 1024 threads at 32 regs and 48 KB: warps 2, regs 2, smem 167936 / 50176 = 3 -> 2 blocks, 100 %.
    ("a100 1024x32 48K", A100, (1024, 1, 1), 32, 49152, 0, 100.0, "warps+registers"),
    # 64 KB dynamic + 1 KB reserve = 66560: 2 blocks of 4 warps = 8/64.
    ("a100 128 64K dyn", A100, (128, 1, 1), 32, 0, 65536, 12.5, "shared memory"),
    # 40000 + 1024 rounded up to 128 = 41088: 4 blocks of 4 warps.
    ("a100 128 40000", A100, (128, 1, 1), 32, 40000, 0, 25.0, "shared memory"),
    # one warp a block: 32 blocks at most, 32/64.
    ("a100 32x16", A100, (32, 1, 1), 16, 0, 0, 50.0, "blocks"),
    # 72 regs = 2304 a warp x 32 warps > 65536 registers a block: cannot run.
    ("a100 1024x72", A100, (1024, 1, 1), 72, 0, 0, 0.0, "registers"),
    # 3 warps, 40 regs = 1280 a warp: 12 per quarter, 48 warps, 16 blocks = 48/64.
    ("a100 96x40", A100, (96, 1, 1), 40, 0, 0, 75.0, "registers"),
    # 3-D block of 8x8x4 = 256 threads, as 256x32.
    ("a100 8x8x4", A100, (8, 8, 4), 32, 0, 0, 100.0, "warps+registers"),
    # V100: 256-byte units, no reserve: 40000 -> 40192, 98304 / 40192 = 2 blocks of 4 warps.
    ("v100 128 40000", (7, 0, 2048, 65536, 98304), (128, 1, 1), 32, 40000, 0, 12.5, "shared memory"),
    # Turing: 16 blocks, 32 warps.
    ("t4 32x16", (7, 5, 1024, 65536, 65536), (32, 1, 1), 16, 0, 0, 50.0, "blocks"),
    # GA10x: 48 warps: 6 blocks of 8 warps by warps and registers... registers give 8: warps limit.
    ("ga10x 256x32", (8, 6, 1536, 65536, 102400), (256, 1, 1), 32, 0, 0, 100.0, "warps"),
    ("ga10x 64x32", (8, 6, 1536, 65536, 102400), (64, 1, 1), 32, 0, 0, 200.0 / 3, "blocks"),
    # Ada: 24 blocks of 2 warps = 48 warps, warps and blocks both bind.
    ("ada 64x32", (8, 9, 1536, 65536, 102400), (64, 1, 1), 32, 0, 0, 100.0, "warps+blocks"),
    # Hopper: 168 regs = 5376 a warp, 3 per quarter = 12 warps = 1 block; 200 KB + 1 KB: 1 block.
    ("h100 384x168 200K", (9, 0, 2048, 65536, 233472), (384, 1, 1), 168, 0, 204800, 18.75,
     "registers+shared memory"),
    # Unknown: properties all 0 (nsys exports), an architecture not in the table, a block of 0 threads.
    ("unknown props", (0, 0, 0, 0, 0), (256, 1, 1), 32, 0, 0, None, "unknown"),
    ("unknown cc 5.2", (5, 2, 2048, 65536, 98304), (256, 1, 1), 32, 0, 0, None, "unknown"),
    ("unknown block", A100, (0, 0, 0), 32, 0, 0, None, "unknown"),
]


def occupancy_cases(tmp):
    db = os.path.join(tmp, "occupancy.db")
    con = new_db(db)
    devs = {}
    for i, (name, dev, block, regs, ss, ds, pct, lim) in enumerate(HAND, 1):
        if dev not in devs:
            devs[dev] = len(devs)
            con.execute("""INSERT INTO devices (session_id, pid, id, cc_major, cc_minor, max_threads_per_sm,
                           max_regs_per_sm, max_smem_per_sm) VALUES (1, 0, ?, ?, ?, ?, ?, ?)""", (devs[dev],) + dev)
        con.execute("INSERT INTO strings VALUES (1, ?, ?)", (i, name))
        con.execute("""INSERT INTO kernels (session_id, pid, start_ns, end_ns, device_id, name_id, grid_x, grid_y,
                       grid_z, block_x, block_y, block_z, registers, static_smem, dynamic_smem)
                       VALUES (1, 42, ?, ?, ?, ?, 1, 1, 1, ?, ?, ?, ?, ?, ?)""",
                    (1000 * i, 1000 * i + 100 * i, devs[dev], i) + block + (regs, ss, ds))
    # Device 99 has a row for pid 42 (an A100) and one for pid 0 (unknown): the process's own row wins.
    con.execute("""INSERT INTO devices (session_id, pid, id, cc_major, cc_minor, max_threads_per_sm, max_regs_per_sm,
                   max_smem_per_sm) VALUES (1, 42, 99, 8, 0, 2048, 65536, 167936), (1, 0, 99, 0, 0, 0, 0, 0)""")
    n = len(HAND)
    con.execute("INSERT INTO strings VALUES (1, ?, 'own device row')", (n + 1,))
    con.execute("INSERT INTO strings VALUES (1, ?, 'no device row')", (n + 2,))
    con.execute("""INSERT INTO kernels (session_id, pid, start_ns, end_ns, device_id, name_id, grid_x, grid_y, grid_z,
                   block_x, block_y, block_z, registers, static_smem, dynamic_smem) VALUES
                   (1, 42, 0, 7, 99, ?, 1, 1, 1, 256, 1, 1, 128, 0, 0),
                   (1, 42, 0, 5, 123, ?, 1, 1, 1, 256, 1, 1, 32, 0, 0)""", (n + 1, n + 2))
    con.commit()
    con.close()

    rows = {r["name"]: r for r in analyze("launch", db)}
    for name, dev, block, regs, ss, ds, pct, lim in HAND:
        r = rows.get(name, {})
        got = (r.get("occupancy_pct"), r.get("limiter"))
        if pct is None:
            check(f"occupancy {name} (hand)", got, (None, lim))
        else:
            close(f"occupancy {name} % (hand)", got[0] if got[0] is not None else -1.0, pct, 1e-12)
            check(f"occupancy {name} limiter (hand)", got[1], lim)
        py = occupancy(dev, block[0] * block[1] * block[2], regs, ss + ds)
        check(f"occupancy {name} (Python rules agree with the hand computation)", py, (pct, lim))
    check("occupancy: a process's own device row wins over pid 0",
          (rows["own device row"]["occupancy_pct"], rows["own device row"]["limiter"]), (25.0, "registers"))
    check("occupancy: kernel on an undeclared device", (rows["no device row"]["occupancy_pct"],
                                                         rows["no device row"]["limiter"]), (None, "unknown"))
    check("launch keys", sorted(next(iter(rows.values()))),
          sorted("name grid_x grid_y grid_z block_x block_y block_z registers static_smem dynamic_smem shared_mem "
                 "calls total_ns occupancy_pct limiter".split()))


# ---------------------------------------------------------------------------------------------------
# Launch configurations from session.db, grouped in Python.

def device_props(con):
    props = {}
    for pid, did, *p in con.execute("""SELECT pid, id, cc_major, cc_minor, max_threads_per_sm, max_regs_per_sm,
                                       max_smem_per_sm FROM devices WHERE session_id = 1"""):
        props[(pid, did)] = tuple(x or 0 for x in p)
    return props


def expected_launch(db, keep=lambda name: True):
    con = sqlite3.connect(db)
    props = device_props(con)
    groups = defaultdict(lambda: [0, 0])
    for row in con.execute("""SELECT s.value, k.pid, k.device_id, k.grid_x, k.grid_y, k.grid_z, k.block_x,
                              k.block_y, k.block_z, k.registers, k.static_smem, k.dynamic_smem,
                              coalesce(k.shared_mem, k.static_smem + k.dynamic_smem),
                              k.end_ns - k.start_ns FROM kernels k JOIN strings s
                              ON s.session_id = k.session_id AND s.id = k.name_id WHERE k.session_id = 1"""):
        name, pid, did, cfg, dur = row[0], row[1], row[2], row[3:13], row[13]
        if not keep(name):
            continue
        dev = props.get((pid, did), props.get((0, did)))
        g = groups[(name,) + tuple(cfg) + (dev,)]
        g[0] += 1
        g[1] += dur
    con.close()
    out = []
    for key, (calls, total) in groups.items():
        name, cfg, dev = key[0], key[1:11], key[11]
        b = cfg[3:6]
        threads = b[0] * b[1] * b[2] if None not in b else None
        smem = cfg[9]  # the total: static + dynamic, or what a source gives without its parts
        pct, lim = occupancy(dev, threads, cfg[6], smem)
        out.append((name,) + tuple(cfg) + (calls, total, pct, lim))
    return sorted(out)


def got_launch(rows):
    keys = ("name grid_x grid_y grid_z block_x block_y block_z registers static_smem dynamic_smem shared_mem calls "
            "total_ns occupancy_pct limiter").split()
    return sorted(tuple(r[k] for k in keys) for r in rows)


def launch_checks(tag, db):
    rows = analyze("launch", db)
    want = expected_launch(db)
    got = got_launch(rows)
    check(f"{tag} launch: configurations", len(got), len(want))
    same = [g == w for g, w in zip(got, want)]
    ok(f"{tag} launch: configurations, calls, totals and occupancy equal Python", got == want,
       f"first difference: got {next((g for g, s in zip(got, same) if not s), None)}, "
       f"want {next((w for w, s in zip(want, same) if not s), None)}")
    totals = [r["total_ns"] for r in rows]
    check(f"{tag} launch: sorted by total time", totals, sorted(totals, reverse=True))
    check(f"{tag} launch: calls add up to the kernels", sum(r["calls"] for r in rows),
          sqlite3.connect(db).execute("SELECT count(*) FROM kernels").fetchone()[0])
    check(f"{tag} launch --top 3", analyze("launch", db, "--top", "3"), rows[:3])
    return rows


# ---------------------------------------------------------------------------------------------------
# Classes: the rules in Python, and a sweep per device.

def load_rules(path):
    """[(class, compiled pattern)], the class order, and [(line, class, rule index, sample)]."""
    rules, order, samples = [], ["compute"], []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n").rstrip(" \t\r")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            kw, cls, rest = line.split(None, 2)
            if cls not in order:
                order.append(cls)
            if kw == "class":
                rules.append((cls, re.compile(rest)))
            else:
                samples.append((n, cls, len(rules) - 1, rest))
    return rules, order, samples


def classify(rules, name):
    for cls, pat in rules:
        if pat.search(name):
            return cls
    return "compute"


def merged(spans):
    out = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(m):
    return sum(e - s for s, e in m)


def intersection(a, b):
    i = j = total = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, e - s)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def expected_classes(db, rules, order, keep=lambda name: True):
    con = sqlite3.connect(db)
    kernels = con.execute("""SELECT k.device_id, k.start_ns, k.end_ns, s.value FROM kernels k JOIN strings s
                             ON s.session_id = k.session_id AND s.id = k.name_id WHERE k.session_id = 1""").fetchall()
    con.close()
    cache = {}
    per = defaultdict(lambda: defaultdict(list))
    every = defaultdict(list)
    count, total = defaultdict(int), defaultdict(int)
    for dev, s, e, name in kernels:
        every[dev].append((s, e))
        if not keep(name):
            continue
        cls = cache.get(name) or cache.setdefault(name, classify(rules, name))
        per[dev][cls].append((s, e))
        count[cls] += 1
        total[cls] += e - s
    base = sum(length(merged(v)) for v in every.values())
    rows = []
    busy = {c: sum(length(merged(per[d][c])) for d in per) for c in order}
    for c in order:
        rows.append((c, count[c], total[c], busy[c]))
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            rows.append((f"{a}+{b}", None, None, sum(intersection(merged(per[d][a]), merged(per[d][b])) for d in per)))
    rows.append(("all", sum(count.values()), sum(total.values()),
                 sum(length(merged([x for c in per[d] for x in per[d][c]])) for d in per)))
    return rows, base


def classes_checks(tag, db, rules, order, *extra, keep=lambda name: True, env=None):
    got = analyze("classes", db, *extra, env=env)
    want, base = expected_classes(db, rules, order, keep)
    check(f"{tag} classes: rows", [r["class"] for r in got], [w[0] for w in want])
    check(f"{tag} classes: kernels, total, busy",
          [(r["class"], r["kernels"], r["total_ns"], r["kernel_busy_ns"]) for r in got], want)
    for r, w in zip(got, want):
        if base:
            close(f"{tag} classes: {r['class']} pct", r["pct"], 100.0 * w[3] / base)
    return got


# ---------------------------------------------------------------------------------------------------

def rules_file_checks(tmp, db):
    """Every sample of the built-in rules is classified by its own class in Python too, and broken rule
    files make the analysis fail with exit status 4 and a message naming the rule."""
    rules, order, samples = load_rules(RULES)
    ok("built-in rules: at least one rule per class communication, memory",
       {"communication", "memory"} <= {c for c, _ in rules}, str(order))
    for i in range(len(rules)):
        ok(f"built-in rules: rule {i + 1} has a sample", any(s[2] == i for s in samples), rules[i][1].pattern)
    for line, cls, rule, name in samples:
        ok(f"built-in rules: line {line} matched by its own rule (Python re)", rules[rule][1].search(name), name)
        check(f"built-in rules: line {line} classified as {cls} (Python re)", classify(rules, name), cls)

    def broken(name, text, *want):
        path = os.path.join(tmp, name + ".rules")
        with open(path, "w") as f:
            f.write(text)
        r = run("gpuprof-analyze", "classes", db, env=dict(os.environ, GPUPROF_CLASS_RULES=path))
        check(f"broken rules ({name}): exit status 4", r.returncode, 4)
        check(f"broken rules ({name}): nothing on stdout", r.stdout, "")
        for w in want:
            ok(f"broken rules ({name}): message says {w!r}", w in r.stderr, r.stderr)
        ok(f"broken rules ({name}): one error line", r.stderr.count("\n") == 1 and
           r.stderr.startswith("gpuprof-analyze: error: "), r.stderr)

    broken("no-match", "# x\nclass communication ^nccl\nsample communication ncclKernel_AllReduce\n\n"
           "class memory ^Memcpy\nsample memory cudaMemcpyAsync\n",
           "no-match.rules:6:", "rule 'memory ^Memcpy' (line 5) does not match its sample 'cudaMemcpyAsync'")
    broken("taken-first", "class compute gemm\nsample compute void gemm<float>()\n"
           "class communication ncclKernel\nsample communication ncclKernel_gemm_fused\n",
           "taken-first.rules:4:", "sample 'ncclKernel_gemm_fused' of rule 'communication ncclKernel' (line 3)",
           "taken first by rule 'compute gemm' (line 1)")
    # A long pattern is cut to 80 bytes in every place a message names a rule, the rule taking first too.
    long_pat = "gemm|" + "x" * 100
    broken("taken-first-long", f"class compute {long_pat}\nsample compute void gemm<float>()\n"
           "class communication ncclKernel\nsample communication ncclKernel_gemm_fused\n",
           "taken-first-long.rules:4:", f"taken first by rule 'compute {long_pat[:77]}...' (line 1)")
    broken("no-sample", "class memory ^Memset\n", "no-sample.rules:1:", "rule 'memory ^Memset' has no sample")
    broken("bad-regex", "class memory (Memcpy\nsample memory Memcpy\n", "bad-regex.rules:1:",
           "bad regular expression '(Memcpy'")
    broken("sample-first", "sample memory Memcpy\n", "sample-first.rules:1:", "sample before any class rule")
    broken("other-class", "class memory ^M\nsample compute Memcpy\n", "other-class.rules:2:",
           "sample of class 'compute' follows a rule of class 'memory'")
    broken("unknown-word", "klass memory ^M\n", "unknown-word.rules:1:", "unknown directive 'klass'")
    r = run("gpuprof-analyze", "classes", db, env=dict(os.environ, GPUPROF_CLASS_RULES=os.path.join(tmp, "none")))
    check("missing rules file: exit status 4", r.returncode, 4)
    ok("missing rules file: message names it", "cannot read class rules" in r.stderr and "none" in r.stderr,
       r.stderr)

    # A rules file of one's own, with a class of its own, through the same variable.
    path = os.path.join(tmp, "own.rules")
    with open(path, "w") as f:
        f.write("class gemm\tgemm|cutlass  \nsample gemm ampere_sgemm_128x64_tn\n"
                "class communication ^nccl\nsample communication ncclDevKernel_SendRecv(x)\n")
    own_rules, own_order, _ = load_rules(path)
    got = classes_checks("own rules", db, own_rules, own_order, env=dict(os.environ, GPUPROF_CLASS_RULES=path))
    check("own rules: classes in order", [r["class"] for r in got][:3], ["compute", "gemm", "communication"])


def synth_checks(tmp):
    d = os.path.join(tmp, "synth")
    r = run("gpuprof-synth", "--kernels", "30000", "--seed", "5", "-o", d)
    check("gpuprof-synth runs", r.returncode, 0)
    db = os.path.join(tmp, "synth.db")
    ingest(d, db)
    rules, order, _ = load_rules(RULES)
    tag = "synth"
    rows = launch_checks(tag, db)
    ok(f"{tag} launch: occupancy known (H100 properties)", all(r["occupancy_pct"] is not None for r in rows),
       str([r for r in rows if r["occupancy_pct"] is None][:1]))
    m = "gemm|cutlass"
    check(f"{tag} launch --match", got_launch(analyze("launch", db, "--match", m)),
          expected_launch(db, lambda n: re.search(m, n) is not None))
    check(f"{tag} launch --exclude", got_launch(analyze("launch", db, "--exclude", m)),
          expected_launch(db, lambda n: re.search(m, n) is None))

    got = classes_checks(tag, db, rules, order)
    by = {r["class"]: r for r in got}
    ok(f"{tag} classes: every class has kernels", all(by[c]["kernels"] > 0 for c in order), str(got))
    ok(f"{tag} classes: compute and communication overlap", by["compute+communication"]["kernel_busy_ns"] > 0, str(got))
    summary = analyze("summary", db)[0]
    check(f"{tag} classes: 'all' equals summary's busy time and kernels",
          (by["all"]["kernel_busy_ns"], by["all"]["kernels"], by["all"]["total_ns"]),
          (summary["kernel_busy_ns"], summary["kernels"], summary["kernel_ns"]))
    close(f"{tag} classes: 'all' is 100 %", by["all"]["pct"], 100.0)
    x = "^nccl"
    classes_checks(f"{tag} --exclude {x}", db, rules, order, "--exclude", x, keep=lambda n: re.search(x, n) is None)
    m = "Copy|Fill|nccl"
    classes_checks(f"{tag} --match {m}", db, rules, order, "--match", m, keep=lambda n: re.search(m, n) is not None)
    return db


def shuffled_checks(tmp):
    """Kernels in random order over a wide time range (the radix sort), enough of one class to outgrow
    a heap list (the mapped lists), with empty, inverted and touching intervals."""
    import random
    rnd = random.Random(11)
    db = os.path.join(tmp, "shuffled.db")
    con = new_db(db)
    names = ["gemm_kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "Memset (Device)",
             "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
             "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"]
    con.executemany("INSERT INTO strings VALUES (1, ?, ?)", [(i + 1, n) for i, n in enumerate(names)])
    t0 = 1_700_000_000_000_000_000
    rows = []
    for i in range(230000):
        name = 1 if i < 200000 else rnd.randint(2, 4)
        if rnd.random() < 0.5:
            start = t0 + rnd.randrange(0, 1 << 52)
            dur = rnd.randrange(0, 1 << 36)
        else:
            start = t0 + rnd.randrange(0, 50_000_000)
            dur = rnd.choice([0, -5, rnd.randrange(1, 20_000), 1000])
        rows.append((start, start + dur, 0 if name == 1 else rnd.randint(0, 2), name))
    rnd.shuffle(rows)
    con.executemany("""INSERT INTO kernels (session_id, pid, start_ns, end_ns, device_id, name_id)
                       VALUES (1, 1, ?, ?, ?, ?)""", rows)
    con.commit()
    con.close()
    rules, order, _ = load_rules(RULES)
    classes_checks("shuffled", db, rules, order)
    classes_checks("shuffled --exclude gemm", db, rules, order, "--exclude", "gemm",
                   keep=lambda n: "gemm" not in n)


def trace_checks(tmp):
    if not os.path.isdir(TRACES):
        print(f"skipped real traces: {os.path.normpath(TRACES)} is absent")
        return
    rules, order, _ = load_rules(RULES)
    for rel in ("kineto/a100_nccl.json.gz", "kineto/v100_test.json.gz", "nsys/h100_2gpu_1s.sqlite",
                "nsys/a100x4_cloverleaf.sqlite"):
        src = os.path.join(TRACES, rel)
        if not os.path.exists(src):
            print(f"skipped {rel}: absent")
            continue
        db = os.path.join(tmp, os.path.basename(rel) + ".db")
        ingest(src, db)
        tag = os.path.basename(rel)
        launch_checks(tag, db)
        got = classes_checks(tag, db, rules, order)
        if rel.endswith("a100_nccl.json.gz"):
            by = {r["class"]: r for r in got}
            ok(f"{tag}: NCCL kernels are communication", by["communication"]["kernels"] > 0, str(got))
            ok(f"{tag}: communication overlaps compute", by["compute+communication"]["kernel_busy_ns"] > 0, str(got))
            ok(f"{tag}: copies and fills are memory", by["memory"]["kernels"] > 0, str(got))
        if rel.startswith("nsys/h100"):
            ok(f"{tag}: devices without properties give occupancy unknown",
               all(r["occupancy_pct"] is None and r["limiter"] == "unknown" for r in analyze("launch", db)), "")


def main():
    with tempfile.TemporaryDirectory(prefix="gpuprof-launch-classes-") as tmp:
        occupancy_cases(tmp)
        db = synth_checks(tmp)
        rules_file_checks(tmp, db)
        shuffled_checks(tmp)
        trace_checks(tmp)
    return checks.summary("analyses_launch_classes")


if __name__ == "__main__":
    sys.exit(main())
