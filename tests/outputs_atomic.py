"""Outputs whole or not at all, and out of memory as exit 4 (issue 32), through the real programs.

Interrupts: gpuprof-report (every format, the csv directory included) and gpuprof-export are stopped in
the middle of writing their output by build/tests/faults/libholdwrite.so (tests/faults/holdwrite.c:
LD_PRELOADed, it waits at the Nth write of a matching file until a signal comes), then sent SIGINT,
SIGTERM or SIGHUP. The previous good output must be left byte for byte, no temporary file left, exit
128 + the signal and one line "PROG: interrupted: ...". An export interrupted over an earlier one must
leave no loader (its parts as they were); a finished one its loader, with every part it names whole.
A trace of a bigger session is also interrupted without the shim, once its temporary file is seen.

Out of memory: a one-line batch record of ~30 MB is ingested under `ulimit -v` limits from too small to
ample: every run exits 0 or 4; a 4 says "gpuprof-ingest: error: out of memory reading FILE:LINE" alone
and leaves the database as it was, no journal; ~13 times the record's size is enough (a record's memory
is bounded: it took ~17 times its size in nodes and copies before). gpuprof-report is run the same way
on the session that record made: 0 with its whole output, or 4 with one line and the old output kept.

Under the sanitizers (GPUPROF_SANITIZE) the shim and ulimit parts are skipped: the shim is not built
with ASan, and ASan reserves terabytes of address space that `ulimit -v` forbids.
"""
import gzip
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import BIN, ROOT, check, ok, summary  # noqa: E402

SHIM = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "tests", "faults", "libholdwrite.so")
SANITIZED = bool(os.environ.get("GPUPROF_SANITIZE"))
ENV = dict(os.environ, LC_ALL="C", TZ="UTC")
SYNTH, INGEST, REPORT, EXPORT = (os.path.join(BIN, p) for p in
                                 ("gpuprof-synth", "gpuprof-ingest", "gpuprof-report", "gpuprof-export"))
SAFETY = 120  # seconds: a run that hangs this long fails (never reached by a working program)


def run(argv, **kw):
    return subprocess.run(argv, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def files(top):
    """Every file under top: {relative path: bytes}."""
    out = {}
    for d, _, names in os.walk(top):
        for n in names:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, top)] = f.read()
    return out


def temps(top):
    return sorted(p for p in files(top) if p.rsplit("/", 1)[-1].endswith(".tmp"))


def held(argv, hold, sig, mark):
    """Run argv held at GPUPROF_HOLD=hold, send sig once it holds: (exit status, stderr, held)."""
    if os.path.exists(mark):
        os.unlink(mark)
    env = dict(ENV, LD_PRELOAD=SHIM, GPUPROF_HOLD=hold, GPUPROF_HOLD_MARK=mark)
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + SAFETY
    while not os.path.exists(mark) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    was_held = os.path.exists(mark)
    if was_held:
        p.send_signal(sig)
    else:
        p.kill()
    _, err = p.communicate(timeout=SAFETY)
    return p.returncode, err, was_held


def lines(err):
    return [l for l in err.splitlines() if l.strip()]


