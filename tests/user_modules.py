#!/usr/bin/env python3
"""user_modules: analyses users write (README "Your own analyses", issue 34). A module with an option and a
gate, run by gpuprof-analyze --sql FILE in every format and added by gpuprof-report --sql FILE to every format;
its option as --NAME VALUE and as --opt NAME=VALUE; its gate (rows whose `_fail` is true fail it); modules found
by name in GPUPROF_ANALYSES; a module that reads a column or table that does not exist, or whose header is
malformed, fails with one line FILE:LINE and exit 2, and the report keeps every other section.

The rows are checked against the same query run with Python's sqlite3 on the demo session
(tests/data/demo-session)."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import BIN, ROOT, check, ok, summary  # noqa: E402

ENV = dict(os.environ, LC_ALL="C", TZ="UTC")
ENV.pop("GPUPROF_ANALYSES", None)

LONG_KERNELS = """\
-- analysis: long_kernels
-- title: Kernels longer than a threshold
-- Kernels at least :min_ns long, by total time; with --max-total-ns, those whose total is above fail.
-- option: min_ns 100000 kernels at least this long (ns)
-- gate: max_total_ns - fail when a kernel's total time is above this (ns)
-- column: total_ns ns their total time
-- column: calls count "Launches" how many
SELECT name, count(*) AS calls, sum(dur_ns) AS total_ns, avg(dur_ns) AS avg_ns,
       :max_total_ns IS NOT NULL AND sum(dur_ns) > :max_total_ns AS _fail
