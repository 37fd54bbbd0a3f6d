#!/usr/bin/env python3
"""make bench: speed and memory of the pipeline on a large synthetic session, against the targets.

Measures (wall time, and peak RSS of each child process from getrusage):
  ingest of a 5M-kernel session: events/s (every record: kernels, launch calls, copies, ranges...)
  ingest of the same session with PyTorch ops (gpuprof-synth --ops: each forward and backward launch inside
  two or three emit_nvtx ranges, each one both a range and an op row, each with a text of its own)
  every gpuprof-analyze analysis on the resulting database (target: each under 1 s), and those that fold
  names again with --short and with --group (hotspots, api, compare, kernexec, launch, ranges, trend)
  gpuprof-report (text, target under 2 s; html under 5 s; --format trace once, under 90 s and 64 MiB)
  the hotspots view in sqlite3 with the extension loaded (target: at most twice gpuprof-analyze hotspots)
  every analysis's module as it is in sqlite3 (`.load gpuprof_sqlite`, `.read analyze/NAME.sql`) against
  gpuprof-analyze NAME (target: at most twice its time)
  a job of 64 ranks (gpuprof-synth --ranks 64, Kineto traces): ingest with -j 1 and with -j (one reader per
  core), the rate of each and -j's peak RSS (targets: -j at least 1.5x the -j 1 rate, under 200 MB), and
  the ranks and collectives analyses on it (each under 1 s)
  gpuprof-export --to postgres of that session (rows/s, peak RSS: streamed, target under 64 MiB) and its
  load.sql into a PostgreSQL cluster started for the bench as tests/warehouse.py starts one (rows/s)
BENCH_KERNELS overrides the size (default 5,000,000). The session is cached in build/bench/.
Ingest, analyses and reports are timed as the best of BENCH_REPEAT runs (default 3). BENCH_ONLY=ranks
runs the 64-rank job alone, BENCH_ONLY=warehouse the export and load alone, BENCH_ONLY=ops the ingest
of the session with ops alone, BENCH_ONLY=shell the analyses' `.read` form in sqlite3 alone (on BENCH_DB,
a session database to read, when set: e.g. /work/bench/synth-5000000.db, never written).
"""
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "build/bin")
KERNELS = int(os.environ.get("BENCH_KERNELS", "5000000"))
OUT = os.path.join(ROOT, "build/bench")
REPEAT = int(os.environ.get("BENCH_REPEAT", "3"))


def run_measured(args):
    """Run args with wait4 so the peak RSS is this child's own. Returns (seconds, MiB)."""
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execv(args[0], args)
    _, status, ru = os.wait4(pid, 0)
    dt = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench: {' '.join(args)} failed with status {status}")
    return dt, ru.ru_maxrss / 1024.0


def verdict(ok):
    return "ok  " if ok else "MISS"


