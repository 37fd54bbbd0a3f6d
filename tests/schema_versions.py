#!/usr/bin/env python3
"""Schema versions (schemas/session.sql's history, lib/db.c): databases of every older version, made from the
DDL each version's gpuprof ran (tests/data/schema/*.sql, from git history: v1.sql whole, each later version as
what it changed, run after the versions before it) and filled with the rows of a fresh
database (a wire-format session and a Kineto trace), are
1. read as they are by gpuprof-analyze and gpuprof-report: every analysis gives what it gives on the fresh
   database, except what the version lacks (no overheads before version 3; Kineto's total shared memory in
   static_smem before version 4), and the kernel chunks of versions 2 and 3 (other columns) are not used;
2. upgraded by gpuprof-ingest in one transaction: user_version, meta and application_id say 6, the schema is
   the one a fresh database has (tables, columns, indexes, triggers, views), the old rows are intact (kernels
   gain shared_mem as ingest writes it), integrity_check passes, and analyses then agree with the fresh
   database; an upgrade that fails leaves the file as it was;
3. refused, byte for byte untouched, with exit 3 and one message, when newer than this gpuprof or not ours."""
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import checks
from checks import BIN, ROOT, check, ok

SCHEMAS = os.path.join(ROOT, "tests", "data", "schema")
WIRE = os.path.join(ROOT, "tests", "data", "demo-session")
KINETO = os.path.join(ROOT, "tests", "data", "kineto-layouts", "pytorch-2-cuda.json")
EXTRA = os.path.join(ROOT, "tests", "data", "wire-example.ndjson")
CURRENT = 6
# fixture -> the version gpuprof must find in it; in order: each one's .sql runs on the one before it
FIXTURES = {"v1": 1, "v2": 2, "v3": 3, "v4-meta2": 4, "v4": 4, "v5": 5}
LOOKUPS = {"copy_kinds", "memory_kinds", "sync_kinds", "overhead_kinds", "object_kinds", "meta"}


def run(prog, *args, cwd=None):
    return subprocess.run([os.path.join(BIN, prog), *args], capture_output=True, text=True, cwd=cwd)


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def analyses():
    r = run("gpuprof-analyze", "--list")
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def outputs(db, sessions):
    """{(analysis, session): parsed JSON} and the report's JSON per session; a failed run is its stderr."""
    out = {}
    for s in sessions:
        for a in analyses():
            r = run("gpuprof-analyze", a, db, "--session", str(s), "--format", "json", "--top", "0")
            out[(a, s)] = json.loads(r.stdout) if r.returncode == 0 else ["exit", r.returncode, r.stderr]
        r = run("gpuprof-report", db, "--session", str(s), "-f", "json", "-n", "0")
        out[("report", s)] = json.loads(r.stdout) if r.returncode == 0 else ["exit", r.returncode, r.stderr]
    return out


def make(db, fixture):
    """A database of fixture's schema in db: the .sql files of the fixtures up to it, in order."""
    con = sqlite3.connect(db)
    for f in list(FIXTURES)[:list(FIXTURES).index(fixture) + 1]:
        con.executescript(open(os.path.join(SCHEMAS, f + ".sql")).read())
    con.close()


def columns(con, table, schema="main"):
    return [r[1] for r in con.execute(f'PRAGMA {schema}.table_info("{table}")')]


