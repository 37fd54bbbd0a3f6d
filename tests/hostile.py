#!/usr/bin/env python3
"""hostile: names and ids no profiler should write, through every reader and every output.

Fixtures, made at test time in a temporary directory, each in its producer's real layout:
- a Kineto trace (PyTorch profiler JSON: deviceProperties, trace_id, runtime call and kernel pairs, process
  metadata) whose names hold invalid UTF-8 ("k\\xff", an overlong "\\xc0\\xaf"), terminal escapes
  ("\\x1b]0;PWNED\\x07\\x1b[2J": sets a terminal's title and clears its screen when printed raw), Markdown and
  HTML specials ("a & b <c>", a literal "&amp;"), and \\u0000 in a name, in an argument nothing reads, in the
  trace_id and in a process name;
- a second Kineto trace whose trace_id is 32 Chinese characters (96 bytes, 288 escaped as a directory name),
  in a file whose name holds a terminal escape (messages name the file: shown as "\x1b");
- a wire-format session (tests/data/wire-example.ndjson, its strings, header and device edited): \\u0000 in the
  host name and a range name, invalid UTF-8 in the program and the device name (inline text), escapes in the
  kernel name;
- an Nsight Systems export: a copy of ../shared/traces/nsys/healthy_1pct.sqlite whose kernel name in
  StringIds is SQLite TEXT holding invalid UTF-8 and escapes, ingested with a 300-character --session.

Checks: ingest keeps every event (the one with \\u0000 in an argument too), exits 0 with one warning per file
that counts what was replaced with U+FFFD, records the counts in ingest_repairs (schema version 6), stores
only valid UTF-8 and gives the same database with -j 2. Then, also after raw invalid bytes are written into
the database as an older gpuprof left them: gpuprof-report in every format and gpuprof-analyze in its text
formats give valid output: JSON strictly decoded (UTF-8, then json), the trace export too, text and Markdown
without a control byte (the escape shown as the text "\\x1b"), Markdown showing '&' as '&' (GFM), HTML
without control characters and with balanced elements, XLSX opened by openpyxl with every XML part (sheets,
sharedStrings, charts) well formed; gpuprof-export writes every session (directory names under 255 bytes)
and its load.sql loads every session's rows into PostgreSQL (a private cluster, as tests/warehouse.py
starts one; skipped with the reason when PostgreSQL is not installed).

Run with /usr/bin/python3 (openpyxl). Prints one line per failure and ends with "hostile: N passed, M failed".
"""
import csv
import glob
import gzip
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zipfile
from html.parser import HTMLParser
from xml.dom import minidom

import checks
from checks import BIN, ROOT, TRACES, check, ok

NSYS = os.path.join(TRACES, "nsys", "healthy_1pct.sqlite")
WIRE = os.path.join(ROOT, "tests", "data", "wire-example.ndjson")
PWNED = "\x1b]0;PWNED\x07\x1b[2J"
PWNED_SHOWN = "\\x1b]0;PWNED\\x07\\x1b[2J"
CHINESE_ID = "性能分析会话标识符用于测试长名称的目录是否可以正确创建和加载到数据库中"[:32]
LONG_SESSION = "run-" + "ab/c d'" * 42 + "-end"  # 302 characters, every one escaped but a few
R = "\ufffd"


def run(prog, *args, expect=0):
    r = subprocess.run([os.path.join(BIN, prog), *args], capture_output=True)
    if expect is not None and r.returncode != expect:
        ok(f"{prog} {' '.join(a for a in args if len(a) < 80)[:200]} exits {expect}", False,
           f"exit {r.returncode}: {r.stderr.decode('utf-8', 'replace')[-800:]}")
    return r


# ---- fixtures ----

def kernel_pair(name, ts, corr, extra=b""):
    """A runtime launch and its kernel as PyTorch's profiler writes them; name is the JSON string's bytes."""
    return (b'  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, '
            b'"ts": %d.000, "dur": 5.000, "args": {"External id": %d, "cbid": 211, "correlation": %d}},\n'
            % (ts, corr, corr) +
            b'  {"ph": "X", "cat": "kernel", "name": "' + name + b'", "pid": 0, "tid": 7, "ts": %d.000, '
            b'"dur": 20.000, "args": {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, '
            b'"correlation": %d, "registers per thread": 32, "shared memory": 0, "blocks per SM": 1.0, '
            b'"warps per SM": 4.0, "grid": [1, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %%": 6'
            % (ts + 6, corr, corr) + extra + b'}},\n')


