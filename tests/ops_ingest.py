#!/usr/bin/env python3
"""PyTorch ops as gpuprof-ingest reads them (issue 33, schema version 6), each against what this script
computes from the raw files on its own:
1. every Kineto trace of ../shared/traces/kineto: the rows of ops (count, names, threads, times after the
   base shift, ids, and the Input Dims / Input type / Input Strides / Concrete Inputs args as JSON text,
   Kineto's own spacing), op_links (fwdbwd flows with one "s" and one "f" end), api_calls.external_id, and
   no cpu_op counted in ingest_skipped;
2. the nsys exports that hold emit_nvtx ranges (mfu_2gpu_before, mfu_2gpu_after, h100_2gpu_1s): the ops
   parsed here from NVTX_EVENTS (text, or StringIds through textId) by the producer's format;
3. hand-made inputs for the edges: PyTorch 1.8's "Operator" and "forward_backward", unpaired and repeated
   flow ends (counted as skipped), a late baseTimeNanoseconds, string ids, flops (flop_ops still filled),
   emit_nvtx texts of every form in a gpuprof NDJSON session (serial, -j spool, and combined databases).
Skipped, with the reason printed, when ../shared/traces is absent (the hand-made part still runs)."""
import decimal
import gzip
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections import defaultdict

import checks
from checks import BIN, check, ok

KINETO = os.path.join(checks.TRACES, "kineto")
NSYS = os.path.join(checks.TRACES, "nsys")
NSYS_OPS = ("mfu_2gpu_before", "mfu_2gpu_after", "h100_2gpu_1s")
OP_CATS = ("cpu_op", "Operator")
FLOW_CATS = ("fwdbwd", "forward_backward")
API_CATS = ("cuda_runtime", "Runtime", "cuda_driver")
ARGS = ("Input Dims", "Input type", "Input Strides", "Concrete Inputs")


def ingest(*args):
    return subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", *args], capture_output=True, text=True)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=decimal.Decimal)