FROM kernel_events
WHERE session_id = :session AND dur_ns >= :min_ns
GROUP BY name
ORDER BY total_ns DESC
LIMIT CASE WHEN :top > 0 THEN :top ELSE -1 END;
"""

# No column lines and two result statements: kinds from names and values, a table each.
UNDECLARED = """\
-- analysis: shapes
-- title: Launch shapes
-- option: label blocks a word for the label column
SELECT :label AS label, block_x AS block, count(*) AS calls, max(dur_ns) AS max_ns, avg(dur_ns) / 1000.0 AS avg_us
FROM kernel_events WHERE session_id = :session GROUP BY block_x ORDER BY block_x;
SELECT count(DISTINCT name) AS names FROM kernel_events WHERE session_id = :session;
"""

SECTIONED = """\
-- analysis: busiest_stream
-- title: The busiest stream
-- section: 4
SELECT stream_id AS stream, sum(dur_ns) AS busy_ns FROM kernel_events WHERE session_id = :session
GROUP BY stream_id ORDER BY busy_ns DESC LIMIT 1;
"""

# The same module wrong in its SQL: a column (line 9) and a table (line 10) that do not exist.
BAD_COLUMN = LONG_KERNELS.replace("sum(dur_ns) AS total_ns", "sum(duration) AS total_ns")
BAD_TABLE = LONG_KERNELS.replace("FROM kernel_events", "FROM kernel_eventz")
# Its first statement runs, its second (line 6) fails: the table the first made goes too.
BAD_SECOND = UNDECLARED.replace("count(DISTINCT name) AS names", "count(DISTINCT nom) AS names")
BAD_HEADER = "-- analysis: broken\n-- title: Broken\n-- option: min_ns\nSELECT 1 AS x;\n"
SHADOW = "-- analysis: hotspots\n-- title: Not the shipped one\nSELECT 1 AS x;\n"


def run(*args, env=None):
    p = subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), env=env or ENV, capture_output=True,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def expected(db, min_ns):
    """long_kernels' rows, from Python's sqlite3."""
    con = sqlite3.connect(db)
    rows = con.execute("SELECT name, count(*), sum(dur_ns), avg(dur_ns) FROM kernel_events WHERE dur_ns >= ? "
                       "GROUP BY name ORDER BY 3 DESC", (min_ns,)).fetchall()
    con.close()
    return [{"name": n, "calls": c, "total_ns": t, "avg_ns": a} for n, c, t, a in rows]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def analyze_checks(tmp, db):
    mod = write(os.path.join(tmp, "long_kernels.sql"), LONG_KERNELS)
    want = expected(db, 100000)
    ok("the demo has long kernels to list", len(want) >= 3, f"{len(want)} rows")

    # Its rows in JSON, with the option's default, --NAME VALUE, --opt NAME=VALUE (and NAME-with-dashes).
    rc, out, err = run("gpuprof-analyze", "--sql", mod, db, "--format", "json")
    check("analyze --sql json exit", (rc, err), (0, ""))
    check("analyze --sql json rows (min_ns default 100000)", json.loads(out) if rc == 0 else None, want)
    for args, min_ns in ((["--min-ns", "200000"], 200000), (["--opt", "min_ns=150000"], 150000),
                         (["--opt", "min-ns=150000"], 150000), (["--min-ns=50000", "--opt", "min_ns=300000"], 300000)):
        rc, out, err = run("gpuprof-analyze", "--sql", mod, db, "-f", "json", *args)
        check(f"analyze {' '.join(args)}", json.loads(out) if rc == 0 else (rc, err), expected(db, min_ns))
    # The common options apply: --top.
    rc, out, _ = run("gpuprof-analyze", "--sql", mod, db, "-f", "json", "-n", "2")
    check("analyze --top 2", json.loads(out) if rc == 0 else rc, want[:2])

    # Every format analyze has, the gate's column in none of them.
    rc, out, err = run("gpuprof-analyze", "--sql", mod, db)
    lines = out.splitlines() + [""] * 4
    check("text exit", (rc, err), (0, ""))
    check("text: the title first", lines[:1], ["Kernels longer than a threshold"])
    ok("text: the declared titles", lines[1].split()[:3] == ["Name", "Launches", "Total"], lines[1])
    ok("text: total_ns shown as a time (kind ns)", " ms" in lines[3], lines[3])
    check("text: a line per row", len(out.splitlines()), 3 + len(want))
    rc, out, err = run("gpuprof-analyze", "--sql", mod, db, "-f", "csv")
    check("csv exit", (rc, err), (0, ""))
    lines = out.splitlines() + [""] * 2
    check("csv header", lines[0], '"name","calls","total_ns","avg_ns"')
    check("csv rows", len(out.splitlines()), 1 + len(want))
    check("csv first total", lines[1].split(",")[-2:-1], [str(want[0]["total_ns"])])
    rc, out, err = run("gpuprof-analyze", "--sql", mod, db, "-f", "md")
    check("md exit", (rc, err), (0, ""))
    check("md heading", out.splitlines()[:1], ["### Kernels longer than a threshold"])
    check("md rows", sum(1 for ln in out.splitlines() if ln.startswith("| ")) - 1, len(want))
    for fmt in ("text", "csv", "json", "md"):
        rc, out, _ = run("gpuprof-analyze", "--sql", mod, db, "-f", fmt, "--max-total-ns", "1")
        ok(f"{fmt}: no _fail column", rc == 1 and "_fail" not in out and "Fail" not in out, out[:200])

    # The gate: off unless given; given, the rows whose _fail is true fail it (exit 1, one verdict line).
    top, second = want[0]["total_ns"], want[1]["total_ns"]
    limit = (top + second) // 2
    rc, out, err = run("gpuprof-analyze", "--sql", mod, db, "-f", "json", "--max-total-ns", str(limit))
    check("gate fails: exit and verdict", (rc, err),
          (1, f"gpuprof-analyze: long_kernels: 1 of {len(want)} rows fail --max-total-ns={limit}: FAIL\n"))
    check("gate fails: rows all there", json.loads(out) if out else None, want)
    rc, out, err = run("gpuprof-analyze", "--sql", mod, db, "-f", "json", f"--max-total-ns={top}")
    check("gate passes", (rc, err), (0, f"gpuprof-analyze: long_kernels: 0 of {len(want)} rows fail "
                                        f"--max-total-ns={top}: ok\n"))
    rc, out, err = run("gpuprof-analyze", "--sql", mod, db, "-n", "1", "-f", "json", "--max-total-ns", "0")
    check("gate judges every row, --top cuts only what is shown", (rc, err, len(json.loads(out) if out else [])),
          (1, f"gpuprof-analyze: long_kernels: {len(want)} of {len(want)} rows fail --max-total-ns=0: FAIL\n", 1))
    rc, out, err = run("gpuprof-analyze", "--sql", mod, db, "--max-total-ns", "-f", "json")
    check("a gate without a value (its default '-', NULL) fails nothing", (rc, err),
          (0, f"gpuprof-analyze: long_kernels: 0 of {len(want)} rows fail --max-total-ns: ok\n"))

    # Undeclared columns: kinds from names (_ns, calls) and values (text, integer, real); two statements.
    und = write(os.path.join(tmp, "shapes.sql"), UNDECLARED)
    rc, out, err = run("gpuprof-analyze", "--sql", und, db, "-f", "json", "--label", "blk")
    check("undeclared: exit", (rc, err), (0, ""))
    doc = json.loads(out) if rc == 0 else {}
    check("undeclared: a table per result statement", sorted(doc), ["shapes", "shapes_2"])
    rows = doc.get("shapes", [])
    ok("undeclared: the option bound as text", rows and all(r["label"] == "blk" for r in rows), rows[:1])
    ok("undeclared: integers stay integers, reals reals",
       rows and all(isinstance(r["block"], int) and isinstance(r["calls"], int) and isinstance(r["avg_us"], float)
                    for r in rows), rows[:1])
    rc, out, _ = run("gpuprof-analyze", "--sql", und, db, "--opt", "label=7")
    ok("undeclared text: max_ns a time, its title from the key", rc == 0 and "Max" in out.splitlines()[1]
       and (" us" in out or " ms" in out), out[:300])
    rc, out, _ = run("gpuprof-analyze", "--sql", und, db, "-f", "json", "--opt", "label=7")
    rows = (json.loads(out) if rc == 0 else {}).get("shapes") or [{}]
    ok("an option that parses as an integer is bound as one", rows[0].get("label") == 7, out[:200])

    # An option named as a built-in one is that option, with its flag (not --opt).
    thr = write(os.path.join(tmp, "thr.sql"), "-- analysis: thr\n-- title: T\n-- option: threshold 5% change\n"
                "SELECT :threshold AS t;\n")
    rc, out, err = run("gpuprof-analyze", "--sql", thr, db, "-f", "json", "--threshold", "10%")
    check("a built-in option by its flag", (rc, err, json.loads(out) if rc == 0 else None), (0, "", [{"t": 0.1}]))
    rc, out, err = run("gpuprof-analyze", "--sql", thr, db, "--opt", "threshold=3")
    check("a built-in option by --opt", (rc, err),
          (2, "gpuprof-analyze: error: --opt threshold: a built-in option; give it as --threshold\n"))

    # Usage errors, one line each, exit 2.
    rc, _, err = run("gpuprof-analyze", "--sql", mod, db, "--opt", "nope=1")
    check("--opt unknown name", (rc, err), (2, f"gpuprof-analyze: error: --opt nope: {mod} has no option 'nope' "
                                              "(its options: min_ns)\n"))
    rc, _, err = run("gpuprof-analyze", "--sql", mod, db, "--opt", "nope")
    check("--opt without =", (rc, err), (2, "gpuprof-analyze: error: --opt needs NAME=VALUE, not 'nope'\n"))
    rc, _, err = run("gpuprof-analyze", "hotspots", db, "--opt", "a=1")
    check("--opt with a shipped analysis", (rc, err),
          (2, "gpuprof-analyze: error: --opt goes with --sql FILE or a module of GPUPROF_ANALYSES\n"))
    rc, _, err = run("gpuprof-analyze", "--sql", mod, db, "--label", "x")
    check("another module's flag", rc, 2)
    rc, _, err = run("gpuprof-analyze", "hotspots", db, "--min-ns", "5")
    check("a module's flag without the module", (rc, err),
          (2, "gpuprof-analyze: error: unknown option '--min-ns' (try 'gpuprof-analyze --help')\n"))
    rc, _, err = run("gpuprof-analyze", "--sql", mod, "hotspots", db)
    check("--sql and an analysis name", (rc, err), (2, "gpuprof-analyze: error: too many arguments (--sql FILE names "
                                                       "the analysis) (try 'gpuprof-analyze --help')\n"))

    # A module that is wrong: FILE:LINE (of the failing statement) and SQLite's message, exit 2.
    for name, text, msg in (("bad_column", BAD_COLUMN, "no such column: duration"),
                            ("bad_table", BAD_TABLE, "no such table: kernel_eventz")):
        path = write(os.path.join(tmp, name + ".sql"), text)
        for fmt in ("text", "json"):
            rc, out, err = run("gpuprof-analyze", "--sql", path, db, "-f", fmt)
            check(f"{name} ({fmt})", (rc, out, err), (2, "", f"gpuprof-analyze: error: {path}:8: {msg}\n"))
    path = write(os.path.join(tmp, "broken.sql"), BAD_HEADER)
    rc, out, err = run("gpuprof-analyze", "--sql", path, db)
    check("malformed header", (rc, out, err),
          (2, "", f"gpuprof-analyze: error: {path}:3: option 'min_ns' needs a DEFAULT ('-' for none)\n"))
    rc, out, err = run("gpuprof-analyze", "--sql", os.path.join(tmp, "none.sql"), db)
    check("no such file", (rc, err), (2, f"gpuprof-analyze: error: cannot read {tmp}/none.sql: No such file or "
                                         "directory\n"))


def readme_checks(tmp, db):
    """README's example, as it is there: it runs, --top cuts it though its SQL has no LIMIT, its gate works."""
    import re
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        m = re.search(r"Save this as `long_kernels.sql`:\n\n```sql\n(.*?)```", f.read(), re.S)
    ok("README: the long_kernels example", m is not None)
    if not m:
        return
    mod = write(os.path.join(tmp, "readme", "long_kernels.sql"), m.group(1))
    want = [{k: r[k] for k in ("name", "calls", "total_ns")} for r in expected(db, 100000)]
    rc, out, err = run("gpuprof-analyze", "--sql", mod, db, "-f", "json")
    check("README example: rows", (rc, err, json.loads(out) if rc == 0 else None), (0, "", want))
    rc, out, err = run("gpuprof-analyze", "--sql", mod, db, "-f", "json", "-n", "2")
    check("README example: --top without :top in its SQL", json.loads(out) if rc == 0 else err, want[:2])
    rc, doc, err = report_json([db, "--sql", mod, "-n", "1"])
    check("README example: report --top without :top", (rc, (doc or {}).get("modules", {}).get("long_kernels")), (0, want[:1]))
    rc, out, err = run("gpuprof-analyze", "--sql", mod, db, "--max-total-ns", "1e7", "-f", "csv")
    failing = sum(1 for r in want if r["total_ns"] > 1e7)
    check("README example: the gate, a real", (rc, err), (1, f"gpuprof-analyze: long_kernels: {failing} of "
                                                             f"{len(want)} rows fail --max-total-ns=1e7: FAIL\n"))
    rc, out, err = run("gpuprof-analyze", "--sql", mod, db, "--min-ns", "500000", "-f", "json")
    check("README example: --min-ns", json.loads(out) if rc == 0 else err,
          [{k: r[k] for k in ("name", "calls", "total_ns")} for r in expected(db, 500000)])