def main():
    os.makedirs(OUT, exist_ok=True)
    if os.environ.get("BENCH_ONLY") == "ranks":	# the 64-rank job alone
        ranks()
        return
    if os.environ.get("BENCH_ONLY") == "ops":	# the ingest of the session with ops alone
        ops_ingest()
        return
    if os.environ.get("BENCH_ONLY") == "shell" and os.environ.get("BENCH_DB"):
        shell_reads(os.environ["BENCH_DB"])
        return
    session = synth_session()
    db = os.path.join(OUT, f"synth-{KERNELS}.db")
    if os.environ.get("BENCH_ONLY") == "shell":
        if not os.path.exists(db):
            run_measured([os.path.join(BIN, "gpuprof-ingest"), "-q", session, "-o", db])
        shell_reads(db)
        return
    if os.environ.get("BENCH_ONLY") == "warehouse":	# the export and load alone
        if not os.path.exists(db):
            run_measured([os.path.join(BIN, "gpuprof-ingest"), "-q", session, "-o", db])
        warehouse(db)
        return
    size = sum(os.path.getsize(os.path.join(session, f)) for f in os.listdir(session))
    def ingest():
        if os.path.exists(db):
            os.remove(db)
        return run_measured([os.path.join(BIN, "gpuprof-ingest"), "-q", session, "-o", db])
    # Best of REPEAT too: each run starts from no database, and noise only ever adds time.
    t, rss = min(ingest() for _ in range(REPEAT))
    con = sqlite3.connect(db)
    events = sum(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in EVENT_TABLES)
    con.close()
    rate = events / t
    print(f"input: {KERNELS:,} kernels, {events:,} records, {size / 2**20:.0f} MiB of NDJSON")
    print(f"{verdict(rate >= 1.5e6)} ingest      {t:6.2f} s  {rate / 1e6:5.2f} M events/s  peak RSS {rss:5.1f} MiB"
          f"   (targets: >= 1.5 M events/s, < 100 MiB; database {os.path.getsize(db) / 2**20:.0f} MiB)")
    ops_ingest()
    # Every analysis, then the whole report.
    analyses = [line.split()[0] for line in subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "--list"],
                capture_output=True, text=True, check=True).stdout.splitlines() if line.strip()]
    # compare needs a baseline: the session against itself measures the same work.
    extra = {"compare": ["--baseline", db]}
    # The analyses that fold names, again with --short (-S) and with --group (-g; the synthetic session's
    # elementwise and gemv kernels): a family's median needs every duration of its names.
    group = ["-g", "elementwise=elementwise", "-g", "gemv=gemv"]
    folding = [(f"{a} {flag}", ["gpuprof-analyze", a, db] + extra.get(a, []) + more, 1.0)
               for a in ("hotspots", "api", "compare", "kernexec", "launch", "ranges", "trend")
               for flag, more in (("-S", ["-S"]), ("-g", group))]
    for name, args, target in [(a, ["gpuprof-analyze", a, db] + extra.get(a, []), 1.0) for a in analyses] + folding + [
        ("report", ["gpuprof-report", db], 2.0),
        ("report html", ["gpuprof-report", db, "-f", "html", "-o", os.path.join(OUT, "report.html")], 5.0),
    ]:
        # Best of REPEAT runs: a shared machine's noise only ever adds time.
        t, rss = min(run_measured([os.path.join(BIN, args[0])] + args[1:]) for _ in range(REPEAT))
        ok = target is None or t < target
        goal = f"(target: < {target} s)" if target else ""
        print(f"{verdict(ok)} {name:<11} {t:6.2f} s  peak RSS {rss:6.1f} MiB   {goal}")
    # The trace export streams every event once (20 M JSON events for 5 M kernels): once, memory bounded.
    t, rss = run_measured([os.path.join(BIN, "gpuprof-report"), db, "-f", "trace", "-o", os.devnull])
    print(f"{verdict(t < 90 and rss < 64)} trace       {t:6.2f} s  peak RSS {rss:6.1f} MiB   "
          f"(--format trace to /dev/null; targets: < 90 s, < 64 MiB)")
    view(db)
    shell_reads(db)
    warehouse(db)
    kineto()
    ranks()


def clickhouse(wh, tmp, db, rows, kernels):
    """The session exported for ClickHouse and loaded with its load.sh into a server of its own
    (tests/warehouse.py's): rows per second and the bytes on disk."""
    if not shutil.which("clickhouse-server"):
        print("skip clickhouse  clickhouse-server not installed (scripts/deps.sh)")
        return
    out = os.path.join(tmp, "export-ch")
    t, rss = run_measured([os.path.join(BIN, "gpuprof-export"), db, "--to", "clickhouse", "-o", out, "-q"])
    print(f"{verdict(rss < 64)} export ch   {t:6.2f} s  {rows / t / 1e6:5.2f} M rows/s     peak RSS {rss:5.1f} MiB"
          f"   (--to clickhouse: JSONEachRow; target: < 64 MiB)")
    ch = wh.ClickHouse(tmp)
    try:
        ch.start()
        with open(os.path.join(ROOT, "schemas", "warehouse", "clickhouse.sql")) as f:
            ch.client("--multiquery", stdin=f.read())
        t, _ = run_measured([os.path.join(out, "load.sh"), "--port", str(ch.port)])
        ch.client("--query", "OPTIMIZE TABLE kernels FINAL")
        disk = int(ch.client("--query", "SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = 'default'"))
        print(f"ok   load ch     {t:6.2f} s  {rows / t / 1e6:5.2f} M rows/s     (load.sh into ClickHouse "
              f"{'.'.join(map(str, ch.version))}: {disk / 2**20:.0f} MiB on disk, {disk / kernels:.0f} B/kernel)")
    finally:
        ch.stop()
        shutil.rmtree(out)


EVENT_TABLES = ["kernels", "memcpys", "memsets", "syncs", "memory_events", "api_calls", "ranges", "markers",
                "pc_samples", "stall_reasons", "devices", "device_metrics", "host_metrics", "ops", "op_links"]


def synth_session(ops=False):
    """The KERNELS-kernel synthetic session directory (with ops: gpuprof-synth --ops), generated once."""
    session = os.path.join(OUT, f"synth-{KERNELS}" + ("-ops" if ops else ""))
    if not os.path.isdir(session):
        print(f"bench: generating a {KERNELS:,}-kernel session{' with ops' if ops else ''} (cached in "
              f"{os.path.relpath(session, ROOT)})")
        run_measured([os.path.join(BIN, "gpuprof-synth"), "--kernels", str(KERNELS), "--seed", "1",
                      "--no-expected", "-o", session] + (["--ops"] if ops else []))
    return session


