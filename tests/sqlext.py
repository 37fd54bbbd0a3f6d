#!/usr/bin/env python3
"""The SQL functions as sqlite3 users get them: build/lib/gpuprof_sqlite.so loaded with `.load` into the
sqlite3 command-line shell. median, stddev_samp and percentile against Python's statistics module on
random groups (odd and even counts, NULLs, one row, no rows, REALs); busy_union against an exact union
in Python (overlapping, nested, touching intervals, int64's ends); regexp against Python's re (more
patterns in turn than its cache keeps) and a bad pattern; fmt_fixed against Python's printf-style
rounding; short_name and fold_name, and per-name statistics, against what gpuprof-analyze shows."""
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

import checks
from checks import BIN, ROOT, TRACES, check, close, ok

EXT = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "lib", "gpuprof_sqlite")
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


def cli(db, sql, *, expect_ok=True):
    """Run sql in the sqlite3 shell with the extension loaded; rows as lists of strings (tab-separated)."""
    p = subprocess.run(["sqlite3", "-batch", "-bail", "-noheader", "-separator", "\t", db, f".load {EXT}", sql],
                       capture_output=True, text=True)
    if not expect_ok:
        return p
    if p.returncode != 0:
        print(f"FAIL sqlite3 exit {p.returncode}: {p.stderr.strip()[:300]}\n  for {sql[:200]}")
        checks.counts["failed"] += 1
        return []
    return [line.split("\t") for line in p.stdout.splitlines()]


PY_LOAD = """
import json, sqlite3, sys
con = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
con.enable_load_extension(True)
con.load_extension(sys.argv[2])
print(json.dumps(con.execute(sys.argv[3]).fetchall()))
"""


def python_loader():
    """A Python whose sqlite3 module can load extensions (this one, else Debian's /usr/bin/python3), or None."""
    for exe in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(exe) and subprocess.run(
                [exe, "-c", "import sqlite3; sqlite3.Connection.enable_load_extension"], capture_output=True).returncode == 0:
            return exe
    return None


def py_rows(exe, db, sql):
    """sql's rows with the extension loaded through Python's sqlite3.load_extension."""
    p = subprocess.run([exe, "-c", PY_LOAD, db, EXT, sql], capture_output=True, text=True)
    if p.returncode:
        print(f"FAIL {exe}: {p.stderr.strip()[-300:]}")
        checks.counts["failed"] += 1
        return None
    return json.loads(p.stdout)


def g17(expr):
    """expr as text that reads back to the same double ("" for NULL)."""
    return f"CASE WHEN ({expr}) IS NULL THEN '' ELSE printf('%!.17g', {expr}) END"


def num(s):
    return None if s == "" else float(s)


