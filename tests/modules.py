#!/usr/bin/env python3
"""modules: the analysis modules' headers as the build checks them (scripts/modcheck.c).

The build runs modcheck over analyze/*.sql before embedding them: it makes the analyses table from the
files as the programs do, so a malformed header stops the build with one line "FILE:LINE: what". Here:
the shipped modules pass; each kind of fault, in a copy of them, fails with its line and exit 3; and
every shipped analysis's header is what the programs run (--list names exactly the analysis files).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"))
MODCHECK = os.path.join(BUILD, "bin", "modcheck")

passed = failed = 0


def check(what, got, want):
    global passed, failed
    if got == want:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}: got {got!r}, want {want!r}")


def modcheck(files):
    p = subprocess.run([MODCHECK] + files, capture_output=True, text=True)
    return p.returncode, p.stderr


def main():
    if not os.path.exists(MODCHECK):
        print(f"modules: {MODCHECK} missing (run make first)")
        print("modules: 0 passed, 1 failed")
        return 1
    shipped = sorted(glob.glob(os.path.join(ROOT, "analyze", "*.sql")))
    check("the shipped modules pass", modcheck(shipped), (0, ""))

    # --list names exactly the analysis files (`-- analysis:`), none of the preludes (`-- module:`).
    listed = subprocess.run([os.path.join(BUILD, "bin", "gpuprof-analyze"), "--list"], capture_output=True,
                            text=True).stdout
    names = sorted(line.split()[0] for line in listed.splitlines())
    analyses = sorted(os.path.basename(f)[:-4] for f in shipped
                      if re.search(r"^-- analysis: ", open(f, encoding="utf-8").read(), re.M))
    check("--list is the analysis files", names, analyses)
    check("the preludes are modules", sorted(os.path.basename(f)[:-4] for f in shipped
                                             if re.search(r"^-- module: ", open(f, encoding="utf-8").read(), re.M)),
          ["comm", "memory-events", "stall-samples", "views"])

    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "analyze")
        os.mkdir(base)

        def variant(name, edit):
            """The shipped modules in a fresh directory, name.sql's text edited by edit(text)."""
            shutil.rmtree(base)
            os.mkdir(base)
            for f in shipped:
                shutil.copy(f, base)
            path = os.path.join(base, name + ".sql")
            if edit:
                old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
                with open(path, "w", encoding="utf-8") as out:
                    out.write(edit(old))
            return sorted(glob.glob(os.path.join(base, "*.sql")))

        def fails(what, name, edit, line, message):
            rc, err = modcheck(variant(name, edit))
            want = f"modcheck: error: {base}/{name}.sql:{line}: {message}"
            check(what, (rc, err.startswith(want), err.count("\n")), (3, True, 1))
            if not err.startswith(want):
                print(f"  stderr: {err!r}\n  want:   {want!r}...")

        def sub(pattern, repl):
            return lambda text: re.sub(pattern, repl, text, count=1, flags=re.M)

        fails("a column of an unknown kind", "hotspots", sub(r"^-- column: calls count", "-- column: calls seconds"),
              7, "unknown kind 'seconds'")
        fails("a header without its name", "api", sub(r"^-- analysis: api\n", ""), 1,
              "'title' before the module's name")
        fails("analysis and module", "api", sub(r"^(-- title:.*\n)", r"\1-- module: api2\n"), 3, "a second name")
        fails("a column before any table", "sync", sub(r"^(-- table: sync)", r"-- column: early int\n\1"), 4,
              "column before any table")
        fails("a bad section", "sync", sub(r"^-- section: 14 top 10", "-- section: 14 top"), 3,
              "bad section: 'top' needs a count")
        fails("a duplicate option", "compare", sub(r"^(-- option: min_calls.*\n)", r"\1\1"), 9,
              "duplicate option 'min_calls'")
        fails("an analysis in a file of another name", "renamed", lambda _: open(os.path.join(ROOT, "analyze", "api.sql"),
              encoding="utf-8").read().replace("-- analysis: api\n", "-- analysis: renamed_not\n"), 1,
              "analysis 'renamed_not' in a file of another name")
        fails("an include of no module", "api", sub(r"^(-- title:.*\n)", r"\1-- include: nowhere\n"), 3,
              "include 'nowhere': there is no such module")
        fails("an include of an analysis", "api", sub(r"^(-- title:.*\n)", r"\1-- include: hotspots\n"), 3,
              "include 'hotspots': an analysis, not a prelude")
        fails("an option that is not built in", "api", sub(r"^(-- title:.*\n)", r"\1-- option: colour red a colour\n"), 3,
              "option 'colour' is none of the built-in options")
        fails("a gate that is not built in", "api", sub(r"^(-- title:.*\n)", r"\1-- gate: fail_on_red doc\n"), 3,
              "gate 'fail_on_red' is none of the built-in gates")
        fails("two analyses in one place of the report", "api", sub(r"^-- section: 15", "-- section: 14"), 3,
              "section 14 is sync's too")
        fails("a prelude with a table", "views", sub(r"^(-- title:.*\n)", r"\1-- table: t T\n"), 3,
              "'table' in a prelude")
        fails("a file without a header", "api", lambda text: "SELECT 1;\n", 1,
              "no '-- analysis: NAME' or '-- module: NAME' line")

        # An include cycle among preludes: views includes comm, which includes views.
        rc, err = modcheck(variant("views", sub(r"^(-- title:.*\n)", r"\1-- include: comm\n")))
        check("an include cycle", (rc, bool(re.match(rf"modcheck: error: {base}/(comm|views)\.sql:\d+: include "
                                                      r"'(views|comm)': it includes \w+ again \(a cycle\)\n$", err))),
              (3, True))
        rc, err = modcheck(variant("api", None) + [os.path.join(ROOT, "tests", "modules.py")])
        check("a file that is not NAME.sql", rc, 3)

    print(f"modules: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
