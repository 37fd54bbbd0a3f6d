"""Faults at every point, and kill loops.

build/tests/faults/libfaultvfs.so (tests/faults/faultvfs.c), LD_PRELOADed, counts the read, write, sync,
lock, open, truncate and delete calls of a clean run, then fails the Nth for N = 1.. the count (a spread of
them; GPUPROF_FAULTS_EVERY=1, `make stress`, every one); also a disk that stays full from the Nth write
on, and a busy lock. A run whose fault fired must exit 4 with one line on stderr ("PROG: error: ..."),
and leave the database passing integrity_check and either as it was before the run or as the clean run
left it, table by table and session by session (the new session whole or absent, every earlier one
whole); a writer's run that left a journal is read at once by gpuprof-report, which must succeed. A run
whose fault SQLite absorbed (a busy lock retried) must do what the clean run did.

Kill loops: an ingest SIGKILLed at random points; then two ingests into one database with readers at
once, each writer killed at random: every state left behind or seen by a reader holds each session whole
or not at all. GPUPROF_FAULTS_PART=faults or kills runs one part.
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import BIN, ROOT, check, ok, summary  # noqa: E402

SHIM = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "tests", "faults", "libfaultvfs.so")
KINDS = ("read", "write", "sync", "lock", "open", "truncate", "delete")
# What is tried: (kind, what follows N in GPUPROF_FAULT, how many N in the make test size). `write:N:full+`
# is a disk that stays full from the Nth write on; `lock:N:busy` a lock another process holds (retried).
TRIES = tuple((k, "", 12) for k in KINDS) + (("write", ":full+", 6), ("lock", ":busy", 3))
EVERY = os.environ.get("GPUPROF_FAULTS_EVERY") == "1"
# (A sanitizer build wants its runtime first among the libraries; the shim is preloaded before it.)
ENV = dict(os.environ, LC_ALL="C", TZ="UTC",
           ASAN_OPTIONS=":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0"])))


def run(argv, fault=None, log=None):
    """Run argv with the shim and GPUPROF_FAULT=fault; (exit status, stderr, {kind: calls, 'fired': n})."""
    env = dict(ENV, LD_PRELOAD=SHIM, GPUPROF_FAULT=fault or "count", GPUPROF_FAULT_LOG=log)
    if os.path.exists(log):
        os.unlink(log)
    p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    counts = {}
    if os.path.exists(log):
        with open(log) as f:
            for item in f.read().split():
                k, v = item.split("=")
                counts[k] = int(v)
    return p.returncode, p.stderr, counts


def state(db):
    """What a database holds, as comparable data: integrity_check, then every table's row count and the
    row counts of each session in tables with a session_id (opening it rolls back a hot journal)."""
    c = sqlite3.connect(db)
    try:
        integrity = c.execute("PRAGMA integrity_check").fetchall()
        rows = {}
        for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall():
            rows[t] = c.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
            cols = [r[1] for r in c.execute(f'PRAGMA table_info("{t}")')]
            if "session_id" in cols:
                for sid, n in c.execute(f'SELECT session_id, count(*) FROM "{t}" GROUP BY 1 ORDER BY 1'):
                    rows[f"{t}[{sid}]"] = n
        return integrity, rows
    finally:
        c.close()


def diff(a, b):
    """The keys where two row-count maps differ, for a message."""
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def spread(count, most):
    """The N to try for an op called count times: all of them, or `most` spread from first to last."""
    if EVERY or count <= most:
        return list(range(1, count + 1))
    return sorted({1 + round(i * (count - 1) / (most - 1)) for i in range(most)})


def loop(name, prepare, argv, db, tmp, out=None, reader=None):
    """Fail each op of argv (run on the database prepare() makes at db) in turn; returns how many runs.
    reader: a command that must read the database straight after a run that left a journal (a reader
    rolls back what an interrupted writer left)."""
    log = os.path.join(tmp, "fault.log")
    prepare()
    before = state(db)
    rc, err, counts = run(argv, None, log)
    check(f"{name}: clean run exits 0 ({err.strip()[:200]})", rc, 0)
    after = state(db)
    clean_out = open(out, "rb").read() if out else None
    tried = journals = 0
    problems = {}
    for kind, how, most in TRIES:
        for n in spread(counts.get(kind, 0), most):
            prepare()
            if out and os.path.exists(out):
                os.unlink(out)
            rc, err, got = run(argv, f"{kind}:{n}{how}", log)
            tried += 1
            lines = [l for l in err.splitlines() if l.strip()]
            what = []
            if reader and os.path.exists(db + "-journal"):
                journals += 1
                r = subprocess.run(reader, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                if r.returncode != 0:
                    what.append(f"a reader after it: exit {r.returncode}: {r.stderr.strip()[:200]}")
            integrity, rows = state(db)
            if got.get("fired", 0) == 0 or (rc == 0 and not lines):
                # Not fired (a shorter run) or absorbed (retried): the clean run's result.
                if rc != 0:
                    what.append(f"exit {rc} though the fault did not stop it: {lines[:3]}")
                if rows != after[1]:
                    what.append(f"not the clean run's database: {diff(rows, after[1])}")
                if out and open(out, "rb").read() != clean_out:
                    what.append("not the clean run's output")
            else:
                if rc != 4:
                    what.append(f"exit {rc}, want 4")
                if len(lines) != 1 or not re.match(r"gpuprof-[a-z]+: error: \S", lines[0]):
                    what.append(f"{len(lines)} lines on stderr, want one error: {lines[:4]}")
                if rows != before[1] and rows != after[1]:
                    what.append(f"neither the database before nor after: {diff(rows, before[1])}")
                if out and os.path.exists(out) and open(out, "rb").read() != clean_out:
                    what.append(f"a partial {os.path.basename(out)} left behind")
            if integrity != [("ok",)]:
                what.append(f"integrity_check: {integrity[:3]}")
            for w in what:
                problems.setdefault((kind + how, w.split(":")[0]), []).append((n, w))
            ok(f"{name} {kind}:{n}{how}", not what, "; ".join(what))
    for (kind, _), cases in problems.items():
        print(f"  {name} {kind}: {len(cases)} failing N, e.g. {cases[0][0]}: {cases[0][1][:300]}")
    print(f"# {name}: {' '.join(f'{k}={counts.get(k, 0)}' for k in KINDS)}; {tried} faulty runs" +
          (f", {journals} left a journal, read at once" if reader else ""))
    return tried


def by_uuid(db):
    """state(db) with each session's rows under its uuid instead of its id (ids depend on the order of
    writers); (integrity, {uuid: {table: rows}}, {table: rows} for tables without sessions)."""
    integrity, rows = state(db)
    c = sqlite3.connect(db, timeout=30)
    uuids = dict(c.execute("SELECT id, uuid FROM sessions").fetchall())
    c.close()
    sessions, other = {}, {}
    for k, n in rows.items():
        m = re.match(r"(\w+)\[(\d+)\]$", k)
        if m:
            sessions.setdefault(uuids.get(int(m.group(2)), m.group(2)), {})[m.group(1)] = n
        elif k != "sessions":
            other[k] = n
    return integrity, sessions, other


def snapshot(c):
    """The row counts of each session as one read transaction sees them: {uuid: {table: rows}}."""
    c.execute("BEGIN")
    try:
        out = {}
        uuids = dict(c.execute("SELECT id, uuid FROM sessions").fetchall())
        for (t,) in c.execute("SELECT m.name FROM sqlite_master m WHERE type = 'table' AND EXISTS "
                              "(SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'session_id')").fetchall():
            for sid, n in c.execute(f'SELECT session_id, count(*) FROM "{t}" GROUP BY 1'):
                out.setdefault(uuids.get(sid, f"no session {sid}"), {})[t] = n
        for sid, uuid in uuids.items():
            out.setdefault(uuid, {})
        return out
    finally:
        c.execute("COMMIT")


def whole(seen, expect):
    """What is wrong with a state: a session not in expect, or one whose rows are not all there."""
    bad = []
    for uuid, rows in seen.items():
        if uuid not in expect:
            bad.append(f"unknown session {uuid}: {rows}")
        elif rows != expect[uuid]:
            bad.append(f"session {uuid[:8]} partial: {diff(rows, expect[uuid])}")
    return bad


def kills(ingest, report, base, big, big2, tmp, loops):
    """Kill loops: gpuprof-ingest of `big` SIGKILLed at random points (loops times), then two writers
    (big, big2) and readers at once, each writer killed at random; every state the database is left
    in or a reader sees holds each session whole or not at all, and passes integrity_check."""
    import random
    import threading
    rnd = random.Random(int(os.environ.get("GPUPROF_FAULTS_SEED", "20")))
    db = os.path.join(tmp, "k.db")
    expect = {}
    for src in (big, big2):		# each session's rows, ingested alone
        one = os.path.join(tmp, "alone.db")
        shutil.copy(base, one)
        t = time.monotonic()
        subprocess.run([ingest, "-q", src, "-o", one], check=True, env=ENV)
        took = time.monotonic() - t
        _, sessions, _ = by_uuid(one)
        expect.update(sessions)

    def reset():
        for f in (db, db + "-journal"):
            if os.path.exists(f):
                os.unlink(f)
        shutil.copy(base, db)

    outcomes = {"absent": 0, "whole": 0}
    journals = 0
    for i in range(loops):
        reset()
        p = subprocess.Popen([ingest, "-q", big, "-o", db], env=ENV, stderr=subprocess.DEVNULL)
        time.sleep(rnd.uniform(0, took * 1.2))
        p.kill()
        p.wait()
        # A reader first, before anything that writes rolls back the journal the kill may have left.
        r = subprocess.run([report, db], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        check(f"kill {i}: gpuprof-report straight after ({r.stderr.strip()[:200]})", r.returncode, 0)
        journals += os.path.exists(db + "-journal")
        integrity, sessions, _ = by_uuid(db)
        bad = whole(sessions, expect)
        check(f"kill {i}: integrity_check", integrity, [("ok",)])
        ok(f"kill {i}: whole or absent", not bad, "; ".join(bad)[:400])
        outcomes["whole" if len(sessions) == 2 else "absent"] += 1
    print(f"# kill loop: {loops} kills of an ingest of {took:.2f} s: {outcomes['whole']} left the session whole, "
          f"{outcomes['absent']} absent, {journals} left a journal")

    # Two writers and readers (sqlite3 snapshots in a thread, gpuprof-report in a loop) at once.
    states, problems, reports = 0, [], {}
    for i in range(max(1, loops // 3)):
        reset()
        stop = threading.Event()

        def reader():
            nonlocal states
            c = sqlite3.connect(db, timeout=30, isolation_level=None)
            while not stop.is_set():
                try:
                    problems.extend(whole(snapshot(c), expect))
                    states += 1
                except sqlite3.OperationalError as e:		# busy past the timeout: not a state
                    problems.append(f"reader: {e}")
            c.close()

        th = threading.Thread(target=reader)
        th.start()
        ws = [subprocess.Popen([ingest, "-q", src, "-o", db], env=ENV, stderr=subprocess.PIPE, text=True)
              for src in (big, big2)]
        deadline = time.monotonic() + (took * 2.5 if i else 60)
        # Round 0 kills nobody: both writers wait their turn and end well (a deferred BEGIN in db_open
        # made the second fail at once with "database is locked").
        kill_at = [rnd.uniform(0, took * 2.5) if i else 1e9 for _ in ws]
        t0 = time.monotonic()
        while time.monotonic() < deadline and any(w.poll() is None for w in ws):
            r = subprocess.run([report, db], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            reports[r.returncode] = reports.get(r.returncode, 0) + 1
            if r.returncode != 0:
                problems.append(f"gpuprof-report exit {r.returncode}: {r.stderr.strip()[:200]}")
            for w, at in zip(ws, kill_at):
                if time.monotonic() - t0 >= at and w.poll() is None:
                    w.kill()
        for w in ws:
            if w.poll() is None:
                w.kill()
            _, err = w.communicate()
            if w.returncode not in (0, -9):
                problems.append(f"writer exit {w.returncode}: {err.strip()[:200]}")
        stop.set()
        th.join()
        integrity, sessions, _ = by_uuid(db)
        if not i:
            check("two writers, none killed: exits", [w.returncode for w in ws], [0, 0])
            check("two writers, none killed: sessions", len(sessions), 3)
        check(f"two writers {i}: integrity_check", integrity, [("ok",)])
        ok(f"two writers {i}: whole or absent", not whole(sessions, expect), "; ".join(whole(sessions, expect))[:400])
    ok("readers saw only whole sessions", not problems, "; ".join(sorted(set(problems)))[:600])
    print(f"# two writers and readers: {max(1, loops // 3)} rounds, {states} states read, gpuprof-report exits {reports}")


def main():
    if not os.path.exists(SHIM):
        print(f"FAIL {SHIM} is not built (make test builds it)")
        return summary("faults") or 1
    tmp = tempfile.mkdtemp(prefix="gpuprof-faults.")
    t0 = time.monotonic()
    try:
        synth, ingest, report = (os.path.join(BIN, p) for p in ("gpuprof-synth", "gpuprof-ingest", "gpuprof-report"))
        a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        for d, seed in ((a, 1), (b, 2)):
            subprocess.run([synth, "--kernels", "2000", "--seed", str(seed), "-o", d, "--no-expected"],
                           check=True, stdout=subprocess.DEVNULL)
        one, two, nochunks = (os.path.join(tmp, f) for f in ("one.db", "two.db", "nochunks.db"))
        subprocess.run([ingest, "-q", a, "-o", one], check=True, env=ENV)
        shutil.copy(one, two)
        subprocess.run([ingest, "-q", b, "-o", two], check=True, env=ENV)
        shutil.copy(two, nochunks)
        c = sqlite3.connect(nochunks)
        c.executescript("DELETE FROM column_chunks; DELETE FROM column_sets;")
        c.close()
        db = os.path.join(tmp, "s.db")

        def copy(src):
            def prepare():
                for f in (db, db + "-journal"):
                    if os.path.exists(f):
                        os.unlink(f)
                shutil.copy(src, db)
            return prepare

        tried = 0
        part = os.environ.get("GPUPROF_FAULTS_PART", "")	# "faults" or "kills": that part alone
        if part != "kills":
            tried += loop("ingest", copy(one), [ingest, "-q", b, "-o", db], db, tmp, reader=[report, db])
            tried += loop("ingest -j2", copy(one), [ingest, "-q", "-j", "2", a, b, "-o", db], db, tmp,
                          reader=[report, db])
            tried += loop("reindex", copy(nochunks), [ingest, "-q", "--reindex", "-o", db], db, tmp,
                          reader=[report, db])
            tried += loop("report", copy(two), [report, db], db, tmp)
            out = os.path.join(tmp, "r.html")
            tried += loop("report html", copy(two), [report, db, "--format", "html", "-o", out], db, tmp, out)
            print(f"# {tried} faulty runs in {time.monotonic() - t0:.1f} s")

        t1 = time.monotonic()
        if part == "faults":
            return summary("faults")
        big, big2 = os.path.join(tmp, "big"), os.path.join(tmp, "big2")
        for d, seed in ((big, 3), (big2, 4)):
            subprocess.run([synth, "--kernels", "100000", "--seed", str(seed), "-o", d, "--no-expected"],
                           check=True, stdout=subprocess.DEVNULL)
        kills(ingest, report, one, big, big2, tmp, 100 if EVERY else 15)
        print(f"# kill loops in {time.monotonic() - t1:.1f} s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary("faults")


if __name__ == "__main__":
    sys.exit(main())
