#!/usr/bin/env python3
"""warehouse: gpuprof-export's loaders and schemas/warehouse/ against real servers, PostgreSQL and ClickHouse.

Four sessions from ../shared/traces (two Nsight Systems exports of one program before and after a change,
two Kineto traces with memory events; skipped, with the reason printed, when absent) are ingested into one
database; one session's uuid is given a quote, a slash and a space, which every loader must escape. The
database is exported for each engine, and the test starts the engine itself: PostgreSQL as a cluster of
its own in a temporary directory (initdb, pg_ctl, Unix socket only; as user postgres when run as root),
ClickHouse as a server on 127.0.0.1 at a free port with its data in a temporary directory. Each one:
schemas/warehouse/ENGINE.sql, the loader run twice (row counts per table and session equal session.db's
after each: one copy), integers past 2^53 exact, and every query of schemas/warehouse/queries/ENGINE/
against gpuprof-analyze on the same sessions: hotspots of every session, a kernel's trend over the last
N sessions, the regressions of compare in both directions, and the sessions whose memory peak grew.
Numbers are compared exactly, but stddev_ns (relative 1e-12: summed in another order). The servers are
stopped at the end, also on failure, and nothing listens afterwards. A server that is not installed is
skipped with the reason (scripts/deps.sh installs both).

ClickHouse 18.16 (Debian 12) predates query parameters (19.x): on a server older than 19 the test puts the
values into the query text where the file says {name:Type}; newer servers get --param_name=value.

Prints one line per failure and ends with "warehouse: N passed, M failed"; exit 1 if any failed.
"""
import csv
import ctypes
import glob
import io
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

import checks
from checks import BIN, ROOT, TRACES, check, close, ok

WAREHOUSE = os.path.join(ROOT, "schemas", "warehouse")
INPUTS = ["nsys/mfu_2gpu_before.sqlite", "nsys/mfu_2gpu_after.sqlite", "kineto/v100_memory_events.json.gz",
          "kineto/a100_pcie_memory_events.json.gz"]
ODD_UUID = "kineto:it's a/b"
LAST = 3  # kernel_trend's N


def analyze(db, *args):
    r = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), *args[:1], db, *args[1:], "--format", "json", "--top", "0"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"gpuprof-analyze {' '.join(args)}: {r.stderr}")
    return json.loads(r.stdout)


def make_history(tmp):
    db = os.path.join(tmp, "history.db")
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", *[os.path.join(TRACES, i) for i in INPUTS],
                        "-o", db], capture_output=True, text=True)
    ok("ingest the traces", r.returncode == 0, r.stderr[-500:])
    con = sqlite3.connect(db)
    con.execute("UPDATE sessions SET uuid = ? WHERE id = 3", (ODD_UUID,))
    con.commit()
    con.close()
    return db


def expected(db):
    """What gpuprof-analyze says, keyed as the warehouse queries answer."""
    con = sqlite3.connect(db)
    sessions = list(con.execute("SELECT id, uuid, start_ns FROM sessions ORDER BY start_ns, id"))
    uuid = {i: u for i, u, _ in sessions}
    counts, tables = {}, ["sessions"]
    for (t,) in con.execute("SELECT name FROM sqlite_master m WHERE type = 'table' AND name NOT LIKE 'column_%' "
                            "AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'session_id')"):
        tables.append(t)
        for sid, n in con.execute(f"SELECT session_id, count(*) FROM {t} WHERE session_id IS NOT NULL GROUP BY 1"):
            counts[(t, uuid[sid])] = n
    for sid, u, _ in sessions:
        counts[("sessions", u)] = 1
    digits = {uuid[s]: (a, b) for s, a, b in con.execute(
        "SELECT session_id, sum(start_ns / 1000000), sum(start_ns % 1000000) FROM kernels GROUP BY 1")}
    con.close()
    want = {"counts": counts, "digits": digits, "tables": tables}
    want["hotspots"] = {u: analyze(db, "hotspots", "--session", str(i)) for i, u, _ in sessions}
    trend = analyze(db, "trend")
    last = [u for _, u, _ in sessions][-LAST:]
    names = []
    for p in trend:
        if p["name"] not in names:
            names.append(p["name"])
    want["trend"] = {n: [(uuid[p["session_id"]], p["start_ns"], p["total_ns"], p["calls"]) for p in trend
                         if p["name"] == n and uuid[p["session_id"]] in last] for n in names[:3]}
    ok("trend: some kernel ran in several of the last sessions", any(len(v) > 1 for v in want["trend"].values()))
    want["regressions"] = {}
    for base, new in ((1, 2), (2, 1)):
        rows = analyze(db, "compare", "--base-session", str(base), "--session", str(new))["compare"]
        want["regressions"][(uuid[base], uuid[new])] = [r for r in rows if r["status"] == "regressed"]
    ok("compare: something regressed", any(want["regressions"].values()))
    peaks = []
    for i, u, start in sessions:
        rows = analyze(db, "memory", "--session", str(i))
        if rows:
            top = max(rows, key=lambda r: r["peak_bytes"])
            peaks.append((u, start, top["peak_bytes"], top["peak_from"]))
    # the warehouse queries make two of gpuprof's three peak rules (memory_growth.sql says why)
    check("memory: the sessions' peaks come from rules the queries make", [p[3] for p in peaks if p[3] == "addresses"], [])
    want["growth"] = [(b[0], b[1], b[2], b[3], a[0], a[2], b[2] - a[2]) for a, b in zip(peaks, peaks[1:]) if b[2] > a[2]]
    ok("memory: a session's peak grew", want["growth"])
    return want


