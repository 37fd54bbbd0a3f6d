#!/usr/bin/env python3
"""compare and trend (CI mode), checked against values computed here in Python: a planted pair of wire-format
sessions written by this test, with kernels, NVTX ranges and copies (statuses of all three tables at several
thresholds, --min-delta, --min-calls, the --fail-on-regression gate and its verdict line, also when only a
range or only a copy kind regressed), two sessions in one database, a planted trend step, the report's
comparison sections, and real trace pairs from ../shared/traces (kernel totals and calls against the session
databases' kernels tables; per copy kind and per NVTX path totals against sums read straight from the nsys
exports)."""
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

import checks
from checks import BIN, TRACES, check, ok, range_name

US = 1000
KFIELDS = ["device", "context", "stream", "correlation", "mangled", "grid_x", "grid_y", "grid_z", "block_x", "block_y",
           "block_z", "cluster_x", "cluster_y", "cluster_z", "registers", "static_smem", "dynamic_smem", "local_mem",
           "graph_id", "graph_node"]

# name -> (base durations, new durations); None = absent on that side.
PLANT = {
    "kernel_A": ([90 * US, 100 * US, 110 * US, 100 * US, 100 * US], [108 * US, 120 * US, 132 * US, 120 * US, 120 * US]),
    "kernel_B": ([1000 * US] * 4, [1020 * US] * 4),
    "kernel_C": (None, [50 * US] * 3),
    "kernel_D": ([30 * US] * 2, None),
    "kernel_E": ([200 * US, 210 * US, 190 * US], [200 * US, 210 * US, 190 * US]),
    "kernel_F": ([500 * US] * 2, [400 * US] * 2),
}


# Per-iteration durations of the planted NVTX ranges (us), base and new; None = absent on that side. Laid out
# on one thread by layout(): step [forward [attention] backward optimizer|loss], and data_wait, a start/end
# range that begins inside forward and ends after the step (a prefetch for the next one).
RANGES_BASE = {"step": [3000, 3100, 2900, 3000], "forward": [1000] * 4, "attention": [90, 100, 110, 100],
               "backward": [1000] * 4, "optimizer": [200] * 4, "loss": None, "data_wait": [3000, 3090, 2950, 3010]}
RANGES_NEW = dict(RANGES_BASE, attention=[108, 120, 132, 120], backward=[1020] * 4, optimizer=None, loss=[50] * 4)
PATHS = {"step": "step", "forward": "step/forward", "attention": "step/forward/attention",
         "backward": "step/backward", "optimizer": "step/optimizer", "loss": "step/loss", "data_wait": "data_wait"}

# Copies: label -> (CUPTI copy kind, -1 for memset; base (durations us, bytes each); new (...)); None = absent.
COPY_KIND = {"HtoD": 1, "DtoH": 2, "DtoD": 8, "PtoP": 10, "memset": -1}
COPIES_BASE = {"HtoD": ([50] * 4, 1 << 20), "DtoH": ([20, 22, 18], 4096), "DtoD": ([10] * 2, 1 << 16),
               "memset": ([5, 5], 256)}
COPIES_NEW = {"HtoD": ([65] * 4, 1 << 20), "DtoH": ([20, 22, 18], 8192), "PtoP": ([30] * 2, 1 << 18),
              "memset": ([6, 6], 256)}


def layout(durs):
    """[(name, kind, start, end, depth)] of the planted ranges (durations in us, per iteration) and the
    path -> durations (ns) they make, known from the layout itself."""
    out, paths, t = [], defaultdict(list), 10 * US
    for i in range(len(durs["step"])):
        d = {k: (v[i] * US if v else None) for k, v in durs.items()}
        fwd = t + 10 * US
        att = fwd + 10 * US
        bwd = fwd + d["forward"] + 10 * US
        tail = bwd + d["backward"] + 10 * US
        assert att + d["attention"] < fwd + d["forward"]
        spans = [("step", 1, t, t + d["step"], 0), ("forward", 1, fwd, fwd + d["forward"], 1),
                 ("attention", 1, att, att + d["attention"], 2), ("backward", 1, bwd, bwd + d["backward"], 1)]
        for name in ("optimizer", "loss"):
            if d[name]:
                assert tail + d[name] < t + d["step"]
                spans.append((name, 1, tail, tail + d[name], 1))
        wait = att + US
        assert wait < bwd and wait + d["data_wait"] > t + d["step"]
        spans.append(("data_wait", 2, wait, wait + d["data_wait"], None))
        for span in spans:
            out.append(span)
            paths[PATHS[span[0]]].append(span[3] - span[2])
        t = max(span[3] for span in spans) + 50 * US
    return out, dict(paths)


