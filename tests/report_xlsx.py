#!/usr/bin/python3
"""report_xlsx: gpuprof-report --format xlsx, read back with openpyxl (Debian's python3-openpyxl) and
compared cell by cell with the JSON report of the same session.

Checks a synthetic session, a real Kineto trace when ../shared/traces exists, and a tiny wire-format
session whose kernel names look like formulas. Ends with "report_xlsx: N passed, M failed".
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import datetime
import re
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import BIN, TRACES, ok, summary  # noqa: E402

TRACE = os.path.join(TRACES, "kineto", "a100_alexnet.json.gz")
ENV = dict(os.environ, LC_ALL="C", TZ="UTC")


def check(cond, what):
    """checks.ok with the condition first, returning it, so a failed step can stop the steps after it."""
    ok(what, cond, "")
    return cond


def run(*args):
    return subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), env=ENV,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)


# The sheets that get a chart (README's list); the others' rows are fields, verdicts, a matrix or pairs
# whose labels repeat, which a chart would not make clearer.
CHARTED = {"devices", "hotspots", "kernexec", "kernexec_queue", "kernexec_trend", "classes", "stalls", "memcpy",
           "api", "ranges", "memory", "leaks", "idle", "gaps", "metrics", "overhead", "ranks", "collectives",
           "compare", "compare_ranges", "compare_copies", "compare_api"}
UNCHARTED = {"summary", "stall_kernels", "sync", "growth", "host", "energy", "flops", "flops_steps",
             "compare_energy"}
UNIT = re.compile(r'.*0[,]* "(ns|us|ms|s|B|kB|MB|GB|TB)"$')


def is_time(row, key):
    """Whether key is an absolute time: JSON gives it an offset twin."""
    return key.endswith("_ns") and key[:-3] + "_offset_ns" in row


def same_date(cell, ns):
    """A time's date-time cell: UTC, to the millisecond."""
    if ns is None:
        return cell.value is None
    if not isinstance(cell.value, datetime.datetime):
        return False
    want = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ns // 1000000)
    return abs((cell.value - want).total_seconds()) < 0.0015 and cell.number_format == "yyyy-mm-dd hh:mm:ss.000"


def readable(cell, key, row):
    """A duration (or size) shows its unit: "1.235 ms" for 1234567 ns (a time's ns: digits alone)."""
    if is_time(row, key):
        return cell.number_format == "0"
    return cell.value is None or not (key.endswith("_ns") or key.endswith("bytes")) or bool(UNIT.match(cell.number_format))


def unit_of(key):
    """The unit a heading must show for a JSON key, or None when it need not show one."""
    if key.endswith("_ns"):
        return "ns)"
    return None


def same_number(got, want):
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return False
    if isinstance(want, int) and abs(want) <= 2 ** 53:
        return got == want
    # reals, and integers beyond a double's 53 bits (epoch ns): Excel keeps about 16 digits
    tol = 1e-9 if isinstance(want, float) else 1e-15
    return abs(got - want) <= tol * max(abs(want), 1.0)


def same_value(cell, want):
    if want is None:
        return cell.value is None
    if isinstance(want, str):
        return cell.data_type == "s" and cell.value == want
    return cell.data_type == "n" and same_number(cell.value, want)


def chart_files(path):
    """The chart parts of the package and whether a drawing refers to each."""
    z = zipfile.ZipFile(path)
    rels = "".join(z.read(n).decode() for n in z.namelist()
                   if n.startswith("xl/drawings/_rels/"))
    return {n: ("../charts/" + os.path.basename(n)) in rels
            for n in z.namelist() if n.startswith("xl/charts/chart")}


def sheet_chart_titles(path):
    """Each sheet's charts' titles ('' for a chart without one), by sheet name, from the package itself."""
    z = zipfile.ZipFile(path)
    names = z.namelist()
    sheets = re.findall(r'<sheet name="([^"]+)" sheetId="\d+"', z.read("xl/workbook.xml").decode())
    out = {}
    for i, name in enumerate(sheets, 1):
        rel, titles = "xl/worksheets/_rels/sheet%d.xml.rels" % i, []
        for d in re.findall(r'drawings/(drawing\d+\.xml)', z.read(rel).decode() if rel in names else ""):
            for c in re.findall(r'charts/(chart\d+\.xml)', z.read("xl/drawings/_rels/%s.rels" % d).decode()):
                t = re.search(r'<c:title>.*?</c:title>', z.read("xl/charts/" + c).decode())
                titles.append("".join(re.findall(r'<a:t>([^<]*)</a:t>', t.group(0))) if t else "")
        out[name] = titles
    return out


