#!/usr/bin/env python3
"""gpuprof-analyze ops (issue 33) against the ops table computed here straight from the raw Kineto JSON with
the standard library, following the definitions as the issue writes them (README "Operators"):
nesting by containment per (pid, tid) (sorted by start, longest first, then External id), calls to the
innermost op holding their start, GPU events to the call with their correlation id; FLOPs as
torch.utils.flop_counter counts them. On the shared real traces (skipped, with the reason printed, when
../shared/traces is absent) and on hand-made edge cases. The op_nest window function is also held equal to
the plain SQL it stands for, and so is op_tree (analyze/ext/sqlext_ops.c's header)."""
import bisect
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
from checks import BIN, check, close, ok

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXT = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "lib", "gpuprof_sqlite.so")
KINETO = os.path.join(checks.TRACES, "kineto")
OPS = {"cpu_op", "Operator"}
CALLS = {"cuda_runtime", "cuda_driver", "Runtime"}
GPU = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
KERNEL = {"kernel", "Kernel"}

# The contract's DDL (notes: ops-contract.md), used only while the database lacks it (ingest not merged).
DDL = """
CREATE TABLE IF NOT EXISTS ops (session_id INTEGER NOT NULL, pid INTEGER NOT NULL, thread_id INTEGER,
 start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, name_id INTEGER NOT NULL, external_id INTEGER, seq INTEGER,
 fwd_tid INTEGER, record_function_id INTEGER, input_dims TEXT, input_types TEXT, input_strides TEXT,
 concrete_inputs TEXT, source INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS op_links (session_id INTEGER NOT NULL, pid INTEGER NOT NULL, flow_id INTEGER NOT NULL,
 fwd_thread_id INTEGER, fwd_ns INTEGER NOT NULL, bwd_thread_id INTEGER, bwd_ns INTEGER NOT NULL);
"""