def ns(x):
    """Trace microseconds (int or decimal text) to ns, rounded half away from zero as ingest does."""
    return int((decimal.Decimal(x) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def num(v):
    """An integer arg as Kineto writes it (a number, or a numeric string), None when absent or not one."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, decimal.Decimal):
        return int(v)
    if isinstance(v, str) and re.fullmatch(r"-?\d+", v):
        return int(v)
    return None


def tid(e):
    t = e.get("tid")
    if isinstance(t, int):
        return t
    m = re.match(r"(?:stream )?(\d+)", t) if isinstance(t, str) else None
    return int(m.group(1)) if m else 0


def jtext(v):
    """A JSON value as Kineto writes args (", " and ": ")."""
    return json.dumps(v, ensure_ascii=False, default=str)


def kineto_expected(doc):
    """(ops, links, api externals) straight from the trace's JSON."""
    evs = doc if isinstance(doc, list) else doc.get("traceEvents", [])
    base = num(doc.get("baseTimeNanoseconds")) if isinstance(doc, dict) else None
    base = base or 0
    ops, api, ends = [], [], defaultdict(list)
    for e in evs:
        if not isinstance(e, dict) or "name" not in e or "ph" not in e or "ts" not in e:
            continue
        cat, args = e.get("cat"), e.get("args") if isinstance(e.get("args"), dict) else {}
        if e["ph"] == "X" and cat in OP_CATS:
            start = ns(e["ts"]) + base
            end = start + ns(e.get("dur", 0))
            ops.append((tid(e), start, end, e["name"], num(args.get("External id")), num(args.get("Sequence number")),
                        num(args.get("Fwd thread id")), num(args.get("Record function id")),
                        *[args.get(k) for k in ARGS], 1))
        elif e["ph"] == "X" and cat in API_CATS:
            api.append((ns(e["ts"]) + base, num(args.get("External id"))))
        elif e["ph"] in ("s", "f") and cat in FLOW_CATS and num(e.get("id")) is not None:
            ends[(e.get("pid"), cat, num(e["id"]))].append((e["ph"], tid(e), ns(e["ts"]) + base))
    links = []
    for (_, _, i), v in ends.items():
        v.sort()
        if [p for p, _, _ in v] == ["f", "s"]:
            links.append((i, v[1][1], v[1][2], v[0][1], v[0][2]))
    unpaired = defaultdict(int)
    for (_, cat, _), v in ends.items():
        if [p for p, _, _ in v] != ["f", "s"]:
            for p, _, _ in v:
                unpaired[(cat, p)] += 1
    return ops, links, sorted(api, key=repr), dict(unpaired)


def db_ops(con, source):
    """ops rows of source as comparable tuples (the JSON args parsed), and their texts."""
    rows = con.execute(
        "SELECT o.thread_id, o.start_ns, o.end_ns, s.value, o.external_id, o.seq, o.fwd_tid, o.record_function_id, "
        "o.input_dims, o.input_types, o.input_strides, o.concrete_inputs, o.source FROM ops o "
        "JOIN strings s ON s.session_id = o.session_id AND s.id = o.name_id WHERE o.source = ?", (source,)).fetchall()
    parsed = [r[:8] + tuple(None if t is None else json.loads(t, parse_float=decimal.Decimal) for t in r[8:12]) + r[12:]
              for r in rows]
    return parsed, [r[8:12] for r in rows]


def check_kineto(tmp, path):
    name = os.path.basename(path)
    db = os.path.join(tmp, name + ".db")
    r = ingest(path, "-o", db)
    ok(f"{name}: ingests", r.returncode in (0, 3), r.stderr[-500:])
    doc = load(path)
    ops, links, api, unpaired = kineto_expected(doc)
    con = sqlite3.connect(db)
    got, texts = db_ops(con, 1)
    check(f"{name}: ops count", len(got), len(ops))
    check(f"{name}: ops names", sorted(g[3] for g in got), sorted(o[3] for o in ops))
    check(f"{name}: ops rows (thread, times, ids, args, source)", sorted(got, key=repr), sorted(ops, key=repr))
    want_texts = sorted((tuple(None if v is None else jtext(v) for v in o[8:12]) for o in ops), key=repr)
    check(f"{name}: args kept as Kineto's JSON text", sorted(texts, key=repr), want_texts)
    check(f"{name}: one pid for every op", con.execute("SELECT count(DISTINCT pid) FROM ops").fetchone()[0],
          1 if ops else 0)
    check(f"{name}: op_links", sorted(con.execute(
        "SELECT flow_id, fwd_thread_id, fwd_ns, bwd_thread_id, bwd_ns FROM op_links").fetchall()), sorted(links))
    check(f"{name}: api_calls.external_id", sorted(con.execute(
        "SELECT start_ns, external_id FROM api_calls").fetchall(), key=repr), api)
    skipped = {(c, p): n for c, p, n in con.execute("SELECT category, ph, events FROM ingest_skipped")}
    check(f"{name}: no op counted as skipped", [k for k in skipped if k[0] in OP_CATS], [])
    check(f"{name}: unpaired flow ends counted as skipped", {k: v for k, v in skipped.items() if k[0] in FLOW_CATS},
          unpaired)
    if links:
        # Each link's ends are ops with a seq on their threads (the forward op's seq equals the backward's).
        pairs = con.execute(
            "SELECT (SELECT f.seq FROM ops f WHERE f.thread_id = l.fwd_thread_id AND f.start_ns = l.fwd_ns AND "
            "f.seq IS NOT NULL ORDER BY f.end_ns - f.start_ns DESC LIMIT 1), (SELECT b.seq FROM ops b WHERE "
            "b.thread_id = l.bwd_thread_id AND b.start_ns = l.bwd_ns AND b.seq IS NOT NULL ORDER BY "
            "b.end_ns - b.start_ns DESC LIMIT 1) FROM op_links l").fetchall()
        check(f"{name}: every link's ends are ops of one seq", [p for p in pairs if p[0] is None or p[0] != p[1]], [])
    con.close()
    return len(ops), len(links)


def nvtx_tail(rest):
    """The producer's fields after the name (torch/csrc/profiler/util.cpp getNvtxStr), or None."""
    shape = r"\[(?:-?\d+(?:, -?\d+)*)?\]"
    m = re.fullmatch(r"(?:, seq = (-?\d+))?(?:, op_id = (-?\d+))?(?:, sizes = (\[(?:%s(?:, %s)*)?\]))?"
                     r"(?:, input_op_ids = \[(?:\(-?\d+,-?\d+\)(?:, \(-?\d+,-?\d+\))*)?\])?" % (shape, shape), rest)
    if not m or m.group(1) is None and m.group(2) is None and m.group(3) is None:
        return None
    return m


def nvtx_op(text):
    """(name, seq, op_id, sizes) of an emit_nvtx range text, or None: the first split whose rest parses."""
    for i, ch in enumerate(text):
        if ch == "," and i > 0:
            m = nvtx_tail(text[i:])
            if m:
                if m.group(2) is not None and int(m.group(2)) >= 2 ** 63:
                    continue
                return (text[:i], None if m.group(1) is None else int(m.group(1)),
                        None if m.group(2) is None else int(m.group(2)),
                        None if m.group(3) is None else json.loads(m.group(3)))
    return None


def check_nsys(tmp, base):
    path = os.path.join(NSYS, base + ".sqlite")
    db = os.path.join(tmp, base + ".db")
    r = ingest(path, "-o", db)
    check(f"{base}: ingests", (r.returncode, r.stderr), (0, ""))
    src = sqlite3.connect(path)
    tables = {t for (t,) in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    strings = dict(src.execute("SELECT id, value FROM StringIds")) if "StringIds" in tables else {}
    origin = 0
    if "TARGET_INFO_SESSION_START_TIME" in tables:
        origin = src.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0] or 0
    want = []
    for g, s, e, text, text_id in src.execute(
            'SELECT globalTid, start, "end", text, textId FROM NVTX_EVENTS WHERE eventType = 59 AND "end" IS NOT NULL'):
        t = text if text is not None else strings.get(text_id)
        op = nvtx_op(t) if t is not None else None
        if op:
            want.append(((g >> 24) & 0xFFFFFF, g & 0xFFFFFF, origin + s, origin + e, op[0], op[2], op[1], op[3]))
    src.close()
    con = sqlite3.connect(db)
    got = [(p, t, s, e, n, x, q, None if d is None else json.loads(d)) for p, t, s, e, n, x, q, d in con.execute(
        "SELECT o.pid, o.thread_id, o.start_ns, o.end_ns, s.value, o.external_id, o.seq, o.input_dims FROM ops o "
        "JOIN strings s ON s.session_id = o.session_id AND s.id = o.name_id WHERE o.source = 2")]
    check(f"{base}: NVTX ops count", len(got), len(want))
    ok(f"{base}: holds emit_nvtx ops", len(want) > 10000, f"{len(want)}")
    check(f"{base}: NVTX ops rows", sorted(got, key=repr), sorted(want, key=repr))
    check(f"{base}: no Kineto fields on NVTX ops", con.execute(
        "SELECT count(*) FROM ops WHERE fwd_tid IS NOT NULL OR record_function_id IS NOT NULL OR input_types IS NOT "
        "NULL OR input_strides IS NOT NULL OR concrete_inputs IS NOT NULL").fetchone()[0], 0)
    check(f"{base}: the ranges stay", con.execute("SELECT count(*) FROM ranges").fetchone()[0] >= len(want), True)
    con.close()
    return len(want)


# A hand-made Kineto trace in PyTorch 1.8's layout ("Operator", "forward_backward"), with the edges.
HAND = {
    "schemaVersion": 1,
    "traceEvents": [
        {"ph": "X", "cat": "Operator", "name": "aten::linear", "pid": 7, "tid": 7, "ts": 100, "dur": 50,
         "args": {"External id": 1, "Sequence number": 4, "Fwd thread id": 0, "Input Dims": [[8, 16], [32, 16], [32]],
                  "Input type": ["float", "float", "float"]}},
        {"ph": "X", "cat": "Operator", "name": "aten::addmm", "pid": 7, "tid": 7, "ts": 110, "dur": 30.5,
         "args": {"External id": "2", "Record function id": 9, "flops": 8192, "Input Dims": [[32], [8, 16], [16, 32]],
                  "Input type": ["float", "float", "float"], "Input Strides": [[1], [16, 1], [1, 16]],
                  "Concrete Inputs": ["", "", "", "1", "1"]}},
        {"ph": "X", "cat": "Operator", "name": "aten::empty", "pid": 7, "tid": 7, "ts": 101},
        {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 120, "dur": 5,
         "args": {"correlation": 11, "External id": 2}},
        {"ph": "X", "cat": "Runtime", "name": "cudaMalloc", "pid": 7, "tid": 7, "ts": 200, "dur": 5,
         "args": {"correlation": 12}},
        {"ph": "X", "cat": "Kernel", "name": "sgemm", "pid": 0, "tid": "stream 7", "ts": 130, "dur": 9,
         "args": {"correlation": 11, "device": 0, "stream": 7}},
        {"ph": "X", "cat": "Operator", "name": "AddmmBackward", "pid": 7, "tid": 9, "ts": 300, "dur": 20,
         "args": {"External id": 3, "Sequence number": 4, "Fwd thread id": 1, "Concrete Inputs": ["a\"b\\\u00e9"]}},
        {"ph": "f", "id": 1, "pid": 7, "tid": 9, "ts": 300, "cat": "forward_backward", "name": "fwd_bwd", "bp": "e"},
        {"ph": "s", "id": 1, "pid": 7, "tid": 7, "ts": 100, "cat": "forward_backward", "name": "fwd_bwd"},
        {"ph": "s", "id": 2, "pid": 7, "tid": 7, "ts": 110, "cat": "forward_backward", "name": "fwd_bwd"},
        {"ph": "s", "id": 3, "pid": 7, "tid": 7, "ts": 111, "cat": "fwdbwd", "name": "fwdbwd"},
        {"ph": "s", "id": 3, "pid": 7, "tid": 7, "ts": 112, "cat": "fwdbwd", "name": "fwdbwd"},
        {"ph": "f", "id": 3, "pid": 7, "tid": 9, "ts": 305, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
        {"ph": "s", "id": 4, "pid": 7, "tid": 7, "cat": "fwdbwd", "name": "fwdbwd"},
    ],
    "baseTimeNanoseconds": 1700000000000000000,
}


def hand_kineto(tmp):
    path = os.path.join(tmp, "hand.json")
    with open(path, "w") as f:
        json.dump(HAND, f)
    db = os.path.join(tmp, "hand.db")
    r = ingest(path, "-o", db)
    check("hand: exit", (r.returncode, r.stderr), (0, ""))
    con = sqlite3.connect(db)
    q = lambda sql: con.execute(sql).fetchall()
    b = 1700000000000000000  # the base comes after the events: applied at the end, to ops and links too
    check("hand: ops", q("SELECT thread_id, start_ns - %d, end_ns - %d, external_id, seq, fwd_tid, record_function_id, "
                         "input_dims, input_types, input_strides, concrete_inputs, source FROM op_events ORDER BY start_ns"
                         % (b, b)),
          [(7, 100000, 150000, 1, 4, 0, None, "[[8, 16], [32, 16], [32]]", '["float", "float", "float"]', None, None, "kineto"),
           (7, 101000, 101000, None, None, None, None, None, None, None, None, "kineto"),
           (7, 110000, 140500, 2, None, None, 9, "[[32], [8, 16], [16, 32]]", '["float", "float", "float"]',
            "[[1], [16, 1], [1, 16]]", '["", "", "", "1", "1"]', "kineto"),
           (9, 300000, 320000, 3, 4, 1, None, None, None, None, '["a\\"b\\\\\u00e9"]', "kineto")])
    check("hand: names", q("SELECT name FROM op_events ORDER BY start_ns"),
          [("aten::linear",), ("aten::empty",), ("aten::addmm",), ("AddmmBackward",)])
    check("hand: flop_ops still filled", q("SELECT start_ns - %d, flops, external_id FROM flop_ops" % b), [(110000, 8192, 2)])
    check("hand: links (forward_backward; a repeated end is none)",
          q("SELECT flow_id, fwd_thread_id, fwd_ns - %d, bwd_thread_id, bwd_ns - %d FROM op_links" % (b, b)),
          [(1, 7, 100000, 9, 300000)])
    check("hand: unpaired and repeated flow ends counted as skipped",
          q("SELECT category, ph, events FROM ingest_skipped WHERE category IN ('fwdbwd', 'forward_backward') "
            "ORDER BY 1, 2"),
          [("forward_backward", "s", 1), ("fwdbwd", "f", 1), ("fwdbwd", "s", 3)])
    check("hand: no Operator skipped", q("SELECT count(*) FROM ingest_skipped WHERE category = 'Operator'"), [(0,)])
    check("hand: api_calls.external_id", q("SELECT correlation_id, external_id FROM api_calls ORDER BY 1"),
          [(11, 2), (12, None)])
    con.close()
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), path, "-o", os.path.join(tmp, "hand2.db")],
                       capture_output=True, text=True)
    ok("hand: the closing line counts ops and links", "4 ops, 1 forward-backward links" in r.stderr, r.stderr)
    return db