def check_workbook(db, label, tmp, *extra, charts=True):
    """The xlsx report of db (with the report options extra) against its JSON report; with charts, each
    sheet of CHARTED has one (a session whose values a chart would draw: not a tiny planted one)."""
    import openpyxl
    xlsx = os.path.join(tmp, label + ".xlsx")
    r = run("gpuprof-report", db, "--format", "json", *extra)
    if not check(r.returncode == 0, "%s: json report exits %d" % (label, r.returncode)):
        return None
    tables = json.loads(r.stdout)["tables"]
    r = run("gpuprof-report", db, "--format", "xlsx", "-o", xlsx, *extra)
    if not check(r.returncode == 0 and os.path.exists(xlsx),
                 "%s: xlsx report exits %d: %s" % (label, r.returncode, r.stderr.decode().strip())):
        return None
    check(r.stdout == b"", "%s: xlsx writes nothing on standard output" % label)
    wb = openpyxl.load_workbook(xlsx)
    want = [n for n, rows in tables.items() if n == "summary" or rows]
    if not check(wb.sheetnames == want, "%s: sheets %s, want %s" % (label, wb.sheetnames, want)):
        return None
    for name in want:
        ws = wb[name]
        check(ws.freeze_panes == "A2", "%s/%s: header frozen (%s)" % (label, name, ws.freeze_panes))
        check(bool(ws.auto_filter.ref), "%s/%s: autofilter set" % (label, name))
        rows = tables[name]
        # the sheet's columns: a time is two, its date-time then its ns; JSON's offsets are not there
        keys, cols = [], []
        for k in (rows[0].keys() if rows else []):
            if k.endswith("_offset_ns"):
                continue
            if is_time(rows[0], k):
                cols.append(("date", k))
            cols.append(("value", k))
            keys.append(k)
        nchart = len(ws._charts)
        check(name not in UNCHARTED or nchart == 0, "%s/%s: no chart, got %d" % (label, name, nchart))
        if name == "summary":
            check([c.value for c in ws[1]] == ["Field", "Value"], "%s/summary: heading" % label)
            check(ws.max_row == len(cols) + 1, "%s/summary: %d fields, want %d" %
                  (label, ws.max_row - 1, len(cols)))
            bad = [k for i, (what, k) in enumerate(cols)
                   if not (same_date(ws.cell(row=i + 2, column=2), rows[0][k]) if what == "date" else
                           same_value(ws.cell(row=i + 2, column=2), rows[0][k]) and
                           readable(ws.cell(row=i + 2, column=2), k, rows[0])) or
                   (what == "value" and unit_of(k) and not str(ws.cell(row=i + 2, column=1).value).endswith(unit_of(k)))]
            check(not bad, "%s/summary: fields differ: %s" % (label, bad[:5]))
            check([ws.cell(row=i + 2, column=1).value for i, (what, k) in enumerate(cols) if k == "start_ns"] ==
                  ["Start (UTC)", "Start (epoch ns)"], "%s/summary: the start, a date-time and its ns" % label)
            continue
        check(not charts or name not in CHARTED or nchart >= 1, "%s/%s: a chart" % (label, name))
        head = [c.value for c in ws[1]]
        check(len(head) == len(cols) and all(isinstance(h, str) and h for h in head),
              "%s/%s: %d headings for %d columns" % (label, name, len(head), len(cols)))
        check(all(str(h).endswith(" (UTC)") if what == "date" else not unit_of(k) or str(h).endswith(unit_of(k))
                  for h, (what, k) in zip(head, cols)),
              "%s/%s: units in headings %s for keys %s" % (label, name, head, keys))
        verdict = name in ("ranks", "kernexec_trend")  # a verdict line follows their rows, as in text
        check(ws.max_row == len(rows) + 1 + verdict, "%s/%s: %d rows, want %d" %
              (label, name, ws.max_row - 1, len(rows) + verdict))
        if verdict:
            check(str(ws.cell(row=len(rows) + 2, column=1).value).startswith(
                "verdict: " if name == "ranks" else "launch queue"),
                  "%s/%s: the verdict after the rows: %r" % (label, name, ws.cell(row=len(rows) + 2, column=1).value))
        if verdict and name == "ranks":
            check(len(ws._charts) >= 1, "%s: ranks sheet has a chart" % label)
        bad = []
        for r_i, row in enumerate(rows):
            for c_i, (what, k) in enumerate(cols):
                cell = ws.cell(row=r_i + 2, column=c_i + 1)
                if not (same_date(cell, row[k]) if what == "date" else
                        same_value(cell, row[k]) and readable(cell, k, row)):
                    bad.append("%s[%d]=%r (%s, %s), want %r" % (k, r_i, cell.value, cell.data_type,
                                                                 cell.number_format, row[k]))
        check(not bad, "%s/%s: cells differ: %s" % (label, name, bad[:5]))
    if "hotspots" in want:
        # openpyxl reads charts only partially: count them, and look at the package itself
        check(len(wb["hotspots"]._charts) >= 1, "%s: hotspots sheet has a chart" % label)
        parts = chart_files(xlsx)
        check("xl/charts/chart1.xml" in parts and all(parts.values()),
              "%s: chart parts referenced by drawings: %s" % (label, parts))
    return wb