def wire(path, session, origin, kernels, ranges=(), copies=None):
    """A tiny wire-format file: header, strings, a kernel batch, then (when given) a range batch (ranges:
    [(name, kind, start, end, depth)], one thread, kind 1 push/pop, 2 start/end) and memcpy and memset batches
    (copies: label -> (durations us, bytes each)), end. kernels: name -> durations."""
    names = sorted(set(kernels) | {r[0] for r in ranges})
    ids = {n: i + 1 for i, n in enumerate(names)}
    rows = [(n, d) for n in sorted(kernels) for d in kernels[n]]
    start, t = [], 1000
    for _, d in rows:
        start.append(t)
        t += d + 500
    batch = {"type": "kernel", "v": 1, "seq": 0, "n": len(rows), "start": start,
             "end": [s + d for s, (_, d) in zip(start, rows)], "name": [ids[n] for n, _ in rows]}
    for f in KFIELDS:
        batch[f] = [0] * len(rows)
    batch["grid_x"] = batch["block_x"] = [1] * len(rows)
    lines = [{"type": "header", "v": 1, "session": session, "pid": 4242, "engine": "synthetic",
              "origin_ns": str(origin), "clock": "realtime"},
             {"type": "strings", "v": 1, "ids": [ids[n] for n in names], "values": names},
             batch]
    totals, batches = {"kernel": len(rows)}, {"kernel": 1}
    if ranges:
        n = len(ranges)
        lines.append({"type": "range", "v": 1, "seq": 0, "n": n, "start": [r[2] for r in ranges],
                      "end": [r[3] for r in ranges], "thread": [4242] * n, "name": [ids[r[0]] for r in ranges],
                      "domain": [0] * n, "kind": [r[1] for r in ranges], "depth": [r[4] for r in ranges],
                      "id": list(range(1, n + 1))})
        totals["range"], batches["range"] = n, 1
        t = max(t, max(r[3] for r in ranges))
    mc, ms = defaultdict(list), defaultdict(list)
    for label, (durs, nbytes) in sorted((copies or {}).items()):
        for d in durs:
            rec = ms if label == "memset" else mc
            for k, v in (("start", t), ("end", t + d * US), ("device", 0), ("context", 1), ("stream", 7),
                         ("correlation", 0), ("bytes", nbytes)):
                rec[k].append(v)
            if label == "memset":
                ms["value"].append(0)
                ms["mem_kind"].append(3)
            else:
                for k, v in (("kind", COPY_KIND[label]), ("src_kind", 1), ("dst_kind", 3), ("src_device", -1),
                             ("dst_device", -1), ("async", 1)):
                    mc[k].append(v)
            t += d * US + 500
    for typ, rec in (("memcpy", mc), ("memset", ms)):
        if rec:
            lines.append(dict({"type": typ, "v": 1, "seq": 0, "n": len(rec["start"])}, **rec))
            totals[typ], batches[typ] = len(rec["start"]), 1
    lines.append({"type": "end", "v": 1, "ts": t, "totals": totals, "batches": batches})
    with open(path, "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")


def ingest(out, *inputs):
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), *inputs, "-o", out], capture_output=True, check=True)


def run(*args):
    return subprocess.run([os.path.join(BIN, "gpuprof-analyze"), *args], capture_output=True, text=True)


def compare_doc(db, *extra):
    """compare's JSON: an object of its three tables, table name -> rows."""
    p = run("compare", db, "--format", "json", *extra)
    if p.returncode != 0:
        print(p.stderr)
    return json.loads(p.stdout)


def compare(db, *extra, table="compare"):
    """One table of compare: rows by name, and the rows in order."""
    arr = compare_doc(db, *extra)[table]
    return {r["name"]: r for r in arr}, arr


def statuses(rows):
    return {n: r["status"] for n, r in rows.items()}


def fmt_ns(ns):
    a = abs(ns)
    if a < 1e3:
        return f"{ns:.0f} ns"
    if a < 1e6:
        return f"{ns / 1e3:.3f} us"
    if a < 1e9:
        return f"{ns / 1e6:.3f} ms"
    return f"{ns / 1e9:.3f} s"


def expect(threshold, min_delta, min_calls=1, plant=PLANT):
    """Statuses as the documented rules give them, computed here."""
    out = {}
    for n, (b, w) in plant.items():
        if b is None:
            out[n] = "new"
        elif w is None:
            out[n] = "gone"
        elif len(b) < min_calls and len(w) < min_calls:
            out[n] = "unchanged"
        else:
            d = statistics.median(w) - statistics.median(b)
            rel = threshold * statistics.median(b)
            out[n] = ("regressed" if d > min_delta and d > rel else
                      "improved" if -d > min_delta and -d > rel else "unchanged")
    return out


def want_verdict(kernels, base, new, ranges=None, copies=None):
    """The verdict line as the README documents it, from statuses computed here: the kernel counts and total
    kernel time; then ranges and copies when they have rows, naming only the statuses that occur."""
    k = Counter(kernels.values())
    pct = f"{100 * (new - base) / base:+.1f}%" if base > 0 else "n/a"
    line = (f"{k['regressed']} regressed, {k['improved']} improved, {k['new']} new, {k['gone']} gone; "
            f"total kernel time {pct} ({fmt_ns(base)} -> {fmt_ns(new)})")
    fail = k["regressed"] > 0
    for noun, st in (("ranges", ranges), ("copies", copies)):
        if not st:
            continue
        c = Counter(st.values())
        said = [f"{c[s]} {s}" for s in ("regressed", "improved", "new", "gone") if c[s]]
        line += f"; {noun} " + (", ".join(said) if said else "unchanged")
        fail = fail or c["regressed"] > 0
    return line + (": FAIL" if fail else ": ok")


def check_planted_rows(tag, rows, plant=PLANT):
    check(f"{tag} names once each", sorted(rows), sorted(plant))
    for n, (b, w) in plant.items():
        r = rows.get(n)
        if not r:
            continue
        check(f"{tag} {n} base_total_ns", r["base_total_ns"], sum(b) if b else None)
        check(f"{tag} {n} new_total_ns", r["new_total_ns"], sum(w) if w else None)
        check(f"{tag} {n} calls", (r["base_calls"], r["new_calls"]), (len(b or []), len(w or [])))
        check(f"{tag} {n} medians", (r["base_med_ns"], r["new_med_ns"]),
              (statistics.median(b) if b else None, statistics.median(w) if w else None))
        if b and w:
            d = statistics.median(w) - statistics.median(b)
            check(f"{tag} {n} delta_ns", r["delta_ns"], d)
            check(f"{tag} {n} delta_pct", round(r["delta_pct"], 9), round(100 * d / statistics.median(b), 9))