def dirs_checks(tmp, db):
    """GPUPROF_ANALYSES: modules by name, the first directory's winning; --list; shipped names stay shipped."""
    one, two = os.path.join(tmp, "one"), os.path.join(tmp, "two")
    os.makedirs(one)
    os.makedirs(two)
    write(os.path.join(one, "long_kernels.sql"), LONG_KERNELS)
    write(os.path.join(two, "long_kernels.sql"), LONG_KERNELS.replace("Kernels longer", "Shadowed: kernels longer"))
    write(os.path.join(two, "shapes.sql"), UNDECLARED)
    write(os.path.join(two, "broken.sql"), BAD_HEADER)
    write(os.path.join(two, "hotspots.sql"), SHADOW)
    env = dict(ENV, GPUPROF_ANALYSES=f"{one}::{two}:{tmp}/missing")
    want = expected(db, 150000)
    ok("dirs: rows to compare", len(want) >= 2, want)
    rc, out, err = run("gpuprof-analyze", "long_kernels", db, "-f", "json", "--min-ns", "150000", env=env)
    check("by name: rows", (rc, json.loads(out) if rc == 0 else err), (0, want))
    rc, out, _ = run("gpuprof-analyze", "long_kernels", db, env=env)
    check("by name: the first directory's", out.splitlines()[:1], ["Kernels longer than a threshold"])
    rc, out, err = run("gpuprof-analyze", "long_kernels", db, "-f", "json", "--max-total-ns", "0", env=env)
    check("by name: its gate", rc, 1)
    rc, out, _ = run("gpuprof-analyze", "shapes", db, "-f", "json", "--label", "x", env=env)
    check("by name: the second directory's", (rc, sorted(json.loads(out)) if rc == 0 else None),
          (0, ["shapes", "shapes_2"]))
    rc, out, err = run("gpuprof-analyze", "broken", db, env=env)
    check("by name: malformed", (rc, err),
          (2, f"gpuprof-analyze: error: {two}/broken.sql:3: option 'min_ns' needs a DEFAULT ('-' for none)\n"))
    rc, out, err = run("gpuprof-analyze", "hotspots", db, "-n", "1", env=env)
    ok("a module named as a shipped analysis does not replace it", rc == 0 and "Top kernels" in out, out[:100])
    rc, out, err = run("gpuprof-analyze", "nothere", db, env=env)
    check("no such module", (rc, err), (2, "gpuprof-analyze: error: no analysis 'nothere' (gpuprof-analyze --list "
                                           "names them)\n"))
    rc, out, err = run("gpuprof-analyze", "--list", env=env)
    lines = out.splitlines()
    check("--list exit", rc, 0)
    ok("--list: the users' modules after the shipped, with their files",
       [ln.split()[0] for ln in lines[-2:]] == ["long_kernels", "shapes"] and
       lines[-2].endswith(f"Kernels longer than a threshold ({one}/long_kernels.sql)"), lines[-2:])
    ok("--list: the malformed module and the shadowing one said on stderr",
       f"{two}/broken.sql:3:" in err and f"{two}/hotspots.sql: named as a shipped analysis" in err, err)
    rc, out, _ = run("gpuprof-analyze", "--list")
    ok("--list without GPUPROF_ANALYSES: the shipped only", "long_kernels" not in out and rc == 0)