def ns(x):
    return int((decimal.Decimal(str(x)) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def events(doc):
    return doc if isinstance(doc, list) else doc.get("traceEvents", [])


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f, parse_float=decimal.Decimal)	# exact: ts can carry nanoseconds


def base_of(doc):
    return int(doc.get("baseTimeNanoseconds", 0)) if isinstance(doc, dict) else 0


def fill_ops(db, doc):
    """The ops the ingest would write, per the contract, where the database has no ops table yet."""
    c = sqlite3.connect(db)
    has = c.execute("SELECT count(*) FROM sqlite_master WHERE name = 'ops'").fetchone()[0]
    if has:
        c.close()
        return False
    c.executescript(DDL)
    c.execute("ALTER TABLE api_calls ADD COLUMN external_id INTEGER")
    base = base_of(doc)
    sid = c.execute("SELECT max(id) FROM sessions").fetchone()[0]
    # a Kineto trace is one process, numbered as the ingest numbers its calls (its rank, else 0)
    pid = c.execute("SELECT min(pid) FROM processes WHERE session_id = ?", (sid,)).fetchone()[0]
    c.execute("CREATE INDEX IF NOT EXISTS ops_test_corr ON api_calls(correlation_id)")
    js = lambda v: None if v is None else json.dumps(v)
    for e in events(doc):
        a = e.get("args") or {}
        if e.get("ph") == "X" and e.get("cat") in OPS:
            s = base + ns(e["ts"])
            c.execute("INSERT OR IGNORE INTO strings(session_id, id, value) VALUES (?, "
                      "(SELECT coalesce(max(id), 0) + 1 FROM strings WHERE session_id = ?), ?)", (sid, sid, e["name"]))
            nid = c.execute("SELECT id FROM strings WHERE session_id = ? AND value = ?", (sid, e["name"])).fetchone()[0]
            c.execute("INSERT INTO ops VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,1)",
                      (sid, pid, e["tid"], s, s + ns(e["dur"]), nid, a.get("External id"), a.get("Sequence number"),
                       a.get("Fwd thread id"), a.get("Record function id"), js(a.get("Input Dims")),
                       js(a.get("Input type")), js(a.get("Input Strides")), js(a.get("Concrete Inputs"))))
    flows = defaultdict(dict)
    for e in events(doc):
        if e.get("cat") in ("fwdbwd", "forward_backward") and e.get("ph") in ("s", "f"):
            flows[(e["pid"], e["id"])][e["ph"]] = e
    for (pid0, fid), f in flows.items():
        pid0 = pid
        if "s" in f and "f" in f:
            c.execute("INSERT INTO op_links VALUES (?,?,?,?,?,?,?)", (sid, pid0, fid, f["s"]["tid"],
                      base + ns(f["s"]["ts"]), f["f"]["tid"], base + ns(f["f"]["ts"])))
    for e in events(doc):
        a = e.get("args") or {}
        if e.get("ph") == "X" and e.get("cat") in CALLS and "External id" in a and "correlation" in a:
            c.execute("UPDATE api_calls SET external_id = ? WHERE session_id = ? AND correlation_id = ? AND start_ns = ?",
                      (a["External id"], sid, a["correlation"], base + ns(e["ts"])))
    c.execute("DROP INDEX ops_test_corr")
    c.commit()
    c.close()
    return True


def peaks():
    """analyze/gpu-peaks.rules read here: torch type -> dtype, [(model, pattern)], (model, dtype) -> TFLOP/s."""
    types, gpus, peak = {}, [], {}
    with open(os.path.join(ROOT, "analyze", "gpu-peaks.rules")) as f:
        for line in f:
            w = line.split(None, 2)
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "type":
                types[w[2].strip()] = w[1]
            elif w[0] == "gpu":
                gpus.append((w[1], w[2].strip()))
            elif w[0] == "peak":
                m, rest = w[1], w[2].split(None, 2)
                peak[(m, rest[0])] = float(rest[1])
    return types, gpus, peak


# ---- FLOPs, as torch/utils/flop_counter.py counts them (causal attention halved, as the issue asks) ----

def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def concrete_list(c, i):
    try:
        s = c[i]
    except (IndexError, TypeError):
        return None
    if not isinstance(s, str) or not s:
        return None
    v = json.loads(s if s.startswith("[") else "[" + s + "]")
    return v


def conv_flops(dims, conc, st, pd, dl, tr):
    x, w = dims[0], dims[1]
    if tr is None:
        transposed = False
    elif tr is True:
        transposed = True
    else:
        v = conc[tr] if conc and tr < len(conc) else None
        if v not in ("True", "False"):
            return None
        transposed = v == "True"
    if transposed:
        spatial = x[2:]
    else:
        s, p, d = concrete_list(conc, st), concrete_list(conc, pd), concrete_list(conc, dl)
        if s is None or p is None or d is None:
            return None
        g = lambda l, i: l[0] if len(l) == 1 else l[i]
        spatial = [(x[i + 2] + 2 * g(p, i) - g(d, i) * (w[i + 2] - 1) - 1) // g(s, i) + 1 for i in range(len(x) - 2)]
    c_out, c_in, *k = w
    return 2 * x[0] * prod(spatial) * c_out * c_in * prod(k)


def sdpa(dims, conc, qi, ci, backward):
    q, k, v = dims[qi], dims[qi + 1], dims[qi + 2]
    b, h, sq, dq = q
    sk, dv = k[2], v[3]
    f = 2 * b * h * sq * dq * sk + 2 * b * h * sq * sk * dv
    if backward:
        # flop_counter's five products: q@k^T, gO@v^T, scores^T@gO, gS@k, q^T@gS
        f = 2 * b * h * (sq * dq * sk + sq * dv * sk + sk * sq * dv + sq * sk * dq + dq * sq * sk)
    if conc and ci < len(conc) and conc[ci] == "True":
        f //= 2
    return f


FORMULAS = {
    "aten::mm": lambda d, c: 2 * d[0][0] * d[1][1] * d[0][1],
    "aten::addmm": lambda d, c: 2 * d[1][0] * d[2][1] * d[1][1],
    "aten::bmm": lambda d, c: 2 * d[0][0] * d[0][1] * d[1][2] * d[0][2],
    "aten::baddbmm": lambda d, c: 2 * d[1][0] * d[1][1] * d[2][2] * d[1][2],
    "aten::convolution": lambda d, c: conv_flops(d, c, 3, 4, 5, 6),
    "aten::_convolution": lambda d, c: conv_flops(d, c, 3, 4, 5, 6),
    "aten::cudnn_convolution": lambda d, c: conv_flops(d, c, 3, 2, 4, None),
    "aten::cudnn_convolution_transpose": lambda d, c: conv_flops(d, c, 4, 2, 5, True),
    "aten::miopen_convolution": lambda d, c: conv_flops(d, c, 4, 3, 5, None),
    "aten::_scaled_dot_product_efficient_attention": lambda d, c: sdpa(d, c, 0, 6, False),
    "aten::_scaled_dot_product_flash_attention": lambda d, c: sdpa(d, c, 0, 4, False),
    "aten::_scaled_dot_product_cudnn_attention": lambda d, c: sdpa(d, c, 0, 6, False),
    "aten::_scaled_dot_product_efficient_attention_backward": lambda d, c: sdpa(d, c, 1, 11, True),
    "aten::_scaled_dot_product_flash_attention_backward": lambda d, c: sdpa(d, c, 1, 11, True),
    "aten::_scaled_dot_product_cudnn_attention_backward": lambda d, c: sdpa(d, c, 1, 14, True),
}


def flops_of(name, dims, conc):
    f = FORMULAS.get(name)
    if f is None or dims is None:
        return None
    try:
        return f(dims, conc)
    except (IndexError, TypeError, ValueError):
        return None


# ---- the ops table, computed here ----

def kineto_records(doc):
    """(ops, calls, gpu, models, links) of a Kineto trace: calls and GPU events keyed by correlation id (one
    process per trace)."""
    base = base_of(doc)
    _, gpus, _ = peaks()
    dev_names = {d.get("id"): d.get("name") for d in (doc.get("deviceProperties") or [])} if isinstance(doc, dict) else {}
    model = {i: next((m for m, pat in gpus if n and re.search(pat, n)), None) for i, n in dev_names.items()}
    ops, calls, gpu = [], [], []
    for order, e in enumerate(events(doc)):
        if e.get("ph") != "X" or "dur" not in e:
            continue
        a, cat = e.get("args") or {}, e.get("cat")
        s = base + ns(e["ts"])
        t = s + ns(e["dur"])
        if cat in OPS:
            ops.append(dict(i=len(ops), name=e["name"], pid=e["pid"], tid=e["tid"], s=s, e=t, ext=a.get("External id") or 0,
                            seq=a.get("Sequence number"), fwd_tid=a.get("Fwd thread id"), dims=a.get("Input Dims"),
                            types=a.get("Input type"), conc=a.get("Concrete Inputs"), parent=None, kids=[]))
        elif cat in CALLS and "correlation" in a:
            calls.append((e["pid"], e["tid"], s, a["correlation"], a.get("External id"), order))
        elif cat in GPU:
            gpu.append((a.get("correlation"), s, t, cat in KERNEL, model.get(a.get("device"))))
    flows = defaultdict(dict)
    for e in events(doc):
        if e.get("cat") in ("fwdbwd", "forward_backward") and e.get("ph") in ("s", "f"):
            flows[(e["pid"], e["id"])][e["ph"]] = e
    links = [((f["s"]["pid"], f["s"]["tid"], base + ns(f["s"]["ts"])), (f["f"]["pid"], f["f"]["tid"], base + ns(f["f"]["ts"])))
             for f in flows.values() if "s" in f and "f" in f]
    return ops, calls, gpu, links


NVTX_OP = re.compile(r"^(.*?)(?:, seq = (\d+))?(?:, op_id = (\d+))(?:, sizes = (\[.*?\]))?(?:, input_op_ids = .*)?$")


def nsys_records(path):
    """(ops, calls, gpu, links) of an Nsight Systems export: emit_nvtx push/pop ranges as ops, calls and GPU
    events keyed by (pid, correlation id)."""
    src = sqlite3.connect(path)
    tables = {t for (t,) in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    strings = dict(src.execute("SELECT id, value FROM StringIds"))
    origin = 0
    if "TARGET_INFO_SESSION_START_TIME" in tables:
        origin = src.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0] or 0
    ops, calls, gpu = [], [], []
    for g, s, e, text, tid_ in src.execute('SELECT globalTid, start, "end", text, textId FROM NVTX_EVENTS '
                                           'WHERE eventType = 59 AND "end" IS NOT NULL ORDER BY rowid'):
        t = text if text is not None else strings.get(tid_)
        m = NVTX_OP.match(t or "")
        if not m:
            continue
        dims = json.loads(m.group(4).replace("(", "[").replace(")", "]")) if m.group(4) else None
        ops.append(dict(i=len(ops), name=m.group(1), pid=(g >> 24) & 0xFFFFFF, tid=g & 0xFFFFFF, s=origin + s,
                        e=origin + e, ext=int(m.group(3)), seq=int(m.group(2)) if m.group(2) else None, fwd_tid=None,
                        dims=dims, types=None, conc=None, parent=None, kids=[]))
    for order, (g, s, corr) in enumerate(src.execute("SELECT globalTid, start, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                                                     "ORDER BY rowid")):
        calls.append(((g >> 24) & 0xFFFFFF, g & 0xFFFFFF, origin + s, ((g >> 24) & 0xFFFFFF, corr), None, order))
    for tbl, kern in (("CUPTI_ACTIVITY_KIND_KERNEL", True), ("CUPTI_ACTIVITY_KIND_MEMCPY", False),
                      ("CUPTI_ACTIVITY_KIND_MEMSET", False)):
        for g, s, e, corr in src.execute(f'SELECT globalPid, start, "end", correlationId FROM {tbl}'):
            gpu.append((((g >> 24) & 0xFFFFFF, corr), origin + s, origin + e, kern, None))
    src.close()
    return ops, calls, gpu, []


def expected(doc, by_shape=False, fold=False, records=None):
    ops, calls, gpu, links = records or kineto_records(doc)
    types, gpus, peak = peaks()
    # nesting: per thread, the latest earlier op (in sort order) that contains it
    by_thread = defaultdict(list)
    for o in ops:
        by_thread[(o["pid"], o["tid"])].append(o)
    starts, tops = {}, {}
    for k, lst in by_thread.items():
        lst.sort(key=lambda o: (o["s"], -o["e"], o["ext"], o["i"]))
        top = []	# top[j]: the latest end among lst[:j + 1] (no earlier op can contain what ends after it)
        for o in lst:
            top.append(max(top[-1], o["e"]) if top else o["e"])
        for j, o in enumerate(lst):
            x = j - 1
            while x >= 0 and top[x] >= o["e"]:
                p = lst[x]
                if p["s"] <= o["s"] and p["e"] >= o["e"]:
                    o["parent"] = p["i"]
                    ops[p["i"]]["kids"].append(o["i"])
                    break
                x -= 1
        starts[k] = [o["s"] for o in lst]
        tops[k] = top
    # calls: the latest op (sort order) on the thread that holds the call's start
    first_call = {}
    disagree = 0
    ext_ops = defaultdict(set)
    for o in ops:
        ext_ops[o["pid"]].add(o["ext"])
    for pid, tid, s, corr, ext, order in calls:
        lst = by_thread.get((pid, tid), [])
        j = bisect.bisect_right(starts.get((pid, tid), []), s)
        owner, x, top = None, j - 1, tops.get((pid, tid), [])
        while x >= 0 and top[x] >= s:
            if lst[x]["e"] >= s:
                owner = lst[x]["i"]
                break
            x -= 1
        first_call.setdefault(corr, owner)
        if ext is not None and ext in ext_ops[pid] and (owner is None or ops[owner]["ext"] != ext):
            disagree += 1
    gself = defaultdict(int)
    items = defaultdict(list)	# op -> its GPU events
    noop = []
    for corr, s, t, kern, gmodel in gpu:
        if corr not in first_call:
            continue
        o = first_call[corr]
        if o is None:
            noop.append((s, t, kern))
        else:
            gself[o] += t - s
            items[o].append((s, t, kern, gmodel))
    for o in ops:
        o["flops"] = flops_of(o["name"], o["dims"], o["conc"])

    def subtree(i):
        out, stack = [], [i]
        while stack:
            x = stack.pop()
            out.append(x)
            stack.extend(ops[x]["kids"])
        return out

    def counted(i):
        return ops[i]["flops"] is not None and all(ops[d]["flops"] is None for d in subtree(i)[1:])

    gtotal = {o["i"]: sum(gself[d] for d in subtree(o["i"])) for o in ops}
    # folding
    fold_to = {}
    if fold:
        def at(pid, tid, ts):
            c = [o for o in ops if o["pid"] == pid and o["tid"] == tid and o["s"] == ts and o["seq"] is not None]
            return max(c, key=lambda o: (o["e"], -o["i"]))["i"] if c else None
        for fw, bw in links:
            b, w = at(*bw), at(*fw)
            if b is not None and w is not None:
                fold_to.setdefault(b, w)
        for o in ops:
            if o["i"] in fold_to or o["seq"] is None or not o["fwd_tid"]:
                continue
            p = o["parent"]
            if p is not None and ops[p]["seq"] == o["seq"]:
                continue
            c = [f for f in ops if f["pid"] == o["pid"] and f["seq"] == o["seq"] and f["tid"] != o["tid"]
                 and f["s"] <= o["s"] and f["i"] not in fold_to]
            if c:
                fold_to[o["i"]] = max(c, key=lambda f: (f["s"], f["e"], -f["i"]))["i"]
        fold_to = {b: w for b, w in fold_to.items() if ops[b]["parent"] not in fold_to}
    rows = {}
    for o in ops:
        k_op = ops[fold_to.get(o["i"], o["i"])]
        key = (k_op["name"], json.dumps(k_op["dims"]) if k_op["dims"] is not None else None,
               json.dumps(k_op["types"]) if k_op["types"] is not None else None) if by_shape else k_op["name"]
        r = rows.setdefault(key, dict(name=k_op["name"], calls=0, cpu_total_ns=0, cpu_self_ns=0, gpu_self_ns=0,
                                      gpu_total_ns=0, _set=set()))
        r["calls"] += o["i"] not in fold_to
        r["cpu_total_ns"] += o["e"] - o["s"]
        r["cpu_self_ns"] += o["e"] - o["s"] - sum(ops[c]["e"] - ops[c]["s"] for c in o["kids"])
        r["gpu_self_ns"] += gself[o["i"]]
        r["gpu_total_ns"] += gtotal[o["i"]]
        r["_set"].update(subtree(o["i"]))
    out = []
    for key, r in rows.items():
        ks = [it for d in r["_set"] for it in items[d] if it[2]]
        fl = [d for d in r["_set"] if counted(d)]
        r["kernels"] = len(ks)
        r["flops"] = sum(ops[d]["flops"] for d in fl) if fl else None
        busy = union([(s, t) for s, t, _, _ in ks])
        r["tflops"] = r["flops"] / 1e3 / busy if r["flops"] is not None and busy else None
        dtypes = {types.get((ops[d]["types"] or [None])[0]) if ops[d]["types"] else None for d in fl}
        models = {m for _, _, _, m in ks}
        r["mfu"] = None
        if r["tflops"] is not None and len(dtypes) == 1 and None not in dtypes and len(models) == 1 and None not in models:
            p = peak.get((models.pop(), dtypes.pop()))
            r["mfu"] = r["tflops"] / p if p else None
        if by_shape:
            r["input_dims"], r["input_types"] = key[1], key[2]
        del r["_set"]
        out.append(r)
    if noop:
        out.append(dict(name="(no op)", calls=0, cpu_total_ns=None, cpu_self_ns=None,
                        gpu_self_ns=sum(t - s for s, t, _ in noop), gpu_total_ns=sum(t - s for s, t, _ in noop),
                        kernels=sum(1 for *_, k in noop if k), flops=None, tflops=None, mfu=None))
    out.sort(key=lambda r: (-r["gpu_total_ns"], r["name"], r.get("input_dims") or "", r.get("input_types") or ""))
    return out, disagree


def union(iv):
    total, end = 0, None
    for s, t in sorted(iv):
        if end is None or s > end:
            total += t - s
            end = t
        elif t > end:
            total += t - end
            end = t
    return total


KEYS = ("name", "calls", "cpu_total_ns", "cpu_self_ns", "gpu_self_ns", "gpu_total_ns", "kernels", "flops")


def analyze(db, *extra):
    p = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "ops", db, "--format", "json"] + list(extra),
                       capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL gpuprof-analyze ops exit {p.returncode}: {p.stderr.strip()[:400]}")
        return None
    return json.loads(p.stdout)


def compare(what, db, doc, *extra, records=None):
    by_shape, fold = "--by-shape" in extra, "--fold-backward" in extra
    want, _ = expected(doc, by_shape, fold, records)
    got = analyze(db, *extra)
    if got is None:
        ok(what + ": runs", False)
        return None
    keys = KEYS + (("input_dims", "input_types") if by_shape else ())
    norm = lambda rows: [tuple(r.get(k) for k in keys) for r in rows]
    g = norm(got)
    if by_shape:
        g = [r[:-2] + (canon(r[-2]), canon(r[-1])) for r in g]
    check(what + ": rows (" + ", ".join(keys) + ")", g, norm(want))
    for r, w in zip(got, want):
        for k in ("tflops", "mfu"):
            if (r.get(k) is None) != (w[k] is None):
                check(f"{what}: {r['name']} {k} NULL", r.get(k), w[k])
            elif w[k] is not None:
                close(f"{what}: {r['name']} {k}", r[k], w[k], 1e-9)
    return got


def canon(s):
    return None if s is None else json.dumps(json.loads(s))


def ingest(path, db):
    p = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), path, "-o", db], capture_output=True, text=True)
    return p.returncode


