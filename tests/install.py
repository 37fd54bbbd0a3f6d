#!/usr/bin/env python3
"""Install and first use: `make install DESTDIR=... PREFIX=/usr` puts the programs, their man pages, the
bash completion and the warehouse's tables and queries (schemas/warehouse) in place; each man page
(scripts/help2man.py, from --help) renders with `man -l` without groff warnings and names every option
its --help names; the completion, sourced in bash, completes analyses, options, formats and gpuprof's
commands; `gpuprof-ingest -` reads standard input into the same database as the file gives (Kineto
.json.gz and .json, NDJSON .gz: SQL dumps equal but for the path). The analyses' modules and their data
files go to share/gpuprof/analyze, and an installed module runs in sqlite3 with the installed extension
(`.load gpuprof_sqlite` found by the loader) as gpuprof-analyze prints it."""
import csv
import gzip
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

import checks
from checks import BIN, ROOT, TRACES, check, ok
from modules_shell import same_cell

PROGRAMS = ["gpuprof", "gpuprof-ingest", "gpuprof-analyze", "gpuprof-report", "gpuprof-export", "gpuprof-collect",
            "gpuprof-synth"]
INSTALLED = PROGRAMS[:-1]  # gpuprof-synth is a test tool, built, not installed
BUILD = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"))


def make(*args):
    r = subprocess.run(["make", "-s", "--no-print-directory", "-C", ROOT, *args], capture_output=True, text=True)
    ok(f"make {' '.join(args)}", r.returncode == 0, r.stderr[-2000:])
    return r


def rendered(page):
    """The page as `man -l` shows it, overstrikes removed; else groff's (where man is missing)."""
    env = dict(os.environ, LC_ALL="C", MANWIDTH="120", MAN_KEEP_FORMATTING="0")
    cmd = ["man", "-l", page] if shutil.which("man") else ["groff", "-man", "-Tascii", page]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    ok(f"{os.path.basename(page)}: renders", r.returncode == 0 and len(r.stdout) > 200, r.stderr[-500:])
    return re.sub(r".\x08", "", r.stdout)


def check_man(tmp, dest):
    for p in PROGRAMS:
        page = os.path.join(BUILD, "man", p + ".1")
        ok(f"{p}.1 built", os.path.exists(page))
        if not os.path.exists(page):
            continue
        helptext = subprocess.run([os.path.join(BIN, p), "--help"], capture_output=True, text=True).stdout
        text = rendered(page)
        warn = subprocess.run(["groff", "-man", "-Tascii", "-ww", "-z", page], capture_output=True, text=True)
        check(f"{p}.1: no groff warnings", warn.stderr, "")
        flags = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", helptext))
        ok(f"{p}: --help names options", len(flags) >= 2, flags)
        check(f"{p}.1: every option of --help", sorted(f for f in flags if f not in text), [])
        ok(f"{p}.1: NAME, SYNOPSIS, DESCRIPTION", all(s in text for s in ("NAME", "SYNOPSIS", "DESCRIPTION")), text[:300])
        ok(f"{p}.1: its name line", re.search(rf"^\s+{p} - \S", text, re.M) is not None, text[:300])
        if p in INSTALLED:
            ok(f"{p}.1 installed", os.path.exists(os.path.join(dest, "usr/share/man/man1", p + ".1")))


def complete(comp, words, path):
    """COMPREPLY for the words (the last one being completed), with the completion script sourced."""
    script = (f'source "{comp}"\nCOMP_WORDS=({" ".join(repr(w) for w in words)})\nCOMP_CWORD={len(words) - 1}\n'
              '_gpuprof\nprintf "%s\\n" "${COMPREPLY[@]}"\n')
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=dict(os.environ, PATH=path))
    return [w for w in r.stdout.split("\n") if w]


