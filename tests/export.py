#!/usr/bin/env python3
"""export: gpuprof-export's files, read back without any server (tests/warehouse.py loads them).

Two synthetic sessions (gpuprof-synth) in one database, made awkward on purpose with sqlite3: strings with
quotes, newlines, commas, tabs, a NUL-free control character and non-ASCII text; one session's uuid with a
quote, a slash, a space and a percent sign (its partition directory escaped); a kernel of the first session
appended after the second (its part gets a second gzip member); a REAL and an integer past 2^53. For every
target, every table and session: the part holds exactly the rows of session.db (same values, same types,
integers exact), its header the table's columns with `session` first, and the loader names every part.
Then --session (id and uuid), and the failures: unknown session, missing file, a file that is not a
database, a table whose name is not a plain identifier, bad options, an output that cannot be written.

Prints one line per failure and ends with "export: N passed, M failed"; exit 1 if any failed.
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
from collections import Counter

import checks
from checks import BIN, ROOT, check, ok

EXPORT = os.path.join(BIN, "gpuprof-export")
ODD = ['quote " and, comma', "new\nline and\r\nCRLF", "tab\there", "bell\x07", "unicode: é 漢字 🚀", "",
       "'single' \\back\\slash", "=formula,+1"]
UUID2 = "run 'x'/y 100%"


def run(*args):
    return subprocess.run([EXPORT, *args], capture_output=True, text=True)


def make_db(tmp):
    """Two synthetic sessions, then the awkward values written into them."""
    db = os.path.join(tmp, "s.db")
    for seed in (1, 2):
        d = os.path.join(tmp, f"synth{seed}")
        subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "3000", "--seed", str(seed), "-o", d,
                        "--no-expected"], check=True, capture_output=True)
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", d, "-o", db], check=True, capture_output=True)
    con = sqlite3.connect(db)
    ids = [r[0] for r in con.execute("SELECT id FROM strings WHERE session_id = 1 ORDER BY id LIMIT ?", (len(ODD),))]
    for i, v in zip(ids, ODD):
        con.execute("UPDATE strings SET value = ? WHERE session_id = 1 AND id = ?", (v, i))
    con.execute("UPDATE sessions SET uuid = ? WHERE id = 2", (UUID2,))
    con.execute("INSERT INTO kernels (session_id, pid, start_ns, end_ns, device_id, name_id) "
                "VALUES (1, 4242, 9007199254740993, 9007199254740999, 0, ?)", (ids[0],))
    con.execute("INSERT INTO host_metrics (session_id, pid, ts_ns, cpu_pct, rss_bytes) "
                "VALUES (1, 4242, 1, 0.1, 9223372036854775807)")
    con.commit()
    con.close()
    return db


def csv_rows(data):
    """RFC 4180 records with quoting kept: a quoted cell is a str, an unquoted empty one None, else a
    number (int, or float where it has a point or exponent)."""
    rows, row, cell, quoted, i = [], [], [], False, 0
    inq = False
    while i < len(data):
        c = data[i]
        if inq:
            if c == '"' and data[i + 1:i + 2] == '"':
                cell.append('"')
                i += 1
            elif c == '"':
                inq = False
            else:
                cell.append(c)
        elif c == '"':
            inq = quoted = True
        elif c in ",\n":
            text = "".join(cell)
            row.append(text if quoted else None if text == "" else
                       float(text) if any(x in text for x in ".eE") or text in ("inf", "nan") else int(text))
            cell, quoted = [], False
            if c == "\n":
                rows.append(row)
                row = []
        else:
            cell.append(c)
        i += 1
    return rows


def part_rows(path, fmt):
    """The header and rows of one part: NDJSON objects in header order, or CSV records."""
    with gzip.open(path, "rb") as f:
        text = f.read().decode("utf-8")
    if fmt == "csv":
        head, body = text.split("\n", 1)
        return next(csv.reader(io.StringIO(head))), [tuple(r) for r in csv_rows(body)]
    objs = [json.loads(line) for line in text.splitlines()]
    header = list(objs[0].keys()) if objs else []
    ok(f"{path}: every object has the same keys in order", all(list(o.keys()) == header for o in objs))
    return header, [tuple(o.values()) for o in objs]


def db_rows(con, table, sid):
    """What session.db holds for (table, session), as exported: the uuid, then the other columns."""
    cols = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
    if table == "sessions":
        keep = [c for c in cols if c not in ("id", "uuid")]
        sql = f"SELECT uuid{''.join(', ' + c for c in keep)} FROM sessions WHERE id = ?"
    else:
        keep = [c for c in cols if c != "session_id"]
        sql = (f"SELECT (SELECT uuid FROM sessions WHERE id = t.session_id){''.join(', t.' + c for c in keep)} "
               f"FROM {table} t WHERE t.session_id = ?")
    return ["session"] + keep, [tuple(r) for r in con.execute(sql, (sid,))]


def escape(uuid):
    return "session=" + "".join(c if c.isascii() and (c.isalnum() or c in "._-") else
                                "".join(f"%{b:02X}" for b in c.encode()) for c in uuid)


def tables(con):
    names = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_master m WHERE type = 'table' AND name NOT IN ('column_chunks', 'column_sets') "
        "AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'session_id') ORDER BY name")]
    return ["sessions"] + names


def check_target(tmp, db, target):
    out = os.path.join(tmp, "out-" + target)
    r = run(db, "--to", target, "-o", out)
    check(f"{target}: exit status", (r.returncode, r.stderr.count("error")), (0, 0))
    fmt = "csv" if target in ("csv", "postgres") else "ndjson"
    con = sqlite3.connect(db)
    sessions = list(con.execute("SELECT id, uuid FROM sessions ORDER BY id"))
    expected_parts = set()
    for table in tables(con):
        for sid, uuid in sessions:
            cols, want = db_rows(con, table, sid)
            path = os.path.join(out, table, escape(uuid), "part-0." + fmt + ".gz")
            if not want:
                ok(f"{target}: {table}/{uuid}: no part for no rows", not os.path.exists(path), path)
                continue
            expected_parts.add(os.path.relpath(path, out))
            if not os.path.exists(path):
                ok(f"{target}: {table}/{uuid}: part exists", False, path)
                continue
            header, got = part_rows(path, fmt)
            check(f"{target}: {table}/{uuid}: header", header, cols)
            check(f"{target}: {table}/{uuid}: row count", len(got), len(want))
            # same values of the same types (True == 1 in Python: compare types too)
            typed = lambda rows: Counter(tuple((type(v).__name__, v) for v in row) for row in rows)
            same = typed(got) == typed(want)
            ok(f"{target}: {table}/{uuid}: rows equal, typed", same,
               f"only exported: {list((typed(got) - typed(want)).items())[:2]}; "
               f"only in the db: {list((typed(want) - typed(got)).items())[:2]}")
    found = {os.path.relpath(p, out) for p in glob.glob(os.path.join(out, "*", "*", "part-0.*"))}
    check(f"{target}: the parts written are those with rows", found, expected_parts)
    loader = {"postgres": "load.sql", "clickhouse": "load.sh"}.get(target)
    check(f"{target}: loader files", sorted(f for f in os.listdir(out) if os.path.isfile(os.path.join(out, f))),
          [loader] if loader else [])
    if loader:
        text = open(os.path.join(out, loader)).read()
        ok(f"{target}: {loader} names every part", all(p in text for p in expected_parts),
           [p for p in expected_parts if p not in text][:3])
        if loader == "load.sh":
            ok("load.sh: executable", os.access(os.path.join(out, loader), os.X_OK))
            r = subprocess.run(["bash", "-n", os.path.join(out, loader)], capture_output=True, text=True)
            check("load.sh: bash -n", r.returncode, 0)
        else:
            check("load.sql: a transaction per session", (text.count("\nBEGIN;"), text.count("\nCOMMIT;")),
                  (len(sessions), len(sessions)))
    con.close()
    return out


def check_exact(out):
    """Values chosen for what a double cannot hold and what JSON text must escape."""
    con_path = os.path.join(out, "kernels", "session=synth-1", "part-0.ndjson.gz")
    with gzip.open(con_path, "rt") as f:
        lines = f.read().splitlines()
    ok("ndjson: 9007199254740993 written as digits", any('"start_ns":9007199254740993,' in l for l in lines))
    with gzip.open(os.path.join(out, "host_metrics", "session=synth-1", "part-0.ndjson.gz"), "rt") as f:
        text = f.read()
    ok("ndjson: INT64_MAX written as digits", '"rss_bytes":9223372036854775807' in text)
    with gzip.open(os.path.join(out, "strings", "session=synth-1", "part-0.ndjson.gz"), "rt") as f:
        text = f.read()
    ok("ndjson: a newline in a string is escaped", "new\\nline" in text and "bell\\u0007" in text)


def check_session_option(tmp, db):
    out = os.path.join(tmp, "one")
    r = run(db, "--to", "ndjson", "-o", out, "--session", UUID2)
    check("--session UUID: exit status", r.returncode, 0)
    check("--session UUID: only that session", sorted(os.listdir(os.path.join(out, "kernels"))), [escape(UUID2)])
    out = os.path.join(tmp, "one-id")
    r = run(db, "--to", "csv", "-o", out, "--session", "1", "-q")
    check("--session 1 -q: exit status, quiet", (r.returncode, r.stderr), (0, ""))
    check("--session 1: only that session", sorted(os.listdir(os.path.join(out, "sessions"))), ["session=synth-1"])


def check_orphans(tmp, db):
    """A row of no session (ingest_errors of an input that was none) cannot be keyed by a session: it is left out
    with a warning that counts it, and exit 3, while every session's rows are still exported."""
    odb = os.path.join(tmp, "orphans.db")
    shutil.copyfile(db, odb)
    con = sqlite3.connect(odb)
    con.execute("INSERT INTO ingest_errors (session_id, file, line, reason, ingested_at) VALUES "
                "(NULL, 'junk.ndjson', 1, 'not a session', '2026-11-27T00:00:00Z')")
    con.commit()
    con.close()
    out = os.path.join(tmp, "orphans")
    r = run(odb, "--to", "ndjson", "-o", out)
    check("a row of no session: exit 3, said and counted", (r.returncode,
          "1 row of ingest_errors belong to no session" in r.stderr), (3, True))
    ok("... every session still exported", os.path.isdir(os.path.join(out, "kernels")) and
       os.path.exists(os.path.join(out, "sessions")), os.listdir(out) if os.path.isdir(out) else out)