def plain_nest(db):
    """op_nest's answers against the plain SQL of analyze/ext/sqlext_ops.c's header, in the sqlite3 shell."""
    if not os.path.exists(EXT) or not shutil.which("sqlite3"):
        print("skip: op_nest plain form (no sqlite3 shell or extension)")
        return
    walk = ("SELECT id, op_nest(kind, id, start_ns, end_ns) OVER (PARTITION BY pid, thread_id ORDER BY start_ns, kind, "
            "end_ns DESC, ord, id ROWS UNBOUNDED PRECEDING) FROM (SELECT 0 AS kind, rowid AS id, pid, thread_id, start_ns, "
            "end_ns, coalesce(external_id, 0) AS ord FROM ops) ORDER BY id;")
    plain = ("SELECT o.rowid, (SELECT p.rowid FROM ops p WHERE p.pid = o.pid AND p.thread_id IS o.thread_id AND "
             "p.start_ns <= o.start_ns AND p.end_ns >= o.end_ns AND (p.start_ns, -p.end_ns, coalesce(p.external_id, 0), "
             "p.rowid) < (o.start_ns, -o.end_ns, coalesce(o.external_id, 0), o.rowid) ORDER BY p.start_ns DESC, "
             "p.end_ns, coalesce(p.external_id, 0) DESC, p.rowid DESC LIMIT 1) FROM ops o ORDER BY o.rowid;")
    run = lambda q, load: subprocess.run(["sqlite3", "-batch", "-bail", db] + ([f".load {EXT}"] if load else []) + [q],
                                         capture_output=True, text=True).stdout
    a, b = run(walk, True), run(plain, False)
    ok(f"op_nest equals its plain SQL on {os.path.basename(db)} ({a.count(chr(10))} ops)", a == b and a != "",
       f"{a[:200]!r} vs {b[:200]!r}")
    walk = ("SELECT id, owner FROM (SELECT kind, id, op_nest(kind, id, start_ns, end_ns) OVER (PARTITION BY pid, thread_id "
            "ORDER BY start_ns, kind, end_ns DESC, ord, id ROWS UNBOUNDED PRECEDING) AS owner FROM (SELECT 0 AS kind, "
            "rowid AS id, pid, thread_id, start_ns, end_ns, coalesce(external_id, 0) AS ord FROM ops UNION ALL SELECT 1, "
            "rowid, pid, thread_id, start_ns, start_ns, 0 FROM api_calls)) WHERE kind = 1 ORDER BY id;")
    plain = ("SELECT c.rowid, (SELECT p.rowid FROM ops p WHERE p.pid = c.pid AND p.thread_id IS c.thread_id AND "
             "p.start_ns <= c.start_ns AND p.end_ns >= c.start_ns ORDER BY p.start_ns DESC, p.end_ns, "
             "coalesce(p.external_id, 0) DESC, p.rowid DESC LIMIT 1) FROM api_calls c ORDER BY c.rowid;")
    a, b = run(walk, True), run(plain, False)
    ok(f"op_nest's call owners equal the plain SQL on {os.path.basename(db)} ({a.count(chr(10))} calls)",
       a == b and a != "", f"{a[:200]!r} vs {b[:200]!r}")