# The Kineto trace's kernels: (name as written in the JSON, name as stored).
KINETO_KERNELS = [
    (b"k\xff", "k" + R),
    (b"\\u001b]0;PWNED\\u0007\\u001b[2J", PWNED),
    (b"plain_kernel", "plain_kernel"),  # its launch's kernel has "\u0000" in an argument nothing reads
    (b"a & b <c> \\\"q\\\" | pipe", 'a & b <c> "q" | pipe'),
    (b"literal &amp; entity", "literal &amp; entity"),
    (b"nul\\u0000in name", "nul" + R + "in name"),
    (b"\xe4\xb8\xad\xe6\x96\x87 kernel \xc0\xaf overlong", "中文 kernel " + R + R + " overlong"),
]
KINETO_INVALID, KINETO_NULS = 4, 4  # k\xff 1, \xc0\xaf 2, the range's \xfe 1; arg, name, trace_id, process name


def kineto_trace(path, trace_id):
    body = b""
    for i, (name, _) in enumerate(KINETO_KERNELS):
        body += kernel_pair(name, 1000 + 100 * i, i + 1, b', "note": "a\\u0000b"' if name == b"plain_kernel" else b"")
    body += (b'  {"ph": "X", "cat": "user_annotation", "name": "range\\u001b[31m\xfe", "pid": 4242, "tid": 4242, '
             b'"ts": 900.000, "dur": 900.000, "args": {"External id": 99}},\n'
             b'  {"name": "process_name", "ph": "M", "ts": 0, "pid": 4242, "tid": 0, "args": {"name": "python\\u0000x"}}\n')
    doc = (b'{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    {"id": 0, "name": "NVIDIA A100-SXM4-80GB", '
           b'"totalGlobalMem": 85031714816, "computeMajor": 8, "computeMinor": 0, "numSms": 108}\n  ],\n'
           b'  "cupti_version": 18, "cuda_runtime_version": 12010, "cuda_driver_version": 12020,\n'
           b'  "trace_id": "' + trace_id + b'", "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000,\n'
           b'  "traceEvents": [\n' + body + b'  ],\n  "traceName": "hostile.pt.trace.json"\n}\n')
    with open(path, "wb") as f:
        f.write(doc)


WIRE_INVALID, WIRE_NULS = 3, 2  # program, device name, kernel name; host name, range name


def wire_session(path):
    text = open(WIRE, "rb").read()
    for a, b in [(b'"session":"demo-0001"', b'"session":"wire-hostile"'), (b'"hostname":"node7"', b'"hostname":"node\\u00007"'),
                 (b'"program":"./saxpy"', b'"program":"./sax\xffpy"'),
                 (b'"name":["NVIDIA H100 80GB HBM3"]', b'"name":["NVIDIA H100\xfe"]'),
                 (b'"saxpy(int, float, float const*, float*)"', b'"saxpy\\u001b]0;PWNED\\u0007\\u001b[2J\xff"'),
                 (b'"iteration"', b'"iter\\u0000ation"')]:
        ok(f"wire fixture: {a[:30]!r} is in the example", a in text)
        text = text.replace(a, b)
    with open(path, "wb") as f:
        f.write(text)


def nsys_export(path):
    shutil.copyfile(NSYS, path)
    os.chmod(path, 0o644)
    con = sqlite3.connect(path)
    n = con.execute("UPDATE StringIds SET value = CAST(x'67656d6d1b5b324aff5f3132387831323800' AS TEXT) "
                    "WHERE value = 'gemm_nn_128x128'").rowcount
    con.commit()
    con.close()
    ok("nsys fixture: the kernel name edited", n == 1, n)


# ---- output checks ----

