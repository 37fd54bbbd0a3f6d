#!/usr/bin/env python3
"""CSV read back by an independent reader (Python's csv module): every table of the report, names with
commas, quotes, newlines and formula-like starts round-trip, formula cells are guarded, numbers equal the
JSON report's."""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

import checks
from checks import BIN, check, ok

NAMES = ['plain_kernel', 'a, "quoted" kernel', 'line\nbreak', '=HYPERLINK("http://x","y")', '+1', '-2', '@cmd',
         'tab\tstart', 'void f<int, 3>(float const*)']


def session(path):
    lines = [{"type": "header", "v": 1, "session": "csv-test", "pid": 1, "origin_ns": "1700000000000000000"},
             {"type": "strings", "v": 1, "ids": list(range(1, len(NAMES) + 1)), "values": NAMES}]
    n = len(NAMES)
    k = {"start": [1000 * i for i in range(n)], "end": [1000 * i + 100 + i for i in range(n)]}
    for f in ("device", "context", "stream", "correlation", "mangled", "grid_y", "grid_z", "block_y", "block_z",
              "cluster_x", "cluster_y", "cluster_z", "registers", "static_smem", "dynamic_smem", "local_mem",
              "graph_id", "graph_node"):
        k[f] = [0] * n
    k.update({"name": list(range(1, n + 1)), "grid_x": [1] * n, "block_x": [32] * n})
    lines.append({"type": "kernel", "v": 1, "seq": 0, "n": n, **k})
    lines.append({"type": "end", "v": 1, "ts": 100000})
    with open(path, "w") as f:
        for l in lines:
            f.write(json.dumps(l) + "\n")


def main():
    with tempfile.TemporaryDirectory(prefix="gpuprof-csv-") as tmp:
        src = os.path.join(tmp, "s.ndjson")
        session(src)
        db = os.path.join(tmp, "s.db")
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", src, "-o", db], check=True)
        out = os.path.join(tmp, "csv")
        r = subprocess.run([os.path.join(BIN, "gpuprof-report"), db, "-f", "csv", "-o", out, "--top", "100"],
                           capture_output=True, text=True)
        check("report -f csv -o DIR", (r.returncode, r.stderr), (0, ""))
        doc = json.loads(subprocess.run([os.path.join(BIN, "gpuprof-report"), db, "-f", "json", "--top", "100"],
                                        capture_output=True, text=True, check=True).stdout)
        check("one file per table", sorted(os.listdir(out)), sorted(f"{t}.csv" for t in doc["tables"]))
        for table, rows in doc["tables"].items():
            with open(os.path.join(out, f"{table}.csv"), newline="", encoding="utf-8") as f:
                got = list(csv.reader(f))
            check(f"{table}: rows", len(got) - 1, len(rows))
            if not rows:
                # JSON has no keys to compare with: the header alone, of plain names
                check(f"{table}: a header of column names", bool(got) and all(re.fullmatch(r"[a-z0-9_]+", h)
                                                                         for h in got[0]) and len(got[0]) > 0, True)
                continue
            # JSON alone gives each absolute time its offset twin (KEY_offset_ns): CSV keeps the table's columns
            keys = [k for k in rows[0] if not k.endswith("_offset_ns")]
            check(f"{table}: header", got[0], keys)
            for i, (want, have) in enumerate(zip(rows, got[1:])):
                check(f"{table} row {i}: width", len(have), len(keys))
                for key, cell in zip(keys, have):
                    v = want[key]
                    if v is None:
                        check(f"{table}.{key} empty", cell, "")
                    elif isinstance(v, str):
                        guarded = v[:1] in ("=", "+", "-", "@", "\t", "\r")
                        check(f"{table}.{key} text", cell, ("'" + v) if guarded else v)
                    elif isinstance(v, float):
                        check(f"{table}.{key} number", abs(float(cell) - v) <= 1e-12 * max(1, abs(v)), True)
                    else:
                        check(f"{table}.{key} integer", int(cell), v)
        names = {row[-1] for row in csv.reader(open(os.path.join(out, "hotspots.csv"), newline=""))}
        for n in NAMES:
            check(f"name round-trips: {n!r}", (("'" + n) if n[:1] in "=+-@\t" else n) in names, True)
        one = subprocess.run([os.path.join(BIN, "gpuprof-report"), db, "-f", "csv", "--table", "hotspots", "--top", "100"],
                             capture_output=True, text=True, check=True).stdout
        check("--table: one table on stdout", list(csv.reader(one.splitlines(True)))[0][-1], "name")
        bad = subprocess.run([os.path.join(BIN, "gpuprof-report"), db, "-f", "csv", "--table", "nope"],
                             capture_output=True, text=True)
        check("--table NOPE: usage error", (bad.returncode, bad.stdout, "no table 'nope'" in bad.stderr),
              (2, "", True))
        bad = subprocess.run([os.path.join(BIN, "gpuprof-report"), db, "-f", "json", "--table", "hotspots"],
                             capture_output=True, text=True)
        check("--table with -f json: usage error", (bad.returncode, bad.stdout, bad.stderr),
              (2, "", "gpuprof-report: error: --table goes with --format csv\n"))
        baseline_tables(tmp)
        empty_baseline(tmp)
    return checks.summary("report_csv")


