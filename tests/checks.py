"""Shared by the Python test suites: counted checks and the final "NAME: N passed, M failed" line."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, os.environ.get("GPUPROF_BUILD", "build"), "bin")
TRACES = os.path.join(ROOT, "..", "shared", "traces")
counts = {"passed": 0, "failed": 0}


def check(what, got, want):
    """Pass when got == want, else print both."""
    if got == want:
        counts["passed"] += 1
    else:
        counts["failed"] += 1
        print(f"FAIL {what}: got {str(got)[:300]}, want {str(want)[:300]}")


def ok(what, cond, detail=""):
    """Pass when cond holds, else print the detail."""
    if cond:
        counts["passed"] += 1
    else:
        counts["failed"] += 1
        print(f"FAIL {what}: {detail}")


def close(what, got, want, rel=1e-9):
    """Pass when got is within a relative tolerance of want (floating-point statistics); NaN never is."""
    ok(what, abs(got - want) <= rel * max(1.0, abs(want)), f"got {got!r}, want {want!r}")


def summary(name):
    """Print the closing line run.sh reads; returns the exit status."""
    print(f"{name}: {counts['passed']} passed, {counts['failed']} failed")
    return 1 if counts["failed"] else 0


def range_name(name):
    """A range name as gpuprof groups it: without the per-call counters PyTorch's emit_nvtx adds
    ("aten::copy_, seq = 45328, op_id = 998952" is "aten::copy_"), which differ in every call and run."""
    return re.sub(r", (?:seq|op_id) = [0-9]+(?=, |$)", "", name)