# op_tree (analyze/ext/sqlext_ops.c) against the plain SQL its header states: op_nest's walk, the first call of each
# (pid, correlation id), the GPU events' durations per op and summed up the ancestors, the children's CPU time,
# op_flops and whether it counts (none below has one), and the ops with kernels or counted FLOPs with their
# ancestors (kind 2).
with open(os.path.join(ROOT, "analyze", "ref", "op_tree.sql")) as _f:
    # as it ships, less its header (tests/refs.py runs it with :session bound)
    TREE_PLAIN = "".join(line for line in _f if not line.startswith("--")).replace(":session", "{s}")


def plain_tree(db, what):
    """op_tree's rows against the plain SQL of analyze/ext/sqlext_ops.c's header, in the sqlite3 shell."""
    if not os.path.exists(EXT) or not shutil.which("sqlite3"):
        print("skip: op_tree plain form (no sqlite3 shell or extension)")
        return
    s = "(SELECT max(id) FROM sessions)"
    fast = (f"SELECT kind, id, owner, pid, corr, gpu_self_ns, gpu_total_ns, kids_ns, flops, counted FROM op_tree({s}) "
            "ORDER BY 1, 2, 3;")
    run = lambda q: subprocess.run(["sqlite3", "-batch", "-bail", db, f".load {EXT}", q], capture_output=True,
                                   text=True).stdout
    a, b = run(fast), run(TREE_PLAIN.replace("{s}", s))
    ops = sum(1 for l in b.splitlines() if l.startswith("0|"))
    ok(f"{what}: op_tree equals its plain SQL ({ops} ops, {b.count(chr(10)) - ops} calls and ancestor rows)",
       a == b and ops > 0,
       next((f"{x!r} vs plain {y!r}" for x, y in zip(a.splitlines(), b.splitlines()) if x != y),
            f"{len(a)} vs {len(b)} chars"))