def strict(what, data):
    """data decoded as UTF-8, strictly; None (a failure counted) when it is not valid."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        ok(f"{what}: valid UTF-8", False, str(e))
        return None


CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def no_control(what, text):
    m = CONTROL.search(text)
    ok(f"{what}: no control character", m is None, m and repr(text[max(0, m.start() - 40):m.end() + 40]))


class Balanced(HTMLParser):
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
    OPTIONAL = {"p", "li", "td", "th", "tr", "thead", "tbody", "option"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        while self.stack and self.stack[-1] != tag and self.stack[-1] in self.OPTIONAL:
            self.stack.pop()
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def check_html(what, data, names=True):
    text = strict(what, data)
    if text is None:
        return
    no_control(what, text)
    p = Balanced()
    p.feed(text)
    p.close()
    ok(f"{what}: elements balanced", not p.errors and not [t for t in p.stack if t not in Balanced.OPTIONAL],
       (p.errors[:3], p.stack[-5:]))
    shown = "".join(p.text)
    if names:
        ok(f"{what}: the escape name shown as text", PWNED_SHOWN in shown)
        ok(f"{what}: '&' and '<' shown as themselves", 'a & b <c> "q" | pipe' in shown)


def md_escaped(s):
    """s as gpuprof's Markdown writes it: backslashes and brackets escaped."""
    return re.sub(r"([\\\[\]])", r"\\\1", s)


def check_text(what, data, md=False, names=True):
    text = strict(what, data)
    if text is None:
        return
    no_control(what, text)
    if not names:
        return
    ok(f"{what}: the escape name shown as text", (md_escaped(PWNED_SHOWN) if md else PWNED_SHOWN) in text,
       [ln for ln in text.splitlines() if "PWNED" in ln][:3])
    if md:
        refs = re.findall(r"(?<!\\)&(?:amp|#39|quot);", text)
        ok(f"{what}: '&' is '&' (GFM shows it so)", "a & b \\<c\\>" in text, [ln for ln in text.splitlines() if "&" in ln][:3])
        ok(f"{what}: no character reference for a plain character ('&amp;', '&#39;' in a <summary>)", not refs,
           [ln for ln in text.splitlines() if re.search(r"(?<!\\)&(?:amp|#39|quot);", ln)][:3])
        ok(f"{what}: a literal '&amp;' escaped so GFM shows it as written", "literal \\&amp; entity" in text)


def check_json(what, data):
    text = strict(what, data)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as e:
        ok(f"{what}: JSON", False, str(e))
        return None