def planted(tmp):
    base = {n: b for n, (b, _) in PLANT.items() if b}
    new = {n: w for n, (_, w) in PLANT.items() if w}
    wire(f"{tmp}/base.ndjson", "cmp-base", 1763822038000000000, base)
    wire(f"{tmp}/new.ndjson", "cmp-new", 1763822099000000000, new)
    ingest(f"{tmp}/base.db", f"{tmp}/base.ndjson")
    ingest(f"{tmp}/new.db", f"{tmp}/new.ndjson")
    nb = ["--baseline", f"{tmp}/base.db"]

    doc = compare_doc(f"{tmp}/new.db", *nb)
    check("planted json: an object of the six tables", list(doc),
          ["compare", "compare_ranges", "compare_copies", "compare_api", "compare_ops", "compare_energy"])
    check("planted json: no ranges, copies or API calls, no rows",
          (doc["compare_ranges"], doc["compare_copies"], doc["compare_api"]), ([], [], []))
    rows, arr = compare(f"{tmp}/new.db", *nb)
    check("planted json keys", all({"name", "status", "base_total_ns", "new_total_ns", "delta_pct", "base_calls",
                                    "new_calls", "base_med_ns", "new_med_ns", "delta_ns"} <= set(r) for r in arr), True)
    check_planted_rows("planted", rows)
    check("planted default 5% 10us", statuses(rows), expect(0.05, 10 * US))
    check("planted default, spelled", statuses(rows), {"kernel_A": "regressed", "kernel_B": "unchanged",
                                                       "kernel_C": "new", "kernel_D": "gone",
                                                       "kernel_E": "unchanged", "kernel_F": "improved"})
    check("planted order: regressions first", arr[0]["status"], "regressed")
    order = ["regressed", "new", "gone", "improved", "unchanged"]
    check("planted order by status", [r["status"] for r in arr],
          sorted([r["status"] for r in arr], key=order.index))
    for thr, want_a, want_b in (("1%", "regressed", "regressed"), ("25%", "unchanged", "unchanged"),
                                ("5", "regressed", "unchanged")):
        s = statuses(compare(f"{tmp}/new.db", *nb, "--threshold", thr)[0])
        check(f"planted threshold {thr}", (s["kernel_A"], s["kernel_B"]), (want_a, want_b))
        check(f"planted threshold {thr} all", s, expect(float(thr.rstrip("%")) / 100, 10 * US))
    for md, ns in (("15us", 15 * US), ("20us", 20 * US), ("25us", 25 * US), ("0.015ms", 15 * US), ("19999", 19999),
                   ("1s", 10 ** 9)):
        s = statuses(compare(f"{tmp}/new.db", *nb, "--threshold", "1%", "--min-delta", md)[0])
        check(f"planted --min-delta {md}", s, expect(0.01, ns))
    check("planted --min-delta 20us is strict", statuses(compare(f"{tmp}/new.db", *nb, "--threshold", "1%",
                                                                 "--min-delta", "20us")[0])["kernel_A"], "unchanged")
    for mc in (4, 5, 6):
        s = statuses(compare(f"{tmp}/new.db", *nb, "--threshold", "1%", "--min-calls", str(mc))[0])
        check(f"planted --min-calls {mc}", s, expect(0.01, 10 * US, mc))
    check("planted --min-calls 6 keeps new/gone",
          [statuses(compare(f"{tmp}/new.db", *nb, "--min-calls", "6")[0])[k] for k in ("kernel_C", "kernel_D")],
          ["new", "gone"])

    bt = sum(sum(b) for b, _ in PLANT.values() if b)
    nt = sum(sum(w) for _, w in PLANT.values() if w)
    p = run("compare", f"{tmp}/new.db", *nb, "--fail-on-regression")
    check("gate exit with a regression", p.returncode, 1)
    check("gate verdict FAIL", p.stderr,
          f"gpuprof-analyze: compare: 1 regressed, 1 improved, 1 new, 1 gone; total kernel time "
          f"{100 * (nt - bt) / bt:+.1f}% ({fmt_ns(bt)} -> {fmt_ns(nt)}): FAIL\n")
    p = run("compare", f"{tmp}/new.db", *nb, "--fail-on-regression", "--threshold", "25%")
    check("gate exit without a regression", p.returncode, 0)
    check("gate verdict ok", p.stderr,
          f"gpuprof-analyze: compare: 0 regressed, 0 improved, 1 new, 1 gone; total kernel time "
          f"{100 * (nt - bt) / bt:+.1f}% ({fmt_ns(bt)} -> {fmt_ns(nt)}): ok\n")
    p = run("compare", f"{tmp}/new.db", *nb, "--fail-on-regression", "--top", "1", "--threshold", "1%")
    check("gate counts every row under --top", (p.returncode, p.stderr.split(";")[0]),
          (1, "gpuprof-analyze: compare: 2 regressed, 1 improved, 1 new, 1 gone"))
    check("--top cuts the table", len(compare(f"{tmp}/new.db", *nb, "-n", "2")[1]), 2)
    p = run("compare", f"{tmp}/new.db", *nb)
    check("no gate: exit 0 and quiet stderr", (p.returncode, p.stderr), (0, ""))
    md = run("compare", f"{tmp}/new.db", *nb, "--format", "md").stdout
    lines = [l for l in md.splitlines() if l.startswith("| ")]
    ok("md table regressions first", len(lines) > 2 and lines[1].startswith("| regressed") and "kernel\\_A" in lines[1],
       md[:400])
    check("md leaves out the tables without rows", [ln.split(":")[0] for ln in md.splitlines() if ln.startswith("#")],
          ["### Kernels against the baseline"])
    check("--match filters both sides", sorted(compare(f"{tmp}/new.db", *nb, "-m", "kernel_[ACD]")[0]),
          ["kernel_A", "kernel_C", "kernel_D"])
    for bad in (["--threshold", "x"], ["--min-delta", "10parsecs"], ["--min-calls", "-1"]):
        check(f"usage error {bad}", run("compare", f"{tmp}/new.db", *nb, *bad).returncode, 2)
    check("--fail-on-regression with another analysis", run("hotspots", f"{tmp}/new.db", "--fail-on-regression").returncode, 2)
    check("one session, no baseline", run("compare", f"{tmp}/new.db").returncode, 3)
    check("missing baseline file: an I/O error", run("compare", f"{tmp}/new.db", "--baseline", f"{tmp}/nope.db").returncode, 4)

    # Two sessions in one database: explicit sessions and the default baseline (the previous session).
    ingest(f"{tmp}/h.db", f"{tmp}/base.ndjson", f"{tmp}/new.ndjson")
    ids = dict(sqlite3.connect(f"{tmp}/h.db").execute("SELECT uuid, id FROM sessions"))
    b, n = str(ids["cmp-base"]), str(ids["cmp-new"])
    rows, _ = compare(f"{tmp}/h.db", "--base-session", b, "--session", n)
    check_planted_rows("one db", rows)
    check("one db statuses", statuses(rows), expect(0.05, 10 * US))
    rows, _ = compare(f"{tmp}/h.db", "--base-session", "cmp-base", "--session", "cmp-new")
    check("one db by uuid", statuses(rows), expect(0.05, 10 * US))
    ok("the new session's id follows the base's (the default baseline is the session before)", int(n) > int(b),
       f"{n} <= {b}")
    rows, _ = compare(f"{tmp}/h.db")
    check("one db default baseline", statuses(rows), expect(0.05, 10 * US))
    rev = {k: (w, b_) for k, (b_, w) in PLANT.items()}
    rows, _ = compare(f"{tmp}/h.db", "--base-session", n, "--session", b)
    check_planted_rows("one db reversed", rows, rev)
    check("one db reversed statuses", statuses(rows), expect(0.05, 10 * US, plant=rev))