def real_nsys(tmp):
    nsys = os.path.join(checks.TRACES, "nsys")
    if not os.path.isdir(nsys):
        print(f"skip: nsys exports: {nsys} is absent")
        return
    for base in ("mfu_2gpu_before", "mfu_2gpu_after", "h100_2gpu_1s"):
        path = os.path.join(nsys, base + ".sqlite")
        db = os.path.join(tmp, base + ".db")
        check(f"{base}: ingests", ingest(path, db), 0)
        rec = nsys_records(path)
        ok(f"{base}: holds emit_nvtx ops", len(rec[0]) > 10000, str(len(rec[0])))
        got = compare(base, db, None, records=rec)
        if got:
            ok(f"{base}: NVTX ops have no mfu", all(r["mfu"] is None for r in got))
        p = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "ops", db], capture_output=True, text=True)
        ok(f"{base}: the note says NVTX ops have no types", "come from NVTX" in p.stdout, p.stdout[-300:])
        plain_tree(db, base)


def real(tmp):
    if not os.path.isdir(KINETO):
        print(f"skip: real traces: {KINETO} is absent")
        return
    for name in sorted(os.listdir(KINETO)):
        path = os.path.join(KINETO, name)
        doc = load(path)
        if not any(e.get("cat") in OPS for e in events(doc)):
            continue
        db = os.path.join(tmp, name + ".db")
        rc = ingest(path, db)
        if rc not in (0, 3):
            ok(f"{name}: ingests", False, f"exit {rc}")
            continue
        if fill_ops(db, doc):
            print(f"note: {name}: ops filled by this test per the contract (the ingest wrote no ops table)")
        compare(name, db, doc)
        plain_tree(db, name)
        if name.startswith("h200_pt211_train"):
            compare(name + " --by-shape", db, doc, "--by-shape")
            compare(name + " --fold-backward", db, doc, "--fold-backward")
            plain_nest(db)
        if name.startswith("h200_pt211_train"):
            report_formats(tmp, db)
        if name == "h200_pt211_bf16mm.json.gz":
            got = analyze(db)
            mm = [r for r in got if r["name"] == "aten::mm"]
            check("bf16mm: aten::mm calls, FLOPs", (mm[0]["calls"], mm[0]["flops"]), (10, 10 * 2 * 8192 ** 3))
            check("bf16mm: FLOPs = 10,995,116,277,760", mm[0]["flops"], 10995116277760)
            ok(f"bf16mm: about 804 TFLOP/s ({mm[0]['tflops']:.1f})", 800 <= mm[0]["tflops"] <= 808)
            ok(f"bf16mm: mfu against H200 bf16 989.5 ({mm[0]['mfu']:.4f})", abs(mm[0]["mfu"] - mm[0]["tflops"] / 989.5) < 1e-9)
            p = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "flops", db, "--format", "json"], capture_output=True,
                               text=True)
            fl = json.loads(p.stdout)["flops"]
            check("bf16mm: the flops analysis counts from shapes (no flops arg)",
                  [(r["name"], r["calls"], r["kernels"], r["flops"], r["dtype"], r["gpu"]) for r in fl],
                  [("aten::mm", 10, 10, 10995116277760, "bf16", "h200")])
            close("bf16mm: flops analysis TFLOP/s as ops' (kernels don't overlap)", fl[0]["tflops"], mm[0]["tflops"], 1e-3)