def check_xlsx(what, path, names=True):
    try:
        import openpyxl
    except ImportError:
        print(f"hostile: {what}: openpyxl check skipped: no openpyxl in {sys.executable} (run.sh uses /usr/bin/python3)")
        openpyxl = None
    with zipfile.ZipFile(path) as z:
        parts = [n for n in z.namelist() if n.endswith(".xml") or n.endswith(".rels")]
        ok(f"{what}: has charts", any(n.startswith("xl/charts/chart") for n in parts), parts[:20])
        for n in parts:
            data = z.read(n)
            try:
                minidom.parseString(data)
            except Exception as e:  # noqa: BLE001 (any parser error is the failure)
                ok(f"{what}: {n} well formed", False, str(e))
            else:
                ok(f"{what}: {n} well formed", True)
    if openpyxl:
        try:
            wb = openpyxl.load_workbook(path)
            cells = [c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
            ok(f"{what}: openpyxl opens it", bool(cells))
            if names:
                ok(f"{what}: the escape name shown as text", PWNED_SHOWN in cells, [c for c in cells if "PWN" in c][:3])
        except Exception as e:  # noqa: BLE001
            ok(f"{what}: openpyxl opens it", False, str(e))


def check_outputs(tmp, db, sid, label, names):
    """Every format of gpuprof-report and the text formats of gpuprof-analyze for session sid; names: it is
    a session of the Kineto fixture, whose names are checked as shown."""
    s = ["--session", sid]
    r = run("gpuprof-report", db, *s, "--format", "json")
    doc = check_json(f"{label}: report json", r.stdout)
    if doc:
        kernels = [h["name"] for h in doc["tables"]["hotspots"]]
        ok(f"{label}: report json: names are the stored text", kernels and all(isinstance(n, str) for n in kernels), kernels)
    check_text(f"{label}: report text", run("gpuprof-report", db, *s, "--format", "text").stdout, names=names)
    check_text(f"{label}: report md", run("gpuprof-report", db, *s, "--format", "md").stdout, md=True, names=names)
    html = os.path.join(tmp, f"{label}.html")
    run("gpuprof-report", db, *s, "--format", "html", "-o", html)
    check_html(f"{label}: report html", open(html, "rb").read(), names)
    xlsx = os.path.join(tmp, f"{label}.xlsx")
    run("gpuprof-report", db, *s, "--format", "xlsx", "-o", xlsx)
    check_xlsx(f"{label}: report xlsx", xlsx, names)
    out = os.path.join(tmp, f"{label}-csv")
    run("gpuprof-report", db, *s, "--format", "csv", "-o", out)
    for f in sorted(glob.glob(os.path.join(out, "*.csv"))):
        text = strict(f"{label}: report csv {os.path.basename(f)}", open(f, "rb").read())
        if text is not None:
            list(csv.reader(io.StringIO(text)))
    trace = os.path.join(tmp, f"{label}.trace.json")
    run("gpuprof-report", db, *s, "--format", "trace", "-o", trace)
    t = check_json(f"{label}: trace export", open(trace, "rb").read())
    if t:
        ok(f"{label}: trace export: the kernels named", any(e.get("cat") == "kernel" for e in t["traceEvents"]))
    for fmt in ("text", "md"):
        r = run("gpuprof-analyze", "hotspots", db, *s, "--format", fmt)
        check_text(f"{label}: analyze hotspots {fmt}", r.stdout, md=fmt == "md", names=names)
    check_json(f"{label}: analyze hotspots json", run("gpuprof-analyze", "hotspots", db, *s, "--format", "json").stdout)


# ---- the export and PostgreSQL ----

def table_counts(db):
    con = sqlite3.connect(db)
    uuid = dict(con.execute("SELECT id, uuid FROM sessions"))
    tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master m WHERE type = 'table' AND name NOT LIKE 'column_%' "
                                        "AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'session_id')")]
    counts = {("sessions", u): 1 for u in uuid.values()}
    for t in tables:
        for sid, n in con.execute(f"SELECT session_id, count(*) FROM {t} WHERE session_id IS NOT NULL GROUP BY 1"):
            counts[(t, uuid[sid])] = n
    con.close()
    return ["sessions"] + tables, counts


def check_export(tmp, db):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import warehouse
    out = os.path.join(tmp, "export-pg")
    r = run("gpuprof-export", db, "--to", "postgres", "-o", out)
    if r.returncode:
        return
    ok("export: load.sql written", os.path.exists(os.path.join(out, "load.sql")))
    names = [n for _, dirs, _ in os.walk(out) for n in dirs]
    ok("export: every directory name under 255 bytes", max(len(n.encode()) for n in names) < 255,
       max(names, key=lambda n: len(n.encode())))
    tables, want = table_counts(db)
    sess = [d for d in os.listdir(os.path.join(out, "sessions"))]
    check("export: a sessions part per session", len(sess), len({u for t, u in want if t == "sessions"}))
    for f in glob.glob(os.path.join(out, "*", "*", "*.csv.gz")):
        strict(f"export: {os.path.relpath(f, out)[:60]}", gzip.open(f).read())
    ndj = os.path.join(tmp, "export-ndjson")
    run("gpuprof-export", db, "--to", "ndjson", "-o", ndj)
    for f in glob.glob(os.path.join(ndj, "*", "*", "*.ndjson.gz")):
        for line in gzip.open(f).read().splitlines():
            if check_json(f"export ndjson: {os.path.relpath(f, ndj)[:50]}", line) is None:
                break
    if not warehouse.pg_bin("initdb") or not warehouse.pg_bin("pg_ctl") or not shutil.which("psql"):
        print("hostile: postgres skipped: initdb, pg_ctl or psql not found (scripts/deps.sh installs postgresql)")
        return
    os.chmod(tmp, 0o755)
    for root, dirs, files in os.walk(out):  # the cluster's user reads the parts
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)
    pg = warehouse.Postgres(tmp)
    try:
        pg.start()
        pg.psql("-f", os.path.join(ROOT, "schemas", "warehouse", "postgres.sql"))
        pg.psql("-f", os.path.join(out, "load.sql"))
        got = pg.counts(tables)["counts"]
        diff = {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)}
        check("postgres: load.sql loads every session's rows", diff, {})
        names = {r["value"] for r in pg.psql(sql="SELECT value FROM strings")}
        ok("postgres: the escape name loaded as it is stored", any(PWNED in n for n in names), sorted(names)[:5])
    except RuntimeError as e:
        ok("postgres", False, str(e))
    finally:
        pg.stop()
    ok("postgres: stopped", not os.path.exists(os.path.join(pg.data, "postmaster.pid")))