def report_json(args, env=None):
    rc, out, err = run("gpuprof-report", *args, "-f", "json", env=env)
    return rc, (json.loads(out) if out else None), err


def report_checks(tmp, db):
    mod = write(os.path.join(tmp, "long_kernels.sql"), LONG_KERNELS)
    und = write(os.path.join(tmp, "shapes.sql"), UNDECLARED)
    want = expected(db, 100000)
    rc, plain, err = report_json([db])
    check("report without modules", (rc, err, "modules" in plain), (0, "", False))

    # JSON: the modules' tables in "modules", after the report's; "tables" as without them; schema-valid.
    rc, doc, err = report_json([db, "--sql", mod, "--sql", und])
    check("report --sql json exit", (rc, err), (0, ""))
    check("report json: tables unchanged", list((doc or {}).get("tables", {})), list(plain["tables"]))
    check("report json: modules", list((doc or {}).get("modules", {})), ["long_kernels", "shapes", "shapes_2"])
    check("report json: rows (default top 0: all)", (doc or {}).get("modules", {}).get("long_kernels"), want)
    try:
        import jsonschema
        with open(os.path.join(ROOT, "schemas", "report.schema.json"), encoding="utf-8") as f:
            schema = json.load(f)
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
        check("report json with modules validates against schemas/report.schema.json", [e.message for e in errors], [])
    except ImportError:
        print("user_modules: no jsonschema module (python3-jsonschema): schema validation skipped")
    rc, doc2, _ = report_json([db, "--sql", mod, "-n", "1"])
    check("report --top applies to modules", (doc2 or {}).get("modules", {}).get("long_kernels"), want[:1])

    # Text, Markdown, HTML: the section with its title and rows; the gate's column in none.
    for fmt in ("text", "md", "html"):
        rc, out, err = run("gpuprof-report", db, "--sql", mod, "-f", fmt)
        ok(f"report {fmt}: the section", rc == 0 and not err and "Kernels longer than a threshold" in out, (rc, err))
        ok(f"report {fmt}: no _fail", "_fail" not in out)
    # CSV: a file per table; xlsx: a sheet.
    csvdir = os.path.join(tmp, "csv")
    rc, _, err = run("gpuprof-report", db, "--sql", mod, "-f", "csv", "-o", csvdir)
    with open(os.path.join(csvdir, "long_kernels.csv"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    check("report csv: the module's file", (rc, lines[0], len(lines)),
          (0, '"name","calls","total_ns","avg_ns"', 1 + len(want)))
    rc, out, err = run("gpuprof-report", db, "--sql", mod, "-f", "csv", "--table", "long_kernels")
    check("report csv --table: the module's table", (rc, len(out.splitlines())), (0, 1 + len(want)))
    xlsx = os.path.join(tmp, "r.xlsx")
    rc, _, err = run("gpuprof-report", db, "--sql", mod, "-o", xlsx)
    with zipfile.ZipFile(xlsx) as z:
        book = z.read("xl/workbook.xml").decode()
    ok("report xlsx: a sheet for the module", rc == 0 and 'name="long_kernels"' in book, (rc, err))

    # A module that fails: one line naming it and its section; every other section there; exit 2.
    bad = write(os.path.join(tmp, "bad_column.sql"), BAD_COLUMN)
    rc, doc, err = report_json([db, "--sql", bad, "--sql", und])
    check("report bad module: exit and message", (rc, err),
          (2, f"gpuprof-report: error: {bad}:8: no such column: duration (section long_kernels left out)\n"))
    check("report bad module: the report's tables all there", list((doc or {}).get("tables", {})), list(plain["tables"]))
    check("report bad module: the other module's section there", list((doc or {}).get("modules", {})), ["shapes", "shapes_2"])
    for fmt in ("text", "md"):
        rc, out, err = run("gpuprof-report", db, "--sql", bad, "-f", fmt)
        rc0, out0, _ = run("gpuprof-report", db, "-f", fmt)
        check(f"report {fmt} bad module: the rest as without it", (rc, out), (2, out0))
    second = write(os.path.join(tmp, "bad_second.sql"), BAD_SECOND)
    rc, doc, err = report_json([db, "--sql", second, "--sql", mod])
    check("report module failing in its second statement: exit and message", (rc, err),
          (2, f"gpuprof-report: error: {second}:6: no such column: nom (section shapes left out)\n"))
    check("report module failing in its second statement: none of its tables", list((doc or {}).get("modules", {})),
          ["long_kernels"])
    rc, out, err = run("gpuprof-analyze", "--sql", second, db, "--label", "x")
    check("analyze module failing in its second statement", (rc, out, err),
          (2, "", f"gpuprof-analyze: error: {second}:6: no such column: nom\n"))
    # Section names are keys: the same file twice is once; another module of a taken name is refused.
    rc, out, err = run("gpuprof-report", db, "--sql", mod, "--sql", os.path.join(tmp, ".", "long_kernels.sql"), "-f",
                       "json")
    check("report: the same module twice is one section", (rc, err, out.count('"long_kernels": ')), (0, "", 1))
    other = write(os.path.join(tmp, "other", "long_kernels.sql"), LONG_KERNELS)
    rc, out, err = run("gpuprof-report", db, "--sql", mod, "--sql", other)
    check("report: two modules of one name", (rc, out, err),
          (2, "", f"gpuprof-report: error: {other}: its section would be called 'long_kernels', as {mod}'s is\n"))
    shadow = write(os.path.join(tmp, "hotspots.sql"), SHADOW)
    rc, out, err = run("gpuprof-report", db, "--sql", shadow)
    check("report: a module named as a section of the report's own", (rc, out, err),
          (2, "", f"gpuprof-report: error: {shadow}: its section would be called 'hotspots', as one of the "
                  "report's own is: name the analysis otherwise\n"))
    broken = write(os.path.join(tmp, "broken.sql"), BAD_HEADER)
    rc, out, err = run("gpuprof-report", db, "--sql", broken)
    check("report malformed module", (rc, out, err),
          (2, "", f"gpuprof-report: error: {broken}:3: option 'min_ns' needs a DEFAULT ('-' for none)\n"))

    # GPUPROF_ANALYSES: the modules that declare a section, in its order; the others not.
    d = os.path.join(tmp, "sections")
    os.makedirs(d)
    write(os.path.join(d, "busiest_stream.sql"), SECTIONED)
    write(os.path.join(d, "long_kernels.sql"), LONG_KERNELS.replace("-- gate:", "-- section: 2\n-- gate:"))
    write(os.path.join(d, "shapes.sql"), UNDECLARED)
    rc, doc, err = report_json([db], env=dict(ENV, GPUPROF_ANALYSES=d))
    check("report GPUPROF_ANALYSES: sections in order", (rc, err, list((doc or {}).get("modules", {}))),
          (0, "", ["long_kernels", "busiest_stream"]))
    check("report GPUPROF_ANALYSES: section top (0: all)", (doc or {}).get("modules", {}).get("long_kernels"), want)


def main():
    tmp = tempfile.mkdtemp(prefix="gpuprof-user-")
    try:
        db = os.path.join(tmp, "demo.db")
        rc, _, err = run("gpuprof-ingest", "-q", os.path.join(ROOT, "tests", "data", "demo-session"), "-o", db)
        check("ingest the demo session", (rc, err), (0, ""))
        analyze_checks(tmp, db)
        readme_checks(tmp, db)
        dirs_checks(tmp, db)
        report_checks(tmp, db)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary("user_modules")


if __name__ == "__main__":
    sys.exit(main())
