#!/usr/bin/env python3
"""Every shipped analysis run as it is in the real sqlite3 shell (Debian's /usr/bin/sqlite3) with
build/lib/gpuprof_sqlite loaded:

    sqlite3 -csv -header DB -cmd '.load build/lib/gpuprof_sqlite' '.read analyze/NAME.sql'

prints what `gpuprof-analyze NAME DB -f csv` prints: the same tables, columns in the same order, values
equal, on the demo session and on real traces from ../shared/traces (a Kineto training trace with memory
events and ops, Nsight Systems exports of two GPUs, a two-rank NCCL job; each skipped with a reason when
absent), with options set by `.parameter set` against the same options on gpuprof-analyze's command
line, and compare against a baseline attached as `base`. The differences by design (README "Analyses in
the sqlite3 shell") are allowed and nothing else: the shell prints reals with 15 significant digits,
no header for a statement without rows, heading statements (`_title`, `_note`) as result sets, the
`_note`/`_footer` columns, columns gpuprof-analyze hides when NULL in every row, a pivot table long
(`_pivot`, `_value`), and text cells beginning with = + - @ without gpuprof's guarding quote. Also: the
module statement returns no rows and makes no table for gpuprof-analyze, includes run once per connection
with the same parameters and again when they change, a missing module or baseline is one clear error.

The shell's output is split into its result sets with the same module run in `-json` mode (one JSON array
per result set: its columns and row count)."""
import csv
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import checks
from checks import BIN, ROOT, TRACES


def ok(what, cond, detail=""):
    """checks.ok, returning whether it passed."""
    checks.ok(what, cond, detail)
    return bool(cond)


def check(what, got, want):
    """checks.check, returning whether it passed."""
    checks.check(what, got, want)
    return got == want

EXT = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "lib", "gpuprof_sqlite")
DEMO = os.path.join(ROOT, "tests", "data", "demo-session")
SQLITE = "/usr/bin/sqlite3"
META = {"_title", "_note"}
# How often each difference by design was met (printed at the end: each must be met somewhere).
DESIGN = dict.fromkeys(["heading result sets", "tables without rows", "_note/_footer columns",
                        "hide-null columns", "pivot tables", "guarded text cells", "reals to 15 digits"], 0)


def run(*args, expect=0, env=None):
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=env)
    if expect is not None and p.returncode != expect:
        print(f"FAIL {' '.join(map(str, args))[:300]}: exit {p.returncode}, want {expect}: {p.stderr.strip()[:500]}")
        checks.counts["failed"] += 1
    return p


def analyses():
    """The shipped analyses, as gpuprof-analyze --list names them."""
    out = run(os.path.join(BIN, "gpuprof-analyze"), "--list").stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def shell(db, name, mode, params=(), cmds=()):
    """The module through the sqlite3 shell in mode ('-csv' or '-json'), with `.parameter set` params."""
    args = [SQLITE, mode, "-header", db, "-cmd", f".load {EXT}"]
    for k, v in params:
        args += ["-cmd", f".parameter set {k} {v}"]
    for c in cmds:
        args += ["-cmd", c]
    args.append(f".read {os.path.join(ROOT, 'analyze', name + '.sql')}")
    return subprocess.run(args, capture_output=True, text=True, cwd=ROOT)


def json_sets(text):
    """The result sets of the shell's -json output: [(columns, rows)], one per statement with rows."""
    dec, at, out = json.JSONDecoder(), 0, []
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return out
        rows, at = dec.raw_decode(text, at)
        out.append((list(rows[0].keys()), len(rows)))


