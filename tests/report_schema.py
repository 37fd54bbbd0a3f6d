#!/usr/bin/python3
"""report_schema: schemas/report.schema.json is what `gpuprof-report --json-schema` generates from the
report's rows, and every report validates against it with a real validator (Debian's python3-jsonschema,
hence /usr/bin/python3): the demo session, a Kineto and an nsys trace from ../shared/traces when they
exist, a synthetic multi-rank job (gpuprof-synth --ranks 4) and a report with --baseline. Each absolute
time KEY_ns has KEY_offset_ns, its offset from the session's start, exact in a double.
Ends with "report_schema: N passed, M failed".
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import BIN, ROOT, TRACES, check, ok, summary  # noqa: E402

SCHEMA = os.path.join(ROOT, "schemas", "report.schema.json")
ENV = dict(os.environ, LC_ALL="C", TZ="UTC")


def run(*args):
    return subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), env=ENV, capture_output=True, timeout=300)


def time_keys(schema):
    """(table, key) of every absolute time: the columns whose definition is epoch_ns."""
    return [(t[:-4], k) for t, d in schema["$defs"].items() if t.endswith("_row")
            for k, p in d["properties"].items() if p == {"$ref": "#/$defs/epoch_ns"}]


def validate(validator, schema, label, doc):
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    ok("%s: valid against the schema" % label, not errors,
       "; ".join("%s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:160]) for e in errors[:5]))
    start = doc["tables"]["summary"][0]["start_ns"] if doc["tables"]["summary"] else None
    bad, seen = [], 0
    for table, key in time_keys(schema):
        twin = key[:-3] + "_offset_ns"
        for row in doc["tables"].get(table, []):
            if key not in row:
                continue
            seen += 1
            want = None if row[key] is None or start is None else row[key] - start
            if row.get(twin, "missing") != want:
                bad.append("%s.%s=%r: %s=%r, want %r" % (table, key, row[key], twin, row.get(twin, "missing"), want))
    ok("%s: every absolute time has its offset from the start" % label, not bad, "; ".join(bad[:3]))
    return seen


def report(label, db, *extra):
    r = run("gpuprof-report", db, "--format", "json", *extra)
    if not ok("%s: report exits 0" % label, r.returncode == 0, r.stderr.decode()[:300]):
        return None
    return json.loads(r.stdout)


def main():
    try:
        import jsonschema
    except ImportError:
        ok("python3-jsonschema installed (scripts/deps.sh)", False, "import jsonschema failed")
        return summary("report_schema")
    generated = run("gpuprof-report", "--json-schema")
    check("--json-schema exits 0", generated.returncode, 0)
    with open(SCHEMA, "rb") as f:
        committed = f.read()
    ok("schemas/report.schema.json is gpuprof-report --json-schema's output (regenerate it: "
       "build/bin/gpuprof-report --json-schema > schemas/report.schema.json)", committed == generated.stdout,
       "they differ")
    schema = json.loads(committed)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    # The schema says something: a document missing a table, with an unknown key or a wrong type fails.
    with tempfile.TemporaryDirectory() as tmp:
        demo = os.path.join(tmp, "demo.db")
        r = run("gpuprof-ingest", "-q", os.path.join(ROOT, "tests", "data", "demo-session"), "-o", demo)
        check("ingest the demo session", r.returncode, 0)
        doc = report("demo session", demo)
        if doc:
            seen = validate(validator, schema, "demo session", doc)
            ok("demo session: absolute times seen", seen >= 3, "only %d" % seen)
            s = doc["tables"]["summary"][0]
            check("demo: start_offset_ns is 0", s["start_offset_ns"], 0)
            check("demo: end_offset_ns is the wall span", s["end_offset_ns"], s["wall_span_ns"])
            check("the summary's keys, start and its offset", list(s)[6:9], ["start_ns", "start_offset_ns", "end_ns"])
            for what, broken in (
                    ("a table missing", lambda d: d["tables"].pop("hotspots")),
                    ("an unknown key", lambda d: d["tables"]["summary"][0].__setitem__("nosuch_ns", 1)),
                    ("a string for a count", lambda d: d["tables"]["summary"][0].__setitem__("kernels", "12")),
                    ("a real for a time", lambda d: d["tables"]["summary"][0].__setitem__("start_ns", 1.5)),
                    ("a key missing", lambda d: d["tables"]["summary"][0].pop("end_offset_ns"))):
                bad = json.loads(json.dumps(doc))
                broken(bad)
                ok("the schema refuses " + what, not validator.is_valid(bad), "it validates")
            # gpuprof-analyze's JSON is the report's table: the same keys and offsets.
            r = run("gpuprof-analyze", "summary", demo, "--format", "json")
            check("analyze summary --format json: the report's row", json.loads(r.stdout) if r.returncode == 0 else r,
                  doc["tables"]["summary"])
            doc = report("demo --baseline", demo, "--baseline", demo)
            if doc:
                check("--baseline: the comparison tables", [k for k in doc["tables"] if k.startswith("compare")],
                      ["compare", "compare_ranges", "compare_copies", "compare_api", "compare_energy"])
                validate(validator, schema, "demo --baseline", doc)

        ranks = os.path.join(tmp, "ranks")
        r = run("gpuprof-synth", "--ranks", "4", "--seed", "5", "-o", ranks)
        check("synth --ranks 4", r.returncode, 0)
        db = os.path.join(tmp, "ranks.db")
        r = run("gpuprof-ingest", "-q", *[os.path.join(ranks, "rank%d.json" % i) for i in range(4)], "-o", db)
        check("ingest the 4-rank job", r.returncode, 0)
        doc = report("4 ranks", db)
        if doc:
            validate(validator, schema, "4 ranks", doc)
            check("4 ranks: a row per rank", len(doc["tables"]["ranks"]), 4)
            ok("4 ranks: per-device tables carry rank and host", "rank" in doc["tables"]["devices"][0], "")

        for kind, name in (("kineto", "a100_alexnet.json.gz"), ("kineto", "a100_pcie_memory_events.json.gz"),
                           ("nsys", "h100_2gpu_1s.sqlite"), ("nsys", "a100_saxpy_nsys2022.sqlite")):
            src = os.path.join(TRACES, kind, name)
            if not os.path.exists(src):
                print("report_schema: note: %s missing, skipped" % src)
                continue
            db = os.path.join(tmp, name + ".db")
            r = run("gpuprof-ingest", "-q", src, "-o", db)
            ok("ingest %s" % name, r.returncode in (0, 3), r.stderr.decode()[:300])
            doc = report(name, db)
            if doc:
                validate(validator, schema, name, doc)
    return summary("report_schema")


if __name__ == "__main__":
    sys.exit(main())
