#!/usr/bin/env python3
"""A real Nsight Systems export cut down to a fuzz base: every table that holds rows, and its indexes, as
the exporter made them (empty ones, dozens in an export, would only cost each input the parsing of their
schema; so are the ENUM_ tables the reader does not read), the first ROWS rows of each table (by rowid; tables of at most 2*ROWS rows whole), and of StringIds only the
ids some kept row holds in an integer column. Written as SQL text (sqlite3's dump, page size 1024), which
tests/fuzz/fuzz_nsys.c builds in memory once and each input then edits.
  tests/fuzz/nsys-trim.py EXPORT.sqlite OUT.sql ORIGIN [ROWS]
ORIGIN (where the export comes from, and its licence) heads the file."""
import sqlite3
import sys

READ_ENUMS = ("ENUM_CUDA_MEM_KIND", "ENUM_CUPTI_OVERHEAD_TYPE")	# those ingest/nsys*.c reads


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    src, out, origin = sys.argv[1:4]
    rows = int(sys.argv[4]) if len(sys.argv) == 5 else 6
    db = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    mem = sqlite3.connect(":memory:")
    mem.execute("PRAGMA page_size = 1024")
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                       "AND name NOT LIKE 'sqlite_%' ORDER BY rowid")]
    ids = set()
    tables = [t for t in tables if db.execute(f'SELECT EXISTS (SELECT 1 FROM "{t}")').fetchone()[0]
              and (not t.startswith("ENUM_") or t in READ_ENUMS)]
    for t in tables:
        mem.execute(db.execute("SELECT sql FROM sqlite_master WHERE name = ?", (t,)).fetchone()[0])
    for t in tables:
        if t == "StringIds":
            continue
        n = db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
        limit = n if n <= 2 * rows else rows
        cur = db.execute(f'SELECT * FROM "{t}" ORDER BY rowid LIMIT ?', (limit,))
        width = len(cur.description)
        for r in cur:
            mem.execute(f'INSERT INTO "{t}" VALUES ({", ".join("?" * width)})', r)
            ids.update(v for v in r if isinstance(v, int))
    if "StringIds" in tables:
        for r in db.execute("SELECT * FROM StringIds ORDER BY rowid"):
            if r[0] in ids:
                mem.execute(f'INSERT INTO StringIds VALUES ({", ".join("?" * len(r))})', r)
    for t, sql in db.execute("SELECT tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
                             "ORDER BY rowid"):
        if t in tables:
            mem.execute(sql)
    mem.commit()
    with open(out, "w", encoding="utf-8") as f:
        f.write(f"-- {origin}\n-- Cut down by tests/fuzz/nsys-trim.py ({rows} rows a table): "
                "tests/fuzz/fuzz_nsys.c builds it in memory and edits it.\nPRAGMA page_size = 1024;\n")
        for line in mem.iterdump():
            f.write(line + "\n")


if __name__ == "__main__":
    main()