def report_interrupts(tmp, db, old_db):
    """Each format of gpuprof-report, interrupted mid-write over an earlier good output."""
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    mark = os.path.join(tmp, "mark")
    # (format, -o name, what the shim holds at, signal)
    cases = [
        ("html", "r.html", "write:/.r.html.:2", signal.SIGINT),
        ("json", "r.json", "write:/.r.json.:2", signal.SIGTERM),
        ("md", "r.md", "write:/.r.md.:1", signal.SIGHUP),
        ("text", "r.txt", "write:/.r.txt.:1", signal.SIGINT),
        ("csv", "csvdir", "write:/.hotspots.csv.:1", signal.SIGTERM),
        ("xlsx", "r.xlsx", "write:/.r.xlsx.:1", signal.SIGHUP),
        ("trace", "t.json.gz", "write:/.t.json.gz.:2", signal.SIGINT),
        ("trace", "t.json", "write:/.t.json.:2", signal.SIGTERM),
    ]
    for fmt, name, hold, sig in cases:
        path = os.path.join(out, name)
        r = run([REPORT, old_db, "-f", fmt, "-o", path])
        check(f"report {fmt}: the earlier output ({r.stderr.strip()[:200]})", r.returncode, 0)
        before = files(out)
        rc, err, was_held = held([REPORT, db, "-f", fmt, "-o", path], hold, sig, mark)
        ok(f"report {fmt}: held mid-write", was_held, f"exit {rc}: {err.strip()[:300]}")
        check(f"report {fmt}: exit 128 + {sig.name}", rc, 128 + sig)
        check(f"report {fmt}: one line", lines(err), [f"gpuprof-report: interrupted: {path} left as it was"])
        after = files(out)
        check(f"report {fmt}: no temporary file left", temps(out), [])
        ok(f"report {fmt}: the earlier output byte for byte", after == before,
           f"changed: {sorted(k for k in set(after) | set(before) if after.get(k) != before.get(k))}")
        # Uninterrupted, the new output replaces it (it differs: another session).
        r = run([REPORT, db, "-f", fmt, "-o", path])
        check(f"report {fmt}: a run to the end ({r.stderr.strip()[:200]})", r.returncode, 0)
        ok(f"report {fmt}: replaced", files(out) != before, "the output is the earlier one")
        check(f"report {fmt}: no temporary file after it", temps(out), [])

    # A path that did not exist stays absent.
    path = os.path.join(out, "new.md")
    rc, err, was_held = held([REPORT, db, "-f", "md", "-o", path], "write:/.new.md.:1", signal.SIGINT, mark)
    check("report new file: held, exit 130", (was_held, rc), (True, 130))
    check("report new file: absent after", (os.path.exists(path), temps(out)), (False, []))

    # A file made is 0666 less the umask; a file replaced keeps its mode.
    r = run([REPORT, db, "-f", "md", "-o", path])
    check("report new file: made", r.returncode, 0)
    check("report new file: mode 0666 less the umask (022)", oct(os.stat(path).st_mode & 0o777), oct(0o644))
    os.chmod(path, 0o600)
    run([REPORT, old_db, "-f", "md", "-o", path])
    check("report replaced file: keeps its mode", oct(os.stat(path).st_mode & 0o777), oct(0o600))
    # Through a symbolic link: the link stays, its target is replaced.
    link = os.path.join(out, "link.md")
    os.symlink("new.md", link)
    r = run([REPORT, db, "-f", "md", "-o", link])
    check("report through a link: exit 0, link kept", (r.returncode, os.path.islink(link)), (0, True))
    check("report through a link: the target written", open(path, "rb").read(), open(link, "rb").read())


def export_interrupts(tmp, db, old_db):
    """gpuprof-export interrupted over an earlier export: no loader, parts as they were."""
    out = os.path.join(tmp, "warehouse")
    mark = os.path.join(tmp, "mark")
    r = run([EXPORT, old_db, "--to", "clickhouse", "-o", out, "-q"])
    check(f"export: the earlier export ({r.stderr.strip()[:200]})", r.returncode, 0)
    before = files(out)
    check("export: the earlier loader", "load.sh" in before, True)
    for n, sig in ((1, signal.SIGINT), (4, signal.SIGTERM), (9, signal.SIGHUP)):
        rc, err, was_held = held([EXPORT, db, "--to", "clickhouse", "-o", out, "-q"],
                                 f"write:/.part-0.ndjson.gz.:{n}", sig, mark)
        ok(f"export at part write {n}: held", was_held, f"exit {rc}: {err.strip()[:300]}")
        check(f"export at part write {n}: exit 128 + {sig.name}", rc, 128 + sig)
        check(f"export at part write {n}: one line", lines(err),
              [f"gpuprof-export: interrupted: {out} left without a loader; no part was replaced"])
        after = files(out)
        check(f"export at part write {n}: no temporary file", temps(out), [])
        check(f"export at part write {n}: no loader", "load.sh" in after, False)
        ok(f"export at part write {n}: every part as it was", after == {k: v for k, v in before.items() if k != "load.sh"},
           f"changed: {sorted(k for k in set(after) | set(before) if after.get(k) != before.get(k))[:5]}")
    # A postgres export (CSV parts) interrupted beside a clickhouse one (NDJSON parts) leaves its loader.
    r = run([EXPORT, old_db, "--to", "clickhouse", "-o", out, "-q"])
    check("export: the loader back", (r.returncode, os.path.exists(os.path.join(out, "load.sh"))), (0, True))
    rc, err, was_held = held([EXPORT, db, "--to", "postgres", "-o", out, "-q"], "write:/.part-0.csv.gz.:2",
                             signal.SIGINT, mark)
    check("export postgres interrupted: exit 130", (was_held, rc), (True, 130))
    check("export postgres interrupted: the clickhouse loader and parts stay", files(out), files(out) | before)
    ok("export postgres interrupted: no load.sql", not os.path.exists(os.path.join(out, "load.sql")))

    # To the end: the loader, and every part it names whole.
    r = run([EXPORT, db, "--to", "clickhouse", "-o", out, "-q"])
    check(f"export to the end ({r.stderr.strip()[:200]})", r.returncode, 0)
    loader = open(os.path.join(out, "load.sh")).read()
    named = sorted(set(re.findall(r"[A-Za-z_]+/session=[^/\s'\"]+/part-0\.ndjson\.gz", loader)))
    ok("export: load.sh names parts", len(named) > 5, loader[:300])
    kernels = 0
    for p in named:
        with gzip.open(os.path.join(out, p), "rt") as f:
            rows = [json.loads(l) for l in f]
        if p.startswith("kernels/"):
            kernels += len(rows)
    want = sqlite3.connect(db).execute("SELECT count(*) FROM kernels").fetchone()[0]
    check("export: the kernels parts hold every kernel", kernels, want)
    check("export: no temporary file", temps(out), [])


