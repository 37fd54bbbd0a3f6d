#!/usr/bin/env python3
"""gpuprof-ingest stopped by SIGINT, SIGTERM and SIGHUP, and runs that fail into a new path.

Signals are sent to real processes at points told by what they left on disk, never by timing: while an
input is being written (the database has grown past what it held: the transaction is spilling pages), while
-j readers write their spools (PATH.partN.PID exist), while standard input is copied (its copy in $TMPDIR
exists and the pipe is held open); and at exact points by the fault VFS (tests/faults/faultvfs.c:
GPUPROF_FAULT=KIND:N:int|term|hup raises the signal at the Nth read, write, sync, lock or delete, inside a
COMMIT too). After each: the exit status 128 + signal, the one line, no -journal, spool or temporary file
left, `pragma integrity_check` ok on the database and on a copy of the database file alone, and the
database as it was (the earlier session whole, the interrupted one absent) or, when the signal came inside
the last COMMIT, with the new session whole as the line says. Also: a second signal ends it at once; a
SIGKILLed -j writer's readers go with it (their spools too) and `gpuprof-ingest --check` rolls back the
journal it left; a failed run into a new path leaves no file, and one that stored a session keeps it;
--check's verdicts and exit codes.
"""
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

import checks
from checks import BIN, ROOT, check, ok

INGEST = os.path.join(BIN, "gpuprof-ingest")
SHIM = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "tests", "faults", "libfaultvfs.so")
# (A sanitizer build wants its runtime first among the libraries; the shim is preloaded before it.)
ENV = dict(os.environ, LC_ALL="C", TZ="UTC",
           ASAN_OPTIONS=":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0"])))
# the schema version this build writes (lib/db.h)
SCHEMA = int(re.search(r"#define DB_SCHEMA_VERSION (\d+)", open(os.path.join(ROOT, "lib", "db.h")).read()).group(1))
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
WAIT = 120  # seconds a condition may take to come before the check fails (a guard against hanging)


def synth(out, kernels, seed, session):
    subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", str(kernels), "--seed", str(seed), "-o", out,
                    "--no-expected", "--session", session], check=True, capture_output=True)


def sessions(db):
    """[(uuid, kernels)] of each session, and integrity_check's first row."""
    c = sqlite3.connect(db)
    try:
        integrity = c.execute("PRAGMA integrity_check").fetchone()[0]
        rows = c.execute("SELECT s.uuid, (SELECT count(*) FROM kernels k WHERE k.session_id = s.id) "
                         "FROM sessions s ORDER BY s.id").fetchall()
        return rows, integrity
    finally:
        c.close()


def alone(db, tmp):
    """integrity_check of a copy of the database file alone (what a CI step that copies it gets)."""
    copy = os.path.join(tmp, "copy-alone.db")
    shutil.copyfile(db, copy)
    try:
        c = sqlite3.connect(copy)
        try:
            return c.execute("PRAGMA integrity_check").fetchone()[0]
        except sqlite3.DatabaseError as e:
            return f"error: {e}"
        finally:
            c.close()
    finally:
        os.unlink(copy)


def wait_for(cond, what):
    """Poll until cond() holds; False (and a failed check) when it never did."""
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.005)
    ok(f"{what}: came", False, f"not within {WAIT} s")
    return False