def wire_session(path):
    """A tiny wire-format session with kernel names that look like formulas."""
    names = ["=SUM(A1:A2)", "+1", "@cmd", "-2"]
    n = len(names)
    recs = [
        {"type": "header", "v": 1, "session": "xlsx-formulas", "collector": "test", "program": "./t",
         "args": [], "pid": 1, "ppid": 0, "hostname": "h", "engine": "trace",
         "options": {"interval_ms": 100}, "origin_ns": "1763822038000000000", "clock": "realtime"},
        {"type": "strings", "v": 1, "ids": list(range(1, n + 1)), "values": names},
        {"type": "kernel", "v": 1, "seq": 0, "n": n,
         "start": [1000 * i for i in range(n)], "end": [1000 * i + 100 * (i + 1) for i in range(n)],
         "device": [0] * n, "context": [1] * n, "stream": [7] * n,
         "correlation": list(range(1, n + 1)), "name": list(range(1, n + 1)), "mangled": [0] * n,
         "grid_x": [1] * n, "grid_y": [1] * n, "grid_z": [1] * n, "block_x": [32] * n,
         "block_y": [1] * n, "block_z": [1] * n, "cluster_x": [0] * n, "cluster_y": [0] * n,
         "cluster_z": [0] * n, "registers": [16] * n, "static_smem": [0] * n,
         "dynamic_smem": [0] * n, "local_mem": [0] * n, "graph_id": [0] * n, "graph_node": [0] * n},
        {"type": "end", "v": 1, "ts": 100000, "totals": {"kernel": n}, "batches": {"kernel": 1}},
    ]
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    return names


