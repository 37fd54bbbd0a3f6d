#!/usr/bin/env python3
"""tef_check: check a Chrome trace against the Trace Event Format, independently of gpuprof's code.

usage: tef_check.py TRACE.json[.gz]   exit 0 when it holds, 1 with one line per problem (the first 50)

What it checks, from the Trace Event Format document (Google, "Trace Event Format", the JSON Object
Format) and what Perfetto's JSON importer requires:
  - the document is an object with a "traceEvents" array (or a bare array), displayTimeUnit "ms" or "ns";
  - every event is an object with a known phase "ph"; "pid" and "tid" integers or strings; "ts" a number
    (every phase but metadata); "name" a string; "args", when there, an object; "cat" a string;
  - complete events ("X") have a "dur" >= 0; instant events ("i") a scope "s" of g, p or t; counter events
    ("C") numeric args only; metadata events ("M") a known name with its argument;
  - times are microseconds with exactly three decimals (nanoseconds), as the numbers' text shows;
  - flows: every start ("s") has exactly one finish ("f") of the same category, name and id, no earlier
    than it; each end lies on a slice of its row that starts at its time ("bp": "e" binds the finish to
    the enclosing slice), so a viewer draws the arrow from the launch to the kernel;
  - "B" events are matched by an "E" on their row or left open (counted, as the format allows).
"""
import gzip
import json
import re
import sys
from collections import defaultdict

PHASES = set("XBEiIsCMftbneNODPRcp(),") | {"n"}
META = {"process_name": "name", "process_labels": "labels", "process_sort_index": "sort_index",
        "thread_name": "name", "thread_sort_index": "sort_index"}
TS = re.compile(r"-?[0-9]+\.[0-9]{3}$")


class Num(float):
    """A number that remembers its text, to check how times are written."""
    def __new__(cls, text):
        n = float.__new__(cls, text)
        n.text = text
        return n


def time_text(v):
    return v.text if isinstance(v, Num) else str(v)


def check(path):
    problems = []
    bad_times = []
    number = Num
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=number)
    if isinstance(doc, dict):
        events = doc.get("traceEvents")
        if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
            problems.append(f"displayTimeUnit {doc['displayTimeUnit']!r}")
    else:
        events = doc
    if not isinstance(events, list):
        return ["no traceEvents array"], {}
    flows = defaultdict(lambda: {"s": [], "f": []})
    slices = defaultdict(set)	# (pid, tid) -> start times of its X and B events
    open_b = defaultdict(int)
    counts = defaultdict(int)

    def bad(i, what):
        if len(problems) < 50:
            problems.append(f"event {i}: {what}: {json.dumps(events[i])[:200]}")

    for i, e in enumerate(events):
        if not isinstance(e, dict):
            bad(i, "not an object")
            continue
        ph = e.get("ph")
        counts[ph] += 1
        if ph not in PHASES:
            bad(i, f"unknown phase {ph!r}")
            continue
        for k in ("pid", "tid"):
            if k in e and not isinstance(e[k], (int, str)) or isinstance(e.get(k), bool):
                bad(i, f"{k} is neither an integer nor a string")
        if "pid" not in e:
            bad(i, "no pid")
        if not isinstance(e.get("name"), str):
            bad(i, "no name")
        if "cat" in e and not isinstance(e["cat"], str):
            bad(i, "cat is not a string")
        if "args" in e and not isinstance(e["args"], dict):
            bad(i, "args is not an object")
        if ph != "M" and (not isinstance(e.get("ts"), (int, float)) or isinstance(e.get("ts"), bool)):
            bad(i, "ts is not a number")
            continue
        row = (e.get("pid"), e.get("tid"))
        for k in ("ts", "dur"):
            if k in e and ph != "M" and not TS.match(time_text(e[k])):
                bad_times.append(time_text(e[k]))
        if ph == "X":
            d = e.get("dur")
            if not isinstance(d, (int, float)) or d < 0:
                bad(i, "complete event without a dur >= 0")
            slices[row].add(e["ts"])
        elif ph == "B":
            slices[row].add(e["ts"])
            open_b[row] += 1
        elif ph == "E":
            open_b[row] -= 1
        elif ph == "i" and e.get("s", "t") not in ("g", "p", "t"):
            bad(i, f"instant scope {e.get('s')!r}")
        elif ph == "C" and not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                   for v in e.get("args", {}).values()):
            bad(i, "counter with a non-numeric value")
        elif ph == "M":
            key = META.get(e.get("name"))
            if key is None or key not in e.get("args", {}):
                bad(i, "metadata event of unknown name or without its argument")
        elif ph in ("s", "f"):
            if "id" not in e:
                bad(i, "flow event without an id")
                continue
            flows[(e.get("cat"), e.get("name"), e["id"])][ph].append(e)
            if ph == "f" and e.get("bp") not in (None, "e"):
                bad(i, f"flow binding point {e.get('bp')!r}")
    for key, ends in flows.items():
        if len(ends["s"]) != 1 or len(ends["f"]) != 1:
            if len(problems) < 50:
                problems.append(f"flow {key}: {len(ends['s'])} starts and {len(ends['f'])} finishes")
            continue
        s, f = ends["s"][0], ends["f"][0]
        if f["ts"] < s["ts"]:
            problems.append(f"flow {key}: finishes before it starts")
        for end in (s, f):
            if end["ts"] not in slices[(end.get("pid"), end.get("tid"))] and len(problems) < 50:
                problems.append(f"flow {key}: its {end['ph']} at {end['ts']} is on no slice of its row")
    if bad_times:
        problems.append(f"{len(bad_times)} numbers are not microseconds with three decimals, e.g. {bad_times[:3]}")
    counts["flows"] = len(flows)
    counts["open"] = sum(v for v in open_b.values() if v > 0)
    return problems, dict(counts)


def main():
    if len(sys.argv) != 2:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    problems, counts = check(sys.argv[1])
    for p in problems:
        print(p)
    print(json.dumps({str(k): v for k, v in counts.items()}, sort_keys=True))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