def report_formats(tmp, db):
    """gpuprof-report: the ops section right after hotspots, in every format."""
    rep = os.path.join(BIN, "gpuprof-report")
    title = "PyTorch operators by GPU time"
    run = lambda *a: subprocess.run([rep, db] + list(a), capture_output=True, text=True)
    doc = json.loads(run("-f", "json").stdout)
    keys = list(doc["tables"])
    check("report json: ops right after hotspots", keys[keys.index("hotspots") + 1], "ops")
    ok("report json: ops rows", len(doc["tables"]["ops"]) == 10)
    for f in ("text", "md"):
        out = run("-f", f).stdout
        ok(f"report {f}: the ops section after hotspots", out.find("Top kernels by total GPU time") < out.find(title)
           < out.find("Kernel launch pipeline"), out[:200])
    html = os.path.join(tmp, "r.html")
    run("-f", "html", "-o", html)
    with open(html) as f:
        ok("report html: the ops section", title in f.read())
    run("-f", "csv", "-o", os.path.join(tmp, "rcsv"))
    ok("report csv: ops.csv", os.path.exists(os.path.join(tmp, "rcsv", "ops.csv")))
    import zipfile
    run("-f", "xlsx", "-o", os.path.join(tmp, "r.xlsx"))
    with zipfile.ZipFile(os.path.join(tmp, "r.xlsx")) as z:
        ok("report xlsx: an ops sheet", 'name="ops"' in z.read("xl/workbook.xml").decode())


# ---- hand-made traces ----

def trace(evs, base=1_000_000_000_000):
    return {"schemaVersion": 1, "baseTimeNanoseconds": base,
            "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}], "traceEvents": evs}


def op(name, ts, dur, ext, tid=1, **args):
    a = {"External id": ext}
    a.update({k.replace("_", " "): v for k, v in args.items()})
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur, "args": a}


def call(ts, corr, ext=None, tid=1, name="cudaLaunchKernel", dur=1):
    a = {"correlation": corr}
    if ext is not None:
        a["External id"] = ext
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur, "args": a}


def kern(ts, dur, corr, name="k", cat="kernel"):
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"correlation": corr, "device": 0, "stream": 7, "context": 1, "bytes": 4}}


def mm_args(m, k, n, t="c10::BFloat16"):
    return {"Input Dims": [[m, k], [k, n]], "Input type": [t, t], "Concrete Inputs": ["", ""]}


def edge(tmp, name, evs, checks_fn=None, *extra):
    doc = trace(evs)
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    db = os.path.join(tmp, name + ".db")
    rc = ingest(path, db)
    ok(f"{name}: ingests (exit {rc})", rc in (0, 3))
    fill_ops(db, doc)
    got = compare(name, db, doc, *extra)
    if checks_fn and got is not None:
        checks_fn({r["name"]: r for r in got})
    return db, doc