def compare_rows(what, got, want, keys, floats=(), approx=()):
    """Rows (dicts) equal in order: keys and floats exactly (as numbers), approx within 1e-12."""
    check(f"{what}: rows", [r[keys[0]] for r in got], [r[keys[0]] for r in want])
    for g, w in zip(got, want):
        for k in keys:
            check(f"{what}: {w[keys[0]][:60]}: {k}", g[k], w[k])
        for k in floats:
            check(f"{what}: {w[keys[0]][:60]}: {k}", None if g[k] is None else float(g[k]),
                  None if w[k] is None else float(w[k]))
        for k in approx:
            close(f"{what}: {w[keys[0]][:60]}: {k}", float(g[k]), float(w[k]), rel=1e-12)


def check_queries(engine, query, want):
    """Every query of the engine against gpuprof-analyze; query(name, params) gives rows as dicts."""
    files = sorted(os.path.basename(f)[:-4] for f in glob.glob(os.path.join(WAREHOUSE, "queries", engine, "*.sql")))
    check(f"{engine}: the queries", files, ["hotspots", "kernel_trend", "memory_growth", "regressions"])
    for u, rows in want["hotspots"].items():
        got = query("hotspots", {"session": u})
        compare_rows(f"{engine}: hotspots {u}", got, rows, ["name", "calls", "total_ns", "min_ns", "max_ns"],
                     ["med_ns", "avg_ns", "time_pct"], ["stddev_ns"])
    for name, points in want["trend"].items():
        got = query("kernel_trend", {"kernel": name, "last": LAST})
        check(f"{engine}: kernel_trend {name[:60]}", [(r["session"], r["start_ns"], r["total_ns"], r["calls"]) for r in got],
              points)
    for (base, new), rows in want["regressions"].items():
        got = query("regressions", {"base": base, "new": new, "threshold": 0.05, "min_delta": 10000, "min_calls": 1})
        compare_rows(f"{engine}: regressions {base} -> {new}", got, rows,
                     ["name", "status", "base_calls", "new_calls", "base_total_ns", "new_total_ns"],
                     ["delta_pct", "delta_ns", "base_med_ns", "new_med_ns", "base_avg_ns", "new_avg_ns", "total_delta_pct"])
    got = query("memory_growth", {})
    check(f"{engine}: memory_growth", [(r["session"], r["start_ns"], r["peak_bytes"], r["peak_from"], r["prev_session"],
                                        r["prev_peak_bytes"], r["grew_bytes"]) for r in got], want["growth"])


def check_loaded(engine, counts_of, want, when):
    """Row counts per (table, session) and the kernels' start_ns digits equal session.db's."""
    got = counts_of()
    check(f"{engine}: {when}: rows per table and session", {k: v for k, v in got["counts"].items() if v},
          want["counts"])
    check(f"{engine}: {when}: kernels' start_ns exact", got["digits"], want["digits"])


def number(v):
    """A value of psql --csv or ClickHouse JSON as Python: int where it reads as one, else float, else text."""
    if v is None or v == "":
        return None
    if isinstance(v, (int, float)):
        return v
    if re.fullmatch(r"-?\d+", v):
        return int(v)
    try:
        return float(v)
    except ValueError:
        return v


TEXT = {"name", "session", "prev_session", "status", "peak_from"}


def typed(row):
    return {k: (v if k in TEXT else number(v)) for k, v in row.items()}


def export(tmp, db, target):
    """The database exported for target into tmp/export-TARGET."""
    out = os.path.join(tmp, "export-" + target)
    r = subprocess.run([os.path.join(BIN, "gpuprof-export"), db, "--to", target, "-o", out, "-q"],
                       capture_output=True, text=True)
    check(f"{target}: export", (r.returncode, r.stderr), (0, ""))
    return out


# ---- PostgreSQL ----

def pg_bin(name):
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


