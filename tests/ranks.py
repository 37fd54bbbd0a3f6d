#!/usr/bin/env python3
"""Jobs bigger than one GPU: GPU identity across hosts and ranks, the ranks and collectives analyses.

- gpuprof-synth --ranks N jobs (Kineto traces, two to eight ranks, two to eight GPUs a host): every figure of
  `ranks` and `collectives` against the answers the generator planted (DIR/expected.json) and against what
  this script computes from the trace files themselves; the straggler and the late rank; the verdict line;
  --threshold; ingest order and a second ingest change nothing.
- Two hosts x two GPUs of gpuprof sessions with the same pid and device numbers, merged with --session:
  each host's rows of every per-device analysis equal the analysis of that host's session alone.
- Real traces (skipped, with the reason printed, when ../shared/traces is absent): a real Kineto rank
  trace and a hand-edited copy of it as rank 1 ingest as one session with one device row per rank; the
  two-process Nsight Systems exports give one row per GPU.
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import checks
from checks import BIN, TRACES, check, ok


def run(*args, expect=0):
    r = subprocess.run([os.path.join(BIN, args[0])] + [str(a) for a in args[1:]], capture_output=True, text=True)
    ok(f"{' '.join(str(a) for a in args[:3])} exits {expect}", r.returncode == expect,
       f"exit {r.returncode}\n{r.stderr[-800:]}")
    return r


def analyze(name, db, *extra):
    return json.loads(run("gpuprof-analyze", name, db, "--format", "json", *extra).stdout or "[]")


def fmt_ns(ns):
    """A time as gpuprof prints it (lib/table.c fmt_ns)."""
    a = abs(ns)
    if a < 1e3:
        return "%.0f ns" % ns
    if a < 1e6:
        return "%.3f us" % (ns / 1e3)
    if a < 1e9:
        return "%.3f ms" % (ns / 1e6)
    return "%.3f s" % (ns / 1e9)


def union(iv):
    total, s, e = 0, None, None
    for a, b in sorted(iv):
        if e is None or a > e:
            if e is not None:
                total += e - s
            s, e = a, b
        elif b > e:
            e = b
    return total + (e - s if e is not None else 0)


def median(v):
    v = sorted(v)
    n = len(v)
    return float(v[n // 2]) if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def from_traces(d, n, threshold=0.10):
    """The ranks and collectives answers computed here from the rank files alone (exact integer ns)."""
    per, ops = [], {}
    for r in range(n):
        with open(os.path.join(d, f"rank{r}.json")) as f:
            t = json.load(f)
        ns = lambda x: int(round(float(x) * 1000))
        comp, comm, steps, dev = [], [], [], None
        for e in t["traceEvents"]:
            start, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
            if e["cat"] == "kernel":
                dev = e["args"]["device"]
                if e["name"].startswith("nccl"):
                    name = e["name"].split("(")[0]
                    comm.append((start, end))
                    ops.setdefault(name, {}).setdefault(r, []).append((start, end - start))
                else:
                    comp.append((start, end))
            elif e["name"].startswith("ProfilerStep#"):
                steps.append(end - start)
        first = min(a for a, _ in comp + comm)
        last = max(b for _, b in comp + comm)
        busy = union(comp + comm)
        per.append({"rank": t["distributedInfo"]["rank"], "host": None, "device": dev, "span_ns": last - first,
                    "busy_ns": busy, "compute_ns": union(comp), "comm_ns": union(comm),
                    "exposed_comm_ns": busy - union(comp), "idle_ns": last - first - busy, "steps": len(steps),
                    "step_med_ns": median(steps), "step_max_ns": max(steps), "wait_ns": 0, "last_arrivals": 0,
                    "matched": 0, "caused": 0})
    colls = []
    for name, by in ops.items():
        skews, durs, matched = [], [], 0
        for r in by:
            by[r].sort()
            durs += [d for _, d in by[r]]
        for i in range(max(len(v) for v in by.values())):
            starts = {r: by[r][i][0] for r in by if i < len(by[r])}
            if len(starts) < 2:
                continue
            matched += 1
            last, first = max(starts.values()), min(starts.values())
            skews.append(last - first)
            for r, s in starts.items():
                per[r]["wait_ns"] += last - s
                per[r]["matched"] += 1
                if s == last and last > first:
                    per[r]["last_arrivals"] += 1
                    per[r]["caused"] += sum(last - x for x in starts.values())
        colls.append({"name": name, "ops": max(len(v) for v in by.values()), "ranks": len(by), "total_ns": sum(durs),
                      "med_ns": median(durs), "max_skew_ns": max(skews) if skews else None})
    med = median([p["compute_ns"] for p in per])
    for p in per:
        p["straggler"] = int(n > 1 and (p["compute_ns"] > med * (1 + threshold) or 2 * p["last_arrivals"] > p["matched"]))
    colls.sort(key=lambda c: (-c["total_ns"], c["name"]))
    return per, colls


KEYS = ("rank host device span_ns busy_ns compute_ns comm_ns exposed_comm_ns idle_ns steps step_med_ns step_max_ns "
        "wait_ns last_arrivals straggler").split()
CKEYS = "name ops ranks total_ns med_ns max_skew_ns".split()


def synthetic_job(tmp, n, per_host, seed):
    what = f"{n} ranks, {per_host} a host, seed {seed}"
    d = os.path.join(tmp, f"job{n}-{seed}")
    run("gpuprof-synth", "--ranks", n, "--gpus-per-host", per_host, "--seed", seed, "-o", d)
    with open(os.path.join(d, "expected.json")) as f:
        exp = json.load(f)
    files = [os.path.join(d, f"rank{r}.json") for r in range(n)]
    db = os.path.join(tmp, f"job{n}-{seed}.db")
    run("gpuprof-ingest", "-q", *files, "--session", "job", "-o", db)
    mine, colls = from_traces(d, n)

    # Identity: one row per rank, device numbers repeating across hosts.
    devs = analyze("devices", db)
    check(f"{what}: devices: one row per rank, (rank, device)", [(r.get("rank"), r["device"]) for r in devs],
          [(r if n > 1 else None, r % per_host) for r in range(n)])  # one rank: no rank column, as before
    check(f"{what}: devices: each rank's kernels", [r["kernels"] for r in devs], [8 * exp["steps"]] * n)
    if n > 1:  # several ranks: host beside rank, null (a Kineto trace names no host); one rank: neither key
        check(f"{what}: devices: host null beside rank", [r.get("host", "absent") for r in devs], [None] * n)
    else:
        ok(f"{what}: one rank: no rank or host key", all("rank" not in r and "host" not in r for r in devs), devs)

    # ranks: the generator's answers, and this script's from the traces.
    rows = analyze("ranks", db)
    check(f"{what}: ranks: the planted answers", [{k: r[k] for k in KEYS} for r in rows],
          [{k: (None if k == "host" else e[k]) for k in KEYS} for e in exp["rank_rows"]])
    check(f"{what}: ranks: as computed from the traces", [{k: r[k] for k in KEYS} for r in rows],
          [{k: m[k] for k in KEYS} for m in mine])
    check(f"{what}: busy_ns of ranks = devices'", [r["busy_ns"] for r in rows], [r["busy_ns"] for r in devs])
    strag, late = exp["straggler"], exp["late"]
    if n > 1:
        check(f"{what}: the planted straggler and late rank are flagged, nobody else",
              sorted(r["rank"] for r in rows if r["straggler"]), sorted({strag, late}))
        check(f"{what}: the late rank arrives last at every collective", rows[late]["last_arrivals"], 2 * exp["steps"])
        ok(f"{what}: the late rank waits least", rows[late]["wait_ns"] == min(r["wait_ns"] for r in rows))
    else:
        check(f"{what}: one rank: no straggler", [r["straggler"] for r in rows], [0])

    # The verdict: the late rank, and how long the others waited for it.
    text = run("gpuprof-analyze", "ranks", db).stdout.rstrip("\n").split("\n")
    if n > 1:
        want = (f"verdict: the others wait for rank {late}: it arrived last at {2 * exp['steps']} of "
                f"{2 * exp['steps']} matched collectives, and the other GPUs waited {fmt_ns(mine[late]['caused'])} "
                f"in all for it (straggler); compute stragglers: rank {strag}")
        check(f"{what}: the verdict is the last line", text[-1], want)
        check(f"{what}: the waits sum to what the late rank caused", sum(r["wait_ns"] for r in rows),
              mine[late]["caused"])
    else:
        check(f"{what}: the verdict is the last line", text[-1], "verdict: one GPU, nothing to compare it with")

    # collectives
    got = analyze("collectives", db)
    check(f"{what}: collectives: the planted answers", [{k: c[k] for k in CKEYS} for c in got],
          [{k: e[k] for k in CKEYS} for e in exp["collectives"]])
    check(f"{what}: collectives: as computed from the traces", [{k: c[k] for k in CKEYS} for c in got],
          [{k: m[k] for k in CKEYS} for m in colls])

    # --threshold: 50% leaves the slower compute alone; the late rank stays (by its arrivals).
    if n > 1:
        loose = analyze("ranks", db, "--threshold", "50%")
        check(f"{what}: --threshold 50%: only the late rank", [r["rank"] for r in loose if r["straggler"]], [late])
        mine50, _ = from_traces(d, n, 0.5)
        check(f"{what}: --threshold 50% as computed here", [r["straggler"] for r in loose],
              [m["straggler"] for m in mine50])

    # The same job ingested in reverse order, and a second ingest of it: the same answers.
    rev = os.path.join(tmp, f"job{n}-{seed}-rev.db")
    run("gpuprof-ingest", "-q", *reversed(files), "--session", "job", "-o", rev)
    check(f"{what}: ingest order changes nothing", analyze("ranks", rev), rows)
    run("gpuprof-ingest", "-q", *files, "--session", "job", "-o", db)
    check(f"{what}: a second ingest adds nothing", analyze("ranks", db), rows)
    return db


def strip_identity(rows, host_key="host"):
    return [{k: v for k, v in r.items() if k not in (host_key, "rank")} for r in rows]


def two_hosts(tmp):
    """Two hosts x two GPUs: the synthetic session and a copy of it from another host with the same pid."""
    a = os.path.join(tmp, "host-a")
    run("gpuprof-synth", "--kernels", 4000, "--seed", 9, "-o", a, "--no-expected")
    b = os.path.join(tmp, "host-b")
    shutil.copytree(a, b)
    for name in os.listdir(b):
        p = os.path.join(b, name)
        with open(p) as f:
            lines = f.readlines()
        lines[0] = re.sub(r'"hostname":"[^"]*"', '"hostname":"host-b"', lines[0])
        with open(p, "w") as f:
            f.writelines(lines)
    host_a = json.loads(open(os.path.join(a, os.listdir(a)[0])).readline())["hostname"]
    one = os.path.join(tmp, "one-host.db")
    run("gpuprof-ingest", "-q", a, "-o", one)
    job = os.path.join(tmp, "two-hosts.db")
    r = run("gpuprof-ingest", a, b, "--session", "job", "-o", job)
    ok("two hosts: the second host's pid is said to be stored apart",
       "pid 4242 of this host is stored as pid 4294971538" in r.stderr, r.stderr)
    import sqlite3
    con = sqlite3.connect(job)
    check("two hosts: processes (pid, host)", con.execute("SELECT pid, hostname FROM processes ORDER BY pid").fetchall(),
          [(4242, host_a), (4242 + 2**32, "host-b")])
    check("two hosts: every event row of host-b carries its pid",
          con.execute("SELECT count(*) FROM memory_events WHERE pid = 4242 + 4294967296").fetchone()[0],
          con.execute("SELECT count(*) FROM memory_events WHERE pid = 4242").fetchone()[0])
    con.close()
    devs = analyze("devices", job)
    check("two hosts: devices: four GPUs (host, device)", [(r["host"], r["device"]) for r in devs],
          sorted([(h, d) for h in (host_a, "host-b") for d in (0, 1)]))
    check("two hosts: devices: rank beside host, null (gpuprof sessions name no rank)", [r.get("rank", "absent")
                                                                                       for r in devs], [None] * 4)
    single = {}
    for name, extra in (("devices", ()), ("idle", ()), ("streams", ()), ("memory", ()), ("leaks", ("-n", "0")),
                        ("peak", ("-n", "0")), ("growth", ()), ("metrics", ()), ("gaps", ("-n", "20"))):
        alone = analyze(name, one, *extra)
        both = analyze(name, job, *extra)
        key = "hostname" if name == "gaps" else "host"
        ok(f"two hosts: {name}: rows to compare", len(alone) > 0)
        for h in (host_a, "host-b"):
            mine = strip_identity([r for r in both if r.get(key) == h], key)
            if name == "gaps":  # the 20 longest of both hosts are the 10 longest of each
                check(f"two hosts: {name}: {h}'s rows = its session alone", mine, strip_identity(alone[:10], key))
            else:
                check(f"two hosts: {name}: {h}'s rows = its session alone",
                      sorted(mine, key=repr), sorted(strip_identity(alone, key), key=repr))
        single[name] = alone
    ok("one host: no host or rank column (its output as before)",
       all("host" not in r and "rank" not in r for n in ("devices", "idle", "memory") for r in single[n]))
    # classes: per GPU in a session of two hosts; each host's GPUs add up to its session's summed rows.
    alone = {r["class"]: r for r in analyze("classes", one)}
    per = analyze("classes", job)
    ok("two hosts: classes per GPU", {(r["host"], r["device"]) for r in per} ==
       {(h, d) for h in (host_a, "host-b") for d in (0, 1)}, per[:2])
    for h in (host_a, "host-b"):
        got = {}
        for r in per:
            if r["host"] == h:
                g = got.setdefault(r["class"], [0, 0, 0])
                for i, k in enumerate(("kernels", "total_ns", "kernel_busy_ns")):
                    g[i] += r[k] or 0
        check(f"two hosts: classes of {h}'s GPUs add up to its session's", got,
              {c: [r["kernels"] or 0, r["total_ns"] or 0, r["kernel_busy_ns"]] for c, r in alone.items()})
    s1, s2 = analyze("summary", one)[0], analyze("summary", job)[0]
    check("two hosts: summary: twice the kernels, busy and span", [s2[k] for k in ("kernels", "busy_ns", "gpu_span_ns")],
          [2 * s1[k] for k in ("kernels", "busy_ns", "gpu_span_ns")])
    ranks = analyze("ranks", job)
    check("two hosts: ranks: one row per GPU", [(r["host"], r["device"], r["rank"]) for r in ranks],
          sorted([(h, d, None) for h in (host_a, "host-b") for d in (0, 1)]))
    colls = {c["name"]: c for c in analyze("collectives", job)}
    alone = {c["name"]: c for c in analyze("collectives", one)}
    ok("two hosts: collectives to compare", len(alone) > 0)
    check("two hosts: collectives: twice the GPUs and time, the same operations, median and skew",
          {n: (c["ops"], c["ranks"], c["total_ns"], c["med_ns"], c["max_skew_ns"]) for n, c in colls.items()},
          {n: (c["ops"], 2 * c["ranks"], 2 * c["total_ns"], c["med_ns"], c["max_skew_ns"] or 0) for n, c in alone.items()})
    run("gpuprof-ingest", "-q", a, b, "--session", "job", "-o", job)
    check("two hosts: a second ingest adds nothing", analyze("devices", job), devs)


def real_traces(tmp):
    src = os.path.join(TRACES, "kineto", "a100_nccl.json.gz")
    if not os.path.exists(src):
        print(f"ranks: skipped the real traces: {src} is absent")
        return
    # Rank 1: the same trace, hand-edited (distributedInfo.rank), as such copies are found in the wild.
    with gzip.open(src, "rt") as f:
        text = f.read()
    edited = re.sub(r'("distributedInfo": \{[^}]*"rank": )0', r"\g<1>1", text, count=1)
    ok("real: the copy names rank 1", edited != text)
    r1 = os.path.join(tmp, "a100_nccl_rank1.json.gz")
    with gzip.open(r1, "wt") as f:
        f.write(edited)
    db = os.path.join(tmp, "real.db")
    run("gpuprof-ingest", "-q", src, r1, "--session", "job", "-o", db)
    devs = analyze("devices", db)
    check("real kineto: one session, one device row per rank", [(r["rank"], r["device"]) for r in devs], [(0, 0), (1, 0)])
    check("real kineto: both ranks' figures alike", devs[0]["busy_ns"], devs[1]["busy_ns"])
    rows = analyze("ranks", db)
    check("real kineto: ranks: two rows", [r["rank"] for r in rows], [0, 1])
    ok("real kineto: communication found", all(r["comm_ns"] > 0 for r in rows), rows)
    colls = analyze("collectives", db)
    ok("real kineto: NCCL collectives matched on both ranks, no skew",
       colls and all(c["ranks"] == 2 and c["max_skew_ns"] == 0 for c in colls), colls)
    for name in ("mfu_2gpu_before", "h100_2gpu_1s"):
        p = os.path.join(TRACES, "nsys", name + ".sqlite")
        if not os.path.exists(p):
            print(f"ranks: skipped {p}: absent")
            continue
        db = os.path.join(tmp, name + ".db")
        run("gpuprof-ingest", "-q", p, "-o", db)
        devs = analyze("devices", db)
        rows = analyze("ranks", db)
        check(f"real nsys {name}: one ranks row per GPU", [(r["host"], r["device"]) for r in rows],
              [(r.get("host", rows[0]["host"]), r["device"]) for r in devs])
        check(f"real nsys {name}: two GPUs", len(rows), 2)


def compare_ranks(tmp, base_db, base_dir, new_seed):
    """compare of two 4-rank jobs whose stragglers differ: per rank and kernel name."""
    d = os.path.join(tmp, f"job4-{new_seed}")
    run("gpuprof-synth", "--ranks", 4, "--gpus-per-host", 2, "--seed", new_seed, "-o", d)
    db = os.path.join(tmp, f"job4-{new_seed}.db")
    run("gpuprof-ingest", "-q", *[os.path.join(d, f"rank{r}.json") for r in range(4)], "--session", "new", "-o", db)
    old, new = json.load(open(os.path.join(base_dir, "expected.json"))), json.load(open(os.path.join(d, "expected.json")))
    rows = json.loads(run("gpuprof-analyze", "compare", db, "--baseline", base_db, "-n", "0", "--format", "json",
                          expect=0).stdout)["compare"]
    ok("compare per rank: every row names its rank", rows and all(re.match(r"rank [0-3]: ", r["name"]) for r in rows), rows[:2])
    check("compare per rank: 4 ranks x 8 kernel names", len(rows), 32)

    def medians(directory, rank):
        with open(os.path.join(directory, f"rank{rank}.json")) as f:
            ev = json.load(f)["traceEvents"]
        by = {}
        for e in ev:
            if e["cat"] == "kernel":
                by.setdefault(e["name"], []).append(int(round(float(e["dur"]) * 1000)))
        return {k: median(v) for k, v in by.items()}
    for r in range(4):
        b, nw = medians(base_dir, r), medians(d, r)
        got = {x["name"].split(": ", 1)[1]: (x["base_med_ns"], x["new_med_ns"]) for x in rows
               if x["name"].startswith(f"rank {r}: ")}
        check(f"compare per rank: rank {r}'s medians, base and new, as the traces say", got,
              {k: (b[k], nw[k]) for k in b})
    compute = [x for x in rows if "nccl" not in x["name"]]
    check("compare per rank: the new straggler's compute kernels regressed, the old one's improved",
          sorted((x["name"].split(":")[0], x["status"]) for x in compute if x["status"] != "unchanged"),
          sorted([(f"rank {new['straggler']}", "regressed")] * 6 + [(f"rank {old['straggler']}", "improved")] * 6))


def report_json(db):
    doc = json.loads(run("gpuprof-report", db, "--format", "json").stdout)
    doc.pop("version", None)
    return doc


def parallel_and_combine(tmp, d, n):
    """-j N against -j 1, and per-host databases combined, against the direct ingest: every table of the
    report (each analysis) the same, nothing duplicated, a second combine changing nothing."""
    import sqlite3
    files = [os.path.join(d, f"rank{r}.json") for r in range(n)]
    one = os.path.join(tmp, "seq.db")
    run("gpuprof-ingest", "-q", "-j", 1, *files, "--session", "job", "-o", one)
    want = report_json(one)
    ok("report: ranks and collectives in the JSON report", want["tables"].get("ranks") and want["tables"].get("collectives"))
    for jobs in (2, 4, 16):
        par = os.path.join(tmp, f"par{jobs}.db")
        r = run("gpuprof-ingest", "-j", jobs, *files, "--session", "job", "-o", par)
        check(f"-j {jobs}: the report's every table as with -j 1", report_json(par), want)
        ok(f"-j {jobs}: no part databases left", not [f for f in os.listdir(tmp) if ".part" in f], os.listdir(tmp))
        ok(f"-j {jobs}: piped, no progress line", "inputs," not in r.stderr, r.stderr[-300:])
    # On a terminal: one progress line, rewritten in place (script(1) gives the program a terminal).
    if shutil.which("script"):
        tty = os.path.join(tmp, "tty.db")
        cmd = " ".join([os.path.join(BIN, "gpuprof-ingest"), "-j", "2"] + files + ["--session", "job", "-o", tty])
        out = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True).stdout.decode()
        lines = out.replace("\r\n", "\n").split("\n")  # (bytes: text mode would turn each \r into a line)
        ok("-j 2 on a terminal: one progress line, rewritten per input",
           re.search(rf"\rgpuprof-ingest: {n}/{n} inputs, [0-9.]+ (M )?events/s", out) is not None
           and sum("inputs," in l for l in lines) == 1 and lines[0].count(" inputs, ") == n
           and lines[0].count("\r") >= n and "rank0.json:" not in out,
           repr(out[-400:]))
        check("-j 2 on a terminal: the same database", report_json(tty), want)
    else:
        print("ranks: skipped the terminal check: no script(1)")
    # Two hosts ingest their own ranks; their databases combine into the job's.
    half = n // 2
    hosts = []
    for h, part in enumerate((files[:half], files[half:])):
        p = os.path.join(tmp, f"node{h}.db")
        run("gpuprof-ingest", "-q", *part, "--session", "job", "-o", p)
        hosts.append(p)
    job = os.path.join(tmp, "combined.db")
    run("gpuprof-ingest", "-q", *hosts, "--session", "job", "-o", job)
    check("combine: the report's every table as the direct ingest's", report_json(job), want)
    counts = lambda p: sqlite3.connect(p).execute(
        "SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM processes), (SELECT count(*) FROM strings), "
        "(SELECT count(*) FROM kernels), (SELECT count(*) FROM api_calls), (SELECT count(*) FROM ranges)").fetchone()
    check("combine: sessions, processes, strings and rows as the direct ingest's", counts(job), counts(one))
    r = run("gpuprof-ingest", *hosts, "--session", "job", "-o", job)
    check("combine again: nothing added", counts(job), counts(one))
    ok("combine again: says so", "already in the database" in r.stderr, r.stderr)
    # A gpuprof database of another schema version: refused, saying how to bring it up; the output unchanged.
    old = os.path.join(tmp, "old.db")
    shutil.copy(hosts[0], old)
    sqlite3.connect(old).execute("PRAGMA user_version = 3").connection.commit()
    r = run("gpuprof-ingest", old, "-o", job, expect=3)
    ok("an older gpuprof database: exit 3, how to bring it up", "schema version 3" in r.stderr
       and "gpuprof-ingest --reindex -o FILE" in r.stderr, r.stderr)
    check("an older gpuprof database: nothing added", counts(job), counts(one))
    # A database is refused when it is not gpuprof's, and says why.
    bad = os.path.join(tmp, "other.db")
    sqlite3.connect(bad).execute("CREATE TABLE t(x)").connection.commit()
    r = run("gpuprof-ingest", bad, "-o", job, expect=3)
    ok("a non-gpuprof SQLite file: exit 3 with a reason", "unrecognised input format" in r.stderr, r.stderr)


def process_groups(tmp):
    """Kernels naming more than one process group, which gpuprof does not keep: ingest says so (a warning with
    the count), never a silent partial match; one group (all the synthetic job's) draws nothing."""
    d = os.path.join(tmp, "pg")
    run("gpuprof-synth", "--ranks", 2, "--seed", 3, "-o", d)
    files = [os.path.join(d, f"rank{r}.json") for r in range(2)]
    r = run("gpuprof-ingest", *files, "--session", "pg", "-o", os.path.join(tmp, "pg1.db"))
    ok("one process group: no warning", "process group" not in r.stderr, r.stderr)
    two = []
    for f in files:
        with open(f) as fh:
            t = json.load(fh)
        named = 0
        for e in t["traceEvents"]:
            if e.get("cat") == "kernel" and "AllGather" in e["name"]:
                e["args"]["Process Group Name"] = "1"
            named += "Process Group Name" in e.get("args", {})
        out = f.replace(".json", "-2pg.json")
        with open(out, "w") as fh:
            json.dump(t, fh)
        two.append((out, named))
    r = run("gpuprof-ingest", *[p for p, _ in two], "--session", "pg2", "-o", os.path.join(tmp, "pg2.db"))
    for p, named in two:
        ok(f"two process groups: {os.path.basename(p)} warns with its count",
           f"warning: {p}: {named} kernels name their process group, and not all the same one" in r.stderr, r.stderr)


def main():
    with tempfile.TemporaryDirectory(prefix="gpuprof-ranks-") as tmp:
        for n, per_host, seed in ((4, 2, 5), (2, 8, 1), (8, 4, 11), (1, 8, 3)):
            db = synthetic_job(tmp, n, per_host, seed)
            if n == 4:
                compare_ranks(tmp, db, os.path.join(tmp, "job4-5"), 6)
            if n == 8:
                parallel_and_combine(tmp, os.path.join(tmp, "job8-11"), 8)
        two_hosts(tmp)
        process_groups(tmp)
        real_traces(tmp)
    return checks.summary("ranks")


if __name__ == "__main__":
    sys.exit(main())