def stats_groups(tmp):
    """Random groups in a table; each group's median, stddev_samp and percentiles against statistics."""
    rnd = random.Random(16)
    db = os.path.join(tmp, "v.db")
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE v(g INTEGER, x)")
    groups = {}
    sizes = [1, 2, 3, 4, 5, 6, 7, 10, 11, 99, 100, 1000, 1001, 5000]
    for g, n in enumerate(sizes):
        real = g % 4 == 3
        vals = [rnd.uniform(-1e6, 1e9) if real else rnd.randrange(0, 2**40 if g % 3 else 1000) for _ in range(n)]
        groups[g] = vals
        rows = [(g, x) for x in vals] + [(g, None)] * (n % 3)
        rnd.shuffle(rows)
        con.executemany("INSERT INTO v VALUES (?, ?)", rows)
    con.execute("INSERT INTO v VALUES (100, NULL)")	# only NULLs: NULL
    con.commit()
    con.close()
    pcts = [0, 1, 10, 25, 50, 75, 90, 99, 100]
    cols = ", ".join(g17(f"percentile(x, {p})") for p in pcts)
    rows = cli(db, f"SELECT g, count(x), {g17('median(x)')}, {g17('stddev_samp(x)')}, {cols} "
                   "FROM v GROUP BY g ORDER BY g")
    got = {int(r[0]): r[1:] for r in rows}
    check("groups", sorted(got), sorted(groups) + [100])
    for g, vals in groups.items():
        if g not in got:
            continue
        r = got[g]
        n = len(vals)
        check(f"group {g}: count", int(r[0]), n)
        # Integers below 2^52: the mean of the two middle values is exact in a double, as in Python.
        check(f"group {g} (n={n}): median", num(r[1]), float(statistics.median(vals)))
        close(f"group {g} (n={n}): stddev_samp", num(r[2]), statistics.stdev(vals) if n > 1 else 0.0, 1e-12)
        s = sorted(vals)
        q = statistics.quantiles(vals, n=100, method="inclusive") if n > 1 else [s[0]] * 99
        for p, cell in zip(pcts, r[3:]):
            want = s[0] if p == 0 else s[-1] if p == 100 else q[p - 1]
            close(f"group {g} (n={n}): percentile {p}", num(cell), float(want), 1e-12)
    exe = python_loader()
    if exe:
        py = py_rows(exe, db, "SELECT g, median(x), stddev_samp(x), percentile(x, 90) FROM v GROUP BY g ORDER BY g")
        if py is not None:
            check(f"loaded into {exe}'s sqlite3: the shell's numbers", py,
                  [[int(g)] + [num(c) for c in (r[1], r[2], r[3 + pcts.index(90)])] for g, r in got.items()])
    else:
        print("sqlext: no Python here whose sqlite3 module loads extensions: the sqlite3 shell only")
    check("only NULLs: NULL", got.get(100), ["0", "", ""] + [""] * len(pcts))
    check("no rows: NULL", cli(db, "SELECT median(x) IS NULL, stddev_samp(x) IS NULL, percentile(x, 5) IS NULL, "
                                   "busy_union(x, x) IS NULL FROM v WHERE g = -1"), [["1", "1", "1", "1"]])
    check("one row: stddev 0", cli(db, "SELECT stddev_samp(x) FROM v WHERE g = 0"), [["0.0"]])
    for bad in ("percentile(x, 101)", "percentile(x, -1)", "percentile(x, NULL)", "percentile(x, g)"):
        p = cli(db, f"SELECT {bad} FROM v", expect_ok=False)
        ok(f"{bad}: an SQL error", p.returncode == 1 and "percentile: p must" in p.stderr, p.stderr.strip())