def trace_interrupt_unheld(tmp, db):
    """Without the shim: a trace of a bigger session, interrupted once its temporary file is there."""
    out = os.path.join(tmp, "plain")
    os.mkdir(out)
    path = os.path.join(out, "t.json.gz")
    with open(path, "wb") as f:
        f.write(b"the earlier trace")
    p = subprocess.Popen([REPORT, db, "-f", "trace", "-o", path], env=ENV, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + SAFETY
    while not temps(out) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    seen = bool(temps(out))
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=SAFETY)
    ok("trace unheld: its temporary file seen while it ran", seen, f"exit {p.returncode}")
    check("trace unheld: exit 143", p.returncode, 143)
    check("trace unheld: one line", lines(err), [f"gpuprof-report: interrupted: {path} left as it was"])
    check("trace unheld: the earlier file, no temporary", (open(path, "rb").read(), temps(out)),
          (b"the earlier trace", []))


def big_record(src, dst, target):
    """A copy of src's session with its kernel batch repeated into one line of about target bytes."""
    head, kern = [], None
    for l in open(src):
        t = json.loads(l)["type"]
        if t == "kernel" and kern is None:
            kern = json.loads(l)
        elif t in ("header", "strings", "device"):
            head.append(l)
    n = kern["n"]
    k = max(1, target // len(json.dumps(kern, separators=(",", ":"))))
    for key, v in list(kern.items()):
        if isinstance(v, list) and len(v) == n:
            kern[key] = v * k
    kern["n"], kern["seq"] = n * k, 0
    with open(dst, "w") as f:
        f.writelines(head)
        f.write(json.dumps(kern, separators=(",", ":")) + "\n")
    return n * k


def limited(kib, argv):
    """argv under `ulimit -v kib`."""
    return subprocess.run(["bash", "-c", f'ulimit -v {kib} && exec "$@"', "limited"] + argv, env=ENV,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def state(db):
    c = sqlite3.connect(db)
    try:
        return (c.execute("PRAGMA integrity_check").fetchall(),
                [c.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                 for t in ("sessions", "kernels", "strings", "ingest_errors")])
    finally:
        c.close()


def out_of_memory(tmp, small_dir):
    """Ingest of a big one-line record and a report on it, under address-space limits."""
    src = [os.path.join(small_dir, f) for f in os.listdir(small_dir) if f.endswith(".ndjson")][0]
    rec = os.path.join(tmp, "events.ndjson")
    rows = big_record(src, rec, 30_000_000)
    size = os.path.getsize(rec)
    db = os.path.join(tmp, "oom.db")
    r = run([INGEST, "-q", small_dir, "-o", db])
    check("oom: the earlier session", r.returncode, 0)
    before = state(db)
    outcomes, said = {}, []
    # From too small for a 30 MB line to ~13 times its size (the bound, with the program's own ~100 MB).
    for kib in (150_000, 200_000, 250_000, 300_000, 400_000):
        r = limited(kib, [INGEST, "-q", rec, "-o", db])
        outcomes[kib] = r.returncode
        err = [l for l in lines(r.stderr) if ": warning: " not in l]
        journal = os.path.exists(db + "-journal")
        if r.returncode == 4:
            # Where the record's memory runs out: the file and line; elsewhere (SQLite, the sink) no line.
            ok(f"oom ingest {kib} KiB: one line", len(err) == 1 and re.fullmatch(
                r"gpuprof-ingest: error: out of memory (reading \S*events\.ndjson:\d+|allocating \d+ bytes)|"
                r"gpuprof-ingest: error: \S+: out of memory", err[0]) is not None, f"{err[:3]}")
            said.append(err[0] if err else "")
            check(f"oom ingest {kib} KiB: no journal, database as it was", (journal, state(db)), (False, before))
        else:
            check(f"oom ingest {kib} KiB: exit 0 or 4 ({err[:2]})", r.returncode, 0)
            check(f"oom ingest {kib} KiB: every kernel", (journal, state(db)[1][1]), (False, before[1][1] + rows))
            break  # ingested: the database holds it now
    print(f"# oom ingest of a {size}-byte line: exit status by ulimit -v KiB {outcomes}")
    ok("oom ingest: a limit that was too small", 4 in outcomes.values(), f"{outcomes}")
    ok("oom ingest: the record's file and line said", any(" out of memory reading " in l for l in said), f"{said}")
    check(f"oom ingest: {size} bytes ingested within 400 MB", outcomes.get(400_000, 0), 0)

    # The report of that session (ingested without a limit), under limits from too small to enough.
    db = os.path.join(tmp, "big.db")
    r = run([INGEST, "-q", rec, "-o", db])
    check(f"oom: the big record ingested without a limit ({r.stderr.strip()[:200]})", r.returncode, 0)
    out = os.path.join(tmp, "oom")
    os.mkdir(out)
    path = os.path.join(out, "r.json")
    with open(path, "wb") as f:
        f.write(b"the earlier report")
    full = run([REPORT, db, "-f", "json"]).stdout.encode()
    codes = {}
    for kib in range(30_000, 160_001, 5_000):
        r = limited(kib, [REPORT, db, "-f", "json", "-o", path])
        codes[kib] = r.returncode
        got = open(path, "rb").read()
        if r.returncode == 4:
            ok(f"oom report {kib} KiB: one line", len(lines(r.stderr)) == 1 and
               re.match(r"gpuprof-report: error: .*out of memory", r.stderr) is not None, r.stderr.strip()[:300])
            check(f"oom report {kib} KiB: the earlier output, no temporary", (got, temps(out)),
                  (b"the earlier report", []))
        else:
            check(f"oom report {kib} KiB: exit 0 or 4 ({r.stderr.strip()[:200]})", r.returncode, 0)
            check(f"oom report {kib} KiB: the whole output", got, full)
            break
    print(f"# oom report: exit status by ulimit -v KiB {codes}")
    ok("oom report: a limit that was too small", 4 in codes.values(), f"{codes}")


def main():
    os.umask(0o022)
    tmp = tempfile.mkdtemp(prefix="gpuprof-outputs-")
    try:
        for seed, d in ((5, "a"), (6, "b")):
            subprocess.run([SYNTH, "--kernels", "3000", "--seed", str(seed), "-o", os.path.join(tmp, d),
                            "--no-expected"], env=ENV, check=True, stdout=subprocess.DEVNULL)
            r = run([INGEST, "-q", os.path.join(tmp, d), "-o", os.path.join(tmp, d + ".db")])
            check(f"ingest {d}", r.returncode, 0)
        db, old_db = os.path.join(tmp, "a.db"), os.path.join(tmp, "b.db")
        if SANITIZED:
            print("# skipped under the sanitizers: the interrupts held by libholdwrite.so (not built with ASan, "
                  "which must come first) and the ulimit -v runs (ASan reserves more address space than any limit)")
        elif not os.path.exists(SHIM):
            ok("the shim is built (make test-programs)", False, SHIM)
        else:
            report_interrupts(tmp, db, old_db)
            export_interrupts(tmp, db, old_db)
        subprocess.run([SYNTH, "--kernels", "100000", "--seed", "7", "-o", os.path.join(tmp, "c"),
                        "--no-expected"], env=ENV, check=True, stdout=subprocess.DEVNULL)
        r = run([INGEST, "-q", os.path.join(tmp, "c"), "-o", os.path.join(tmp, "c.db")])
        check("ingest c", r.returncode, 0)
        trace_interrupt_unheld(tmp, os.path.join(tmp, "c.db"))
        if not SANITIZED:
            out_of_memory(tmp, os.path.join(tmp, "a"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary("outputs_atomic")


if __name__ == "__main__":
    sys.exit(main())