# ---- ingest ----

def stored_text(db):
    """Every text value of every table, as bytes, with where it is."""
    con = sqlite3.connect(db)
    out = []
    for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]
        for c in cols:
            for (v,) in con.execute(f'SELECT CAST("{c}" AS BLOB) FROM "{t}" WHERE typeof("{c}") = \'text\''):
                out.append((t, c, v))
    con.close()
    return out


def check_ingest(tmp, inputs):
    db = os.path.join(tmp, "hostile.db")
    warnings = []
    for args, name, invalid, nuls in inputs:
        r = run("gpuprof-ingest", *args, "-o", db)
        err = r.stderr.decode("utf-8", "replace")
        parts = [f"{invalid} invalid UTF-8 sequence{'s' if invalid != 1 else ''}"] if invalid else []
        parts += [f"{nuls} NUL{'s' if nuls != 1 else ''}"] if nuls else []
        shown = name.replace("\x1b", "\\x1b")  # messages show control characters escaped
        want = f"gpuprof-ingest: warning: {shown}: {' and '.join(parts)} replaced with U+FFFD"
        ok(f"ingest {os.path.basename(shown)}: the warning counts the repairs", want in err.splitlines(), err[-600:])
        no_control(f"ingest {os.path.basename(shown)}: messages", err)
        warnings.append(want)
    con = sqlite3.connect(db)
    try:
        got = {(f, w): n for f, w, n in con.execute("SELECT file, what, sum(count) FROM ingest_repairs GROUP BY 1, 2")}
    except sqlite3.OperationalError as e:
        got = str(e)
    want = {}
    for args, name, invalid, nuls in inputs:
        if invalid:
            want[(name, "invalid UTF-8")] = invalid
        if nuls:
            want[(name, "NUL")] = nuls
    check("ingest_repairs: the counts per file", got, want)
    check("schema version 6", con.execute("PRAGMA user_version").fetchone()[0], 6)
    kin = con.execute("SELECT id FROM sessions WHERE uuid = ?", ("kineto:hostile" + R + "id",)).fetchone()
    ok("kineto: trace_id with \\u0000 kept (U+FFFD), not ignored", kin is not None,
       [r[0] for r in con.execute("SELECT uuid FROM sessions")])
    if kin:
        names = {r[0] for r in con.execute("SELECT s.value FROM kernels k JOIN strings s ON s.session_id = k.session_id "
                                           "AND s.id = k.name_id WHERE k.session_id = ?", kin)}
        check("kineto: every kernel kept, names repaired", names, {n for _, n in KINETO_KERNELS})
        check("kineto: nothing skipped but the process metadata",
              con.execute("SELECT category, ph, events FROM ingest_skipped WHERE session_id = ?", kin).fetchall(),
              [("", "M", 1)])
        check("kineto: the range name", con.execute("SELECT s.value FROM ranges r JOIN strings s ON s.session_id = "
                                                     "r.session_id AND s.id = r.name_id WHERE r.session_id = ?", kin).fetchall(),
              [("range\x1b[31m" + R,)])
    w = con.execute("SELECT hostname, program FROM sessions WHERE uuid = 'wire-hostile'").fetchone()
    check("wire: host name and program repaired", w, ("node" + R + "7", "./sax" + R + "py"))
    check("wire: device name (inline text) repaired", con.execute(
        "SELECT name FROM devices d JOIN sessions s ON s.id = d.session_id WHERE s.uuid = 'wire-hostile'").fetchall(),
        [("NVIDIA H100" + R,)])
    ok("nsys: the long --session kept whole", con.execute("SELECT 1 FROM sessions WHERE uuid = ?", (LONG_SESSION,)).fetchone())
    ok("kineto: the Chinese trace_id kept", con.execute("SELECT 1 FROM sessions WHERE uuid = ?",
                                                         ("kineto:" + CHINESE_ID,)).fetchone())
    con.close()
    bad = []
    for t, c, v in stored_text(db):
        try:
            v.decode("utf-8")
        except UnicodeDecodeError:
            bad.append((t, c, v[:40]))
        if b"\x00" in v:
            bad.append((t, c, v[:40]))
    check("every stored text is valid UTF-8 without NUL", bad, [])
    # -j 2: the same rows and counts
    db2 = os.path.join(tmp, "hostile-j2.db")
    for args, name, _, _ in inputs:
        run("gpuprof-ingest", "-j", "2", *args, os.path.join(tmp, "empty-ndjson-dir"), "-o", db2, expect=None)
    c1, c2 = sqlite3.connect(db), sqlite3.connect(db2)
    try:
        for q in ("SELECT file, what, count FROM ingest_repairs ORDER BY 1, 2",
                  "SELECT session_id, id, value FROM strings ORDER BY 1, 2"):
            check(f"-j 2: {q[:40]}", c2.execute(q).fetchall(), c1.execute(q).fetchall())
        # ingest again: nothing added, no repairs counted twice
        run("gpuprof-ingest", *inputs[0][0], "-o", db)
        check("ingest again: ingest_repairs unchanged", c1.execute("SELECT sum(count) FROM ingest_repairs").fetchone()[0],
              sum(n for i in inputs for n in i[2:]))
    except sqlite3.OperationalError as e:
        ok("ingest_repairs", False, str(e))
    c1.close()
    c2.close()
    return db