def csv_sets(text, shape):
    """The -csv -header output split as shape [(columns, nrows)] says: [(columns, rows of strings)]."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    out, at = [], 0
    for cols, n in shape:
        if at + n + 1 > len(rows) or rows[at] != cols:
            raise ValueError(f"result set {len(out) + 1}: header {rows[at] if at < len(rows) else None}, want {cols}")
        out.append((cols, rows[at + 1:at + 1 + n]))
        at += n + 1
    if at != len(rows):
        raise ValueError(f"{len(rows) - at} rows after the last result set")
    return out


def analyze_tables(db, name, args=()):
    """gpuprof-analyze NAME DB -f csv (split by -f json's tables and row counts): [(columns, rows)]."""
    exe = os.path.join(BIN, "gpuprof-analyze")
    p = run(exe, name, db, "-f", "csv", *args)
    j = run(exe, name, db, "-f", "json", *args)
    if p.returncode or j.returncode:
        return None
    tables = json.loads(j.stdout)
    counts = [len(t) for t in (tables.values() if isinstance(tables, dict) else [tables])]
    rows = list(csv.reader(io.StringIO(p.stdout, newline="")))
    out, at = [], 0
    for i, n in enumerate(counts):
        if i and not n:
            continue	# (a later table without rows is left out)
        if i:
            at += 1	# the blank line between tables
        out.append((rows[at], rows[at + 1:at + 1 + n]))
        at += 1 + n
    return out


def number(s):
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        return None


def same_cell(shell_cell, gp_cell):
    """Equal as printed, or as numbers to SQLite's 15 significant digits; gpuprof's CSV guard quote undone."""
    if gp_cell[:1] == "'" and gp_cell[1:2] in ("=", "+", "-", "@", "\t", "\r"):
        DESIGN["guarded text cells"] += shell_cell == gp_cell[1:]
        gp_cell = gp_cell[1:]
    if shell_cell == gp_cell:
        return True
    a, b = number(shell_cell), number(gp_cell)
    if a is None or b is None:
        return False
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    same = abs(a - b) <= 5e-15 * max(abs(a), abs(b)) or float(f"{b:.15g}") == a
    DESIGN["reals to 15 digits"] += same
    return same


def unpivot(cols, rows, gp_cols):
    """A long pivot result (declared columns, _pivot, _value) laid out as gpuprof-analyze lays it out."""
    p, v = cols.index("_pivot"), cols.index("_value")
    decl = [c for c in cols if c not in ("_pivot", "_value")]
    names, groups = [], []
    for r in rows:
        key = [x for i, x in enumerate(r) if i not in (p, v)]
        if not groups or groups[-1][0] != key:
            groups.append((key, {}))
        if r[p] != "":
            if r[p] not in names:
                names.append(r[p])
            groups[-1][1][r[p]] = r[v]
    extra = [c for c in gp_cols if c not in decl]
    suffix = extra[0][len(names[0]):] if extra and names else ""
    out = []
    for key, cells in groups:
        d = dict(zip(decl, key))
        out.append([d[c] if c in d else cells.get(c[:len(c) - len(suffix)] if suffix else c, "") for c in gp_cols])
    return gp_cols, out


def compare_sets(what, sets, tables):
    """The shell's result sets against gpuprof-analyze's tables, by design's differences allowed."""
    DESIGN["heading result sets"] += sum(1 for s in sets if set(s[0]) <= META)
    DESIGN["tables without rows"] += sum(1 for t in tables if not t[1])
    sets = [s for s in sets if not set(s[0]) <= META]	# heading statements: metadata
    tables = [t for t in tables if t[1]]	# the shell prints nothing for a statement without rows
    if not check(f"{what}: tables with rows", [s[0] for s in sets] if len(sets) != len(tables) else len(sets),
                 [t[0] for t in tables] if len(sets) != len(tables) else len(tables)):
        return
    for k, ((cols, rows), (gcols, grows)) in enumerate(zip(sets, tables)):
        w = f"{what}: table {k + 1}"
        if "_pivot" in cols:
            DESIGN["pivot tables"] += 1
            cols, rows = unpivot(cols, rows, gcols)
        keep = []
        for i, c in enumerate(cols):
            if c in ("_note", "_footer"):
                DESIGN["_note/_footer columns"] += 1
                continue
            if c not in gcols:	# hidden by gpuprof-analyze: NULL in every row
                DESIGN["hide-null columns"] += 1
                ok(f"{w}: column {c} the shell shows is NULL in every row", all(r[i] == "" for r in rows),
                   [r[i] for r in rows][:5])
                continue
            keep.append(i)
        if not check(f"{w}: columns", [cols[i] for i in keep], gcols):
            continue
        if not check(f"{w}: rows", len(rows), len(grows)):
            continue
        bad = [(n, cols[i], r[i], g[j]) for n, (r, g) in enumerate(zip(rows, grows))
               for j, i in enumerate(keep) if not same_cell(r[i], g[j])]
        ok(f"{w}: values equal", not bad, bad[:5])


def same_output(what, db, name, params=(), args=(), cmds=()):
    """NAME through the shell (params set) against gpuprof-analyze NAME DB (args)."""
    p = shell(db, name, "-csv", params, cmds)
    j = shell(db, name, "-json", params, cmds)
    if not ok(f"{what}: sqlite3 runs it without an error", p.returncode == 0 and not p.stderr and j.returncode == 0,
              f"exit {p.returncode}: {p.stderr.strip()[:400]}"):
        return
    tables = analyze_tables(db, name, args)
    if tables is None:
        return
    try:
        sets = csv_sets(p.stdout, json_sets(j.stdout))
    except ValueError as e:
        ok(f"{what}: the shell's result sets", False, str(e))
        return
    compare_sets(what, sets, tables)


def every_analysis(label, db, names, skip=()):
    for name in names:
        if name in skip:
            continue
        same_output(f"{label}: {name}", db, name)


def ingest(out, *inputs, session=None):
    args = [os.path.join(BIN, "gpuprof-ingest"), "-q", *inputs, "-o", out]
    if session:
        args += ["--session", session]
    return run(*args).returncode == 0


def options(db, names):
    """Options set with .parameter against the same on gpuprof-analyze's command line."""
    cases = [
        ("hotspots", [(":top", 5)], ["--top", "5"]),
        ("hotspots", [(":short", 1)], ["--short"]),
        ("hotspots", [(":match", "'gemm'"), (":exclude", "'nn_'")], ["--match", "gemm", "--exclude", "nn_"]),
        ("kernexec", [(":short", 1), (":top", 3)], ["--short", "--top", "3"]),
        ("ranges", [(":top", 4)], ["--top", "4"]),
        ("ops", [(":by_shape", 1)], ["--by-shape"]),
        ("ops", [(":fold_backward", 1)], ["--fold-backward"]),
        ("energy", [(":carbon_intensity", 400)], ["--carbon-intensity", "400"]),
        ("ranks", [(":threshold", 0.02)], ["--threshold", "2%"]),
        ("memcpy", [(":session", 1)], ["--session", "1"]),
    ]
    for name, params, args in cases:
        if name in names:
            same_output(f"options: {name} {' '.join(args)}", db, name, params, args)
    # The second command line as it is (list mode: cells joined by |, no header).
    p = subprocess.run([SQLITE, db, "-cmd", f".load {EXT}", "-cmd", ".parameter set :top 5",
                        ".read analyze/hotspots.sql"], capture_output=True, text=True, cwd=ROOT)
    want = analyze_tables(db, "hotspots", ["--top", "5"])
    if want:
        check("the issue's second command line: the top 5 kernels' names",
              [line.rsplit("|", 1)[-1] for line in p.stdout.splitlines()], [r[-1] for r in want[0][1]])
    # --group NAME=RE is a row of temp.name_groups in the shell.
    same_output("options: hotspots --group", db, "hotspots", args=["--group", "gemm=gemm", "--group", "elt=elementwise"],
                cmds=["CREATE TEMP TABLE name_groups(ord INTEGER PRIMARY KEY, name TEXT, pattern TEXT)",
                      "INSERT INTO name_groups VALUES (0, 'gemm', 'gemm'), (1, 'elt', 'elementwise')"])


def sequence(what, db, name, steps):
    """One shell reading NAME once per step, each after its `.parameter set`s, against gpuprof-analyze
    NAME with each step's arguments: what one run left (defaults, includes) must not stand in the next."""
    cmds, tables = [], []
    for params, gargs in steps:
        cmds += [f".parameter set {k} {v}" for k, v in params]
        cmds.append(f".read {os.path.join(ROOT, 'analyze', name + '.sql')}")
        t = analyze_tables(db, name, gargs)
        if t is None:
            return
        tables += t
    runs = [subprocess.run([SQLITE, mode, "-header", db, "-cmd", f".load {EXT}"] + cmds, capture_output=True,
                           text=True, cwd=ROOT) for mode in ("-csv", "-json")]
    if not ok(f"{what}: sqlite3 runs it without an error", all(p.returncode == 0 and not p.stderr for p in runs),
              runs[0].stderr[:400]):
        return
    try:
        sets = csv_sets(runs[0].stdout, json_sets(runs[1].stdout))
    except ValueError as e:
        ok(f"{what}: the shell's result sets", False, str(e))
        return
    compare_sets(what, sets, tables)


def module_statement(db):
    """gpuprof_module itself: no rows, defaults, includes once per parameters, clear errors."""
    def q(*sql, load=True):
        args = [SQLITE, "-batch", "-bail", "-noheader", "-list", db] + (["-cmd", f".load {EXT}"] if load else [])
        return subprocess.run(args + list(sql), capture_output=True, text=True)
    p = q("SELECT count(*) FROM gpuprof_module('hotspots')")
    check("gpuprof_module: no rows", (p.stdout.strip(), p.stderr.strip()), ("0", ""))
    p = q("SELECT * FROM gpuprof_module('hotspots')", ".parameter list")
    params = dict(line.split(None, 1) for line in p.stdout.splitlines() if line.strip())
    newest = q("SELECT max(id) FROM sessions", load=False).stdout.strip()
    check("gpuprof_module: defaults as gpuprof-analyze's", {k: params.get(k) for k in
          (":session", ":top", ":short", ":folded", ":match", ":exclude")},
          {":session": newest, ":top": "-1", ":short": "0", ":folded": "0", ":match": "NULL", ":exclude": "NULL"})
    p = q(".parameter set :top 7", ".parameter set :short 1", "SELECT * FROM gpuprof_module('hotspots')",
          ".parameter list")
    params = dict(line.split(None, 1) for line in p.stdout.splitlines() if line.strip())
    check("gpuprof_module: what is set stays; :folded follows :short", (params.get(":top"), params.get(":folded")),
          ("7", "1"))
    p = q("INSERT INTO temp.name_groups VALUES (0, 'g', 'gemm')", ".parameter init",
          "SELECT * FROM gpuprof_module('hotspots')", "SELECT value FROM temp.sqlite_parameters WHERE key = ':folded'")
    ok("gpuprof_module: :folded 1 with a group", "no such table" in p.stderr or p.stdout.strip() == "1", p)
    p = q("SELECT * FROM gpuprof_module('no_such')")
    ok("gpuprof_module: an unknown module is one clear error", p.returncode != 0 and
       "gpuprof_module: no module 'no_such' (analyze/no_such.sql)" in p.stderr, p.stderr)
    p = q("SELECT * FROM gpuprof_module(NULL)")
    ok("gpuprof_module: NULL is an error", p.returncode != 0 and "needs a module name" in p.stderr, p.stderr)
    # The data files, read from the file the environment names.
    with tempfile.NamedTemporaryFile("w", suffix=".rules", delete=False) as f:
        f.write("# nothing\n")
    try:
        env = dict(os.environ, GPUPROF_CLASS_RULES=f.name)
        p = subprocess.run([SQLITE, "-batch", "-noheader", db, "-cmd", f".load {EXT}",
                            "SELECT * FROM gpuprof_module('classes')",
                            "SELECT value FROM temp.sqlite_parameters WHERE key = ':class_rules_file'"],
                           capture_output=True, text=True, env=env)
        check("gpuprof_module: :class_rules_file from GPUPROF_CLASS_RULES", p.stdout.strip(), f.name)
        env["GPUPROF_CLASS_RULES"] = f.name + ".absent"
        p = subprocess.run([SQLITE, "-batch", "-noheader", db, "-cmd", f".load {EXT}",
                            "SELECT * FROM gpuprof_module('classes')"], capture_output=True, text=True, env=env)
        ok("gpuprof_module: an unreadable rules file is one clear error",
           p.returncode != 0 and "cannot read class rules" in p.stderr, p.stderr)
    finally:
        os.unlink(f.name)
    # The module statement makes no table for gpuprof-analyze (script_run skips it).
    j = json.loads(run(os.path.join(BIN, "gpuprof-analyze"), "hotspots", db, "-f", "json", "-n", "1").stdout)
    ok("gpuprof-analyze: the module statement is no table", isinstance(j, list) and len(j) == 1, str(j)[:200])
    # gpuprof-analyze and gpuprof-report run each include once (the module statement runs them, for every
    # analysis with the same parameters): memory-events.sql and views.sql's first statements, counted.
    env = dict(os.environ, GPUPROF_PROFILE_SQL="1")
    for prog, args in (("gpuprof-analyze", ["memory", db]), ("gpuprof-report", [db])):
        p = run(os.path.join(BIN, prog), *args, env=env)
        ran = [len(re.findall(r"sql: +[0-9.]+ ms  CREATE TEMP TABLE IF NOT EXISTS " + t + r"\(", p.stderr))
               for t in ("range_rows", "mem_key")]
        check(f"{prog}: views.sql and memory-events.sql run once each", ran, [1, 1])
    # Defaults computed again in the next run: :folded follows :short set in between.
    sequence("gpuprof_module: :short set between two runs", db, "hotspots", [([], []), ([(":short", 1)], ["--short"])])
    sequence("gpuprof_module: :top set, then back to the default", db, "api",
             [([(":top", 2)], ["--top", "2"]), ([(":top", -1)], [])])


def traces(tmp, names):
    """Real traces: each skipped with a reason when absent."""
    k = lambda n: os.path.join(TRACES, "kineto", n)
    nsys = lambda n: os.path.join(TRACES, "nsys", n + ".sqlite")
    for label, files in (("kineto train (ops, memory events)", [k("h200_pt211_train.pt.trace.json.gz")]),
                         ("kineto memory events", [k("a100_pcie_memory_events.json.gz")]),
                         ("nsys 2 GPUs", [nsys("h100_2gpu_1s")])):
        missing = [f for f in files if not os.path.exists(f)]
        if missing:
            print(f"modules_shell: skipped {label}: {missing[0]} is absent")
            continue
        db = os.path.join(tmp, re.sub(r"\W+", "_", label) + ".db")
        if ingest(db, *files):
            every_analysis(label, db, names, skip=("compare",))
    src = k("a100_nccl.json.gz")
    if not os.path.exists(src):
        print(f"modules_shell: skipped the two-rank job: {src} is absent")
    else:
        # Rank 1: the same trace with distributedInfo.rank edited, as tests/ranks.py makes it.
        with gzip.open(src, "rt") as f:
            text = f.read()
        r1 = os.path.join(tmp, "a100_nccl_rank1.json.gz")
        with gzip.open(r1, "wt") as f:
            f.write(re.sub(r'("distributedInfo": \{[^}]*"rank": )0', r"\g<1>1", text, count=1))
        db = os.path.join(tmp, "ranks.db")
        if ingest(db, src, r1, session="job"):
            every_analysis("two ranks", db, names, skip=("compare",))
    before, after = nsys("mfu_2gpu_before"), nsys("mfu_2gpu_after")
    if not (os.path.exists(before) and os.path.exists(after)):
        print(f"modules_shell: skipped compare on real traces: {before} or {after} is absent")
        return
    base, new, both = (os.path.join(tmp, n) for n in ("before.db", "after.db", "both.db"))
    if not (ingest(base, before) and ingest(new, after) and ingest(both, before) and ingest(both, after)):
        return
    # A baseline file: ATTACH it as base in the shell, --baseline for gpuprof-analyze.
    same_output("compare: ATTACH 'before.db' AS base", new, "compare", args=["--baseline", base],
                cmds=[f"ATTACH '{base}' AS base"])
    same_output("compare: ATTACH, :base_session", new, "compare", params=[(":base_session", 1)],
                args=["--baseline", base, "--base-session", "1"], cmds=[f"ATTACH '{base}' AS base"])
    # One database of two sessions: the session before :session, as gpuprof-analyze's default.
    same_output("compare: the session before", both, "compare")
    same_output("compare: :threshold, :min_delta", both, "compare", params=[(":threshold", 0.2), (":min_delta", 50000)],
                args=["--threshold", "20%", "--min-delta", "50us"])
    same_output("compare: :session 1 against nothing before it", both, "memcpy", params=[(":session", 1)],
                args=["--session", "1"])
    every_analysis("two sessions", both, names, skip=("compare",))
    steps = [([(":session", 1)], ["--session", "1"]), ([(":session", 2)], ["--session", "2"]),
             ([(":session", 1)], ["--session", "1"])]
    # The includes again when :session changes (memory-events.sql, comm.sql read it), not when it stays.
    sequence("two sessions: ranks, :session 1 then 2 then 1", both, "ranks", steps)
    mem = [k("h200_pt211_train.pt.trace.json.gz"), k("a100_pcie_memory_events.json.gz")]
    if not all(os.path.exists(f) for f in mem):
        print(f"modules_shell: skipped two sessions of memory events: {mem} absent")
        return
    db = os.path.join(tmp, "memory2.db")
    if ingest(db, mem[0]) and ingest(db, mem[1]):
        for name in ("memory", "leaks", "peak"):
            sequence(f"two sessions of memory events: {name}, :session 1 then 2 then 1", db, name, steps)


def readme():
    """README's table of each analysis's parameters is what scripts/modules2md.py makes of the headers."""
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "modules2md.py"), "--check"],
                       capture_output=True, text=True)
    ok("README's analysis parameters are up to date (scripts/modules2md.py --write)", p.returncode == 0,
       (p.stdout + p.stderr)[-1500:])
    table = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "modules2md.py")], capture_output=True,
                           text=True).stdout
    check("README: a row per analysis", sorted(re.findall(r"^\| `(\w+)` \|", table, re.M)), sorted(analyses()))


def main():
    readme()
    if not os.path.exists(SQLITE):
        print(f"modules_shell: skipped: no {SQLITE}")
        return checks.summary("modules_shell")
    names = analyses()
    ok("analyses listed", len(names) > 20, names)
    with tempfile.TemporaryDirectory(prefix="gpuprof-modshell-") as tmp:
        demo = os.path.join(tmp, "demo.db")
        if ingest(demo, DEMO):
            every_analysis("demo", demo, names, skip=("compare",))
            options(demo, names)
            module_statement(demo)
        if os.path.isdir(TRACES):
            traces(tmp, names)
        else:
            print(f"modules_shell: skipped the real traces: {TRACES} is absent")
    print("modules_shell: differences by design met: " + ", ".join(f"{k} {v}" for k, v in DESIGN.items()))
    return checks.summary("modules_shell")


if __name__ == "__main__":
    sys.exit(main())