def check_completion(dest):
    comp = os.path.join(dest, "usr/share/bash-completion/completions/gpuprof")
    ok("completion installed", os.path.exists(comp))
    for p in INSTALLED[1:]:
        link = os.path.join(dest, "usr/share/bash-completion/completions", p)
        ok(f"completion under {p}", os.path.islink(link) and os.readlink(link) == "gpuprof")
    if not os.path.exists(comp):
        return
    path = os.path.join(dest, "usr/bin") + ":" + os.environ["PATH"]
    r = subprocess.run(["bash", "-c", f'source "{comp}"; complete -p gpuprof-analyze gpuprof'], capture_output=True,
                       text=True)
    check("complete -p", r.stdout.split("\n")[:2], ["complete -F _gpuprof gpuprof-analyze", "complete -F _gpuprof gpuprof"])
    check("gpuprof-analyze ho<TAB>", complete(comp, ["gpuprof-analyze", "ho"], path), ["hotspots", "host"])
    check("gpuprof-analyze hotspots s.db --form<TAB>", complete(comp, ["gpuprof-analyze", "hotspots", "s.db", "--form"], path),
          ["--format"])
    check("gpuprof-analyze ... --format <TAB>", complete(comp, ["gpuprof-analyze", "hotspots", "s.db", "--format", ""], path),
          ["text", "csv", "json", "md"])
    check("gpuprof-report s.db -f <TAB>", complete(comp, ["gpuprof-report", "s.db", "-f", ""], path),
          ["text", "csv", "json", "md", "html", "xlsx", "trace"])
    check("gpuprof-ingest --format <TAB>", complete(comp, ["gpuprof-ingest", "--format", ""], path),
          ["ndjson", "kineto", "gpuprof", "nsys"])
    check("gpuprof-export s.db --to <TAB>", complete(comp, ["gpuprof-export", "s.db", "--to", ""], path),
          ["clickhouse", "postgres", "ndjson", "csv"])
    check("gpuprof-collect --engine <TAB>", complete(comp, ["gpuprof-collect", "--engine", ""], path),
          ["monitor", "trace", "pcsampling"])
    check("gpuprof <TAB>", complete(comp, ["gpuprof", ""], path), ["ingest", "analyze", "report", "export", "collect", "--help", "--version"])
    check("gpuprof analyze st<TAB>", complete(comp, ["gpuprof", "analyze", "st"], path),
          ["streams", "stalls", "stall_kernels", "stall_pcs"])
    check("gpuprof-ingest --re<TAB>", complete(comp, ["gpuprof-ingest", "--re"], path), ["--reindex"])


def dump(db, path):
    """The database as SQL, the input's path and the ingest time left out."""
    out = subprocess.run(["sqlite3", db, ".dump"], capture_output=True, text=True, check=True).stdout
    out = out.replace("'" + path + "'", "'-'")
    return re.sub(r"'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ'", "'T'", out)


def check_stdin(tmp):
    inputs = [os.path.join(ROOT, "tests", "data", "demo-session", f) for f in ("2062.ndjson.gz", "2064.ndjson.gz")]
    alexnet = os.path.join(TRACES, "kineto", "a100_alexnet.json.gz")
    if os.path.exists(alexnet):
        plain = os.path.join(tmp, "alexnet.json")
        with gzip.open(alexnet) as f, open(plain, "wb") as g:
            g.write(f.read())
        inputs += [alexnet, plain]
    for i, src in enumerate(inputs):
        a, b = os.path.join(tmp, f"file{i}.db"), os.path.join(tmp, f"stdin{i}.db")
        ing = [os.path.join(BIN, "gpuprof-ingest"), "-q"]
        r1 = subprocess.run(ing + [src, "-o", a], capture_output=True, text=True)
        with open(src, "rb") as f:
            r2 = subprocess.run(ing + ["-", "-o", b], stdin=f, capture_output=True, text=True)
        name = os.path.basename(src)
        check(f"{name}: from the file and from standard input: exit", (r1.returncode, r2.returncode), (0, 0))
        da, db = dump(a, src), dump(b, "-")
        ok(f"{name}: standard input gives the file's database", da == db and "INSERT INTO processes" in da,
           next((f"{x!r} != {y!r}" for x, y in zip(da.split("\n"), db.split("\n")) if x != y), "lengths differ"))
        check(f"{name}: the session's path is -", subprocess.run(["sqlite3", b, "SELECT path FROM sessions"],
                                                             capture_output=True, text=True).stdout, "-\n")
    left = [f for f in os.listdir(tmp) if f.startswith("gpuprof-ingest-stdin.")]
    check("the copy of standard input removed", left, [])
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", "-", "-", "-o", os.path.join(tmp, "x.db")],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True)
    check("- twice: refused", (r.returncode, "standard input can be read once" in r.stderr), (4, True))