def main():
    try:
        import openpyxl  # noqa: F401
    except ImportError:
        # the default python3 may be one that does not see Debian's packages: try Debian's own
        if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
                os.access("/usr/bin/python3", os.X_OK):
            return subprocess.call(["/usr/bin/python3", os.path.abspath(__file__)] + sys.argv[1:])
        # make test installs it (scripts/deps.sh): without it the suite cannot check anything
        ok("python3-openpyxl is installed", False, "import openpyxl failed")
        return summary("report_xlsx")
    tmp = tempfile.mkdtemp(prefix="report_xlsx.")
    try:
        # a synthetic session
        synth, db = os.path.join(tmp, "synth"), os.path.join(tmp, "synth.db")
        r = run("gpuprof-synth", "--kernels", "4000", "--seed", "3", "-o", synth)
        if check(r.returncode == 0, "gpuprof-synth exits %d" % r.returncode):
            r = run("gpuprof-ingest", "-q", synth, "-o", db)
            if check(r.returncode == 0, "ingest of the synthetic session exits %d" % r.returncode):
                check_workbook(db, "synth", tmp)

                # a chart follows a table's columns and their kinds, not its name: a user's module with a
                # text name and an ns total_ns gets the bars of total time, titled by its table's title
                mod = os.path.join(tmp, "long_kernels.sql")
                with open(mod, "w") as f:
                    f.write("-- analysis: long_kernels\n-- title: Kernels longer than a threshold\n"
                            "-- option: min_ns 1 kernels at least this long (ns)\n"
                            "-- column: total_ns ns their total time\n--\n"
                            "SELECT s.value AS name, count(*) AS calls, sum(k.end_ns - k.start_ns) AS total_ns\n"
                            "FROM kernels k JOIN strings s ON s.session_id = k.session_id AND s.id = k.name_id\n"
                            "WHERE k.session_id = :session AND k.end_ns - k.start_ns >= :min_ns\n"
                            "GROUP BY k.name_id ORDER BY total_ns DESC LIMIT 5;\n")
                out = os.path.join(tmp, "module.xlsx")
                r = run("gpuprof-report", db, "--sql", mod, "-f", "xlsx", "-o", out)
                if check(r.returncode == 0, "report --sql exits %d: %s" % (r.returncode, r.stderr.decode().strip())):
                    titles = sheet_chart_titles(out)
                    check(titles.get("long_kernels") == ["Kernels longer than a threshold"],
                          "module: its sheet's chart titles %s" % titles.get("long_kernels"))
                    check(titles.get("hotspots") == ["Top kernels by total GPU time"] and titles.get("sync") == [],
                          "module: hotspots and sync charts %s %s" % (titles.get("hotspots"), titles.get("sync")))

                # against a baseline: the comparison sheets first, then the summary, still as fields
                base = os.path.join(tmp, "synth-base")
                r = run("gpuprof-synth", "--kernels", "4000", "--seed", "4", "-o", base, "--no-expected")
                if check(r.returncode == 0 and run("gpuprof-ingest", "-q", base, "-o", base + ".db").returncode == 0,
                         "baseline session"):
                    wb = check_workbook(db, "baseline", tmp, "--baseline", base + ".db")
                    check(wb is not None and wb.sheetnames[:6] == ["compare", "compare_ranges", "compare_copies",
                                                                   "compare_api", "compare_energy", "summary"],
                          "baseline: sheets %s" % (wb.sheetnames if wb else None))

                # the format writes a file: without -o it is a usage error
                r = run("gpuprof-report", db, "-f", "xlsx")
                check(r.returncode == 2, "-f xlsx without -o exits %d, want 2" % r.returncode)
                check(r.stdout == b"", "-f xlsx without -o writes nothing on standard output")
                # an unwritable path is a system error, and leaves no file
                bad = os.path.join(tmp, "no", "such", "dir", "r.xlsx")
                r = run("gpuprof-report", db, "-f", "xlsx", "-o", bad)
                check(r.returncode == 4 and b"error" in r.stderr,
                      "unwritable -o exits %d, want 4" % r.returncode)

        # a real trace
        if not os.path.exists(TRACE):
            print(f"report_xlsx: skipping the real trace: {TRACE} is absent")
        else:
            db = os.path.join(tmp, "alexnet.db")
            r = run("gpuprof-ingest", "-q", TRACE, "-o", db)
            if check(r.returncode == 0, "ingest of %s exits %d" % (TRACE, r.returncode)):
                check_workbook(db, "alexnet", tmp)

        # an empty comparison first (no kernels on either side) is left out like any empty table
        nd, db = os.path.join(tmp, "empty.ndjson"), os.path.join(tmp, "empty.db")
        with open(nd, "w") as f:
            f.write(json.dumps({"type": "header", "v": 1, "session": "empty", "pid": 1,
                                "origin_ns": "1700000000000000000"}) + "\n")
            f.write(json.dumps({"type": "end", "v": 1, "ts": 100000}) + "\n")
        if check(run("gpuprof-ingest", "-q", nd, "-o", db).returncode == 0, "ingest of the empty session"):
            wb = check_workbook(db, "empty-baseline", tmp, "--baseline", db)
            check(wb is not None and wb.sheetnames[:1] == ["summary"],
                  "empty baseline: sheets %s" % (wb.sheetnames if wb else None))

        # kernel names that look like formulas stay strings
        nd, db = os.path.join(tmp, "formulas.ndjson"), os.path.join(tmp, "formulas.db")
        names = wire_session(nd)
        r = run("gpuprof-ingest", "-q", nd, "-o", db)
        if check(r.returncode == 0, "ingest of the formula session exits %d: %s" %
                 (r.returncode, r.stderr.decode().strip())):
            wb = check_workbook(db, "formulas", tmp, charts=False)
            if wb is not None and check("hotspots" in wb.sheetnames, "formulas: hotspots sheet"):
                ws = wb["hotspots"]
                head = [c.value for c in ws[1]]
                col = head.index("Name") + 1 if "Name" in head else len(head)
                got = {}
                for row in range(2, ws.max_row + 1):
                    c = ws.cell(row=row, column=col)
                    got[c.value] = c.data_type
                check(sorted(got) == sorted(names), "formulas: names %s, want %s" % (sorted(got), names))
                check(all(t == "s" for t in got.values()), "formulas: names are strings: %s" % got)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary("report_xlsx")


if __name__ == "__main__":
    sys.exit(main())
