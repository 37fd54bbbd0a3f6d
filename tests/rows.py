#!/usr/bin/env python3
"""rows: no program names an analysis or a format in code; the rows of the analyses table
(analyze/analyses.c) and of the formats table (lib/table.c) say what each one is and takes.

The check reads every C file of analyze/ and report/ but the analyses table itself, without comments,
and fails on a string literal equal to an analysis's name (from `gpuprof-analyze --list`) or a format's
name (from the formats table), and on code that tests a format's id, except where the literal is:
  - a result table's machine name where the code that builds it names it: table_new("hotspots", ...)
    or the name argument of script_table(...). Result tables are named after their analysis: the name
    is the JSON key and CSV file name that users read (schemas/report-json.md), not a way to pick an
    analysis;
  - the first field of an initializer row whose second field is a string: a column's key and title
    ({ "devices", "Devices", C_INT }) or a result table's name and title; not in report/, which renders
    the tables the modules build and picks them by their columns' keys and kinds (a row such as
    { "hotspots", "name", "total_ns" } there is a table picked by its name);
  - one of the EXCEPTIONS below, each with its reason.
Then it checks that report/ renders and does not query: no C file of report/ says SELECT (in any case,
comments included, as `grep -ci select report/*.c` counts), since what the report reads besides the
analyses' tables comes from the views of modules under analyze/ (analyze/rows.h), and its HTML and XLSX
charts and the Markdown report's parts follow tables by their columns' keys and kinds (report/html.c's
charts[], report/xlsx.c's xlsx_charts[], report/formats.c's md_*), not by their names. Then it
checks the CLI the rows drive: gate options only with their analysis, formats per program.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "bin")

# (file, literal): why that file may name that table.
EXCEPTIONS = {
    ("report/html.c", "host"): "a column key (of the ranks table): the label of a GPU span's bar without a rank",
    ("report/trace.c", "trace"): "the module analyze/trace.sql, whose views the trace export writes (not the format)",
    ("analyze/module.c", "text"): "the column kind `text` of a module header's column lines, not the text format",
}

passed = failed = 0


def check(what, got, want):
    global passed, failed
    if got == want:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}: got {got!r}, want {want!r}")


def strip_comments(src):
    """C source with comments blanked (newlines kept, so offsets and lines stay), literals intact."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def allowed(code, m, path=""):
    """Whether the literal matched by m names a table or column (see the module's docstring). In report/,
    which renders the tables the modules build, only a table_new or script_table name."""
    before, after = code[:m.start()], code[m.end():]
    if re.search(r"\btable_new\(\s*$", before):
        return True
    stmt = re.split(r"[;{}]", before)[-1]
    if "script_table(" in stmt:
        return True
    if path.startswith("report/"):
        return False
    return bool(re.search(r"\{\s*$", before) and re.match(r'\s*,\s*"', after))


def violations(path, src, names):
    """(line, what) for each place src names an analysis or format outside the allowed contexts."""
    code, found = strip_comments(src), []
    for m in LITERAL.finditer(code):
        lit = m.group(1)
        if lit in names and not allowed(code, m, path) and (path, lit) not in EXCEPTIONS:
            found.append((code.count("\n", 0, m.start()) + 1, f'"{lit}"'))
    for m in re.finditer(r"(?:[=!]=\s*FMT_[A-Z]+\b|\bcase\s+FMT_[A-Z]+\b)", code):
        found.append((code.count("\n", 0, m.start()) + 1, m.group(0)))
    return found


def sql_lines(src):
    """The lines of src that say SELECT, in any case, comments and strings included (as grep -ci counts)."""
    return [i + 1 for i, line in enumerate(src.splitlines()) if "select" in line.lower()]


def format_names():
    """The formats' names and aliases, from their rows in lib/table.c."""
    src = open(os.path.join(ROOT, "lib/table.c"), encoding="utf-8").read()
    rows = re.findall(r'\{\s*FMT_[A-Z]+,\s*"([a-z]+)",\s*(?:"([a-z]+)"|NULL)', src)
    return {n for row in rows for n in row if n}