def size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return -1


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def alive(pid):
    """Whether pid runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def line(db, what="left as it was"):
    return f"gpuprof-ingest: interrupted: {db} {what}\n"


def leftovers(d, keep):
    """Files in d other than keep: journals, spools, temporary copies."""
    return sorted(f for f in os.listdir(d) if f not in keep)


def after(name, p, err, sig, db, tmp, before, keep, said=None):
    """The checks of every stopped run."""
    check(f"{name}: exit 128 + signal", p.returncode, 128 + sig)
    if said is not False:
        check(f"{name}: the one line", err, said or line(os.path.basename(db)))
    check(f"{name}: nothing left beside the database", leftovers(os.path.dirname(db), keep), [])
    # The file alone first: opening the database rolls back a journal left beside it.
    check(f"{name}: integrity_check of the file alone, copied", alone(db, tmp), "ok")
    rows, integrity = sessions(db)
    check(f"{name}: integrity_check", integrity, "ok")
    check(f"{name}: the earlier session whole, the interrupted one absent", rows, before)


def during_writing(tmp, base, big, before):
    """Each signal while the big input's transaction spills pages into the database (-j 1)."""
    db = os.path.join(tmp, "w", "s.db")
    os.makedirs(os.path.dirname(db))
    grown = size(base) + (4 << 20)
    for sig in SIGNALS:
        shutil.copyfile(base, db)
        p = subprocess.Popen([INGEST, "-j", "1", big, "-o", "s.db"], cwd=os.path.dirname(db), env=ENV,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        came = wait_for(lambda: size(db) > grown and os.path.exists(db + "-journal"), f"{sig.name}: writing")
        p.send_signal(sig)
        err = p.communicate()[1]
        if came:
            after(f"{sig.name} while writing", p, err, sig, db, tmp, before, ["s.db"])


def during_readers(tmp, base, bigs, before):
    """SIGTERM to the -j writer while its readers write spools: they go too, with their spools."""
    d = os.path.join(tmp, "j")
    os.makedirs(d)
    db = os.path.join(d, "s.db")
    for sig in (signal.SIGTERM, signal.SIGINT):
        shutil.copyfile(base, db)
        p = subprocess.Popen([INGEST, "-j", "2", *bigs, "-o", "s.db"], cwd=d, env=ENV,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        spooling = lambda: len([f for f in os.listdir(d) if ".part" in f and size(os.path.join(d, f)) > 0]) == 2
        came = wait_for(spooling, f"-j 2 {sig.name}: readers spooling")
        readers = children(p.pid)
        p.send_signal(sig)
        err = p.communicate()[1]
        if not came:
            continue
        check(f"-j 2 {sig.name}: two readers were running", len(readers), 2)
        ok(f"-j 2 {sig.name}: the readers are gone", wait_for(lambda: not any(map(alive, readers)), "readers gone"),
           readers)
        after(f"-j 2 {sig.name} while reading", p, err, sig, db, tmp, before, ["s.db"])


def killed_writer(tmp, base, bigs, before):
    """SIGKILL to the -j writer: its readers end too and remove their spools; the journal it leaves is
    what --check rolls back, after which the file alone is whole."""
    d = os.path.join(tmp, "k")
    os.makedirs(d)
    db = os.path.join(d, "s.db")
    shutil.copyfile(base, db)
    p = subprocess.Popen([INGEST, "-j", "2", *bigs, "-o", "s.db"], cwd=d, env=ENV,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    came = wait_for(lambda: len([f for f in os.listdir(d) if ".part" in f and size(os.path.join(d, f)) > 0]) == 2,
                    "SIGKILL -j 2: readers spooling")
    readers = children(p.pid)
    p.kill()
    p.wait()
    if not came:
        return
    check("SIGKILL -j 2: two readers were running", len(readers), 2)
    ok("SIGKILL -j 2: the readers end with their writer", wait_for(lambda: not any(map(alive, readers)),
                                                                   "readers gone"), readers)
    check("SIGKILL -j 2: no spool left", [f for f in os.listdir(d) if ".part" in f], [])
    # A journal only when the batch had written; either way --check leaves the file whole alone.
    journal = os.path.exists(db + "-journal")
    r = subprocess.run([INGEST, "--check", "s.db"], cwd=d, env=ENV, capture_output=True, text=True)
    check("SIGKILL -j 2: --check exits 0", r.returncode, 0)
    ok("SIGKILL -j 2: --check's verdict names the journal it found",
       re.fullmatch(rf"s\.db: ok: a gpuprof database of schema version {SCHEMA}, 1 session" +
                    (r"; the journal an interrupted ingest left (was rolled back first|held nothing to roll back "
                     r"and was removed)" if journal else "") + "\n", r.stdout), (journal, r.stdout, r.stderr))
    check("SIGKILL -j 2: no journal after --check", os.path.exists(db + "-journal"), False)
    check("SIGKILL -j 2: the file alone, copied, is whole", alone(db, tmp), "ok")
    check("SIGKILL -j 2: the earlier session whole", sessions(db)[0], before)


def during_stdin(tmp, base, big, before):
    """A signal while standard input is copied to $TMPDIR: the copy goes; a new database is not made."""
    data = open(os.path.join(big, os.listdir(big)[0]), "rb").read(2 << 20)
    d = os.path.join(tmp, "i")
    t = os.path.join(tmp, "i-tmp")
    os.makedirs(d)
    os.makedirs(t)
    env = dict(ENV, TMPDIR=t)
    for sig, new in ((signal.SIGHUP, True), (signal.SIGINT, False), (signal.SIGTERM, True)):
        db = os.path.join(d, "s.db")
        if os.path.exists(db):
            os.unlink(db)
        if not new:
            shutil.copyfile(base, db)
        p = subprocess.Popen([INGEST, "-", "-o", "s.db"], cwd=d, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        p.stdin.write(data)
        p.stdin.flush()
        name = f"{sig.name} during the copy of stdin ({'a new' if new else 'an existing'} database)"
        came = wait_for(lambda: any(size(os.path.join(t, f)) >= len(data) for f in os.listdir(t)), name)
        p.send_signal(sig)  # (the pipe still open: the copy waits in read)
        err = p.communicate()[1].decode()
        if not came:
            continue
        check(f"{name}: exit 128 + signal", p.returncode, 128 + sig)
        check(f"{name}: the one line", err, line("s.db"))
        check(f"{name}: the copy in $TMPDIR is gone", os.listdir(t), [])
        if new:
            check(f"{name}: no database made", os.listdir(d), [])
        else:
            after(name, p, err, sig, db, tmp, before, ["s.db"])


def shim_run(argv, cwd, fault):
    env = dict(ENV, LD_PRELOAD=SHIM, GPUPROF_FAULT=fault, GPUPROF_FAULT_LOG=os.path.join(cwd, "..", "fault.log"))
    log = env["GPUPROF_FAULT_LOG"]
    if os.path.exists(log):
        os.unlink(log)
    p = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    counts = {}
    if os.path.exists(log):
        for item in open(log).read().split():
            k, v = item.split("=")
            counts[k] = int(v)
    return p, counts


def exact_points(tmp, base, mids, others, before):
    """Signals raised at every kind of file operation, spread over a run (-j 1 of one and of two inputs,
    -j 2 of two; a Kineto trace and an Nsight Systems export, whose reader is another): inside a COMMIT
    too. Whatever the point, the line says what the database holds."""
    d = os.path.join(tmp, "x")
    os.makedirs(d)
    db = os.path.join(d, "s.db")
    want = {m: sessions_of(m) for m in mids + others}
    seen = set()
    runs = [("-j 1, one input", [INGEST, "-q", "-j", "1", mids[0], "-o", "s.db"]),
            ("-j 1, two inputs", [INGEST, "-q", "-j", "1", *mids, "-o", "s.db"]),
            ("-j 2, two inputs", [INGEST, "-q", "-j", "2", *mids, "-o", "s.db"])]
    runs += [(f"-j 1, {os.path.basename(o)}", [INGEST, "-q", "-j", "1", o, "-o", "s.db"]) for o in others]
    for label, argv in runs:
        inputs = argv[4:-2]
        shutil.copyfile(base, db)
        p, counts = shim_run(argv, d, "count")
        check(f"{label}: a clean run under the shim", (p.returncode, p.stderr), (0, ""))
        n = len(argv) - 6
        k = 0
        for kind in ("read", "write", "sync", "lock", "delete"):
            total = counts.get(kind, 0)
            points = sorted({1, total, total - 1, *(total * i // 5 for i in range(1, 5))} - {0}) if total else []
            for at in points:
                if at < 1:
                    continue
                sig = SIGNALS[k % 3]
                k += 1
                shutil.copyfile(base, db)
                p, _ = shim_run(argv, d, f"{kind}:{at}:{ {signal.SIGINT: 'int', signal.SIGTERM: 'term', signal.SIGHUP: 'hup'}[sig]}")
                name = f"{label}: {sig.name} at {kind} {at} of {total}"
                m = re.fullmatch(r"gpuprof-ingest: interrupted: s\.db (left as it was|keeps the first (\d+) of \d+ "
                                 r"inputs, nothing of the others|was written already: it keeps (?:its input|all \d+ "
                                 r"inputs))\n", p.stderr)
                ok(f"{name}: one line", m, p.stderr)
                if not m:
                    continue
                kept = 0 if m.group(1).startswith("left") else int(m.group(2)) if m.group(2) else n
                seen.add((label, min(kept, 1) if n == 1 else kept))
                after(name, p, p.stderr, sig, db, tmp, before + [w for m_ in inputs[:kept] for w in want[m_]],
                      ["s.db"], said=False)
    # Both ends were met: nothing kept, and a signal inside the last COMMIT that kept it all; and for two
    # inputs one after another, the first input alone.
    for want_seen in (("-j 1, one input", 0), ("-j 1, one input", 1), ("-j 1, two inputs", 1),
                      ("-j 1, two inputs", 2), ("-j 2, two inputs", 0), ("-j 2, two inputs", 2)):
        ok(f"a signal at some point gave {want_seen}", want_seen in seen, sorted(seen))


def upgrade_stopped(tmp, mid):
    """A signal while the database of an older schema is brought up (db_open's transaction): rolled back,
    the schema as it was."""
    d = os.path.join(tmp, "u")
    os.makedirs(d)
    db = os.path.join(d, "s.db")
    c = sqlite3.connect(db)
    for f in ("v1", "v2", "v3", "v4-meta2", "v4"):
        c.executescript(open(os.path.join(ROOT, "tests", "data", "schema", f + ".sql")).read())
    c.close()

    def schema():
        c = sqlite3.connect(db)
        try:
            return (c.execute("PRAGMA user_version").fetchone()[0],
                    c.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall())
        finally:
            c.close()
    was = schema()
    p, _ = shim_run([INGEST, "-q", mid, "-o", "s.db"], d, "read:1:term")
    check("a signal during the upgrade of an older database: exit, the line", (p.returncode, p.stderr),
          (143, line("s.db")))
    check("a signal during the upgrade: the schema as it was, no journal",
          (schema() == was, os.listdir(d)), (True, ["s.db"]))


def sessions_of(inp):
    """The (uuid, kernels) an input gives, read from an ingest of it alone."""
    with tempfile.TemporaryDirectory() as t:
        db = os.path.join(t, "one.db")
        subprocess.run([INGEST, "-q", inp, "-o", db], check=True, env=ENV)
        return sessions(db)[0]


def second_signal(tmp, base, big, before):
    """A second signal ends the run at once: a database it made is removed, journal and all; one that
    was there keeps its journal, which --check (any opener) rolls back."""
    d = os.path.join(tmp, "2")
    os.makedirs(d)
    db = os.path.join(d, "s.db")
    for new in (True, False):
        if os.path.exists(db):
            os.unlink(db)
        if not new:
            shutil.copyfile(base, db)
        # Every write from the 3rd on raises SIGTERM: the first asks to stop, the next ends it.
        p, _ = shim_run([INGEST, "-j", "1", big, "-o", "s.db"], d, "write:3:term+")
        name = f"a second signal ({'a new' if new else 'an existing'} database)"
        check(f"{name}: dies of the signal", p.returncode, -signal.SIGTERM)
        ok(f"{name}: says so", p.stderr.endswith("stopped at once by a second signal; a database's -journal left "
                                                 "behind is rolled back when the database is next opened\n"), p.stderr)
        if new:
            check(f"{name}: the database it made is gone", os.listdir(d), [])
            continue
        r = subprocess.run([INGEST, "--check", "s.db"], cwd=d, env=ENV, capture_output=True, text=True)
        check(f"{name}: --check", (r.returncode, r.stderr), (0, ""))
        check(f"{name}: nothing left", leftovers(d, ["s.db"]), [])
        check(f"{name}: the file alone, copied, is whole", alone(db, tmp), "ok")
        check(f"{name}: the earlier session whole", sessions(db)[0], before)


def failed_new_path(tmp, base, small):
    """A run that fails into a new path leaves no file; one that stored a session keeps it (exit 3)."""
    d = os.path.join(tmp, "f")
    os.makedirs(d)
    kineto = os.path.join(ROOT, "tests", "data", "kineto-oom.json")
    with open(kineto, "rb") as f:
        import gzip
        cut = gzip.compress(f.read())[:300]
    with open(os.path.join(d, "cut.json.gz"), "wb") as f:
        f.write(cut)
    os.makedirs(os.path.join(d, "empty-dir"))
    newer = os.path.join(d, "newer.db")
    shutil.copyfile(base, newer)
    c = sqlite3.connect(newer)
    c.execute("PRAGMA user_version = 99")
    c.close()
    with open(os.path.join(d, "newer.ndjson"), "w") as f:
        f.write('{"type":"header","v":99,"session":"s","pid":1,"origin_ns":"1"}\n')
    with open(os.path.join(d, "not-wire.ndjson"), "w") as f:
        f.write("hello world\n")
    inputs = {
        "a truncated .json.gz": ["cut.json.gz"],
        "--format nsys on JSON": ["--format", "nsys", kineto],
        "a directory without .ndjson": ["empty-dir"],
        "a newer-schema database to combine": ["newer.db"],
        "a newer wire-format version": ["newer.ndjson"],
    }
    for what, args in inputs.items():
        for jobs in ("1", "2"):
            r = subprocess.run([INGEST, "-j", jobs, *args, "-o", "new.db"], cwd=d, env=ENV, capture_output=True,
                               text=True)
            check(f"{what} into a new path (-j {jobs}): exit 3", r.returncode, 3)
            check(f"{what} into a new path (-j {jobs}): no file left", [f for f in os.listdir(d) if "new.db" in f], [])
        # Into a database that was there: it stays, as it was.
        kept = os.path.join(d, "kept.db")
        shutil.copyfile(base, kept)
        r = subprocess.run([INGEST, *args, "-o", "kept.db"], cwd=d, env=ENV, capture_output=True, text=True)
        check(f"{what} into an existing database: exit 3, the database as it was", (r.returncode, sessions(kept)),
              (3, ([("earlier", 30000)], "ok")))
        os.unlink(kept)
        if args[0] == "--format":
            continue  # (--format is every input's)
        # With a good input too (-j 2 replays both): the good one is stored, the database kept.
        r = subprocess.run([INGEST, "-q", "-j", "2", small, *args, "-o", "new.db"], cwd=d, env=ENV,
                           capture_output=True, text=True)
        check(f"{what} after a good input into a new path: exit 3", r.returncode, 3)
        check(f"{what} after a good input into a new path: the good input kept", sessions(os.path.join(d, "new.db")),
              ([("earlier", 30000)], "ok"))
        os.unlink(os.path.join(d, "new.db"))
    # Bad lines after a good header: exit 3, and the session stored is kept.
    example = os.path.join(ROOT, "tests", "data", "wire-example.ndjson")
    with open(example) as f, open(os.path.join(d, "part.ndjson"), "w") as g:
        g.write("".join(f.readlines()[:5]) + "garbage\n")
    r = subprocess.run([INGEST, "part.ndjson", "-o", "new.db"], cwd=d, env=ENV, capture_output=True, text=True)
    check("bad lines into a new path: exit 3", r.returncode, 3)
    check("bad lines into a new path: the database with its session is kept",
          len(sessions(os.path.join(d, "new.db"))[0]), 1)
    # A rejected line recorded (no session): stored, so kept.
    os.unlink(os.path.join(d, "new.db"))
    r = subprocess.run([INGEST, "not-wire.ndjson", "-o", "new.db"], cwd=d, env=ENV, capture_output=True, text=True)
    c = sqlite3.connect(os.path.join(d, "new.db"))
    check("a file that is not wire format into a new path: exit 3, its rejection recorded and kept",
          (r.returncode, c.execute("SELECT session_id, file FROM ingest_errors").fetchall()),
          (3, [(None, "not-wire.ndjson")]))
    c.close()
    # A database made by --reindex alone (no input) is a run that went well: kept.
    r = subprocess.run([INGEST, "--reindex", "-o", "empty.db"], cwd=d, env=ENV, capture_output=True, text=True)
    check("--reindex into a new path: exit 0, the database made", (r.returncode, os.path.exists(os.path.join(d, "empty.db"))),
          (0, True))


def check_verdicts(tmp, base):
    """gpuprof-ingest --check: one line; 0 ok, 3 damaged or not ours, 4 unreadable or in use; 2 misused."""
    d = os.path.join(tmp, "c")
    os.makedirs(d)

    def run(*args):
        r = subprocess.run([INGEST, "--check", *args], cwd=d, env=ENV, capture_output=True, text=True)
        return r.returncode, r.stdout, r.stderr

    shutil.copyfile(base, os.path.join(d, "good.db"))
    check("--check good.db", run("good.db"), (0, f"good.db: ok: a gpuprof database of schema version {SCHEMA}, 1 session\n", ""))
    # Damaged: a page of the kernels' table overwritten.
    shutil.copyfile(base, os.path.join(d, "bad.db"))
    c = sqlite3.connect(os.path.join(d, "bad.db"))
    page = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'kernels'").fetchone()[0]
    psize = c.execute("PRAGMA page_size").fetchone()[0]
    c.close()
    with open(os.path.join(d, "bad.db"), "r+b") as f:
        f.seek((page - 1) * psize)
        f.write(b"\xff" * 64)
    rc, out, err = run("bad.db")
    check("--check bad.db: exit 3", rc, 3)
    ok("--check bad.db: one line saying damaged", out == "" and re.fullmatch(r"gpuprof-ingest: error: bad\.db: damaged: .*\n",
                                                                           err), (out, err))
    with open(os.path.join(d, "text.db"), "w") as f:
        f.write("not a database at all, but long enough to be read as one if it were" * 20)
    rc, out, err = run("text.db")
    check("--check on a text file: exit 3, one line", (rc, out, err.count("\n")), (3, "", 1))
    ok("--check on a text file: says not ours", "not a gpuprof database" in err, err)
    other = sqlite3.connect(os.path.join(d, "other.db"))
    other.execute("CREATE TABLE t (x)")
    other.close()
    check("--check on another program's database", run("other.db"),
          (3, "", "gpuprof-ingest: error: other.db: not a gpuprof database (no session database tables)\n"))
    check("--check on a missing file", run("missing.db"),
          (4, "", "gpuprof-ingest: error: missing.db: cannot read: No such file or directory\n"))
    # A journal held by a live writer (not hot): the file alone may change under a copy.
    busy = sqlite3.connect(os.path.join(d, "good.db"), isolation_level=None)
    busy.execute("BEGIN IMMEDIATE")
    busy.execute("INSERT INTO meta VALUES ('interrupt-test', 'x')")
    check("--check while a writer holds it", run("good.db"),
          (4, "", "gpuprof-ingest: error: good.db: in use: another connection is writing it (good.db-journal); "
                  "check it again when that has ended\n"))
    busy.execute("ROLLBACK")
    busy.close()
    check("--check after the writer rolled back", run("good.db")[0], 0)
    check("--check of two: the worst exit", run("good.db", "missing.db")[0], 4)
    r = subprocess.run([INGEST, "--check", "good.db", "-o", "x.db"], cwd=d, env=ENV, capture_output=True, text=True)
    check("--check with -o: usage error", (r.returncode, r.stderr),
          (2, "gpuprof-ingest: error: --check takes only databases: gpuprof-ingest --check DB... "
              "(try 'gpuprof-ingest --help')\n"))


def help_text():
    out = subprocess.run([INGEST, "--help"], capture_output=True, text=True).stdout
    ok("--help names --check", re.search(r"^\s+--check DB", out, re.M), out)
    for code in ("129", "130", "143"):
        ok(f"--help names exit {code}", code in out, out)


def main():
    tmp = tempfile.mkdtemp(prefix="gpuprof-interrupt-")
    try:
        small = os.path.join(tmp, "small")
        synth(small, 30000, 8, "earlier")
        bigs = [os.path.join(tmp, f"big{i}") for i in range(2)]
        for i, b in enumerate(bigs):
            synth(b, 300000, 20 + i, f"big{i}")
        mids = [os.path.join(tmp, f"mid{i}") for i in range(2)]
        for i, m in enumerate(mids):
            synth(m, 5000, 30 + i, f"mid{i}")
        base = os.path.join(tmp, "base.db")
        subprocess.run([INGEST, "-q", small, "-o", base], check=True, env=ENV)
        before, integrity = sessions(base)
        check("the earlier session", (before, integrity), ([("earlier", 30000)], "ok"))
        help_text()
        during_writing(tmp, base, bigs[0], before)
        during_readers(tmp, base, bigs, before)
        killed_writer(tmp, base, bigs, before)
        during_stdin(tmp, base, bigs[0], before)
        if os.path.exists(SHIM):
            # Other readers: a Kineto trace gpuprof-synth writes, and an Nsight Systems export when there.
            subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--ranks", "1", "--seed", "5", "-o",
                            os.path.join(tmp, "job")], check=True, capture_output=True)
            others = [os.path.join(tmp, "job", "rank0.json")]
            nsys = os.path.join(checks.TRACES, "nsys", "a100_saxpy_nsys2022.sqlite")
            if os.path.exists(nsys):
                others.append(nsys)
            else:
                print(f"interrupt: {nsys} is absent; an Nsight Systems export was not tried")
            exact_points(tmp, base, mids, others, before)
            upgrade_stopped(tmp, mids[0])
            second_signal(tmp, base, bigs[0], before)
        else:
            print(f"interrupt: {SHIM} is not built (make test-programs); the exact points were not tried")
        failed_new_path(tmp, base, small)
        check_verdicts(tmp, base)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("interrupt")


if __name__ == "__main__":
    sys.exit(main())