def ops_ingest():
    """Ingest of the session with ops (once: it is the larger), events/s counting the op rows ingest derives
    from the emit_nvtx ranges; the database is removed after."""
    session = synth_session(ops=True)
    db = os.path.join(OUT, f"synth-{KERNELS}-ops.db")
    if os.path.exists(db):
        os.remove(db)
    t, rss = run_measured([os.path.join(BIN, "gpuprof-ingest"), "-q", session, "-o", db])
    con = sqlite3.connect(db)
    events = sum(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in EVENT_TABLES)
    ops = con.execute("SELECT count(*) FROM ops").fetchone()[0]
    con.close()
    rate = events / t
    print(f"{verdict(rate >= 1.5e6)} ingest ops  {t:6.2f} s  {rate / 1e6:5.2f} M events/s  peak RSS {rss:5.1f} MiB"
          f"   ({events:,} records, {ops:,} of them ops; target: >= 1.5 M events/s)")
    os.remove(db)


def warehouse(db):
    """The session exported for PostgreSQL (streamed: memory bounded) and loaded with its load.sql into a
    cluster of its own (tests/warehouse.py's), each as rows per second; the sizes on disk beside."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import warehouse as wh
    con = sqlite3.connect(db)
    kernels = con.execute("SELECT count(*) FROM kernels").fetchone()[0]
    con.close()
    with tempfile.TemporaryDirectory(dir=OUT) as tmp:
        os.chmod(tmp, 0o755)
        out = os.path.join(tmp, "export")
        t, rss = run_measured([os.path.join(BIN, "gpuprof-export"), db, "--to", "postgres", "-o", out, "-q"])
        rows = 0
        for d, _, files in os.walk(out):
            for f in files:
                if f.endswith(".csv.gz"):
                    rows += int(subprocess.run(f"gzip -dc '{os.path.join(d, f)}' | wc -l", shell=True,
                                               capture_output=True, text=True, check=True).stdout) - 1
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(out) for f in files)
        print(f"{verdict(rss < 64)} export      {t:6.2f} s  {rows / t / 1e6:5.2f} M rows/s     peak RSS {rss:5.1f} MiB"
              f"   (--to postgres: {rows:,} rows, {size / 2**20:.0f} MiB gzipped, {size / kernels:.0f} B/kernel; "
              f"database {os.path.getsize(db) / 2**20:.0f} MiB, {os.path.getsize(db) / kernels:.0f} B/kernel; "
              f"target: < 64 MiB)")
        clickhouse(wh, tmp, db, rows, kernels)
        if not wh.pg_bin("initdb") or not shutil.which("psql"):
            print("skip load        PostgreSQL not installed (scripts/deps.sh)")
            return
        pg = wh.Postgres(tmp)
        try:
            pg.start()
            pg.psql("-f", os.path.join(ROOT, "schemas", "warehouse", "postgres.sql"))
            t0 = time.perf_counter()
            pg.psql("-f", os.path.join(out, "load.sql"))
            t = time.perf_counter() - t0
            disk = int(pg.psql(sql="SELECT sum(pg_total_relation_size(c.oid)) AS b FROM pg_class c "
                                   "JOIN pg_namespace n ON n.oid = c.relnamespace "
                                   "WHERE n.nspname = 'public' AND c.relkind = 'r'")[0]["b"])
            print(f"ok   load        {t:6.2f} s  {rows / t / 1e6:5.2f} M rows/s     (psql -f load.sql into PostgreSQL "
                  f"{pg.psql(sql='SHOW server_version')[0]['server_version']}: {disk / 2**20:.0f} MiB with indexes, "
                  f"{disk / kernels:.0f} B/kernel)")
        finally:
            pg.stop()


def ranks():
    """64 rank traces of one job: ingest rate with one reader and with one per core, peak RSS (the writer's
    or a reader's, whichever is larger: wait4 reports the largest of the tree), ranks and collectives."""
    d = os.path.join(OUT, "ranks64")
    if not os.path.isdir(d):
        run_measured([os.path.join(BIN, "gpuprof-synth"), "--ranks", "64", "--steps", "500", "--seed", "1",
                      "--no-expected", "-o", d])
    files = [os.path.join(d, f"rank{r}.json") for r in range(64)]
    db = os.path.join(OUT, "ranks64.db")
    cores = os.cpu_count() or 1

    def ingest(jobs):
        if os.path.exists(db):
            os.remove(db)
        return run_measured([os.path.join(BIN, "gpuprof-ingest"), "-q", "-j", str(jobs)] + files +
                            ["--session", "job", "-o", db])
    t1, rss1 = min(ingest(1) for _ in range(REPEAT))
    tj, rssj = min(ingest(cores) for _ in range(REPEAT))
    con = sqlite3.connect(db)
    events = sum(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("kernels", "api_calls", "ranges",
                                                                                  "devices"))
    con.close()
    size = sum(os.path.getsize(f) for f in files)
    print(f"input: 64 ranks, {events:,} records, {size / 2**20:.0f} MiB of Kineto JSON")
    print(f"{verdict(t1 / tj >= 1.5 and rssj < 200)} ranks -j{cores:<3} {tj:6.2f} s  {events / tj / 1e6:5.2f} M events/s  "
          f"peak RSS {rssj:5.1f} MiB   (-j 1: {t1:.2f} s, {events / t1 / 1e6:.2f} M events/s, {rss1:.1f} MiB; "
          f"speed-up {t1 / tj:.2f}x; targets: >= 1.5x, < 200 MiB)")
    for name in ("ranks", "collectives"):
        t, rss = min(run_measured([os.path.join(BIN, "gpuprof-analyze"), name, db]) for _ in range(REPEAT))
        print(f"{verdict(t < 1.0)} {name:<11} {t:6.2f} s  peak RSS {rss:6.1f} MiB   (64 ranks; target: < 1 s)")


def view(db):
    """The hotspots view in the sqlite3 shell with the extension loaded, against gpuprof-analyze hotspots on
    the same session (target: at most twice its time)."""
    shell = "/usr/bin/sqlite3"
    if not os.path.exists(shell):
        print("skip view        no sqlite3 shell")
        return
    ext = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "lib", "gpuprof_sqlite")
    t_view, rss = min(run_measured([shell, "-cmd", f".load {ext}", db, "SELECT * FROM hotspots"]) for _ in range(REPEAT))
    t_an, _ = min(run_measured([os.path.join(BIN, "gpuprof-analyze"), "hotspots", db]) for _ in range(REPEAT))
    print(f"{verdict(t_view <= 2 * t_an)} view        {t_view:6.2f} s  peak RSS {rss:6.1f} MiB   "
          f"(sqlite3 'SELECT * FROM hotspots' with .load; target: <= 2x gpuprof-analyze hotspots, {t_an:.2f} s)")