def check_modules(tmp, dest):
    """share/gpuprof/analyze holds every module and data file; the README's first command line, with the
    installed extension and module, prints hotspots as gpuprof-analyze does."""
    share = os.path.join(dest, "usr/share/gpuprof/analyze")
    src = os.path.join(ROOT, "analyze")
    want = sorted(f for f in os.listdir(src) if f.endswith((".sql", ".rules", ".txt")))
    got = sorted(f for f in os.listdir(share) if os.path.isfile(os.path.join(share, f))) if os.path.isdir(share) else []
    check("the analyses' modules and data files installed", got, want)
    if not os.path.exists("/usr/bin/sqlite3"):
        print("install: skipped the installed module in sqlite3: no /usr/bin/sqlite3")
        return
    db = os.path.join(tmp, "demo.db")
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", os.path.join(ROOT, "tests/data/demo-session"),
                        "-o", db], capture_output=True, text=True)
    ok("ingest the demo session", r.returncode == 0, r.stderr)
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(dest, "usr/lib"))
    r = subprocess.run(["/usr/bin/sqlite3", "-csv", "-header", db, "-cmd", ".load gpuprof_sqlite",
                        f".read {os.path.join(share, 'hotspots.sql')}"], capture_output=True, text=True, env=env,
                       cwd=tmp)
    ok("sqlite3 .read the installed hotspots.sql", r.returncode == 0 and not r.stderr, r.stderr[-500:])
    a = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "hotspots", db, "-f", "csv"], capture_output=True,
                       text=True)
    got = list(csv.reader(io.StringIO(r.stdout, newline="")))
    want = list(csv.reader(io.StringIO(a.stdout, newline="")))
    bad = [(x, y) for g, w in zip(got, want) for x, y in zip(g, w) if not same_cell(x, y)]
    ok("the installed module prints what gpuprof-analyze hotspots prints",
       len(got) == len(want) > 1 and all(len(g) == len(w) for g, w in zip(got, want)) and not bad, (bad[:3], got[:2]))


def main():
    tmp = tempfile.mkdtemp(prefix="install.")
    os.environ["TMPDIR"] = tmp
    try:
        dest = os.path.join(tmp, "dest")
        make("install", f"DESTDIR={dest}", "PREFIX=/usr")
        for p in INSTALLED:
            ok(f"{p} installed", os.access(os.path.join(dest, "usr/bin", p), os.X_OK))
        wh = os.path.join(ROOT, "schemas", "warehouse")
        want = sorted(os.path.relpath(os.path.join(d, f), wh) for d, _, fs in os.walk(wh) for f in fs)
        share = os.path.join(dest, "usr/share/gpuprof/warehouse")
        check("the warehouse's tables and queries installed", sorted(os.path.relpath(os.path.join(d, f), share)
                                                                      for d, _, fs in os.walk(share) for f in fs), want)
        refs = os.path.join(dest, "usr/share/gpuprof/analyze/ref")
        check("the C tables' plain-SQL references installed (share/gpuprof/analyze/ref)",
              sorted(os.listdir(refs)) if os.path.isdir(refs) else [],
              sorted(f for f in os.listdir(os.path.join(ROOT, "analyze", "ref")) if f.endswith(".sql")))
        check_man(tmp, dest)
        check_modules(tmp, dest)
        check_completion(dest)
        check_stdin(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("install")


if __name__ == "__main__":
    os.environ.setdefault("LC_ALL", "C")
    os.environ.setdefault("TZ", "UTC")
    sys.exit(main())