def ndjson_session(tmp):
    """A gpuprof session whose NVTX ranges include emit_nvtx texts of every form."""
    texts = ["iteration",  # 1: a plain range
             "aten::linear, seq = 4, op_id = 10, sizes = [[8, 16], [32, 16], [32]], input_op_ids = [(3,0), (4,0)]",
             "aten::addmm, op_id = 11, sizes = [[32], [8, 16], [16, 32], [], []]",
             "aten::relu, seq = 5",  # 4: 1.x, no op_id
             "aten::empty, op_id = 12",  # 5: also a start/end range (kind 2): not an op
             "aten::view, op_id = 13",  # 6: never ended: not an op
             "aten::x, op_id = 1 2"]  # 7: not the producer's
    ranges = [(1, 1000, 90000, 1), (2, 2000, 9000, 1), (3, 2500, 8000, 1), (4, 10000, 11000, 1), (5, 12000, 13000, 2),
              (6, 14000, None, 1), (7, 15000, 16000, 1)]
    lines = [
        {"type": "header", "v": 3, "session": "ops-ndjson", "pid": 4242, "origin_ns": "1763822038000000000"},
        {"type": "strings", "v": 3, "ids": list(range(1, len(texts) + 1)), "values": texts},
        {"type": "range", "v": 3, "seq": 0, "n": len(ranges), "start": [r[1] for r in ranges],
         "end": [r[2] for r in ranges], "thread": [4242] * len(ranges), "name": [r[0] for r in ranges],
         "domain": [0] * len(ranges), "kind": [r[3] for r in ranges], "depth": [0 if r[3] == 1 else None for r in ranges],
         "id": list(range(1, len(ranges) + 1))},
        {"type": "end", "v": 3, "ts": 100000, "totals": {"range": len(ranges)}, "batches": {"range": 1}},
    ]
    path = os.path.join(tmp, "ops.ndjson")
    with open(path, "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    want = []
    for name_id, s, e, kind in ranges:
        op = nvtx_op(texts[name_id - 1])
        if op and kind == 1 and e is not None:
            want.append((4242, 1763822038000000000 + s, 1763822038000000000 + e, op[0], op[2], op[1],
                         None if op[3] is None else json.dumps(op[3])))
    return path, want


def hand_ndjson(tmp, kineto_db):
    path, want = ndjson_session(tmp)
    check("ndjson: the expected ops are the three emit_nvtx ranges", [w[3] for w in want],
          ["aten::linear", "aten::addmm", "aten::relu"])
    sql = ("SELECT thread_id, start_ns, end_ns, name, external_id, seq, input_dims FROM op_events WHERE source = 'nvtx' "
           "ORDER BY start_ns")
    for how, args in (("serial", [path]), ("-j 2 (spooled, replayed)", ["-j", "2", path, os.path.join(tmp, "hand.json")])):
        db = os.path.join(tmp, "nd-%d.db" % len(args))
        args = args + ["-o", db]
        r = ingest(*args)
        check(f"ndjson {how}: exit", (r.returncode, r.stderr), (0, ""))
        con = sqlite3.connect(db)
        check(f"ndjson {how}: ops from the emit_nvtx ranges", con.execute(sql).fetchall(), want)
        check(f"ndjson {how}: every range kept", con.execute(
            "SELECT count(*) FROM ranges r JOIN sessions s ON s.id = r.session_id WHERE s.uuid = 'ops-ndjson'").fetchone(),
              (7,))
        if len(args) > 3 + 2:
            check(f"ndjson {how}: the Kineto input's ops too", con.execute(
                "SELECT count(*) FROM ops WHERE source = 1").fetchone(), (4,))
        con.close()
    # Combining databases (the gpuprof reader) carries ops and op_links, names remapped.
    combined = os.path.join(tmp, "combined.db")
    r = ingest(os.path.join(tmp, "nd-1.db"), kineto_db, "-o", combined)
    check("combine: exit", (r.returncode, r.stderr), (0, ""))
    con = sqlite3.connect(combined)
    allsql = ("SELECT x.uuid, o.thread_id, o.start_ns, o.end_ns, o.name, o.external_id, o.seq, o.fwd_tid, "
              "o.record_function_id, o.input_dims, o.input_types, o.input_strides, o.concrete_inputs, o.source "
              "FROM op_events o JOIN sessions x ON x.id = o.session_id ORDER BY 1, 3, 5")
    got = con.execute(allsql).fetchall()
    links = con.execute("SELECT x.uuid, flow_id, fwd_thread_id, fwd_ns, bwd_thread_id, bwd_ns FROM op_links l "
                        "JOIN sessions x ON x.id = l.session_id").fetchall()
    con.close()
    want_rows, want_links = [], []
    for src in (os.path.join(tmp, "nd-1.db"), kineto_db):
        c = sqlite3.connect(src)
        want_rows += c.execute(allsql).fetchall()
        want_links += c.execute("SELECT x.uuid, flow_id, fwd_thread_id, fwd_ns, bwd_thread_id, bwd_ns FROM op_links l "
                                "JOIN sessions x ON x.id = l.session_id").fetchall()
        c.close()
    check("combine: ops", got, sorted(want_rows))
    check("combine: op_links", sorted(links), sorted(want_links))
    ok("combine: has both sources", {r[-1] for r in got} == {"kineto", "nvtx"}, str({r[-1] for r in got}))


def repeated_texts(tmp):
    """emit_nvtx texts are kept out of the sink's string map (one per call: millions); one declared twice, by
    two ids of a file and by a second process of the session, is still one string of the session."""
    lines = lambda pid: [
        {"type": "header", "v": 3, "session": "ops-repeat", "pid": pid, "origin_ns": "1763822038000000000"},
        {"type": "strings", "v": 3, "ids": [1, 2, 3], "values": ["aten::mm, op_id = 5", "aten::mm, op_id = 5", "x"]},
        {"type": "range", "v": 3, "seq": 0, "n": 3, "start": [10, 20, 30], "end": [15, 25, 35], "thread": [1, 1, 1],
         "name": [1, 2, 3], "domain": [0, 0, 0], "kind": [1, 1, 1], "depth": [0, 0, 0], "id": [1, 2, 3]},
        {"type": "end", "v": 3, "ts": 100, "totals": {"range": 3}, "batches": {"range": 1}}]
    paths = []
    for pid in (1, 2):
        paths.append(os.path.join(tmp, f"repeat-{pid}.ndjson"))
        with open(paths[-1], "w") as f:
            f.write("".join(json.dumps(line) + "\n" for line in lines(pid)))
    for how, extra in (("-j 1", ["-j", "1"]), ("-j 2", ["-j", "2"])):
        db = os.path.join(tmp, f"repeat{extra[1]}.db")
        r = ingest(*extra, *paths, "-o", db)
        check(f"repeated texts {how}: exit", (r.returncode, r.stderr), (0, ""))
        con = sqlite3.connect(db)
        check(f"repeated texts {how}: one string", con.execute(
            "SELECT count(*) FROM strings WHERE value = 'aten::mm, op_id = 5'").fetchone(), (1,))
        check(f"repeated texts {how}: every range names it", con.execute(
            "SELECT count(DISTINCT r.name_id), count(*) FROM ranges r JOIN strings s ON s.session_id = r.session_id "
            "AND s.id = r.name_id WHERE s.value = 'aten::mm, op_id = 5'").fetchone(), (1, 4))
        check(f"repeated texts {how}: an op each", con.execute(
            "SELECT pid, name, external_id, count(*) FROM op_events GROUP BY 1, 2, 3").fetchall(),
              [(1, "aten::mm", 5, 2), (2, "aten::mm", 5, 2)])
        check(f"repeated texts {how}: string ids without gaps", con.execute(
            "SELECT max(id) + 1 - min(id) = count(*) FROM strings").fetchone(), (1,))
        con.close()


def synth_ops(tmp):
    """gpuprof-synth --ops: the ops ingest reads from its emit_nvtx ranges equal the synth's own bookkeeping
    (expected.json "ops"): per name the count and summed duration, and the kernels launched (their launch
    call on the op's thread inside it) inside each op and inside its innermost op; the launches outside any
    op; the backward ops (autograd's thread) whose seq a forward op has."""
    d = os.path.join(tmp, "synth-ops")
    r = subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "6000", "--seed", "11", "--ops", "-o", d],
                       capture_output=True, text=True)
    check("synth --ops: exit", (r.returncode, r.stderr), (0, ""))
    exp = json.load(open(os.path.join(d, "expected.json")))["ops"]
    db = os.path.join(tmp, "synth-ops.db")
    r = ingest(d, "-o", db)
    check("synth --ops: ingests", (r.returncode, r.stderr), (0, ""))
    con = sqlite3.connect(db)
    ops = con.execute("SELECT rowid, pid, thread_id, start_ns, end_ns, name, seq FROM op_events").fetchall()
    calls = con.execute("SELECT a.pid, a.thread_id, a.start_ns, a.end_ns, k.end_ns - k.start_ns FROM api_calls a "
                        "JOIN kernels k ON k.pid = a.pid AND k.correlation_id = a.correlation_id").fetchall()
    con.close()
    by_thread = defaultdict(list)
    for o in ops:
        by_thread[(o[1], o[2])].append(o)
    stats = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    for o in ops:
        stats[o[5]][0] += 1
        stats[o[5]][1] += o[4] - o[3]
    outside = 0
    for pid, thread, s, e, dur in calls:
        around = [o for o in by_thread[(pid, thread)] if o[3] <= s and e <= o[4]]
        if not around:
            outside += 1
            continue
        inner = min(around, key=lambda o: (o[4] - o[3], -o[3]))
        for o in around:
            stats[o[5]][2] += 1
            stats[o[5]][3] += dur
        stats[inner[5]][4] += 1
        stats[inner[5]][5] += dur
    got = [{"name": n, "count": v[0], "total_ns": v[1], "kernels": v[2], "kernel_ns": v[3], "self_kernels": v[4],
            "self_kernel_ns": v[5]} for n, v in stats.items()]
    check("synth --ops: ops by name", sorted(got, key=lambda x: x["name"]), sorted(exp["by_name"], key=lambda x: x["name"]))
    check("synth --ops: ops in all", len(ops), exp["count"])
    check("synth --ops: launches outside any op", outside, exp["launches_outside_ops"])
    fwd = {o[6] for o in ops if o[6] is not None and o[2] == exp["forward_thread"]}
    check("synth --ops: backward ops with a forward op's seq", sum(
        1 for o in ops if o[6] is not None and o[2] == exp["backward_thread"] and o[6] in fwd),
          exp["forward_backward_pairs"])
    ok("synth --ops: both threads have ops", {o[2] for o in ops} == {exp["forward_thread"], exp["backward_thread"]},
       str({o[2] for o in ops}))