def union_len(ivs):
    """Exact length of the union of [s, e) intervals (Python integers)."""
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted((s, e) for s, e in ivs if s is not None and e is not None and e > s):
        if cur_e is not None and s <= cur_e:
            cur_e = max(cur_e, e)
            continue
        if cur_e is not None:
            total += cur_e - cur_s
        cur_s, cur_e = s, e
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def busy(tmp):
    rnd = random.Random(7)
    db = os.path.join(tmp, "iv.db")
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE iv(g INTEGER, s INTEGER, e INTEGER)")
    groups = {
        0: [(0, 10), (5, 20), (6, 7), (20, 25), (30, 31)],		# overlapping, nested, touching
        1: [(5, 5), (9, 3)],						# empty and inverted: 0
        2: [(None, 5), (1, None), (1, 4)],				# NULL ends skipped
        3: [(INT64_MIN, -1), (INT64_MIN + 5, -3)],			# exactly INT64_MAX
        4: [(INT64_MAX - 10, INT64_MAX), (INT64_MAX - 20, INT64_MAX - 15), (INT64_MIN, INT64_MIN + 3)],
    }
    base = 1_700_000_000_000_000_000
    for g in range(5, 12):
        n = rnd.choice([1, 2, 50, 3000])
        spread = rnd.choice([100, 10_000, 10**9])
        ivs = []
        for _ in range(n):
            s = base + rnd.randrange(spread)
            ivs.append((s, s + rnd.randrange(spread // 10 + 2)))
        groups[g] = ivs
    for g, ivs in groups.items():
        con.executemany("INSERT INTO iv VALUES (?, ?, ?)", [(g, s, e) for s, e in ivs])
    con.commit()
    con.close()
    got = {int(r[0]): r[1] for r in cli(db, "SELECT g, busy_union(s, e) FROM iv GROUP BY g")}
    for g, ivs in groups.items():
        check(f"busy_union group {g} ({len(ivs)} intervals)", got.get(g), str(union_len(ivs)))
    for ivs in ([(INT64_MIN, INT64_MAX)], [(INT64_MIN, 0), (0, INT64_MAX)], [(-1, INT64_MAX)]):
        values = ", ".join(f"({s}, {e})" for s, e in ivs)
        p = cli(db, f"WITH t(s, e) AS (VALUES {values}) SELECT busy_union(s, e) FROM t", expect_ok=False)
        ok(f"busy_union {ivs}: overflow is an SQL error", p.returncode == 1 and "integer overflow" in p.stderr
           and union_len(ivs) > INT64_MAX, p.stderr.strip())


def regexps(tmp):
    import re
    db = os.path.join(tmp, "re.db")
    texts = ["ampere_sgemm_128x64_nn", "void at::native::vectorized_elementwise_kernel<4>(int)",
             "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "aten::linear, seq = 12", "", "x", "GEMM", "abcabc"]
    pats = ["gemm", "^ampere_", "(?i)gemm", r"\d+x\d+", "nccl.*RING", "[<>]", "^$", "c$", "(abc){2}", "x|y",
            r"seq = \d+$", "^(?!aten)"]
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t(s TEXT)")
    con.execute("CREATE TABLE p(p TEXT)")
    con.executemany("INSERT INTO t VALUES (?)", [(s,) for s in texts])
    con.executemany("INSERT INTO p VALUES (?)", [(p,) for p in pats])
    con.commit()
    con.close()
    rows = cli(db, "SELECT t.rowid, p.rowid, t.s REGEXP p.p FROM t, p ORDER BY 1, 2")
    got = {(int(a), int(b)): c for a, b, c in rows}
    for i, s in enumerate(texts, 1):
        for j, pat in enumerate(pats, 1):
            check(f"{s!r} REGEXP {pat!r}", got.get((i, j)), "1" if re.search(pat, s) else "0")
    # More patterns than the connection's cache of compiled ones keeps (16), in turn: evicted and compiled again.
    many = [f"^{k}" for k in range(40)] + [f"{k}$" for k in range(5)]
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE m(p TEXT)")
    con.executemany("INSERT INTO m VALUES (?)", [(p,) for p in many])
    con.execute("CREATE TABLE n(s TEXT)")
    con.executemany("INSERT INTO n VALUES (?)", [(str(k),) for k in range(0, 400, 7)])
    con.commit()
    con.close()
    rows = cli(db, "SELECT n.s, m.p, n.s REGEXP m.p FROM n, m ORDER BY n.rowid, m.rowid")
    want = [[str(k), p, "1" if re.search(p, str(k)) else "0"] for k in range(0, 400, 7) for p in many]
    check(f"regexp with {len(many)} patterns in turn (the cache evicting)", rows, want)
    for bad in ("(", "[a-", "a{2,1}", "\\"):
        p = cli(db, f"SELECT count(*) FROM t WHERE s REGEXP '{bad}'", expect_ok=False)
        ok(f"bad pattern {bad!r}: an SQL error, no crash",
           p.returncode == 1 and f"bad regular expression '{bad}'" in p.stderr, f"exit {p.returncode}: {p.stderr}")


def fixed(tmp):
    """fmt_fixed(x, d) against Python's '%.*f', which rounds the binary value as C's printf does (SQLite's
    printf('%.2f') gives 2.68 for 2.675, whose binary value is 2.67499...)."""
    db = os.path.join(tmp, "fixed.db")
    xs = [2.675, 0.125, 0.375, 0.625, 1.005, 1.015, 566.125, 0.5, 1.5, 2.5, -0.5, -2.675, 0.0, 123.456789,
          1048576 / 1e6, 5 / 7, 1e20, 2.0**60, 1e-9]
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t(x REAL)")
    con.executemany("INSERT INTO t VALUES (?)", [(x,) for x in xs])
    con.commit()
    con.close()
    rows = cli(db, "SELECT t.rowid, d.d, fmt_fixed(t.x, d.d) FROM t, (SELECT 0 AS d UNION ALL SELECT 2 UNION ALL "
                   "SELECT 3) d ORDER BY 1, 2")
    got = {(int(r), int(d)): v for r, d, v in rows}
    for i, x in enumerate(xs, 1):
        for d in (0, 2, 3):
            check(f"fmt_fixed({x!r}, {d})", got.get((i, d)), "%.*f" % (d, x))
    check("fmt_fixed(NULL, 2) and of an integer", cli(db, "SELECT fmt_fixed(NULL, 2) IS NULL, fmt_fixed(2675, 1)"),
          [["1", "2675.0"]])


def analyze(db, name, *extra):
    return json.loads(subprocess.run([os.path.join(BIN, "gpuprof-analyze"), name, db, "--format", "json"] + list(extra),
                                     capture_output=True, text=True, check=True).stdout)


def names(tmp):
    """On a real Nsight Systems export of a PyTorch run (emit_nvtx names): the names and per-name
    statistics SQL gives are the ones gpuprof-analyze shows."""
    src = os.path.join(TRACES, "nsys", "mfu_2gpu_before.sqlite")
    if not os.path.exists(src):
        print(f"sqlext: skipped the names checks: {src} is absent")
        return
    db = os.path.join(tmp, "s.db")
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", src, "-o", db], check=True)
    want = sorted({r["name"] for r in analyze(db, "ranges")})
    got = sorted(r[0] for r in cli(db, "SELECT DISTINCT fold_name(s.value) FROM ranges r JOIN strings s "
                                       "ON s.session_id = r.session_id AND s.id = r.name_id"))
    ok("range names carry PyTorch counters", any(", seq = " in r[0] for r in cli(
        db, "SELECT s.value FROM ranges r JOIN strings s ON s.session_id = r.session_id AND s.id = r.name_id")))
    check("fold_name: the names ranges shows", got, want)
    for short in (False, True):
        fn = "short_name(s.value)" if short else "s.value"
        rows = cli(db, f"SELECT {fn}, count(*), sum(k.end_ns - k.start_ns), {g17('median(k.end_ns - k.start_ns)')}, "
                       f"{g17('stddev_samp(k.end_ns - k.start_ns)')} FROM kernels k JOIN strings s "
                       f"ON s.session_id = k.session_id AND s.id = k.name_id GROUP BY 1")
        sql = {r[0]: r[1:] for r in rows}
        hot = analyze(db, "hotspots", "--top", "100000", *(["--short"] if short else []))
        check(f"hotspots{' --short' if short else ''}: names", sorted(sql), sorted(r["name"] for r in hot))
        for r in hot:
            s = sql.get(r["name"])
            if not s:
                continue
            check(f"{r['name'][:40]}: calls, total, median", (int(s[0]), int(s[1]), float(s[2])),
                  (r["calls"], r["total_ns"], float(r["med_ns"])))
            close(f"{r['name'][:40]}: stddev", float(s[3]), r["stddev_ns"], 1e-12)


def main():
    if not shutil.which("sqlite3"):
        print("sqlext: skipped: no sqlite3 command-line shell")
        return checks.summary("sqlext")
    if not os.path.exists(EXT + ".so"):
        ok("the extension is built", False, EXT + ".so is missing (make builds it)")
        return checks.summary("sqlext")
    with tempfile.TemporaryDirectory(prefix="gpuprof-sqlext-") as tmp:
        stats_groups(tmp)
        busy(tmp)
        regexps(tmp)
        fixed(tmp)
        names(tmp)
    return checks.summary("sqlext")


if __name__ == "__main__":
    sys.exit(main())