def copy_plant(base=COPIES_BASE, new=COPIES_NEW):
    """label -> (base durations ns, new durations ns), None where absent."""
    return {k: ([d * US for d in base[k][0]] if k in base else None,
                [d * US for d in new[k][0]] if k in new else None) for k in set(base) | set(new)}


def copy_bytes(copies):
    return {k: len(durs) * each for k, (durs, each) in copies.items()}


def write_pair(tmp, tag, base, new):
    """Two wire files and databases, tag-base.db and tag-new.db; base, new: (kernels, ranges, copies)."""
    for side_, origin, (k, r, c) in (("base", 1763822038000000000, base), ("new", 1763822099000000000, new)):
        wire(f"{tmp}/{tag}-{side_}.ndjson", f"{tag}-{side_}", origin, k, r, c)
        ingest(f"{tmp}/{tag}-{side_}.db", f"{tmp}/{tag}-{side_}.ndjson")
    return f"{tmp}/{tag}-new.db", ["--baseline", f"{tmp}/{tag}-base.db"]


def by_name(arr):
    return {r["name"]: r for r in arr}


def planted_all(tmp):
    """Kernels, NVTX ranges and copies on both sides: the three tables, each against values computed here."""
    kb = {n: b for n, (b, _) in PLANT.items() if b}
    kn = {n: w for n, (_, w) in PLANT.items() if w}
    rb, pb = layout(RANGES_BASE)
    rn, pn = layout(RANGES_NEW)
    rplant = {p: (pb.get(p), pn.get(p)) for p in set(pb) | set(pn)}
    cplant = copy_plant()
    db, nb = write_pair(tmp, "all", (kb, rb, COPIES_BASE), (kn, rn, COPIES_NEW))

    doc = compare_doc(db, *nb)
    check("all: json tables", list(doc), ["compare", "compare_ranges", "compare_copies", "compare_api",
                                          "compare_ops", "compare_energy"])
    keys = {"name", "status", "base_total_ns", "new_total_ns", "delta_pct", "delta_ns", "base_calls", "new_calls",
            "base_med_ns", "new_med_ns", "base_avg_ns", "new_avg_ns", "total_delta_pct"}
    check("all: range keys", [sorted(r) for r in doc["compare_ranges"]], [sorted(keys | {"style"})] * len(rplant))
    check("all: range styles", {r["name"]: r["style"] for r in doc["compare_ranges"]},
          {p: "StartEnd" if p == "data_wait" else "PushPop" for p in rplant})
    check("all: copy keys", [sorted(r) for r in doc["compare_copies"]],
          [sorted(keys | {"base_bytes", "new_bytes"})] * len(cplant))
    check_planted_rows("all kernels", by_name(doc["compare"]))
    check_planted_rows("all ranges", by_name(doc["compare_ranges"]), rplant)
    check_planted_rows("all copies", by_name(doc["compare_copies"]), cplant)
    bb, nbytes = copy_bytes(COPIES_BASE), copy_bytes(COPIES_NEW)
    check("all: copy bytes", {r["name"]: (r["base_bytes"], r["new_bytes"]) for r in doc["compare_copies"]},
          {k: (bb.get(k), nbytes.get(k)) for k in cplant})
    for r in doc["compare_ranges"] + doc["compare_copies"]:
        b, w = (rplant.get(r["name"]) or cplant.get(r["name"]))
        if b and w:
            check(f"all: {r['name']} total_delta_pct", round(r["total_delta_pct"], 9),
                  round(100 * (sum(w) - sum(b)) / sum(b), 9))
            check(f"all: {r['name']} avgs", (r["base_avg_ns"], r["new_avg_ns"]),
                  (sum(b) / len(b), sum(w) / len(w)))
    check("all: ranges at the defaults, spelled", statuses(by_name(doc["compare_ranges"])),
          {"step": "unchanged", "step/forward": "unchanged", "step/forward/attention": "regressed",
           "step/backward": "unchanged", "step/optimizer": "gone", "step/loss": "new", "data_wait": "unchanged"})
    check("all: copies at the defaults, spelled", statuses(by_name(doc["compare_copies"])),
          {"HtoD": "regressed", "DtoH": "unchanged", "DtoD": "gone", "PtoP": "new", "memset": "unchanged"})
    order = ["regressed", "new", "gone", "improved", "unchanged"]
    for t in ("compare_ranges", "compare_copies"):
        got = [r["status"] for r in doc[t]]
        check(f"all: {t} in status order", got, sorted(got, key=order.index))

    # The same thresholds for every table.
    cases = [((), 0.05, 10 * US, 1), (("--threshold", "1%"), 0.01, 10 * US, 1),
             (("--threshold", "25%"), 0.25, 10 * US, 1), (("--threshold", "5"), 0.05, 10 * US, 1),
             (("--threshold", "1%", "--min-delta", "25us"), 0.01, 25 * US, 1), (("--min-delta", "0"), 0.05, 0, 1),
             (("--threshold", "1%", "--min-calls", "4"), 0.01, 10 * US, 4),
             (("--threshold", "1%", "--min-calls", "5"), 0.01, 10 * US, 5)]
    for args, thr, md, mc in cases:
        d = compare_doc(db, *nb, *args)
        for t, plant in (("compare", PLANT), ("compare_ranges", rplant), ("compare_copies", cplant)):
            check(f"all {' '.join(args) or 'defaults'}: {t} statuses", statuses(by_name(d[t])),
                  expect(thr, md, mc, plant=plant))
    s = {t: statuses(by_name(compare_doc(db, *nb, "--threshold", "1%")[t])) for t in ("compare_ranges",)}
    check("all 1%: the +2% range regresses", s["compare_ranges"]["step/backward"], "regressed")
    s = statuses(by_name(compare_doc(db, *nb, "--threshold", "25%")["compare_ranges"]))
    check("all 25%: the +20% range is unchanged", s["step/forward/attention"], "unchanged")
    s = statuses(by_name(compare_doc(db, *nb, "--min-delta", "0")["compare_copies"]))
    check("all --min-delta 0: the memset's +1us regresses", s["memset"], "regressed")

    # The gate and its verdict over all three tables.
    kst = expect(0.05, 10 * US)
    bt = sum(sum(b) for b, _ in PLANT.values() if b)
    nt = sum(sum(w) for _, w in PLANT.values() if w)
    p = run("compare", db, *nb, "--fail-on-regression")
    want = want_verdict(kst, bt, nt, expect(0.05, 10 * US, plant=rplant), expect(0.05, 10 * US, plant=cplant))
    check("all: gate exit", p.returncode, 1)
    check("all: gate verdict", p.stderr, f"gpuprof-analyze: compare: {want}\n")
    check("all: gate verdict, spelled", want.split("; ", 2)[2],
          "ranges 1 regressed, 1 new, 1 gone; copies 1 regressed, 1 new, 1 gone: FAIL")
    ok("all: verdict fits a log line", len(p.stderr) < 200, p.stderr)
    check("all: the verdict heads the kernel table", run("compare", db, *nb).stdout.splitlines()[0],
          f"Kernels against the baseline: {want}")
    p = run("compare", db, *nb, "--fail-on-regression", "--top", "1", "--threshold", "1%")
    check("all: gate counts every row under --top", (p.returncode, p.stderr.split("; ", 2)[2]),
          (1, "ranges 2 regressed, 1 new, 1 gone; copies 1 regressed, 1 new, 1 gone: FAIL\n"))
    d = compare_doc(db, *nb, "--top", "1")
    check("all: --top cuts every table (no API calls, ops or power samples planted)", [len(d[t]) for t in d],
          [1, 1, 1, 0, 0, 0])
    check("all: --top keeps the regressions", [d[t][0]["name"] for t in ("compare_ranges", "compare_copies")],
          ["step/forward/attention", "HtoD"])

    # Names filters apply to paths and copy kinds, on both sides.
    d = compare_doc(db, *nb, "-m", "attention|optimizer|HtoD|DtoD")
    check("all --match", [sorted(by_name(d[t])) for t in d],
          [[], ["step/forward/attention", "step/optimizer"], ["DtoD", "HtoD"], [], [], []])
    d = compare_doc(db, *nb, "-x", "^step/|memset")
    check("all --exclude", [sorted(by_name(d[t])) for t in ("compare_ranges", "compare_copies")],
          [["data_wait", "step"], ["DtoD", "DtoH", "HtoD", "PtoP"]])

    # People's formats show the tables that have rows.
    md = run("compare", db, *nb, "--format", "md").stdout
    heads = [ln for ln in md.splitlines() if ln.startswith("### ")]
    check("all md: three sections", [h.split(":")[0] for h in heads],
          ["### Kernels against the baseline", "### NVTX ranges against the baseline, by path and style (wall time)",
           "### Copies and memsets against the baseline, by kind"])
    sections = md.split("### ")
    first = [[ln for ln in sec.splitlines() if ln.startswith("| ")][1] for sec in sections[2:]]
    ok("all md: ranges regressions first", first[0].startswith("| regressed") and "step/forward/attention" in first[0],
       first[0])
    ok("all md: copies regressions first", first[1].startswith("| regressed") and "HtoD" in first[1], first[1])
    text = run("compare", db, *nb).stdout
    ok("all text: three tables", "NVTX ranges against the baseline" in text and "Copies and memsets" in text,
       text[:300])
    csv = run("compare", db, *nb, "--format", "csv").stdout
    check("all csv: three tables", csv.count('"status","delta_pct"'), 3)

    # Two sessions in one database: ranges and copies of the session asked for.
    ingest(f"{tmp}/all-h.db", f"{tmp}/all-base.ndjson", f"{tmp}/all-new.ndjson")
    d = compare_doc(f"{tmp}/all-h.db", "--base-session", "all-base", "--session", "all-new")
    check_planted_rows("all one db ranges", by_name(d["compare_ranges"]), rplant)
    check_planted_rows("all one db copies", by_name(d["compare_copies"]), cplant)
    rev = {k: (w, b) for k, (b, w) in rplant.items()}
    d = compare_doc(f"{tmp}/all-h.db", "--base-session", "all-new", "--session", "all-base")
    check("all one db reversed ranges", statuses(by_name(d["compare_ranges"])), expect(0.05, 10 * US, plant=rev))

    # The report: the three comparison tables first, the same rows as compare.
    rep = subprocess.run([os.path.join(BIN, "gpuprof-report"), db, *nb, "--format", "json", "--top", "1000"],
                         capture_output=True, text=True)
    tables = json.loads(rep.stdout)["tables"]
    check("all report: comparison tables first", list(tables)[:7],
          ["compare", "compare_ranges", "compare_copies", "compare_api", "compare_ops", "compare_energy", "summary"])
    full = compare_doc(db, *nb)
    check("all report: the same rows as compare", [tables[t] for t in full], list(full.values()))
    md = subprocess.run([os.path.join(BIN, "gpuprof-report"), db, *nb, "--format", "md"], capture_output=True,
                        text=True).stdout
    # The Markdown report folds every section but the top kernels (its verdicts lead): by their <summary>.
    ok("all report md: range and copy sections", "<summary>NVTX ranges against the baseline" in md and
       "<summary>Copies and memsets against the baseline" in md, md[:500])