def edges(tmp):
    # Nested ops of one name: the outer counts its inner's GPU time in its total, both count (key_averages),
    # the row's kernels and FLOPs once; self times exclude the children.
    def nested(r):
        check("nested same name: calls, cpu_total, cpu_self", (r["aten::mm"]["calls"], r["aten::mm"]["cpu_total_ns"],
              r["aten::mm"]["cpu_self_ns"]), (2, 100000 + 60000, 40000 + 60000))
        check("nested same name: gpu_self, gpu_total (summed per op)", (r["aten::mm"]["gpu_self_ns"],
              r["aten::mm"]["gpu_total_ns"]), (5000 + 7000, 12000 + 7000))
        check("nested same name: kernels and FLOPs once per row", (r["aten::mm"]["kernels"], r["aten::mm"]["flops"]),
              (2, 2 * 64 * 64 * 64))
    edge(tmp, "nested_same_name", [
        op("aten::mm", 0, 100, 1, **mm_args(64, 64, 64)), call(1, 11), op("aten::mm", 10, 60, 2, **mm_args(64, 64, 64)),
        call(20, 12), kern(200, 5, 11), kern(300, 7, 12)], nested)

    # Calls outside any op: their kernels are "(no op)"; a call at an op's very end is inside it.
    def outside(r):
        check("calls outside: (no op) row", (r["(no op)"]["gpu_total_ns"], r["(no op)"]["kernels"]), (3000, 1))
        check("call at the op's end belongs to it", r["aten::add"]["gpu_self_ns"], 2000)
    edge(tmp, "calls_outside", [op("aten::add", 10, 10, 1), call(5, 21), call(20, 22), kern(100, 3, 21), kern(200, 2, 22)],
         outside)

    # Backward on the autograd thread, linked by a fwdbwd flow; and one linked by sequence number only.
    fwd = [op("aten::linear", 0, 50, 1, Sequence_number=7, Fwd_thread_id=0), call(5, 31),
           op("aten::relu", 60, 10, 2, Sequence_number=8, Fwd_thread_id=0), call(62, 32),
           op("autograd::engine::evaluate_function: AddmmBackward0", 100, 40, 3, tid=2, Sequence_number=7, Fwd_thread_id=1),
           op("AddmmBackward0", 100, 30, 4, tid=2, Sequence_number=7, Fwd_thread_id=1), call(105, 33, tid=2),
           op("ReluBackward0", 150, 10, 5, tid=2, Sequence_number=8, Fwd_thread_id=1), call(151, 34, tid=2),
           {"ph": "s", "cat": "fwdbwd", "id": 7, "pid": 1, "tid": 1, "ts": 0, "name": "fwdbwd", "bp": "e"},
           {"ph": "f", "cat": "fwdbwd", "id": 7, "pid": 1, "tid": 2, "ts": 100, "name": "fwdbwd", "bp": "e"},
           kern(300, 4, 31), kern(310, 6, 32), kern(320, 8, 33), kern(330, 9, 34)]

    def unfolded(r):
        check("backward thread: its ops are rows of their own", (r["AddmmBackward0"]["gpu_total_ns"],
              r["aten::linear"]["gpu_total_ns"]), (8000, 4000))

    def folded(r):
        check("--fold-backward: linear gets its backward (flow)", (r["aten::linear"]["gpu_total_ns"],
              r["aten::linear"]["calls"], r["aten::linear"]["kernels"]), (4000 + 8000, 1, 2))
        check("--fold-backward: relu gets its backward (sequence number)", r["aten::relu"]["gpu_total_ns"], 6000 + 9000)
        ok("--fold-backward: the folded backward ops leave their rows",
           "ReluBackward0" not in r and "autograd::engine::evaluate_function: AddmmBackward0" not in r)
        check("--fold-backward: a backward op inside a folded one keeps its row", r["AddmmBackward0"]["gpu_total_ns"], 8000)
    edge(tmp, "backward", fwd, unfolded)
    edge(tmp, "backward_fold", fwd, folded, "--fold-backward")

    # CUDA graph: every kernel of the replay shares its cudaGraphLaunch's correlation.
    def graph(r):
        check("CUDA graph: all kernels to the op that launched it", (r["graph_replay"]["kernels"],
              r["graph_replay"]["gpu_self_ns"]), (3, 6000))
    edge(tmp, "cuda_graph", [op("graph_replay", 0, 20, 1), call(2, 41, name="cudaGraphLaunch"),
                             kern(100, 1, 41), kern(101, 2, 41), kern(103, 3, 41)], graph)

    # Overlap without nesting (microsecond rounding): B starts inside A and ends after it: no child of A; a
    # call after A's end but inside B is B's; C inside both is B's (the innermost: the later start).
    def overlap(r):
        check("overlap: A keeps its whole self time (B is no child)", r["A"]["cpu_self_ns"], 10000)
        check("overlap: C is B's child", r["B"]["cpu_self_ns"], 10000 - 2000)
        check("overlap: call inside both A and B goes to B, then C", (r["B"]["gpu_self_ns"], r["C"]["gpu_self_ns"]),
              (1000, 2000))
    edge(tmp, "overlap", [op("A", 0, 10, 1), op("B", 5, 10, 2), op("C", 8, 2, 3), call(6, 51), call(9, 52),
                          kern(100, 1, 51), kern(110, 2, 52)], overlap)

    # External id that names another op than containment: counted in the note, containment decides.
    db, _ = edge(tmp, "external_id", [op("aten::mm", 0, 10, 1, **mm_args(8, 8, 8)), op("aten::add", 20, 10, 2),
                                      call(2, 61, ext=2), kern(100, 1, 61)])
    p = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "ops", db], capture_output=True, text=True)
    ok("External id disagreement said in the note", "1 calls carry an External id of another op" in p.stdout, p.stdout[-400:])

    # FLOP rules: convolution (stride/padding/dilation from Concrete Inputs), transposed, SDPA causal,
    # addmm's bias not counted, linear through addmm, no shapes -> NULL with the note.
    conv = {"Input Dims": [[8, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], [], [], []],
            "Input type": ["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList",
                           "Scalar"],
            "Concrete Inputs": ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"]}
    convt = dict(conv, **{"Concrete Inputs": ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "True", "[0, 0]", "1"]})
    q = [2, 4, 128, 64]
    sd = {"Input Dims": [q, q, q, [], [], [], [], []], "Input type": ["c10::Half"] * 3 + ["", "Scalar", "Scalar", "Scalar", ""],
          "Concrete Inputs": ["", "", "", "", "False", "0.0", "True", ""]}
    addmm = {"Input Dims": [[32], [16, 64], [64, 32], [], []], "Input type": ["float"] * 3 + ["Scalar"] * 2,
             "Concrete Inputs": ["", "", "", "1", "1"]}

    def flops(r):
        check("conv: 2*N*Cout*out(16x16)*Cin*k", r["aten::convolution"]["flops"], 2 * 8 * 16 * 16 * 16 * 3 * 9)
        check("conv transposed: over the input's spatial dims", r["aten::_convolution"]["flops"], 2 * 8 * 32 * 32 * 16 * 3 * 9)
        check("sdpa causal: half of 4*B*H*Nq*Nkv*d", r["aten::_scaled_dot_product_flash_attention"]["flops"],
              4 * 2 * 4 * 128 * 128 * 64 // 2)
        check("linear counts through addmm (bias not counted)", (r["aten::linear"]["flops"], r["aten::addmm"]["flops"]),
              (2 * 16 * 32 * 64,) * 2)
        check("no shapes: flops NULL", r["aten::bmm"]["flops"], None)
        check("sdpa bytes: q, k, v and the output at 2 bytes", r["aten::_scaled_dot_product_flash_attention"]["bytes"],
              4 * 2 * 4 * 128 * 64 * 2)
    db, _ = edge(tmp, "flop_rules", [
        op("aten::convolution", 0, 10, 1, **conv), call(1, 71),
        op("aten::_convolution", 20, 10, 2, **convt), call(21, 72),
        op("aten::_scaled_dot_product_flash_attention", 40, 10, 3,
           **dict(sd, **{"Concrete Inputs": ["", "", "", "0.0", "True", "False", ""]})), call(41, 73),
        op("aten::linear", 60, 20, 4, **{"Input Dims": [[16, 64], [32, 64], [32]], "Input type": ["float"] * 3}),
        op("aten::addmm", 62, 10, 5, **addmm), call(63, 74),
        op("aten::bmm", 90, 5, 6), call(91, 75),
        kern(100, 1, 71), kern(110, 1, 72), kern(120, 1, 73), kern(130, 1, 74), kern(140, 1, 75)], flops)
    p = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "ops", db], capture_output=True, text=True)
    ok("no shapes: the note says how to record them", "record_shapes=True" in p.stdout, p.stdout[-400:])


