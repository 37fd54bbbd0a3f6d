#!/usr/bin/env python3
"""Analyses read big tables in rowid slices on several connections at once (analyze/scan.c) and share
the kernel columns (analyze/kernels.c). Every slicing must give the same bytes as one slice:

- a database holding two synthetic sessions (the first session's rows lie before the second's, so the
  slices of either cross rows of the other), every analysis and the whole report, on both sessions,
  with 1, 2, 3 and 5 slices (GPUPROF_THREADS), with and without name filters and folding;
- "the first call with a kernel's correlation id launched it" when the two calls fall in different
  slices, and a graph launch's kernels sharing one id all count, checked against the planted answer.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import BIN, check, ok, summary  # noqa: E402


def run(args, threads, expect=0):
    env = dict(os.environ, GPUPROF_THREADS=str(threads))
    p = subprocess.run([os.path.join(BIN, args[0])] + args[1:], capture_output=True, env=env)
    ok(f"{' '.join(args)} (threads {threads}) exits {expect}", p.returncode == expect,
       p.stderr.decode(errors="replace")[:500])
    return p.stdout


def same_for_every_slicing(what, args):
    base = run(args, 1)
    for threads in (2, 3, 5):
        check(f"{what}: {threads} slices give the bytes of one", run(args, threads), base)


def two_sessions(tmp):
    dirs = []
    for seed in (11, 12):
        d = os.path.join(tmp, f"synth{seed}")
        subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "3000", "--seed", str(seed),
                        "--no-expected", "-o", d], check=True)
        dirs.append(d)
    db = os.path.join(tmp, "two.db")
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q"] + dirs + ["-o", db], check=True)
    return db


def check_analyses(db):
    names = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "--list"], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    names = [n.split()[0] for n in names if n.strip()]
    ok("the analyses are listed", "hotspots" in names and "ranges" in names, names)
    for session in ("1", "2"):
        for name in names:
            extra = ["--base-session", "1"] if name == "compare" else []
            same_for_every_slicing(f"{name} session {session}",
                                   ["gpuprof-analyze", name, db, "--session", session, "-f", "json", "-n", "0"]
                                   + extra)
        for opts in (["--match", "gemm|elementwise"], ["--exclude", "nccl"], ["--short"],
                     ["--group", "gemm=gemm|sgemm"]):
            for name in ("hotspots", "classes", "launch", "ranges"):
                same_for_every_slicing(f"{name} {' '.join(opts)} session {session}",
                                       ["gpuprof-analyze", name, db, "--session", session, "-f", "json"] + opts)
        same_for_every_slicing(f"report json session {session}",
                               ["gpuprof-report", db, "--session", session, "-f", "json", "-n", "0"])
        same_for_every_slicing(f"report html session {session}",
                               ["gpuprof-report", db, "--session", session, "-f", "html"])


def contested(tmp):
    """Ten launch calls on two threads; calls 5 and 6 carry the same correlation id (5). With two slices
    over the ten rows they land in different slices; call 5 (thread 1, inside range A) launched it."""
    n = 10
    # An eleventh kernel shares id 1, as the kernels of a CUDA graph launch share the launch's id.
    kern = {"start": [10_000 + 1000 * i for i in range(n + 1)],
            "end": [10_000 + 1000 * i + 100 * (i + 1) for i in range(n)] + [20_000 + 777],
            "device": [0] * (n + 1), "context": [1] * (n + 1), "stream": [7] * (n + 1),
            "correlation": list(range(1, n + 1)) + [1],
            "name": [1] * (n + 1), "mangled": [0] * (n + 1),
            **{k: [1] * (n + 1) for k in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z")},
            **{k: [0] * (n + 1) for k in ("cluster_x", "cluster_y", "cluster_z", "registers", "static_smem",
                                          "dynamic_smem", "local_mem", "graph_id", "graph_node")}}
    corr = [1, 2, 3, 4, 5, 5, 7, 8, 9, 10]
    thread = [1, 1, 1, 1, 1, 2, 2, 2, 2, 2]
    api = {"start": [100 * i for i in range(n)], "end": [100 * i + 50 for i in range(n)], "thread": thread,
           "correlation": corr, "name": [2] * n, "cbid": [211] * n, "domain": [1] * n}
    lines = [
        {"type": "header", "v": 1, "session": "contested", "pid": 1, "origin_ns": "1700000000000000000",
         "program": "p", "hostname": "h"},
        {"type": "strings", "v": 1, "ids": [1, 2, 3, 4], "values": ["k", "cudaLaunchKernel", "A", "B"]},
        {"type": "kernel", "v": 1, "seq": 0, "n": n + 1, **kern},
        {"type": "api", "v": 1, "seq": 0, "n": n, **api},
        {"type": "range", "v": 1, "seq": 0, "n": 2, "start": [0, 0], "end": [5000, 5000], "thread": [1, 2],
         "name": [3, 4], "domain": [0, 0], "kind": [1, 1], "depth": [0, 0], "id": [1, 2]},
        {"type": "end", "v": 1, "ts": 100_000},
    ]
    d = os.path.join(tmp, "contested")
    os.makedirs(d)
    with open(os.path.join(d, "1.ndjson"), "w") as f:
        for ln in lines:
            f.write(json.dumps(ln) + "\n")
    db = os.path.join(tmp, "contested.db")
    subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", d, "-o", db], check=True)
    # Kernel i (1-based correlation i) lasts 100 * i ns. Thread 1 launched 1..5 (call 5 is first with
    # id 5) and the graph kernel of id 1; thread 2 launched 7..10 (its call with id 5 came second, and
    # id 6 launched nothing).
    want = {"A": (sum(100 * i for i in range(1, 6)) + 777, 6), "B": (sum(100 * i for i in range(7, 11)), 4)}
    for threads in (1, 2):
        rows = json.loads(run(["gpuprof-analyze", "ranges", db, "-f", "json"], threads))
        got = {r["name"]: (r["gpu_ns"], r["kernels"]) for r in rows}
        check(f"contested correlation id, {threads} slices", got, want)


def main():
    with tempfile.TemporaryDirectory(prefix="parallel.") as tmp:
        check_analyses(two_sessions(tmp))
        contested(tmp)
    return summary("parallel")


if __name__ == "__main__":
    sys.exit(main())