def empty_baseline(tmp):
    """A comparison without rows (no kernels on either side) is left out of the documents for people like
    any empty section, also when --baseline puts it first; the summary shows even then."""
    src, db = os.path.join(tmp, "empty.ndjson"), os.path.join(tmp, "empty.db")
    with open(src, "w") as f:
        f.write(json.dumps({"type": "header", "v": 1, "session": "empty", "pid": 1,
                            "origin_ns": "1700000000000000000"}) + "\n")
        f.write(json.dumps({"type": "end", "v": 1, "ts": 100000}) + "\n")
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", src, "-o", db], check=True)
    report = [os.path.join(BIN, "gpuprof-report"), db, "--baseline", db]
    doc = json.loads(subprocess.run(report + ["-f", "json"], capture_output=True, text=True, check=True).stdout)
    check("empty --baseline: json keeps every table, compare empty", (list(doc["tables"])[:7], doc["tables"]["compare"]),
          (["compare", "compare_ranges", "compare_copies", "compare_api", "compare_ops", "compare_energy", "summary"], []))
    out = {}
    for fmt in ("text", "md", "html"):
        r = subprocess.run(report + ["-f", fmt], capture_output=True, text=True)
        check(f"empty --baseline -f {fmt}: exit, stderr", (r.returncode, r.stderr), (0, ""))
        out[fmt] = r.stdout
    # CSV on standard output is one table (17 tables joined without names were no use): --table NAME
    r = subprocess.run(report + ["-f", "csv"], capture_output=True, text=True)
    check("empty --baseline -f csv: a usage error naming the tables, the comparison's first",
          (r.returncode, r.stdout, r.stderr.startswith("gpuprof-report: error: csv on standard output holds one "
                                                        "table: add --table NAME (compare, compare_ranges, ")), (2, "", True))
    r = subprocess.run(report + ["-f", "csv", "--table", "compare"], capture_output=True, text=True)
    check("empty --baseline -f csv --table compare: its header alone", (r.returncode, r.stdout.split(",")[0]),
          (0, '"status"'))
    ok("empty --baseline text: summary first", out["text"].startswith("Session summary\n"), out["text"][:200])
    ok("empty --baseline md: verdicts, then the summary first of the sections",
       out["md"].startswith("## gpuprof report\n\n### Verdicts\n") and
       re.findall(r"<details><summary>(.*)</summary>", out["md"])[:1] == ["Session summary"], out["md"][:300])
    check("empty --baseline html: sections", re.findall(r'<section id="t-([a-z_]+)"', out["html"])[:1], ["summary"])


def baseline_tables(tmp):
    """With --baseline, --table picks the comparison tables too: on stdout and as the one file of -o DIR."""
    dbs = []
    for seed in (1, 2):
        d = os.path.join(tmp, f"synth{seed}")
        subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "500", "--seed", str(seed), "-o", d,
                        "--no-expected"], check=True, capture_output=True)
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", d, "-o", d + ".db"], check=True)
        dbs.append(d + ".db")
    report = [os.path.join(BIN, "gpuprof-report"), dbs[1], "--baseline", dbs[0], "--top", "1000"]
    doc = json.loads(subprocess.run(report + ["-f", "json"], capture_output=True, text=True, check=True).stdout)
    for table in ("compare", "compare_ranges", "compare_copies"):
        rows = doc["tables"][table]
        ok(f"--baseline: {table} has rows to compare", len(rows) > 0, str(doc["tables"])[:200])
        r = subprocess.run(report + ["-f", "csv", "--table", table], capture_output=True, text=True)
        check(f"--baseline --table {table}: exit, stderr", (r.returncode, r.stderr), (0, ""))
        got = list(csv.reader(r.stdout.splitlines(True)))
        check(f"--baseline --table {table}: header", got[:1], [list(rows[0].keys())] if rows else None)
        check(f"--baseline --table {table}: rows", len(got) - 1, len(rows))
        out = os.path.join(tmp, f"csv-{table}")
        r = subprocess.run(report + ["-f", "csv", "--table", table, "-o", out], capture_output=True, text=True)
        check(f"--baseline --table {table} -o DIR: exit, stderr", (r.returncode, r.stderr), (0, ""))
        check(f"--baseline --table {table} -o DIR: one file", sorted(os.listdir(out)) if os.path.isdir(out) else None,
              [f"{table}.csv"])


if __name__ == "__main__":
    sys.exit(main())