def main():
    if not os.path.exists(os.path.join(BIN, "gpuprof-analyze")):
        print("rows: build/bin/gpuprof-analyze missing (run make first)")
        print("rows: 0 passed, 1 failed")
        return 1
    listed = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "--list"], capture_output=True, text=True)
    analyses = [line.split()[0] for line in listed.stdout.splitlines()]
    fmts = format_names()
    check("the analyses listed", len(analyses) > 10 and "leaks" in analyses and "compare" in analyses, True)
    check("the formats read from their table", sorted(fmts), ["csv", "html", "json", "markdown", "md", "text", "trace", "xlsx"])
    names = set(analyses) | fmts

    # The checker itself: it must flag what main.c used to do and pass what the tables do.
    bad = 'int f(const struct analysis *a) { if (!strcmp(a->name, "leaks")) return 1; return fmt == FMT_JSON; }'
    check("checker flags strcmp(a->name, \"leaks\")", [w for _, w in violations("analyze/main.c", bad, names)],
          ['"leaks"', "== FMT_JSON"])
    check("checker flags a section table of names",
          len(violations("report/main.c", 'static const struct s { const char *a; int top; } v[] = '
                         '{ { "hotspots", 10 }, { "gaps", 5 } };', names)), 2)
    check("checker flags a format named in code",
          len(violations("analyze/main.c", 'if (!strcmp(optarg, "csv")) x = 1;', names)), 1)
    good = ('t = table_new("hotspots", "Top"); /* "leaks" */ static const struct colspec c[] = '
            '{ { "ranges", "Ranges", C_INT } }; script_table(db, sql, o, out, 1, "host", "Host", c, 1);')
    check("checker passes table names, column keys and comments", violations("analyze/x.c", good, names), [])
    named = 'static const struct c { const char *t, *l; } v[] = { { "hotspots", "name" } };'
    check("checker flags a row that picks a table by name in report/", len(violations("report/xlsx.c", named, names)), 1)
    check("checker flags report_table(ts, \"summary\") in report/",
          len(violations("report/formats.c", 'const struct table *s = report_table(d->ts, "summary");', names)), 1)
    check("checker passes column keys and kinds in report/",
          violations("report/xlsx.c", '{ { { "name", C_TEXT }, { "total_ns", C_NS } }, NULL, 1 },', names), [])

    files = sorted(glob.glob(os.path.join(ROOT, "analyze/*.[ch]")) + glob.glob(os.path.join(ROOT, "report/*.[ch]")))
    for f in files:
        rel = os.path.relpath(f, ROOT)
        if rel == "analyze/analyses.c":
            continue
        for line, what in violations(rel, open(f, encoding="utf-8").read(), names):
            check(f"{rel}:{line} names {what} in code (give its row a field instead)", False, True)
    for path, lit in EXCEPTIONS:
        src = os.path.join(ROOT, path)
        if not os.path.exists(src) or f'"{lit}"' not in strip_comments(open(src, encoding="utf-8").read()):
            print(f"rows: note: the exception for \"{lit}\" in {path} is no longer needed")
    check("checker counts a SELECT in a string and in a comment",
          sql_lines('x = "SELECT 1";\n/* select */\ny = 2;\n/* querySelectorAll */'), [1, 2, 4])
    report_c = sorted(glob.glob(os.path.join(ROOT, "report/*.c")))
    check("report/*.c read", len(report_c) >= 5, True)
    for f in report_c:
        rel = os.path.relpath(f, ROOT)
        check(f"{rel}: no SELECT (report/ renders rows; its queries are modules' views under analyze/)",
              sql_lines(open(f, encoding="utf-8").read()), [])
    check("C files read (both mains among them)",
          {"analyze/main.c", "report/main.c"} <= {os.path.relpath(f, ROOT) for f in files}, True)

    # What the rows drive on the command line.
    analyze = os.path.join(BIN, "gpuprof-analyze")
    report = os.path.join(BIN, "gpuprof-report")
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "200", "--seed", "3", "-o",
                        os.path.join(tmp, "s"), "--no-expected"], check=True, capture_output=True)
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", os.path.join(tmp, "s"), "-o", db], check=True)

        def run(*args):
            p = subprocess.run(list(args), capture_output=True, text=True)
            return p.returncode, p.stderr

        check("a gate with another analysis",
              run(analyze, "hotspots", db, "--fail-on-leak"),
              (2, "gpuprof-analyze: error: --fail-on-leak goes with the leaks analysis\n"))
        check("compare's options with another analysis",
              run(analyze, "leaks", db, "--min-calls", "3"),
              (2, "gpuprof-analyze: error: --baseline, --base-session, --min-delta, --min-calls and "
                  "--fail-on-regression go with the compare analysis\n"))
        check("--threshold: every analysis accepts it, as before", run(analyze, "hotspots", db, "--threshold", "9%")[0], 0)
        check("an option's malformed argument",
              run(analyze, "compare", db, "--min-delta", "3y"),
              (2, "gpuprof-analyze: error: --min-delta needs a time such as 10us (ns, us, ms, s), not '3y'\n"))
        check("--fail-on-leak BYTES as the next argument", run(analyze, "leaks", db, "--fail-on-leak", "999999999999")[0], 0)
        check("--fail-on-leak=x", run(analyze, "leaks", db, "--fail-on-leak=x")[0], 2)
        rc, err = run(analyze, "leaks", db, "--fail-on-leak")
        check("--fail-on-leak: the session's leaks fail the default limit 0",
              (rc, bool(re.search(r"^gpuprof-analyze: leaks: .* unfreed \(\d+ bytes\), limit 0 bytes: FAIL$", err, re.M))),
              (1, True))
        check("analyze: a report-only format",
              run(analyze, "hotspots", db, "-f", "html"),
              (2, "gpuprof-analyze: error: unknown format 'html' (text, csv, json, md)\n"))
        check("report: an unknown format",
              run(report, db, "-f", "pdf"),
              (2, "gpuprof-report: error: unknown format 'pdf' (text, csv, json, md, html, xlsx, trace)\n"))
        check("report: xlsx needs -o", run(report, db, "-f", "xlsx"),
              (2, "gpuprof-report: error: the xlsx format writes a file: give -o PATH\n"))
        helps = {}
        for prog, flag in ((analyze, "analyze"), (report, "report")):
            out = subprocess.run([prog, "--help"], capture_output=True, text=True).stdout
            m = re.search(r"--format FMT +(.*)", out)
            helps[flag] = re.findall(r"[a-z]+", m.group(1).replace("(default)", "")) if m else []
        check("analyze --help names its formats", helps["analyze"], ["text", "csv", "json", "or", "md"])
        check("report --help names its formats", helps["report"], ["text", "csv", "json", "md", "html", "xlsx", "or", "trace"])
        for f in ("text", "csv", "json", "md", "markdown"):
            check(f"analyze -f {f}", run(analyze, "hotspots", db, "-f", f)[0], 0)
        for f in ("text", "json", "md", "markdown", "html", "trace"):
            check(f"report -f {f}", run(report, db, "-f", f)[0], 0)
        check("report -f csv -t NAME", run(report, db, "-f", "csv", "-t", "hotspots")[0], 0)
        check("report -f csv on standard output needs --table", run(report, db, "-f", "csv")[0], 2)
        # -o PATH's extension names the format, from the rows' ext and more_ext.
        for f, ext in (("text", ".txt"), ("json", ".json"), ("md", ".md"), ("md", ".markdown"), ("html", ".html"),
                       ("html", ".htm"), ("xlsx", ".xlsx"), ("trace", ".json.gz"), ("trace", ".trace.json")):
            out = os.path.join(tmp, "r" + ext)
            rc = run(report, db, "-o", out)[0]
            first = open(out, "rb").read(2) if os.path.exists(out) else b""
            want = {"json": b'{"', "md": b"##", "html": b"<!", "xlsx": b"PK", "trace": b"\x1f\x8b" if ext.endswith(".gz")
                    else b"{\n"}.get(f, b"Se")
            check(f"report -o r{ext}: --format {f}", (rc, first), (0, want))
            check(f"report -f {f} -o r{ext}: they agree", run(report, db, "-f", f, "-o", out)[0], 0)
        check("report -f json -o r.xlsx: they disagree", run(report, db, "-f", "json", "-o", os.path.join(tmp, "x.xlsx")),
              (2, f"gpuprof-report: error: --format json conflicts with -o {tmp}/x.xlsx, whose extension '.xlsx' is "
                  "the xlsx format's\n"))
        check("report -f xlsx -o", run(report, db, "-f", "xlsx", "-o", os.path.join(tmp, "r.xlsx"))[0], 0)
        check("report -f csv -o DIR: a file per table, the format's extension",
              (run(report, db, "-f", "csv", "-o", os.path.join(tmp, "csv"))[0],
               os.path.exists(os.path.join(tmp, "csv", "hotspots.csv"))), (0, True))
        # The report's sections: the rows with a place in it, in its order; compare first with --baseline.
        import json
        rep = json.loads(subprocess.run([report, db, "-f", "json"], capture_output=True, text=True).stdout)
        keys = list(rep["tables"])
        check("report sections in order", keys,
              ["summary", "problems", "oom", "oom_blocks", "devices", "hotspots", "ops", "kernexec", "kernexec_queue",
               "kernexec_trend", "flops", "flops_steps", "classes", "stalls", "stall_kernels", "memcpy", "sync", "api",
               "ranges", "memory", "leaks", "growth", "idle", "gaps", "metrics", "energy", "host", "overhead", "ranks",
               "collectives"])
        check("no comparison without --baseline", [k for k in keys if k.startswith("compare")], [])
        rep = json.loads(subprocess.run([report, db, "-f", "json", "--baseline", db], capture_output=True,
                                        text=True).stdout)
        check("--baseline: the comparison first", list(rep["tables"])[:2], ["compare", "compare_ranges"])
        check("--baseline: compare's 20 rows by default", len(rep["tables"]["compare"]), 20)
        rep = json.loads(subprocess.run([report, db, "-f", "json", "--baseline", db, "-n", "3"], capture_output=True,
                                        text=True).stdout)
        check("--baseline -n 3: every section's rows", (len(rep["tables"]["compare"]), len(rep["tables"]["hotspots"])),
              (3, 3))

    print(f"rows: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