def gate_alone(tmp):
    """--fail-on-regression when only one range, or only one copy kind, regressed (kernels the same)."""
    kb = {n: b for n, (b, _) in PLANT.items() if b}
    bt = sum(sum(b) for b in kb.values())
    rb, _ = layout(RANGES_BASE)
    rn, _ = layout(dict(RANGES_BASE, attention=RANGES_NEW["attention"]))
    db, nb = write_pair(tmp, "ronly", (kb, rb, COPIES_BASE), (kb, rn, COPIES_BASE))
    p = run("compare", db, *nb, "--fail-on-regression")
    check("range alone: gate", (p.returncode, p.stderr),
          (1, f"gpuprof-analyze: compare: 0 regressed, 0 improved, 0 new, 0 gone; total kernel time +0.0% "
              f"({fmt_ns(bt)} -> {fmt_ns(bt)}); ranges 1 regressed; copies unchanged: FAIL\n"))
    p = run("compare", db, *nb, "--fail-on-regression", "--threshold", "25%")
    check("range alone under 25%: gate", (p.returncode, p.stderr.split("; ", 2)[2]),
          (0, "ranges unchanged; copies unchanged: ok\n"))
    p = run("compare", db, *nb, "--fail-on-regression", "-m", "^step/backward$")
    check("range alone filtered out: gate", (p.returncode, p.stderr.split("; ", 2)[2]), (0, "ranges unchanged: ok\n"))
    db, nb = write_pair(tmp, "conly", (kb, (), COPIES_BASE), (kb, (), dict(COPIES_BASE, HtoD=COPIES_NEW["HtoD"])))
    p = run("compare", db, *nb, "--fail-on-regression")
    check("copy alone: gate", (p.returncode, p.stderr.split("; ", 2)[2]), (1, "copies 1 regressed: FAIL\n"))
    check("copy alone: no range table", compare_doc(db, *nb)["compare_ranges"], [])


