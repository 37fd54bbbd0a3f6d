#!/usr/bin/env python3
"""Writes tests/fuzz/seeds-nsys: edit programs of tests/fuzz/fuzz_nsys.c (its header gives the format),
named by table and column and turned into its bytes against each export as fuzz_nsys builds it (tables by
name, columns in declared order). An edit whose table or column an export lacks is left out there. Run
from the source root after changing an export or fuzz_nsys.c's numbers, which these must equal.
  tests/fuzz/nsys-seeds.py"""
import os
import sqlite3

BASES = ["tests/fuzz/nsys-export.sql", "tests/fuzz/nsys-a100-saxpy.sql", "tests/fuzz/nsys-h100-2gpu.sql"]
SHORT = ["export", "a100", "h100"]
OPS = ["SET", "SET_ALL", "ADD", "DELETE", "COPY", "DOUBLE", "DROP_TABLE", "DROP_COLUMN", "RENAME_COLUMN",
       "NEW_TABLE", "STRING_ID"]
KINDS = ["NULL", "SMALL", "EDGE", "INT24", "BIG", "REAL", "TEXT", "RAW", "BLOB"]
COL_NAMES = ["start", "end", "globalPid", "globalTid", "deviceId", "id", "value", "demangledName", "shortName",
             "nameId", "textId", "text", "eventType", "utcEpochNs", "name", "pid", "bytes", "copyKind",
             "domainId", "rangeId"]
TABLE_NAMES = ["StringIds", "TARGET_INFO_GPU", "TARGET_INFO_SESSION_START_TIME", "NVTX_EVENTS", "PROCESSES",
               "META_DATA_EXPORT", "ThreadNames", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
               "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
               "CUDA_GPU_MEMORY_USAGE_EVENTS", "ENUM_CUDA_MEM_KIND", "TARGET_INFO_CUDA_DEVICE", "EXPORT_META_DATA"]
MAX, MIN, MINUS1 = 3, 4, 1		# fuzz_nsys.c's edges[]: INT64_MAX, INT64_MIN, -1
TEXT_12, TEXT_NAN, TEXT_BAD, TEXT_LONG = 3, 9, 14, 19	# its texts[]: "12", "NaN", "\xff\xfe", the long one
K, M, R, N = "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"
S = "StringIds"

# name: [(op, table, row, column, kind, v0, v1, v2)]
PROGRAMS = {
    "unchanged": [],
    # ingest/nsys_check.c's idcache_get computed id + 1: a signed overflow for INT64_MAX
    "kernel-name-max": [("SET", K, 0, "demangledName", "EDGE", MAX, 0, 0)],
    "kernel-name-max-known": [("SET", S, 0, "id", "EDGE", MAX, 0, 0), ("SET", K, 0, "demangledName", "EDGE", MAX, 0, 0),
                              ("SET", K, 1, "demangledName", "EDGE", MAX, 0, 0)],
    "kernel-times": [("SET", K, 0, "end", "NULL", 0, 0, 0), ("SET", K, 1, "start", "TEXT", TEXT_12, 0, 0),
                     ("ADD", K, 2, "end", 20, 0x80, 0, 0), ("SET", K, 3, "start", "REAL", 0, 0, 0)],
    "memcpy": [("SET", M, 0, "bytes", "EDGE", MIN, 0, 0), ("SET", M, 1, "copyKind", "SMALL", 0xfd, 0, 0),
               ("SET_ALL", M, 0, "deviceId", "BIG", 0x12, 0x34, 0x56)],
    "runtime": [("SET", R, 0, "nameId", "INT24", 0x7f, 0xff, 0xff), ("SET", R, 1, "correlationId", "NULL", 0, 0, 0),
                ("STRING_ID", R, 2, "nameId", None, 0, 5, 0)],
    "nvtx": [("SET", N, 0, "text", "NULL", 0, 0, 0), ("SET", N, 0, "textId", "EDGE", MINUS1, 0, 0),
             ("SET", N, 1, "end", "TEXT", TEXT_LONG, 0, 0), ("SET", N, 2, "eventType", "SMALL", 34, 0, 0),
             ("SET", N, 3, "text", "RAW", 0xff, 0, 0x31)],
    "strings": [("DELETE", S, 0, None, None, 0, 0, 0), ("DELETE", S, 1, None, None, 0, 0, 0),
                ("SET", S, 2, "value", "BLOB", 7, 0x41, 0), ("SET", S, 3, "value", "TEXT", TEXT_BAD, 0, 0)],
    "rows": [("DOUBLE", K, 0, None, None, 0, 0, 0), ("DOUBLE", K, 0, None, None, 0, 0, 0),
             ("COPY", M, 0, None, None, 0, 0, 0), ("DELETE", "PROCESSES", 0, None, None, 0, 0, 0)],
    "schema": [("DROP_TABLE", "META_DATA_EXPORT", 0, None, None, 0, 0, 0),
               ("DROP_TABLE", "EXPORT_META_DATA", 0, None, None, 0, 0, 0),
               ("DROP_COLUMN", K, 0, "globalPid", None, 0, 0, 0),
               ("RENAME_COLUMN", K, 0, "demangledName", None, COL_NAMES.index("shortName"), 0, 0),
               ("NEW_TABLE", None, 1, None, TABLE_NAMES.index("TARGET_INFO_GPU"), COL_NAMES.index("deviceId"),
                COL_NAMES.index("id"), COL_NAMES.index("name"))],
    "session": [("SET", "TARGET_INFO_SESSION_START_TIME", 0, "utcEpochNs", "TEXT", TEXT_NAN, 0, 0),
                ("SET", "PROCESSES", 0, "globalPid", "NULL", 0, 0, 0),
                ("SET", "ThreadNames", 0, "nameId", "EDGE", MAX, 0, 0)],
}
# (fuzz_nsys.c reads at most MAX_OPS = 16 ops)
PROGRAMS["values"] = [e for k in ("kernel-times", "memcpy", "runtime", "nvtx") for e in PROGRAMS[k]]
PROGRAMS["shapes"] = [e for k in ("strings", "rows", "schema") for e in PROGRAMS[k]]
assert all(len(p) <= 16 for p in PROGRAMS.values())


def schema(path):
    db = sqlite3.connect(":memory:")
    with open(path, encoding="utf-8") as f:
        db.executescript(f.read())
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return tables, {t: [r[0] for r in db.execute("SELECT name FROM pragma_table_info(?) ORDER BY cid", (t,))]
                    for t in tables}


def encode(edit, tables, cols):
    op, table, row, col, kind, v0, v1, v2 = edit
    if table is not None and table not in tables:
        return None
    ti = tables.index(table) if table is not None else 0
    if col is not None and col not in cols[table]:
        return None
    ci = cols[table].index(col) if col is not None else 0
    k = KINDS.index(kind) if isinstance(kind, str) else (kind or 0)
    return bytes([OPS.index(op), ti, row, ci, k, v0, v1, v2])


def main():
    out = "tests/fuzz/seeds-nsys"
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        os.remove(os.path.join(out, f))
    for b, path in enumerate(BASES):
        tables, cols = schema(path)
        for name, edits in PROGRAMS.items():
            ops = [encode(e, tables, cols) for e in edits]
            ops = [o for o in ops if o is not None]
            if edits and not ops:
                continue
            with open(os.path.join(out, f"{SHORT[b]}-{name}"), "wb") as f:
                f.write(bytes([b]) + b"".join(ops))


if __name__ == "__main__":
    main()