class Postgres:
    def __init__(self, tmp):
        self.dir = os.path.join(tmp, "pg")
        os.mkdir(self.dir)
        self.as_user = []
        if os.geteuid() == 0:  # initdb refuses root: the cluster is postgres's
            os.chown(self.dir, *(lambda p: (p.pw_uid, p.pw_gid))(__import__("pwd").getpwnam("postgres")))
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.data = os.path.join(self.dir, "data")

    def start(self):
        r = subprocess.run(self.as_user + [pg_bin("initdb"), "-D", self.data, "-A", "trust", "-U", "postgres",
                                           "--no-sync", "-E", "UTF8", "--locale", "C"], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("initdb: " + r.stderr[-500:])
        r = subprocess.run(self.as_user + [pg_bin("pg_ctl"), "-D", self.data, "-l", os.path.join(self.dir, "log"), "-w",
                                           "-o", f"-c listen_addresses='' -c unix_socket_directories={self.dir} -c fsync=off",
                                           "start"], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("pg_ctl start: " + r.stderr[-500:] + open(os.path.join(self.dir, "log")).read()[-500:])

    def stop(self):
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            subprocess.run(self.as_user + [pg_bin("pg_ctl"), "-D", self.data, "-m", "immediate", "-w", "stop"],
                           capture_output=True)

    def psql(self, *args, sql=None):
        r = subprocess.run([pg_bin("psql"), "-X", "-q", "-h", self.dir, "-U", "postgres", "-v", "ON_ERROR_STOP=1",
                            "--csv", *args, *(["-c", sql] if sql else [])], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"psql {' '.join(args)}: {r.stderr[-800:]}")
        return list(csv.DictReader(io.StringIO(r.stdout))) if r.stdout.strip() else []

    def counts(self, tables):
        sql = " UNION ALL ".join(f"SELECT '{t}' AS t, session, count(*) AS n FROM {t} GROUP BY session" for t in tables)
        counts = {(r["t"], r["session"]): int(r["n"]) for r in self.psql(sql=sql)}
        digits = {r["session"]: (int(r["a"]), int(r["b"])) for r in self.psql(
            sql="SELECT session, sum(start_ns / 1000000) AS a, sum(start_ns % 1000000) AS b FROM kernels GROUP BY session")}
        return {"counts": counts, "digits": digits}

    def query(self, name, params):
        args = []
        for k, v in params.items():
            args += ["-v", f"{k}={v}"]
        return [typed(r) for r in self.psql(*args, "-f", os.path.join(WAREHOUSE, "queries", "postgres", name + ".sql"))]


def test_postgres(tmp, db, want, tables):
    if not pg_bin("initdb") or not pg_bin("pg_ctl") or not shutil.which("psql"):
        print("warehouse: postgres skipped: initdb, pg_ctl or psql not found (scripts/deps.sh installs postgresql)")
        return
    out = export(tmp, db, "postgres")
    pg = Postgres(tmp)
    try:
        pg.start()
        pg.psql("-f", os.path.join(WAREHOUSE, "postgres.sql"))
        for when in ("first load", "second load"):
            pg.psql("-f", os.path.join(out, "load.sql"))
            check_loaded("postgres", lambda: pg.counts(tables), want, when)
        moved = os.path.join(tmp, "moved-pg")
        os.rename(out, moved)  # load.sql finds its parts under -v dir=
        pg.psql("-v", f"dir={moved}", "-f", os.path.join(moved, "load.sql"))
        check_loaded("postgres", lambda: pg.counts(tables), want, "a moved export, -v dir=")
        check_queries("postgres", pg.query, want)
    except RuntimeError as e:
        ok("postgres", False, str(e))
    finally:
        pg.stop()
    ok("postgres: stopped", not os.path.exists(os.path.join(pg.data, "postmaster.pid")))


# ---- ClickHouse ----

CH_CONFIG = """<?xml version="1.0"?>
<yandex>
    <logger><level>warning</level><log>{d}/server.log</log><errorlog>{d}/server.err.log</errorlog></logger>
    <listen_host>127.0.0.1</listen_host>
    <tcp_port>{port}</tcp_port>
    <path>{d}/data/</path>
    <tmp_path>{d}/tmp/</tmp_path>
    <user_files_path>{d}/user_files/</user_files_path>
    <format_schema_path>{d}/format_schemas/</format_schema_path>
    <mark_cache_size>5368709120</mark_cache_size>
    <users_config>users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
</yandex>
"""
CH_USERS = """<?xml version="1.0"?>
<yandex>
    <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
    <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile>
        <quota>default</quota></default></users>
    <quotas><default></default></quotas>
</yandex>
"""


def die_with_parent():
    """In the server's child process: SIGTERM when the test dies, however it dies (PR_SET_PDEATHSIG)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class ClickHouse:
    def __init__(self, tmp):
        self.dir = os.path.join(tmp, "ch")
        os.mkdir(self.dir)
        self.port = free_port()
        with open(os.path.join(self.dir, "config.xml"), "w") as f:
            f.write(CH_CONFIG.format(d=self.dir, port=self.port))
        with open(os.path.join(self.dir, "users.xml"), "w") as f:
            f.write(CH_USERS)
        self.proc = None
        self.version = (0,)

    def start(self):
        self.proc = subprocess.Popen([shutil.which("clickhouse-server"), f"--config-file={self.dir}/config.xml"],
                                     stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "stderr"), "w"),
                                     cwd=self.dir, preexec_fn=die_with_parent)
        for _ in range(300):
            if self.proc.poll() is not None:
                raise RuntimeError("clickhouse-server exited: " + open(os.path.join(self.dir, "stderr")).read()[-800:])
            if listening(self.port):
                break
            time.sleep(0.1)
        v = self.client("--query", "SELECT version()").strip()
        self.version = tuple(int(x) for x in v.split(".")[:2])

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def client(self, *args, stdin=None):
        r = subprocess.run(["clickhouse-client", "--port", str(self.port), *args], capture_output=True, text=True,
                           input=stdin)
        if r.returncode != 0:
            raise RuntimeError(f"clickhouse-client {' '.join(args)[:200]}: {r.stderr[-800:]}")
        return r.stdout

    def rows(self, sql, params=None):
        """Rows of a query as dicts. Before 19.x (no query parameters) the values go into the text."""
        args = []
        for k, v in (params or {}).items():
            if self.version < (19,):
                lit = "'" + str(v).replace("\\", "\\\\").replace("'", "\\'") + "'" if isinstance(v, str) else str(v)
                sql = re.sub(r"\{" + k + r":[A-Za-z0-9]+\}", lambda m: lit, sql)
            else:
                args.append(f"--param_{k}={v}")
        out = self.client(*args, "--multiquery", "--format", "JSONEachRow", stdin=sql)
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    def counts(self, tables):
        counts = {}
        for t in tables:
            for r in self.rows(f"SELECT session, count() AS n FROM {t} GROUP BY session"):
                counts[(t, r["session"])] = int(r["n"])
        digits = {r["session"]: (int(r["a"]), int(r["b"])) for r in self.rows(
            "SELECT session, sum(intDiv(start_ns, 1000000)) AS a, sum(start_ns % 1000000) AS b FROM kernels GROUP BY session")}
        return {"counts": counts, "digits": digits}

    def query(self, name, params):
        with open(os.path.join(WAREHOUSE, "queries", "clickhouse", name + ".sql")) as f:
            return [typed(r) for r in self.rows(f.read(), params)]


def test_clickhouse(tmp, db, want, tables):
    if not shutil.which("clickhouse-server") or not shutil.which("clickhouse-client"):
        print("warehouse: clickhouse skipped: clickhouse-server or clickhouse-client not found "
              "(scripts/deps.sh installs them)")
        return
    out = export(tmp, db, "clickhouse")
    ch = ClickHouse(tmp)
    try:
        ch.start()
        print(f"warehouse: clickhouse {'.'.join(map(str, ch.version))}"
              + (" (no query parameters: values put into the query text)" if ch.version < (19,) else ""))
        check("clickhouse: quantileExact(0.5) of 1 2 3 10 is the upper middle value, not gpuprof's 2.5 (hotspots.sql)",
              ch.client("--query", "SELECT quantileExact(0.5)(x) FROM (SELECT arrayJoin([1, 2, 3, 10]) AS x)").strip(), "3")
        with open(os.path.join(WAREHOUSE, "clickhouse.sql")) as f:
            ch.client("--multiquery", stdin=f.read())
        for when in ("first load", "second load"):
            r = subprocess.run([os.path.join(out, "load.sh"), "--port", str(ch.port)], capture_output=True, text=True)
            check(f"clickhouse: {when}: load.sh", (r.returncode, r.stderr[-500:]), (0, ""))
            check_loaded("clickhouse", lambda: ch.counts(tables), want, when)
        check_queries("clickhouse", ch.query, want)
    except RuntimeError as e:
        ok("clickhouse", False, str(e))
    finally:
        ch.stop()
    ok("clickhouse: stopped, nothing listens", not listening(ch.port))


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # run.sh ends a suite so: the finally blocks stop the servers
    if not all(os.path.exists(os.path.join(TRACES, i)) for i in INPUTS):
        print(f"warehouse: skipped: the traces are not in {os.path.normpath(TRACES)}")
        return checks.summary("warehouse")
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # the postgres user reaches its cluster's directory inside
        db = make_history(tmp)
        want = expected(db)
        tables = want["tables"]
        test_postgres(tmp, db, want, tables)
        test_clickhouse(tmp, db, want, tables)
    return checks.summary("warehouse")


if __name__ == "__main__":
    sys.exit(main())