def side(db):
    """name -> durations of the only session of db, straight from its tables."""
    con = sqlite3.connect(db)
    d = defaultdict(list)
    for name, dur in con.execute("SELECT s.value, k.end_ns - k.start_ns FROM kernels k JOIN strings s "
                                 "ON s.session_id = k.session_id AND s.id = k.name_id"):
        d[name].append(dur)
    con.close()
    return d


COPY_LABELS = {0: "unknown", 1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA", 8: "DtoD",
               9: "HtoH", 10: "PtoP"}  # CUPTI's copy kinds, as schemas/session.sql's copy_kinds names them


def db_copies(db):
    """label -> (durations, bytes) of the only session of db, straight from its memcpys and memsets."""
    con = sqlite3.connect(db)
    d = defaultdict(lambda: ([], [0]))
    for kind, dur, b in con.execute("SELECT kind, end_ns - start_ns, bytes FROM memcpys UNION ALL "
                                    "SELECT -1, end_ns - start_ns, bytes FROM memsets"):
        label = "memset" if kind == -1 else COPY_LABELS[kind]
        d[label][0].append(dur)
        d[label][1][0] += b
    con.close()
    return {k: (v[0], v[1][0]) for k, v in d.items()}


# --group rules that fold families of PyTorch ops into one name; fold() applies them here (after clean).
OP_GROUPS = ["copies=^aten::(to|_to_copy|copy_|empty_strided)$", "views=^aten::(as_strided|transpose|slice|narrow|view)$",
             "alloc=^aten::empty(_like)?$"]


def fold(name):
    name = range_name(name)
    for g in OP_GROUPS:
        family, rx = g.split("=", 1)
        if re.search(rx, name):
            return family
    return name


def nsys_truth(path, fold_name=range_name):
    """Straight from an nsys export: copies as label -> (durations, bytes), and NVTX ranges as path -> (wall
    times of those that ended, instances): push/pop ranges nest within their thread (a range is the child of
    the innermost open one that contains it), start/end ranges are paths of their own."""
    con = sqlite3.connect(path)
    copies = defaultdict(lambda: ([], [0]))
    for kind, dur, b in con.execute('SELECT copyKind, "end" - start, bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY'):
        copies[COPY_LABELS[kind]][0].append(dur)
        copies[COPY_LABELS[kind]][1][0] += b
    for dur, b in con.execute('SELECT "end" - start, bytes FROM CUPTI_ACTIVITY_KIND_MEMSET'):
        copies["memset"][0].append(dur)
        copies["memset"][1][0] += b
    ranges, threads, never = defaultdict(lambda: ([], [0])), defaultdict(list), float("inf")

    def add(p, start, end):
        ranges[p][1][0] += 1
        if end is not None:
            ranges[p][0].append(end - start)

    for tid, typ, start, end, name, rowid in con.execute(
            'SELECT t.globalTid, t.eventType, t.start, t."end", coalesce(t.text, s.value, \'\'), t.rowid '
            'FROM NVTX_EVENTS t LEFT JOIN StringIds s ON s.id = t.textId '
            'WHERE t.eventType IN (59, 60) AND t.start IS NOT NULL'):
        name = fold_name(name)
        if typ == 60:
            add(name, start, end)
        else:
            threads[tid].append((start, never if end is None else end, name, rowid, end))
    for evs in threads.values():
        stack = []  # (end, path) of the open ranges, innermost last
        for start, end, name, _, raw_end in sorted(evs, key=lambda e: (e[0], -e[1], e[3])):
            while stack and (stack[-1][0] <= start or stack[-1][0] < end):
                stack.pop()
            p = f"{stack[-1][1]}/{name}" if stack else name
            stack.append((end, p))
            add(p, start, raw_end)
    con.close()
    return ({k: (v[0], v[1][0]) for k, v in copies.items()},
            {k: (v[0], v[1][0]) for k, v in ranges.items()})