def fill(db, fresh, version):
    """The fresh database's rows in db (a fixture's schema), as that version's gpuprof stored them: only the
    columns it had; Kineto kernels with the total shared memory in static_smem before version 4; api_calls
    chunks as they are (same columns since version 2), kernel chunks as garbage (they had other columns
    before version 4, and must not be read)."""
    con = sqlite3.connect(db)
    con.execute("ATTACH ? AS f", (fresh,))
    tables = [r[0] for r in con.execute("SELECT name FROM main.sqlite_master WHERE type = 'table'")]
    for t in tables:
        if t in LOOKUPS or t in ("column_chunks", "column_sets"):
            continue
        cols = ", ".join(f'"{c}"' for c in columns(con, t))
        con.execute(f'INSERT INTO main."{t}" ({cols}) SELECT {cols} FROM f."{t}"')
    if version < 4:
        con.execute("UPDATE main.kernels SET static_smem = (SELECT shared_mem FROM f.kernels k WHERE k.rowid = "
                    "main.kernels.rowid), dynamic_smem = NULL WHERE session_id IN "
                    "(SELECT id FROM sessions WHERE source = 'kineto')")
    if "column_chunks" in tables:
        con.execute("INSERT INTO main.column_sets SELECT * FROM f.column_sets")
        con.execute("INSERT INTO main.column_chunks SELECT id, tbl, session_id, pid, first_row, rows, base_ns, "
                    "CASE WHEN tbl = 'kernels' AND ? < 4 THEN x'00' ELSE data END FROM f.column_chunks", (version,))
    con.commit()
    con.close()


def schema(db):
    """What a database's schema is, comparably: columns of every table, and every index, trigger and view."""
    con = sqlite3.connect(db)
    out = {}
    for typ, name, sql in con.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"):
        if typ == "table":
            out[name] = [r[1:] for r in con.execute(f'PRAGMA table_info("{name}")')]
        else:
            text = re.sub(r"--[^\n]*", "", sql or "")
            out[name] = (typ, re.sub(r"\s+", " ", text.replace("IF NOT EXISTS ", "")).strip())
    con.close()
    return out


def rows(db, table, sessions):
    con = sqlite3.connect(db)
    cols = columns(con, table)
    key = ", ".join(f'"{c}"' for c in cols)
    where = "id" if table == "sessions" else "session_id"
    got = sorted(con.execute(f'SELECT {key} FROM "{table}" WHERE {where} IN ({",".join(map(str, sessions))})'),
                 key=repr)
    con.close()
    return cols, got