def main():
    if not os.path.exists(NSYS):
        print(f"hostile: skipped: the traces are not in {os.path.normpath(TRACES)}")
        return checks.summary("hostile")
    with tempfile.TemporaryDirectory(prefix="gpuprof-hostile.") as tmp:
        os.mkdir(os.path.join(tmp, "empty-ndjson-dir"))
        kin = os.path.join(tmp, "hostile.json")
        kineto_trace(kin, b"hostile\\u0000id")
        cn = os.path.join(tmp, "chinese\x1b[2J.json")  # a file name with an escape: messages name it
        kineto_trace(cn, CHINESE_ID.encode())
        wire = os.path.join(tmp, "wire", "4242.ndjson")
        os.mkdir(os.path.dirname(wire))
        wire_session(wire)
        nsys = os.path.join(tmp, "hostile.sqlite")
        nsys_export(nsys)
        inputs = [([kin], kin, KINETO_INVALID, KINETO_NULS), ([cn], cn, KINETO_INVALID, KINETO_NULS - 1),
                  ([wire], wire, WIRE_INVALID, WIRE_NULS), ([nsys, "--session", LONG_SESSION], nsys, 1, 0)]
        db = check_ingest(tmp, [(a, n, i, z) for a, n, i, z in inputs])
        con = sqlite3.connect(db)
        sessions = [(str(i), u.startswith("kineto:")) for i, u in con.execute("SELECT id, uuid FROM sessions ORDER BY id")]
        con.close()
        for sid, names in sessions:
            check_outputs(tmp, db, sid, f"session {sid}", names)
        # As an older gpuprof left a database: raw invalid bytes and a NUL in the text; the outputs stay valid.
        old = os.path.join(tmp, "old.db")
        shutil.copyfile(db, old)
        con = sqlite3.connect(old)
        con.execute("UPDATE strings SET value = CAST(x'6b5fff1b5b324a5f6f6c64' AS TEXT) WHERE value = 'plain_kernel'")
        con.execute("UPDATE sessions SET program = CAST(x'70726fff67' AS TEXT)")
        con.commit()
        con.close()
        check_outputs(tmp, old, sessions[0][0], "old database", True)
        check_export(tmp, old)
    return checks.summary("hostile")


if __name__ == "__main__":
    sys.exit(main())