def check_failures(tmp, db):
    r = run(db, "--to", "ndjson", "-o", os.path.join(tmp, "x"), "--session", "no-such-session")
    check("unknown --session: exit 2", r.returncode, 2)
    ok("unknown --session: says which", r.stderr.startswith("gpuprof-export: error:") and "no-such-session" in r.stderr,
       r.stderr)
    r = run(os.path.join(tmp, "missing.db"), "--to", "ndjson", "-o", os.path.join(tmp, "x"))
    check("missing database: exit 4", r.returncode, 4)
    ok("missing database: message", r.stderr.startswith("gpuprof-export: error:") and "missing.db" in r.stderr, r.stderr)
    junk = os.path.join(tmp, "junk.db")
    with open(junk, "w") as f:
        f.write("this is not a database\n" * 100)
    r = run(junk, "--to", "ndjson", "-o", os.path.join(tmp, "x"))
    check("not a database: exit 3", r.returncode, 3)
    ok("not a database: message", r.stderr.startswith("gpuprof-export: error:") and "junk.db" in r.stderr, r.stderr)
    for args, what in (([db, "-o", os.path.join(tmp, "x")], "no --to"), ([db, "--to", "parquet", "-o", "x"], "bad --to"),
                       ([db, "--to", "csv"], "no -o"), (["--to", "csv", "-o", "x"], "no database"),
                       ([db, db, "--to", "csv", "-o", "x"], "two databases"), ([db, "--bogus"], "unknown option")):
        r = run(*args)
        check(f"{what}: exit 2", r.returncode, 2)
        ok(f"{what}: one line naming --help", r.stderr.count("\n") == 1 and "--help" in r.stderr, r.stderr)
    r = run(db, "--to", "parquet", "-o", "x")
    ok("bad --to names the targets", "clickhouse, postgres, ndjson or csv" in r.stderr, r.stderr)
    odd = os.path.join(tmp, "odd.db")
    shutil.copy(db, odd)
    con = sqlite3.connect(odd)
    con.execute('CREATE TABLE "x""y" (session_id INTEGER, "a b" TEXT)')
    con.commit()
    con.close()
    r = run(odd, "--to", "ndjson", "-o", os.path.join(tmp, "odd"))
    check("a table name with a quote: exit 3", r.returncode, 3)
    ok("a table name with a quote: message", r.stderr.startswith("gpuprof-export: error:") and 'x"y' in r.stderr, r.stderr)
    blocker = os.path.join(tmp, "file")
    open(blocker, "w").close()
    r = run(db, "--to", "csv", "-o", os.path.join(blocker, "sub"))
    check("unwritable output: exit 4", r.returncode, 4)
    ok("unwritable output: message", r.stderr.startswith("gpuprof-export: error:") and "file/sub" in r.stderr, r.stderr)
    r = subprocess.run([os.path.join(BIN, "gpuprof"), "export", "--help"], capture_output=True, text=True)
    ok("gpuprof export --help", r.returncode == 0 and "usage: gpuprof-export" in r.stdout, r.stderr)


