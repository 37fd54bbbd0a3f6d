#!/usr/bin/env python3
"""compare and trend (CI mode), checked against values computed here in Python: a planted pair of wire-format
sessions written by this test (statuses at several thresholds, --min-delta, --min-calls, the
--fail-on-regression gate and its verdict line), two sessions in one database, a planted trend step, and
real trace pairs from ../shared/traces (totals and calls against the session databases' kernels tables)."""
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

import checks
from checks import BIN, TRACES, check, ok

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


def wire(path, session, origin, kernels):
    """A tiny wire-format file: header, strings, one kernel batch, end. kernels: name -> durations."""
    names = sorted(kernels)
    ids = {n: i + 1 for i, n in enumerate(names)}
    rows = [(n, d) for n in names for d in kernels[n]]
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
             batch,
             {"type": "end", "v": 1, "ts": t, "totals": {"kernel": len(rows)}, "batches": {"kernel": 1}}]
    with open(path, "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")


def ingest(out, *inputs):
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), *inputs, "-o", out], capture_output=True, check=True)


def run(*args):
    return subprocess.run([os.path.join(BIN, "gpuprof-analyze"), *args], capture_output=True, text=True)


def compare(db, *extra):
    p = run("compare", db, "--format", "json", *extra)
    if p.returncode != 0:
        print(p.stderr)
    return {r["name"]: r for r in json.loads(p.stdout)}, json.loads(p.stdout)


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
    check("--top cuts the table", len(json.loads(run("compare", f"{tmp}/new.db", *nb, "-f", "json", "-n", "2").stdout)), 2)
    p = run("compare", f"{tmp}/new.db", *nb)
    check("no gate: exit 0 and quiet stderr", (p.returncode, p.stderr), (0, ""))
    md = run("compare", f"{tmp}/new.db", *nb, "--format", "md").stdout
    lines = [l for l in md.splitlines() if l.startswith("| ")]
    ok("md table regressions first", len(lines) > 2 and lines[1].startswith("| regressed") and "kernel\\_A" in lines[1],
       md[:400])
    check("--match filters both sides", sorted(r["name"] for r in json.loads(run(
        "compare", f"{tmp}/new.db", *nb, "-f", "json", "-m", "kernel_[ACD]").stdout)), ["kernel_A", "kernel_C", "kernel_D"])
    for bad in (["--threshold", "x"], ["--min-delta", "10parsecs"], ["--min-calls", "-1"]):
        check(f"usage error {bad}", run("compare", f"{tmp}/new.db", *nb, *bad).returncode, 2)
    check("--fail-on-regression with another analysis", run("hotspots", f"{tmp}/new.db", "--fail-on-regression").returncode, 2)
    check("one session, no baseline", run("compare", f"{tmp}/new.db").returncode, 3)
    check("missing baseline file", run("compare", f"{tmp}/new.db", "--baseline", f"{tmp}/nope.db").returncode, 3)

    # Two sessions in one database: explicit sessions and the default baseline (the previous session).
    ingest(f"{tmp}/h.db", f"{tmp}/base.ndjson", f"{tmp}/new.ndjson")
    ids = dict(sqlite3.connect(f"{tmp}/h.db").execute("SELECT uuid, id FROM sessions"))
    b, n = str(ids["cmp-base"]), str(ids["cmp-new"])
    rows, _ = compare(f"{tmp}/h.db", "--base-session", b, "--session", n)
    check_planted_rows("one db", rows)
    check("one db statuses", statuses(rows), expect(0.05, 10 * US))
    rows, _ = compare(f"{tmp}/h.db", "--base-session", "cmp-base", "--session", "cmp-new")
    check("one db by uuid", statuses(rows), expect(0.05, 10 * US))
    if int(n) > int(b):
        rows, _ = compare(f"{tmp}/h.db")
        check("one db default baseline", statuses(rows), expect(0.05, 10 * US))
    rev = {k: (w, b_) for k, (b_, w) in PLANT.items()}
    rows, _ = compare(f"{tmp}/h.db", "--base-session", n, "--session", b)
    check_planted_rows("one db reversed", rows, rev)
    check("one db reversed statuses", statuses(rows), expect(0.05, 10 * US, plant=rev))


def side(db):
    """name -> durations of the only session of db, straight from its tables."""
    con = sqlite3.connect(db)
    d = defaultdict(list)
    for name, dur in con.execute("SELECT s.value, k.end_ns - k.start_ns FROM kernels k JOIN strings s "
                                 "ON s.session_id = k.session_id AND s.id = k.name_id"):
        d[name].append(dur)
    con.close()
    return d


def real_pair(tmp, tag, before, after):
    for p in (before, after):
        if not os.path.exists(p):
            print(f"skip {tag}: {p} absent")
            return
    ingest(f"{tmp}/{tag}-b.db", before)
    ingest(f"{tmp}/{tag}-n.db", after)
    b, n = side(f"{tmp}/{tag}-b.db"), side(f"{tmp}/{tag}-n.db")
    p = run("compare", f"{tmp}/{tag}-n.db", "--baseline", f"{tmp}/{tag}-b.db", "-f", "json")
    check(f"{tag} exit", p.returncode, 0)
    arr = json.loads(p.stdout)
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
    p = run("compare", f"{tmp}/{tag}-n.db", "--baseline", f"{tmp}/{tag}-b.db", "--fail-on-regression")
    reg = sum(1 for r in arr if r["status"] == "regressed")
    check(f"{tag} gate", (p.returncode, p.stderr.startswith(f"gpuprof-analyze: compare: {reg} regressed")),
          (1 if reg else 0, True))


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
    check("report --baseline: Markdown section", "### Kernels against the baseline" in md, True)


def main():
    os.environ.update(LC_ALL="C", TZ="UTC")
    tmp = tempfile.mkdtemp()
    try:
        planted(tmp)
        trend(tmp)
        report_baseline(tmp)
        real_pair(tmp, "nsys", os.path.join(TRACES, "nsys", "mfu_2gpu_before.sqlite"),
                  os.path.join(TRACES, "nsys", "mfu_2gpu_after.sqlite"))
        real_pair(tmp, "kineto", os.path.join(TRACES, "kineto", "a100_control.json.gz"),
                  os.path.join(TRACES, "kineto", "v100_test.json.gz"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("compare")


if __name__ == "__main__":
    sys.exit(main())