def main():
    tmp = tempfile.mkdtemp(prefix="gpuprof-ops-")
    try:
        kineto_db = hand_kineto(tmp)
        hand_ndjson(tmp, kineto_db)
        synth_ops(tmp)
        repeated_texts(tmp)
        if not os.path.isdir(KINETO) or not os.path.isdir(NSYS):
            print("ops_ingest: real traces skipped: ../shared/traces not found")
        else:
            total_ops = total_links = 0
            for f in sorted(os.listdir(KINETO)):
                if f.endswith((".json", ".json.gz")):
                    n, l = check_kineto(tmp, os.path.join(KINETO, f))
                    total_ops += n
                    total_links += l
            ok("kineto: ops and links were read at all", total_ops > 100000 and total_links > 1000,
               f"{total_ops} ops, {total_links} links")
            for base in NSYS_OPS:
                check_nsys(tmp, base)
            # -j: each input read by a process of its own into a spool, replayed here; the export's second
            # process refers to strings the first interned (its range texts come from the database).
            db = os.path.join(tmp, "nsys-j.db")
            r = ingest("-j", "2", os.path.join(NSYS, NSYS_OPS[2] + ".sqlite"), os.path.join(tmp, "hand.json"), "-o", db)
            check("nsys -j 2: exit", (r.returncode, r.stderr), (0, ""))
            con, ref = sqlite3.connect(db), sqlite3.connect(os.path.join(tmp, NSYS_OPS[2] + ".db"))
            sql = ("SELECT o.pid, o.thread_id, o.start_ns, o.end_ns, o.name, o.external_id, o.seq, o.input_dims "
                   "FROM op_events o WHERE o.source = 'nvtx' ORDER BY 1, 2, 3, 5")
            check("nsys -j 2: the ops of the serial ingest", con.execute(sql).fetchall(), ref.execute(sql).fetchall())
            con.close()
            ref.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("ops_ingest")


if __name__ == "__main__":
    sys.exit(main())
