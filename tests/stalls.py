#!/usr/bin/env python3
"""stalls, stall_kernels and stall_pcs against gpuprof-synth's planted PC samples (exact per raw reason
name, joined per device) and sums recomputed here from session.db's rows."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections import defaultdict

import checks
from checks import BIN, check, close

PREFIX = "smsp__pcsamp_warps_issue_stalled_"


def analyze(name, db, *extra):
    return json.loads(subprocess.run([os.path.join(BIN, "gpuprof-analyze"), name, db, "--format", "json"] + list(extra),
                                     capture_output=True, text=True, check=True).stdout)


def main():
    with tempfile.TemporaryDirectory(prefix="gpuprof-stalls-") as tmp:
        for seed in (1, 9):
            d = os.path.join(tmp, f"s{seed}")
            subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "3000", "--seed", str(seed), "-o", d],
                           check=True, capture_output=True)
            exp = json.load(open(os.path.join(d, "expected.json")))["stalls"]
            db = d + ".db"
            subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", d, "-o", db], check=True)
            base, twin = defaultdict(int), defaultdict(int)
            for raw, n in exp.items():
                key = raw[len(PREFIX):] if raw.startswith(PREFIX) else raw
                if key.endswith("_not_issued"):
                    twin[key[:-len("_not_issued")]] += n
                else:
                    base[key] += n
            rows = {r["reason"]: r for r in analyze("stalls", db)}
            check(f"seed {seed}: reasons", sorted(rows), sorted(set(base) | set(twin)))
            check(f"seed {seed}: samples per reason (planted)", {k: r["samples"] for k, r in rows.items()},
                  {k: base.get(k, 0) for k in rows})
            check(f"seed {seed}: not-issued twins beside their reason", {k: r["not_issued"] for k, r in rows.items()},
                  {k: twin.get(k, 0) for k in rows})
            close(f"seed {seed}: shares sum to 100", sum(r["pct"] for r in rows.values()), 100.0)
            check(f"seed {seed}: selected is issued, not a stall", rows.get("selected", {}).get("kind"), "issued")
            check(f"seed {seed}: every reason has a meaning", [k for k, r in rows.items() if not r["label"]], [])

            con = sqlite3.connect(db)
            per_kernel = defaultdict(int)
            per_pc = defaultdict(int)
            for name, raw, off, n in con.execute("""SELECT s.value, r.name, p.pc_offset, p.samples FROM pc_samples p
                    JOIN stall_reasons r ON r.session_id = p.session_id AND r.pid = p.pid
                      AND r.device_id = p.device_id AND r.id = p.stall_reason_id
                    JOIN strings s ON s.session_id = p.session_id AND s.id = p.function_id"""):
                if not raw.endswith("_not_issued"):
                    per_kernel[name] += n
                    per_pc[(name, off)] += n
            con.close()
            ks = analyze("stall_kernels", db)
            check(f"seed {seed}: samples per kernel", {r["name"]: r["samples"] for r in ks}, dict(per_kernel))
            for r in ks[:5]:
                shares = [v for k, v in r.items() if k.endswith("_pct") and v is not None]
                check(f"seed {seed}: a kernel's shares stay within 100", sum(shares) <= 100.0 + 1e-9, True)
            pcs = analyze("stall_pcs", db, "--top", "5")
            top = sorted(per_pc.values(), reverse=True)[:5]
            check(f"seed {seed}: most sampled instructions", [r["samples"] for r in pcs], top)
    return checks.summary("stalls")


if __name__ == "__main__":
    sys.exit(main())