def check_ddl(db):
    """schemas/warehouse's DDL has a table for every table an export writes, with its columns in its order
    (session for session_id, the sessions table without its local id): a schema change that forgets the
    warehouse fails here, with or without a server to load into."""
    con = sqlite3.connect(db)
    want = {}
    for t in tables(con):
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]
        if t == "sessions":
            cols = ["session"] + [c for c in cols if c not in ("id", "uuid")]
        else:
            cols = ["session"] + [c for c in cols if c != "session_id"]
        want[t] = cols
    con.close()
    for engine in ("postgres", "clickhouse"):
        text = open(os.path.join(ROOT, "schemas", "warehouse", engine + ".sql")).read()
        got = {}
        for m in re.finditer(r"CREATE TABLE IF NOT EXISTS (\w+) \((.*?)\n\)", text, re.S):
            got[m.group(1)] = [re.match(r'\s*"?(\w+)"?', line).group(1) for line in m.group(2).strip().split("\n")
                               if line.strip() and not line.strip().startswith("--")]
        check(f"{engine}.sql: a table per exported table", sorted(got), sorted(want))
        for t in sorted(set(got) & set(want)):
            check(f"{engine}.sql: {t}'s columns", got[t], want[t])


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db = make_db(tmp)
        check_ddl(db)
        outs = {t: check_target(tmp, db, t) for t in ("ndjson", "csv", "postgres", "clickhouse")}
        check_exact(outs["ndjson"])
        check_session_option(tmp, db)
        check_orphans(tmp, db)
        check_failures(tmp, db)
    return checks.summary("export")


if __name__ == "__main__":
    sys.exit(main())
