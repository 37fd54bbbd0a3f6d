#!/usr/bin/env python3
"""schemas/wire-format.md against the reader: every batch type and field the page lists, of the kind it
gives, is what gpuprof-ingest requires and accepts (a line with every field loads; one without a required
field, or with null in an int field, is rejected naming it); the page's complete small file is
tests/data/wire-example.ndjson, which ingests cleanly with every record its end line counts."""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

import checks
from checks import BIN, ROOT, check

DOC = os.path.join(ROOT, "schemas", "wire-format.md")
EXAMPLE = os.path.join(ROOT, "tests", "data", "wire-example.ndjson")
HEADER = {"type": "header", "v": 3, "session": "wire-doc", "pid": 1, "origin_ns": "1700000000000000000"}
# A valid value of each kind the page names; str fields use id 1, declared up front.
VALUE = {"int": 0, "int?": None, "num?": None, "str": 1, "text": ""}


def doc_types(text):
    """{type: [(field, kind, optional)]} from the page's "### type" sections under "## Batches"."""
    batches = text.split("\n## Batches\n", 1)[1].split("\n## ", 1)[0]
    types = {}
    for sec in batches.split("\n### ")[1:]:
        name, body = sec.split("\n", 1)
        fields = []
        for line in body.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.startswith("| ") or len(cells) < 3 or cells[0] in ("field", "---"):
                continue
            for f in cells[0].split(","):
                fields.append((f.strip(), cells[1], cells[2].startswith("optional")))
        types[name.strip()] = fields
    return types


def ingest(tmp, name, lines):
    path = os.path.join(tmp, name + ".ndjson")
    with open(path, "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    db = os.path.join(tmp, name + ".db")
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", path, "-o", db], capture_output=True, text=True)
    return r, db


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def fields_agree(tmp, types):
    """One file: per type a complete line, then one line per field without it or with null in an int."""
    lines = [HEADER, {"type": "strings", "v": 3, "ids": [1], "values": ["x"]}]
    want = []      # (line, reason) the reader must reject
    for t, fields in types.items():
        full = {f: [VALUE[k]] for f, k, _ in fields}
        lines.append(dict({"type": t, "v": 3, "seq": 0, "n": 1}, **full))
        for f, k, optional in fields:
            if not optional:
                lines.append(dict({"type": t, "v": 3, "seq": 1, "n": 1}, **{g: v for g, v in full.items() if g != f}))
                want.append((len(lines), f'{t} batch: missing field "{f}"'))
            if k == "int":
                lines.append(dict({"type": t, "v": 3, "seq": 1, "n": 1}, **dict(full, **{f: [None]})))
                want.append((len(lines), f'{t} batch: field "{f}" value 0 is not an integer'))
    r, db = ingest(tmp, "fields", lines)
    check("the page's lines load but for the broken ones (exit 3)", r.returncode, 3)
    got = rows(db, "SELECT line, reason FROM ingest_errors ORDER BY line")
    check("rejected: exactly the lines without a field the page requires, or with null in an int field "
          "(rejected but not by the page, by the page but not rejected)",
          (sorted(set(got) - set(want)), sorted(set(want) - set(got))), ([], []))
    check("rejections counted", len(got), len(want))
    for t in types:
        check(f"type {t} known to the reader", [g for g in got if "unknown record type" in g[1]], [])


def example_agrees(tmp, text):
    block = text.split("\n## A complete small file\n", 1)[1].split("```\n", 2)[1]
    with open(EXAMPLE) as f:
        example = f.read()
    check("the page's complete small file is tests/data/wire-example.ndjson", block, example)
    lines = [json.loads(line) for line in example.splitlines()]
    r, db = ingest(tmp, "example", lines)
    check("the example ingests without a word", (r.returncode, r.stderr), (0, ""))
    end = lines[-1]
    types = {}
    with open(os.path.join(ROOT, "lib", "records.c")) as f:
        for wire, table in re.findall(r'\] = \{ "(\w+)", "(\w+)"', f.read()):
            types[wire] = table
    for t, n in sorted(end["totals"].items()):
        check(f"example: {n} {t} record(s) stored", rows(db, f"SELECT count(*) FROM {types[t]}"), [(n,)])
    check("example: ended cleanly, version kept", rows(db, "SELECT clean_end, format_version FROM sessions"),
          [(1, lines[0]["v"])])


def main():
    with open(DOC) as f:
        text = f.read()
    types = doc_types(text)
    check("the page describes the batch types", len(types) >= 14, True)
    with tempfile.TemporaryDirectory(prefix="gpuprof-wiredoc-") as tmp:
        fields_agree(tmp, types)
        example_agrees(tmp, text)
    return checks.summary("wire_doc")


if __name__ == "__main__":
    sys.exit(main())