def version_of(db):
    con = sqlite3.connect(db)
    v = (con.execute("PRAGMA user_version").fetchone()[0], con.execute("PRAGMA application_id").fetchone()[0],
         con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
    con.close()
    return v


def without_overheads(out, key):
    """out[key] (an analysis's JSON rows, or the report's) with the overhead table empty."""
    if key[0] == "overhead":
        out[key] = []
    elif key[0] == "report":
        out[key]["tables"]["overhead"] = []


def without_ops(out, key, ref_sessions):
    """out[key] as a database that never stored ops (before version 6) gives it: the ops analysis empty, and
    the compare tables of ops without the ops of ref_sessions (those the old database holds)."""
    def keep(rows):
        return [r for r in rows if r["status"] == "new"] if key[1] not in ref_sessions else []
    if key[0] == "ops":
        out[key] = []
    elif key[0] == "compare" and isinstance(out[key], dict):
        out[key]["compare_ops"] = keep(out[key]["compare_ops"])
    elif key[0] == "report" and isinstance(out[key], dict):
        out[key]["tables"]["ops"] = []
        if "compare_ops" in out[key]["tables"]:
            out[key]["tables"]["compare_ops"] = keep(out[key]["tables"]["compare_ops"])


def expected_read(fresh_out, version, kineto):
    """What reading a database of `version` as it is gives: the fresh outputs, less what the version lacks."""
    want = {k: json.loads(json.dumps(v)) for k, v in fresh_out.items()}
    for key in want:
        if version < 3:
            without_overheads(want, key)
        if version < 4 and key == ("launch", kineto):
            for r in want[key]:
                r["static_smem"] = r["shared_mem"]
        if version < 6:
            without_ops(want, key, {key[1]})
    return want


def main():
    tmp = tempfile.mkdtemp(prefix="gpuprof-schema-")
    try:
        fresh = os.path.join(tmp, "fresh.db")
        for src in (WIRE, KINETO):
            r = run("gpuprof-ingest", "-q", src, "-o", fresh)
            check(f"fresh: ingest {os.path.basename(src)}", r.returncode, 0)
        check("fresh: version", version_of(fresh), (CURRENT, 0x47505246, str(CURRENT)))
        con = sqlite3.connect(fresh)
        kineto = con.execute("SELECT id FROM sessions WHERE source = 'kineto'").fetchone()[0]
        sessions = [r[0] for r in con.execute("SELECT id FROM sessions ORDER BY id")]
        ok("fresh: the wire session has overheads and the Kineto one skipped events",
           con.execute("SELECT (SELECT count(*) FROM overheads), (SELECT count(*) FROM ingest_skipped)").fetchone()
           > (0, 0))
        con.close()
        fresh_out = outputs(fresh, sessions)
        failed = [k for k, v in fresh_out.items() if isinstance(v, list) and v[:1] == ["exit"]]
        check("fresh: every analysis runs (compare has no session before the first)", failed,
              [("compare", sessions[0])])
        fresh2 = os.path.join(tmp, "fresh2.db")
        shutil.copyfile(fresh, fresh2)
        check("fresh2: ingest the extra session", run("gpuprof-ingest", "-q", EXTRA, "-o", fresh2).returncode, 0)
        fresh_schema = schema(fresh2)
        ref_out = outputs(fresh2, sessions + [sessions[-1] + 1])

        for fixture, version in FIXTURES.items():
            db = os.path.join(tmp, fixture + ".db")
            make(db, fixture)
            fill(db, fresh, version)
            before = sha(db)

            # 1. Read as it is, nothing written.
            got = outputs(db, sessions)
            want = expected_read(fresh_out, version, kineto)
            for key in want:
                check(f"{fixture}: read as it is: {key[0]} session {key[1]}", got[key], want[key])
            check(f"{fixture}: reading wrote nothing", sha(db), before)
            if version < 3:
                r = run("gpuprof-analyze", "overhead", db)
                check(f"{fixture}: overhead says why it is empty",
                      f"none recorded: schema version {version} is from before gpuprof recorded overheads" in r.stdout,
                      True)

            # 2. Upgraded on write.
            old = {t: rows(db, t, sessions) for t in schema(db) if isinstance(schema(db)[t], list)
                   and t not in LOOKUPS and t not in ("column_chunks", "column_sets")}
            r = run("gpuprof-ingest", "-q", EXTRA, "-o", db)
            check(f"{fixture}: ingest into it", (r.returncode, r.stderr), (0, ""))
            check(f"{fixture}: upgraded version", version_of(db), (CURRENT, 0x47505246, str(CURRENT)))
            con = sqlite3.connect(db)
            check(f"{fixture}: integrity_check", con.execute("PRAGMA integrity_check").fetchall(), [("ok",)])
            con.close()
            got_schema = schema(db)
            check(f"{fixture}: upgraded schema is a fresh one's", sorted(got_schema), sorted(fresh_schema))
            for name in sorted(set(got_schema) & set(fresh_schema)):
                check(f"{fixture}: upgraded {name}", got_schema[name], fresh_schema[name])
            for t, (cols, was) in old.items():
                now_cols, now = rows(db, t, sessions)
                if t == "kernels" and version < 4:
                    # shared_mem added, as ingest writes it; a Kineto total moved there from static_smem.
                    ref_cols, ref = rows(fresh, t, sessions)
                    check(f"{fixture}: kernels upgraded as ingest writes them", (now_cols, now), (ref_cols, ref))
                    continue
                check(f"{fixture}: old rows of {t} intact", (now_cols[:len(cols)], [r[:len(cols)] for r in now]),
                      (cols, was))
            sets = "SELECT count(*) FROM column_sets WHERE tbl = 'kernels' AND session_id IN (1, 2)"
            con = sqlite3.connect(db)
            got_sets = con.execute(sets).fetchone()[0]
            con.close()
            con = sqlite3.connect(fresh)
            check(f"{fixture}: old kernel chunks retired (kept from version 4)", got_sets,
                  0 if version < 4 else con.execute(sets).fetchone()[0])
            con.close()
            r = run("gpuprof-ingest", "-q", "--reindex", "-o", db)
            check(f"{fixture}: --reindex", r.returncode, 0)
            after = outputs(db, sessions + [sessions[-1] + 1])
            want = {k: json.loads(json.dumps(v)) for k, v in ref_out.items()}
            for key in want:
                if version < 3 and key[1] in sessions:
                    without_overheads(want, key)  # the old sessions never had any
                if version < 6:
                    without_ops(want, key, set(sessions))  # nor ops: only the session ingested after has them
                check(f"{fixture}: upgraded: {key[0]} session {key[1]}", after[key], want[key])

        newer(tmp, fresh)
        foreign(tmp)
        failed_upgrade(tmp, fresh)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("schema_versions")


def newer(tmp, fresh):
    """A database of a newer schema version: every program refuses it, exit 3, one message, file untouched."""
    d = os.path.join(tmp, "newer")
    os.makedirs(d)
    db = os.path.join(d, "session.db")
    shutil.copyfile(fresh, db)
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 7")
    con.close()
    before = sha(db)
    for prog, args in (("gpuprof-analyze", ["summary", "session.db"]), ("gpuprof-report", ["session.db"]),
                       ("gpuprof-ingest", ["-q", EXTRA, "-o", "session.db"]),
                       ("gpuprof-ingest", ["-q", "--reindex", "-o", "session.db"])):
        r = run(prog, *args, cwd=d)
        check(f"newer: {prog} {args[0]}", (r.returncode, r.stdout, r.stderr),
              (3, "", f"{prog}: error: session.db: schema version 7 is newer than this gpuprof ({CURRENT}): "
                      "upgrade gpuprof\n"))
    r = run("gpuprof-analyze", "compare", os.path.join(tmp, "fresh.db"), "--baseline", "session.db", cwd=d)
    check("newer: as a baseline", (r.returncode, "newer than this gpuprof" in r.stderr), (3, True))
    check("newer: the file is untouched", sha(db), before)


def foreign(tmp):
    """An SQLite file of another program, and one of ours marked by another application: refused, exit 3,
    untouched."""
    db = os.path.join(tmp, "other.db")
    con = sqlite3.connect(db)
    con.executescript("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
    con.close()
    before = sha(db)
    r = run("gpuprof-ingest", "-q", EXTRA, "-o", db)
    check("foreign: ingest refuses", (r.returncode, "not a gpuprof session database" in r.stderr), (3, True))
    r = run("gpuprof-analyze", "summary", db)
    check("foreign: analyze refuses", (r.returncode, "not a gpuprof session database" in r.stderr), (3, True))
    check("foreign: untouched", sha(db), before)
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 2")
    con.close()
    before = sha(db)
    r = run("gpuprof-ingest", "-q", EXTRA, "-o", db)
    check("foreign with a user_version: refused by its application_id", (r.returncode, r.stderr.strip()),
          (3, f"gpuprof-ingest: error: {db}: not a gpuprof session database (application_id 0)"))
    check("foreign with a user_version: untouched", sha(db), before)


def failed_upgrade(tmp, fresh):
    """An upgrade that fails (a version-3 database whose kernels already have shared_mem: step 4's ALTER
    TABLE fails) leaves the file as it was, and says which step failed; exit 4."""
    db = os.path.join(tmp, "broken.db")
    make(db, "v3")
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE kernels ADD COLUMN shared_mem INTEGER")
    con.close()
    fill(db, fresh, 3)
    before = sha(db)
    r = run("gpuprof-ingest", "-q", EXTRA, "-o", db)
    check("failed upgrade: exit and message", (r.returncode, f"{db}: cannot upgrade schema version 3 to 4" in r.stderr),
          (4, True))
    check("failed upgrade: untouched", sha(db), before)
    r = run("gpuprof-analyze", "summary", db)
    check("failed upgrade: still read as version 3", r.returncode, 0)


if __name__ == "__main__":
    sys.exit(main())