def check_groups(tag, arr, base, new, with_bytes):
    """Rows of a compare table against groups computed here: name -> (durations, bytes or instances)."""
    check(f"{tag}: every group once", sorted(r["name"] for r in arr), sorted(set(base) | set(new)))
    want, got = {}, {}
    for r in arr:
        got[r["name"]] = (r["base_total_ns"], r["new_total_ns"], r["base_calls"], r["new_calls"]) + \
            ((r["base_bytes"], r["new_bytes"]) if with_bytes else ())
    for k in set(base) | set(new):
        b, n = base.get(k), new.get(k)
        want[k] = (sum(b[0]) if b else None, sum(n[0]) if n else None)
        if with_bytes:
            want[k] += (len(b[0]) if b else 0, len(n[0]) if n else 0, b[1] if b else None, n[1] if n else None)
        else:
            want[k] += (b[1] if b else 0, n[1] if n else 0)
    check(f"{tag}: totals and counts", got, want)
    plant = {k: (base[k][0] if k in base else None, new[k][0] if k in new else None) for k in set(base) | set(new)}
    check(f"{tag}: statuses", {r["name"]: r["status"] for r in arr}, expect(0.05, 10 * US, plant=plant))


def real_pair(tmp, tag, before, after, truth=None):
    """A real pair: kernels against the session databases; copies (and ranges, with truth) against
    truth(path), else copies against the databases' tables."""
    for p in (before, after):
        if not os.path.exists(p):
            print(f"skip {tag}: {p} absent")
            return
    ingest(f"{tmp}/{tag}-b.db", before)
    ingest(f"{tmp}/{tag}-n.db", after)
    b, n = side(f"{tmp}/{tag}-b.db"), side(f"{tmp}/{tag}-n.db")
    p = run("compare", f"{tmp}/{tag}-n.db", "--baseline", f"{tmp}/{tag}-b.db", "-f", "json")
    check(f"{tag} exit", p.returncode, 0)
    doc = json.loads(p.stdout)
    arr = doc["compare"]
    names = [r["name"] for r in arr]
    check(f"{tag} every name once", sorted(names), sorted(set(b) | set(n)))
    want = {}
    for name in set(b) | set(n):
        want[name] = (sum(b[name]) if name in b else None, sum(n[name]) if name in n else None,
                      len(b.get(name, [])), len(n.get(name, [])))
    got = {r["name"]: (r["base_total_ns"], r["new_total_ns"], r["base_calls"], r["new_calls"]) for r in arr}
    check(f"{tag} totals and calls", got, want)
    plant = {k: (b.get(k), n.get(k)) for k in set(b) | set(n)}
    check(f"{tag} statuses", {r["name"]: r["status"] for r in arr}, expect(0.05, 10 * US, plant=plant))
    if truth:
        (cb, rb), (cn, rn) = truth(before), truth(after)
        ok(f"{tag} has copies and ranges", cb and cn and rb and rn, "the pair should have both")
        check_groups(f"{tag} ranges", doc["compare_ranges"], rb, rn, False)
        (_, rb), (_, rn) = truth(before, fold), truth(after, fold)
        ok(f"{tag} folded: paths on both sides", len(set(rb) & set(rn)) >= 5, f"{len(set(rb) & set(rn))} shared")
        groups = [a for g in OP_GROUPS for a in ("--group", g)]
        p = run("compare", f"{tmp}/{tag}-n.db", "--baseline", f"{tmp}/{tag}-b.db", "-f", "json", *groups)
        check_groups(f"{tag} folded ranges", json.loads(p.stdout)["compare_ranges"], rb, rn, False)
    else:
        cb, cn = db_copies(f"{tmp}/{tag}-b.db"), db_copies(f"{tmp}/{tag}-n.db")
    check_groups(f"{tag} copies", doc["compare_copies"], cb, cn, True)
    p = run("compare", f"{tmp}/{tag}-n.db", "--baseline", f"{tmp}/{tag}-b.db", "--fail-on-regression")
    reg = sum(1 for r in arr if r["status"] == "regressed")
    anyreg = sum(1 for t in doc.values() for r in t if r["status"] == "regressed")
    check(f"{tag} gate", (p.returncode, p.stderr.startswith(f"gpuprof-analyze: compare: {reg} regressed")),
          (1 if anyreg else 0, True))