def compare_ops(tmp):
    """compare: ops by name, judged on each op's GPU time with its children's, counted in the verdict."""
    def session(name, kdur):
        evs = []
        for i in range(5):
            t = i * 1000
            evs += [op("aten::linear", t, 100, 10 * i + 1), op("aten::mm", t + 10, 50, 10 * i + 2), call(t + 20, 100 + i),
                    kern(t + 500, kdur, 100 + i, name="gemm_%d" % i)]
        path = os.path.join(tmp, name + ".json")
        with open(path, "w") as f:
            json.dump(trace(evs), f)
        db = os.path.join(tmp, name + ".db")
        ingest(path, db)
        fill_ops(db, trace(evs))
        return db
    base, new = session("cmp_base", 100), session("cmp_new", 300)
    p = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "compare", new, "--baseline", base, "--format", "json",
                        "--fail-on-regression"], capture_output=True, text=True)
    check("compare ops: the gate fails on the ops' regression (exit 1)", p.returncode, 1)
    got = json.loads(p.stdout)
    rows = {r["name"]: r for r in got["compare_ops"]}
    check("compare ops: linear and mm regressed, median GPU total 100 -> 300 us",
          [(n, rows[n]["status"], rows[n]["base_med_ns"], rows[n]["new_med_ns"], rows[n]["base_calls"])
           for n in ("aten::linear", "aten::mm")],
          [("aten::linear", "regressed", 100000, 300000, 5), ("aten::mm", "regressed", 100000, 300000, 5)])
    ok("compare ops: counted in the verdict", "ops 2 regressed" in p.stderr, p.stderr)
    p = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "compare", base, "--baseline", base, "--format", "json"],
                       capture_output=True, text=True)
    check("compare ops: a session against itself is unchanged",
          {r["status"] for r in json.loads(p.stdout)["compare_ops"]}, {"unchanged"})


def synth(tmp):
    """A gpuprof session with emit_nvtx ops (gpuprof-synth --ops): each name against the answers it planted."""
    d = os.path.join(tmp, "synth")
    subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "20000", "--seed", "3", "--ops", "-o", d],
                   check=True, capture_output=True)
    db = d + ".db"
    check("synth --ops: ingests", ingest(d, db), 0)
    with open(os.path.join(d, "expected.json")) as f:
        want = json.load(f)["ops"]
    got = {r["name"]: r for r in analyze(db)}
    check("synth --ops: per name calls, cpu_total, kernels, gpu_total, gpu_self",
          sorted((w["name"], *(lambda r: (r["calls"], r["cpu_total_ns"], r["kernels"], r["gpu_total_ns"],
                                          r["gpu_self_ns"]))(got.get(w["name"], dict.fromkeys(KEYS)))) for w in want["by_name"]),
          sorted((w["name"], w["count"], w["total_ns"], w["kernels"], w["kernel_ns"], w["self_kernel_ns"])
                 for w in want["by_name"]))
    check("synth --ops: launches outside ops are (no op)", got["(no op)"]["kernels"], want["launches_outside_ops"])
    plain_tree(db, "synth --ops")


def main():
    tmp = tempfile.mkdtemp(prefix="gpuprof-ops-")
    try:
        edges(tmp)
        compare_ops(tmp)
        synth(tmp)
        real_nsys(tmp)
        real(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("ops")


if __name__ == "__main__":
    sys.exit(main())
