#!/usr/bin/env python3
"""gpuprof-report --format md as a CI job summary reads it ($GITHUB_STEP_SUMMARY): the verdicts first, then
the top 10 kernels, then every other shown section folded in a <details> block whose <summary> is its
title; no line over 300 characters, no cell over 80 (long names cut in the middle); every table a valid
GFM table (a delimiter row, the same number of cells in every row)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import checks
from checks import BIN, ROOT, check, ok

LINE_MAX, CELL_MAX, TOP = 300, 80, 10


def run(*args):
    r = subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), capture_output=True, text=True)
    ok(f"{' '.join(args[:3])} exits 0", r.returncode == 0, r.stderr[-1000:])
    return r.stdout


def cells(line):
    """A GFM table row's cells: split on the pipes that are not escaped, unescaped."""
    parts = re.split(r"(?<!\\)\|", line.strip())
    if parts[0] or parts[-1]:
        ok("row starts and ends with a pipe", False, line[:120])
    return [re.sub(r"\\(.)", r"\1", p.strip()) for p in parts[1:-1]]


def cut_middle(s, n=CELL_MAX):
    if len(s) <= n:
        return s
    head = (n - 3) * 2 // 3
    return s[:head] + "..." + s[len(s) - (n - 3 - head):]


def tables_of(lines):
    """Each table as (index of its header line, header cells, rows of cells)."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.fullmatch(r"\|(-{3}:?\|)+", lines[i + 1]):
            head, rows, j = cells(lines[i]), [], i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append(cells(lines[j]))
                j += 1
            out.append((i, head, rows, lines[i + 1].count("|") - 1))
            i = j
        else:
            i += 1
    return out


def check_doc(md, doc, name):
    lines = md.split("\n")
    longest = max(len(ln) for ln in lines)
    ok(f"{name}: no line over {LINE_MAX} characters", longest <= LINE_MAX, f"{longest}")
    check(f"{name}: first line", lines[0], "## gpuprof report")
    heads = [ln for ln in lines if ln.startswith("#")]
    check(f"{name}: the open headings: verdicts, then the top kernels", heads,
          ["## gpuprof report", "### Verdicts", "### Top kernels by total GPU time"])
    v = lines.index("### Verdicts")
    bullets = []
    for ln in lines[v + 2:]:
        if not ln.startswith("- "):
            break
        bullets.append(ln)
    ok(f"{name}: verdicts listed", bullets and bullets[0].startswith("- **GPU busy**:"), bullets[:2])
    tabs = tables_of(lines)
    for i, head, rows, ndelim in tabs:
        check(f"{name}: table at line {i}: delimiter row matches the header", ndelim, len(head))
        check(f"{name}: table at line {i}: every row has the header's cells", {len(r) for r in rows} - {len(head)}, set())
        check(f"{name}: table at line {i}: cells within {CELL_MAX} characters",
              [c for r in rows for c in r if len(c) > CELL_MAX], [])
    # the top kernels: the first TOP of the JSON report's hotspots, names cut in the middle
    top = next(t for t in tabs if lines.index("### Top kernels by total GPU time") < t[0])
    check(f"{name}: top kernels: {TOP} rows at most", len(top[2]), min(TOP, len(doc["hotspots"])))
    check(f"{name}: top kernels: names", [r[top[1].index("Name")] for r in top[2]],
          [cut_middle(h["name"]) for h in doc["hotspots"][:TOP]])
    # every other shown section folded, in the report's order, each block opening and closing cleanly
    summaries = re.findall(r"^<details><summary>(.*)</summary>$", md, re.M)
    shown = [k for k in doc if k != "hotspots" and (k == "summary" or doc[k])]
    check(f"{name}: a <details> block per other shown section", len(summaries) - (len(doc["hotspots"]) > TOP), len(shown))
    check(f"{name}: <details> and </details> pair", md.count("<details>"), md.count("</details>"))
    first_details = md.index("<details>")
    ok(f"{name}: the verdicts and top kernels come before any <details>",
       md.index("### Verdicts") < md.index("### Top kernels") < first_details)
    for m in re.finditer(r"<details><summary>[^\n]*</summary>\n(.)", md):
        check(f"{name}: a blank line after <summary> (GitHub renders the table)", m.group(1), "\n")
    for m in re.finditer(r"(.)\n</details>", md):
        check(f"{name}: a blank line before </details>", m.group(1), "\n")
    ok(f"{name}: the session summary folded", "<details><summary>Session summary</summary>" in md)
    return summaries


def main():
    tmp = tempfile.mkdtemp(prefix="report_md.")
    try:
        db = os.path.join(tmp, "demo.db")
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", os.path.join(ROOT, "tests", "data", "demo-session"),
                        "-o", db], check=True)
        md = run("gpuprof-report", db, "--format", "md")
        doc = json.loads(run("gpuprof-report", db, "--format", "json"))["tables"]
        summaries = check_doc(md, doc, "demo")
        ok("demo: the longest name is cut in the middle", "..." in md)
        ok("demo: kernexec folded under its title",
           "Kernel launch pipeline per name: API time, queue time, kernel time" in summaries)
        d = os.path.join(tmp, "synth")
        subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "3000", "--seed", "7", "-o", d], check=True,
                       capture_output=True)
        db = os.path.join(tmp, "synth.db")
        subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", d, "-o", db], check=True)
        md = run("gpuprof-report", db, "--format", "md", "--top", "25")
        doc = json.loads(run("gpuprof-report", db, "--format", "json", "--top", "25"))["tables"]
        summaries = check_doc(md, doc, "synth --top 25")
        ok("synth --top 25: all the kernels folded after the top 10",
           any(s.startswith("Top kernels by total GPU time: all 25") for s in summaries), summaries[:3])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("report_md")


if __name__ == "__main__":
    os.environ.setdefault("LC_ALL", "C")
    os.environ.setdefault("TZ", "UTC")
    sys.exit(main())