def shell_reads(db):
    """Each analysis's module as it is in the sqlite3 shell, against gpuprof-analyze NAME (target: at most
    twice its time). compare: the session against itself (gpuprof-analyze --baseline DB; the shell's
    :base_session set, the database attached as base by gpuprof_module)."""
    shell = "/usr/bin/sqlite3"
    if not os.path.exists(shell):
        print("skip .read        no sqlite3 shell")
        return
    ext = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "lib", "gpuprof_sqlite")
    analyses = [line.split()[0] for line in subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "--list"],
                capture_output=True, text=True, check=True).stdout.splitlines() if line.strip()]
    newest = sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute("SELECT max(id) FROM sessions").fetchone()[0]
    misses = 0
    for name in analyses:
        extra = ["--baseline", db] if name == "compare" else []
        cmds = ["-cmd", f".parameter set :base_session {newest}"] if name == "compare" else []
        t_an, _ = min(run_measured([os.path.join(BIN, "gpuprof-analyze"), name, db] + extra) for _ in range(REPEAT))
        t_sh, rss = min(run_measured([shell, "-readonly", "-csv", "-header", db, "-cmd", f".load {ext}"] + cmds +
                                     [f".read {os.path.join(ROOT, 'analyze', name + '.sql')}"]) for _ in range(REPEAT))
        ok = t_sh <= 2 * t_an
        misses += not ok
        print(f"{verdict(ok)} .read {name:<13} {t_sh:6.2f} s  peak RSS {rss:6.1f} MiB   "
              f"(sqlite3 .read analyze/{name}.sql; target: <= 2x gpuprof-analyze {name}, {t_an:.2f} s)")
    return misses


def kineto():
    """A real 35 MB PyTorch profiler trace: ingest plus hotspots, against Holistic Trace Analysis's
    kernel breakdown on the same file (3.4 s and 240 MB peak measured on this machine)."""
    trace = os.path.join(ROOT, "..", "shared", "traces", "kineto", "a100_control.json.gz")
    if not os.path.exists(trace):
        print("skip kineto      ../shared/traces not found")
        return
    db = os.path.join(OUT, "a100_control.db")
    if os.path.exists(db):
        os.remove(db)
    t1, rss1 = run_measured([os.path.join(BIN, "gpuprof-ingest"), "-q", trace, "-o", db])
    t2, rss2 = run_measured([os.path.join(BIN, "gpuprof-analyze"), "hotspots", db])
    t, rss = t1 + t2, max(rss1, rss2)
    print(f"{verdict(t < 0.35 and rss < 50)} kineto      {t:6.2f} s  peak RSS {rss:6.1f} MiB   "
          f"(a100_control.json.gz ingest {t1:.2f} s + hotspots {t2:.2f} s; targets: < 0.35 s, < 50 MiB; "
          f"HTA: 3.4 s, 240 MB)")


if __name__ == "__main__":
    main()