def trend(tmp):
    # Three sessions ingested out of time order: time order is s1, s2, s3 by origin.
    sess = [("t-s3", 1763822300000000000, {"K": [200 * US], "L": [100 * US], "M": [40 * US]}),
            ("t-s1", 1763822100000000000, {"K": [100 * US], "L": [100 * US], "M": [100 * US]}),
            ("t-s2", 1763822200000000000, {"K": [50 * US, 52 * US], "L": [103 * US], "M": [100 * US]})]
    for uuid, origin, k in sess:
        wire(f"{tmp}/{uuid}.ndjson", uuid, origin, k)
    ingest(f"{tmp}/trend.db", *[f"{tmp}/{u}.ndjson" for u, _, _ in sess])
    ids = dict(sqlite3.connect(f"{tmp}/trend.db").execute("SELECT uuid, id FROM sessions"))
    p = run("trend", f"{tmp}/trend.db", "-f", "json")
    check("trend exit", p.returncode, 0)
    arr = json.loads(p.stdout)
    check("trend keys", all({"name", "session_id", "start_ns", "total_ns", "calls", "step"} <= set(r) for r in arr), True)
    got = [(r["name"], r["session_id"], r["total_ns"], r["calls"], r["step"]) for r in arr]
    s1, s2, s3 = ids["t-s1"], ids["t-s2"], ids["t-s3"]
    check("trend rows", got, [("K", s1, 100 * US, 1, ""), ("K", s2, 102 * US, 2, ""), ("K", s3, 200 * US, 1, "up"),
                              ("L", s1, 100 * US, 1, ""), ("L", s2, 103 * US, 1, ""), ("L", s3, 100 * US, 1, ""),
                              ("M", s1, 100 * US, 1, ""), ("M", s2, 100 * US, 1, ""), ("M", s3, 40 * US, 1, "down")])
    starts = [r["start_ns"] for r in arr if r["name"] == "K"]
    check("trend in time order", starts, sorted(starts))
    got = [(r["name"], r["step"]) for r in json.loads(run("trend", f"{tmp}/trend.db", "-f", "json",
                                                          "--threshold", "1%").stdout)]
    check("trend --threshold 1%", got, [("K", ""), ("K", "up"), ("K", "up"), ("L", ""), ("L", "up"), ("L", "down"),
                                        ("M", ""), ("M", ""), ("M", "down")])
    check("trend --top 1", sorted({r["name"] for r in json.loads(run("trend", f"{tmp}/trend.db", "-f", "json",
                                                                     "-n", "1").stdout)}), ["K"])
    # --group folds K and L into one family: per session the sums of both, one point each.
    got = [(r["name"], r["session_id"], r["total_ns"], r["calls"]) for r in json.loads(run(
        "trend", f"{tmp}/trend.db", "-f", "json", "--group", "KL=^[KL]$").stdout)]
    check("trend --group", got, [("KL", s1, 200 * US, 2), ("KL", s2, 205 * US, 3), ("KL", s3, 300 * US, 2),
                                 ("M", s1, 100 * US, 1), ("M", s2, 100 * US, 1), ("M", s3, 40 * US, 1)])


def report_baseline(tmp):
    """gpuprof-report NEW --baseline BASE: the comparison is the report's first section, the same rows
    as gpuprof-analyze compare, in every format."""
    dbs = []
    for seed in (1, 2):
        d = os.path.join(tmp, f"rb{seed}")
        subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "2000", "--seed", str(seed), "-o", d,
                        "--no-expected"], check=True, capture_output=True)
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", d, "-o", d + ".db"], check=True)
        dbs.append(d + ".db")
    rep = subprocess.run([os.path.join(BIN, "gpuprof-report"), dbs[1], "--baseline", dbs[0], "--format", "json",
                          "--top", "1000"], capture_output=True, text=True)
    check("report --baseline exits 0", rep.returncode, 0)
    tables = json.loads(rep.stdout)["tables"]
    check("report --baseline: compare comes first", list(tables)[0], "compare")
    _, rows = compare(dbs[1], "--baseline", dbs[0])
    check("report --baseline: the same rows as compare", tables["compare"], rows)
    md = subprocess.run([os.path.join(BIN, "gpuprof-report"), dbs[1], "--baseline", dbs[0], "--format", "md"],
                        capture_output=True, text=True).stdout
    check("report --baseline: Markdown section", "<summary>Kernels against the baseline" in md, True)
    ok("report --baseline: Markdown verdicts name the comparison's",
       re.search(r"^- Kernels against the baseline: .*: (ok|FAIL)$", md, re.M) is not None, md[:600])
    doc = compare_doc(dbs[1], "--baseline", dbs[0])
    check("report --baseline: the six comparison tables first", list(tables)[:7],
          ["compare", "compare_ranges", "compare_copies", "compare_api", "compare_ops", "compare_energy", "summary"])
    ok("report --baseline: synth has ranges and copies", doc["compare_ranges"] and doc["compare_copies"],
       str(doc)[:200])
    check("report --baseline: the same range and copy rows", (tables["compare_ranges"], tables["compare_copies"]),
          (doc["compare_ranges"], doc["compare_copies"]))
    check("report --baseline: Markdown range and copy sections",
          ["<summary>NVTX ranges against the baseline" in md, "<summary>Copies and memsets against the baseline" in md],
          [True, True])
    html = subprocess.run([os.path.join(BIN, "gpuprof-report"), dbs[1], "--baseline", dbs[0], "--format", "html"],
                          capture_output=True, text=True).stdout
    heads = [h.split(":")[0] for h in re.findall(r"<h2[^>]*>([^<]*)", html)]
    check("report --baseline: HTML sections, the timeline after the summary", heads[:6],
          ["Kernels against the baseline", "NVTX ranges against the baseline, by path and style (wall time)",
           "Copies and memsets against the baseline, by kind", "CUDA API calls against the baseline, by name",
           "Session summary", "Timeline"])
    out = os.path.join(tmp, "rb-csv")
    subprocess.run([os.path.join(BIN, "gpuprof-report"), dbs[1], "--baseline", dbs[0], "--format", "csv", "-o", out],
                   check=True)
    check("report --baseline: CSV files", [os.path.exists(f"{out}/{t}.csv") for t in list(doc)], [True] * 6)


def main():
    os.environ.update(LC_ALL="C", TZ="UTC")
    tmp = tempfile.mkdtemp()
    try:
        planted(tmp)
        planted_all(tmp)
        gate_alone(tmp)
        trend(tmp)
        report_baseline(tmp)
        real_pair(tmp, "nsys", os.path.join(TRACES, "nsys", "mfu_2gpu_before.sqlite"),
                  os.path.join(TRACES, "nsys", "mfu_2gpu_after.sqlite"), nsys_truth)
        real_pair(tmp, "kineto", os.path.join(TRACES, "kineto", "a100_control.json.gz"),
                  os.path.join(TRACES, "kineto", "v100_test.json.gz"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("compare")


if __name__ == "__main__":
    sys.exit(main())
