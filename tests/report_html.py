#!/usr/bin/env python3
"""gpuprof-report --format html in headless Chromium: every shown table and the SVG charts present, no
script errors, click-to-sort working, nothing loaded from the network, a screenshot taken; kernel names
made to attack the page (<script>, <img onerror>, quotes, ampersands) shown as text and never run; and
the size and rendering time of a 200k-kernel synthetic session. Skipped (exit 0) without `chromium`."""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from html import unescape
from html.parser import HTMLParser

import checks
from checks import BIN, TRACES, check, close, ok

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

# Injected into a copy of the report (never the report itself): records script errors, clicks the
# "Total" heading of the hotspots table twice, zooms the timeline (a plain wheel, a Ctrl+wheel at the
# middle, the zoom-in button, a drag leftwards, reset) noting the plot's viewBox and first axis label
# after each, and writes what it saw into the page for --dump-dom.
PROBE_HEAD = "<script>window.__errs=[];window.addEventListener('error',function(e){__errs.push(String(e.message))});</script>"
PROBE_TAIL = """<script>
(function(){var r={errs:window.__errs,pwned:typeof window.pwned,sorted:null};
try{var t=document.querySelector('#t-hotspots table.sortable');
if(t){var hs=t.querySelectorAll('thead th'),c=-1;
for(var i=0;i<hs.length;i++)if(hs[i].getAttribute('title')==='total_ns')c=i;
if(c>=0){hs[c].click();hs[c].click();
var v=Array.prototype.map.call(t.tBodies[0].rows,function(x){return +x.cells[c].getAttribute('data-v')});
var asc=true;for(var j=1;j<v.length;j++)if(v[j-1]>v[j])asc=false;r.sorted=asc;}}}
catch(e){r.errs.push(String(e))}
try{var tl=document.querySelector('div.tl');if(tl){var s=tl.querySelector('svg.tlc'),pl=s.querySelector('svg.tlp'),
tk=s.querySelector('g.ax text'),b=tl.querySelectorAll('.tlbar button'),z=r.zoom={bar:!tl.querySelector('.tlbar').hidden};
var vb=function(){return pl.getAttribute('viewBox')},sr=s.getBoundingClientRect();
var at=function(x){return {clientX:sr.left+sr.width*x,clientY:sr.top+sr.height/2,bubbles:true,cancelable:true}};
var wheel=function(x,o){s.dispatchEvent(new WheelEvent('wheel',Object.assign(at(x),o)))};
var ptr=function(t,x){s.dispatchEvent(new PointerEvent(t,at(x)))};
z.start=vb();z.tick0=tk.textContent;wheel(0.5,{deltaY:-100});z.plain_wheel=vb();
wheel(0.5,{deltaY:-100,ctrlKey:true});z.wheel=vb();z.tick0_zoomed=tk.textContent;
b[0].click();z.button=vb();ptr('pointerdown',0.6);ptr('pointermove',0.4);ptr('pointerup',0.4);z.drag=vb();
b[2].click();z.reset=vb();z.tick0_reset=tk.textContent;}}
catch(e){r.errs.push(String(e))}
var p=document.createElement('pre');p.id='__probe';p.textContent=JSON.stringify(r);document.body.appendChild(p);})();
</script>"""


def run(*args, expect=0, **kw):
    r = subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), capture_output=True, text=True, **kw)
    ok(f"{' '.join(args)} exits {expect}", r.returncode == expect, f"exit {r.returncode}\n{r.stderr[-2000:]}")
    return r


def chromium(tmp, *args):
    """Run headless Chromium; returns (stdout, stderr)."""
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
           f"--user-data-dir={os.path.join(tmp, 'chromium-profile')}", "--enable-logging=stderr", "--v=0"]
    r = subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=90)
    return r.stdout, r.stderr


def console_errors(stderr):
    return [ln for ln in stderr.splitlines() if "CONSOLE" in ln and ("Uncaught" in ln or "Error" in ln)]


class Elements(HTMLParser):
    """Counts elements by tag and collects the text, and <script>/<img> elements with their attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.text, self.scripts, self.imgs, self.h2 = {}, [], [], [], []
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "script":
            self.scripts.append(dict(attrs))
        if tag == "img":
            self.imgs.append(dict(attrs))
        if tag == "h2":
            self._in_h2 = True
            self.h2.append("")

    def handle_endtag(self, tag):
        if tag == "h2":
            self._in_h2 = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_h2:
            self.h2[-1] += data


class Num(str):
    """A JSON number kept as the text the report wrote."""


def parse(html):
    p = Elements()
    p.feed(html)
    return p


def probed(tmp, html_path, name):
    """Dump the DOM of a probed copy of the report; returns (dom, probe result, console error lines)."""
    with open(html_path, encoding="utf-8") as f:
        src = f.read()
    src = src.replace("<head>", "<head>" + PROBE_HEAD, 1).replace("</body>", PROBE_TAIL + "</body>", 1)
    copy = os.path.join(tmp, name + ".probe.html")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(src)
    dom, err = chromium(tmp, "--dump-dom", "file://" + copy)
    m = re.search(r'<pre id="__probe">(.*?)</pre>', dom, re.S)
    probe = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&")) if m else None
    return dom, probe, console_errors(err)


def report(db, out, *extra):
    t = time.monotonic()
    run("gpuprof-report", db, "--format", "html", "-o", out, *extra)
    return time.monotonic() - t


def check_report(tmp, db, name, min_svg):
    """A real or synthetic session: tables, charts, script, network, screenshot."""
    html = os.path.join(tmp, name + ".html")
    report(db, html)
    ok(f"{name}: report written", os.path.exists(html) and os.path.getsize(html) > 0)
    if not os.path.exists(html):
        return
    with open(html, encoding="utf-8") as f:
        src = f.read()
    doc = json.loads(run("gpuprof-report", db, "--format", "json").stdout)["tables"]
    names = list(doc.keys())
    shown = [k for k in names if k == "summary" or doc[k]]
    ok(f"{name}: self-contained", not re.search(r"https?://", src), re.findall(r"https?://\S{0,40}", src)[:3])
    style = re.search(r"<style>(.*?)</style>", src, re.S)
    ok(f"{name}: inline style sheet (report/report.css embedded)",
       style and "prefers-color-scheme: dark" in style.group(1) and "@media print" in style.group(1))
    ok(f"{name}: no external resources", not re.search(r"<(link|iframe|object|embed)\b|\bsrc=", src))
    # the exact values (data-v, title) are the JSON report's numbers, character for character
    raw = json.loads(run("gpuprof-report", db, "--format", "json").stdout, parse_int=Num, parse_float=Num)["tables"]
    for k in shown:
        sec = re.search(rf'<section id="t-{k}">(.*?)</section>', src, re.S)
        got = re.findall(r'data-v="([^"]+)" title="([^" ]+)', sec.group(1)) if sec else None
        # JSON alone gives each absolute time its offset twin (KEY_offset_ns): HTML shows the table's columns
        want = [v for row in raw[k] for key, v in row.items() if isinstance(v, Num) and not key.endswith("_offset_ns")]
        check(f"{name}: {k}: exact values", got, [(v, v) for v in want])
    dom, probe, cerr = probed(tmp, html, name)
    p = parse(dom)
    check(f"{name}: <table> per shown section", p.tags.get("table", 0), len(shown))
    for k in shown:
        ok(f"{name}: section {k}", f'id="t-{k}"' in dom, "missing")
    ok(f"{name}: svg charts", p.tags.get("svg", 0) >= min_svg, f"{p.tags.get('svg', 0)} < {min_svg}")
    ok(f"{name}: hotspot bars", 'id="c-hotspots"' in dom)
    # Each chart follows the table whose columns it draws (report/html.c's charts[]): the session over time
    # after the summary (start_ns and end_ns), the bars after the first table of names with total_ns, ...
    after, last = {}, None
    for sid in re.findall(r'<section id="([^"]+)">', src):
        if sid.startswith("t-"):
            last = sid
        else:
            after[sid] = last
    want = {"c-timeline": "t-summary", "c-metrics": "t-summary", "c-hotspots": "t-hotspots",
            "c-stalls": "t-stall_kernels", "c-memory": "t-memory", "c-ranks": "t-ranks"}
    charts = sorted(set(after) | {"c-timeline", "c-hotspots"})
    check(f"{name}: each chart after its table", {c: after.get(c) for c in charts}, {c: want[c] for c in charts})
    if "ranks" in shown:  # a session of several GPUs: per rank a stacked bar, and the verdict under the table
        chart = re.search(r'<section id="c-ranks">(.*?)</section>', dom, re.S)
        bars = re.findall(r'<text x="\d+" y="\d+" text-anchor="end">([^<]*)</text>', chart.group(1)) if chart else []
        check(f"{name}: ranks chart: a bar per rank", len(bars), len(doc["ranks"]))
        ok(f"{name}: ranks verdict shown", re.search(r'<p class="verdict">verdict: [^<]+</p>', dom) is not None)
    ok(f"{name}: timeline", 'id="c-timeline"' in dom)
    ok(f"{name}: probe ran", probe is not None, dom[-500:])
    if probe:
        check(f"{name}: script errors", probe["errs"], [])
        check(f"{name}: click-to-sort ascending", probe["sorted"], True)
    check(f"{name}: console errors", cerr, [])
    if probe and 'id="c-timeline"' in dom:
        check_zoom(name, probe.get("zoom"))
    png = os.path.join(tmp, name + ".png")
    chromium(tmp, f"--screenshot={png}", "--window-size=1400,3000", "file://" + html)
    ok(f"{name}: screenshot", os.path.exists(png) and os.path.getsize(png) > 10000,
       f"{png}: {os.path.getsize(png) if os.path.exists(png) else 'missing'}")
    if os.path.exists(png):
        with open(png, "rb") as f:
            check(f"{name}: screenshot is a PNG", f.read(8), b"\x89PNG\r\n\x1a\n")
        print(f"report_html: screenshot {png}")



# Injected into a copy of the report: per table its width, its container's and whether that scrolls; per
# table its tallest body row in lines of its first cell; the name cells with a title and a <details>; the
# smallest label of any chart as drawn (font size times the SVG's scale on screen).
LAYOUT_PROBE = """<script>(function(){var r={rows:[],tables:[],fonts:[],names:0,titled:0,details:0};
var lh=function(el){var cs=getComputedStyle(el);var l=parseFloat(cs.lineHeight);return isNaN(l)?parseFloat(cs.fontSize)*1.2:l;};
document.querySelectorAll('section[id^="t-"] table').forEach(function(t){
 var sec=t.closest('section').id, box=t.parentElement, cs=getComputedStyle(box);
 var main=document.querySelector('main').getBoundingClientRect();
 var bw=box.getBoundingClientRect();
 r.tables.push({sec:sec,w:Math.round(t.getBoundingClientRect().width),box:Math.round(bw.width),
   scroll:(cs.overflowX==='auto'||cs.overflowX==='scroll'),boxInMain:bw.right<=main.right+1&&bw.left>=main.left-1});
 var worst=0;
 Array.prototype.forEach.call(t.tBodies[0].rows,function(tr){var h=tr.getBoundingClientRect().height,
   lines=h/lh(tr.cells[0]);if(lines>worst)worst=lines;});
 r.rows.push({sec:sec,lines:Math.round(worst*10)/10});});
document.querySelectorAll('td.name').forEach(function(td){r.names++;
 if(td.hasAttribute('title'))r.titled++;if(td.querySelector('details'))r.details++;});
var minf=1e9,minw='';
document.querySelectorAll('svg.chart text').forEach(function(t){if(t.closest('[display="none"]'))return;
 var m=t.getScreenCTM();if(!m)return;var f=parseFloat(getComputedStyle(t).fontSize)*Math.abs(m.d);
 if(f<minf){minf=f;minw=(t.closest('section')||{}).id+': '+t.textContent.slice(0,30);}});
r.fonts={min:Math.round(minf*100)/100,where:minw};
var p=document.createElement('pre');p.id='__measure';p.textContent=JSON.stringify(r);document.body.appendChild(p);})();</script>"""
ROW_LINES_MAX, LABEL_PX_MIN = 3, 12


def check_layout(tmp, html, name):
    """Long names, wide tables and chart labels at 1400 and 800 px wide, measured in Chromium's DOM."""
    with open(html, encoding="utf-8") as f:
        src = f.read()
    copy = os.path.join(tmp, name + ".layout.html")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(src.replace("</body>", LAYOUT_PROBE + "</body>", 1))
    for width in (1400, 800):
        dom, _ = chromium(tmp, f"--window-size={width},3000", "--dump-dom", "file://" + copy)
        m = re.search(r'<pre id="__measure">(.*?)</pre>', dom, re.S)
        ok(f"{name} at {width} px: layout measured", m is not None, dom[-300:])
        if not m:
            continue
        r = json.loads(unescape(m.group(1)))
        check(f"{name} at {width} px: rows of at most {ROW_LINES_MAX} lines",
              [x for x in r["rows"] if x["lines"] > ROW_LINES_MAX + 0.5], [])
        check(f"{name} at {width} px: a table wider than its box scrolls in it",
              [x for x in r["tables"] if x["w"] > x["box"] + 1 and not x["scroll"]], [])
        check(f"{name} at {width} px: every table's box within the page", [x for x in r["tables"] if not x["boxInMain"]], [])
        ok(f"{name} at {width} px: chart labels at least {LABEL_PX_MIN} px", r["fonts"]["min"] >= LABEL_PX_MIN, r["fonts"])
        ok(f"{name} at {width} px: tables measured", len(r["rows"]) > 3 and r["names"] > 0, r)
    # every name over 80 characters: cut in the cell, whole in its title and its <details>
    doc = json.loads(run("gpuprof-report", html[:-5] + ".db", "--format", "json").stdout)["tables"]
    long = {row[k] for t in doc.values() for row in t for k in ("name",) if isinstance(row.get(k), str) and len(row[k]) > 80}
    cells = re.findall(r'<td class="name" title="([^"]*)"><details><summary>([^<]*)</summary>([^<]*)</details></td>', src)
    ok(f"{name}: long names in the tables", len(long) > 0, "none")
    check(f"{name}: each long name whole in a title and a <details>", long - {unescape(t) for t, _, d in cells if t == d}, set())
    check(f"{name}: the cut names at most 80 characters", [c for _, c, _ in cells if len(unescape(c)) > 80], [])
    check(f"{name}: the cut names cut in the middle", [c for t, c, _ in cells if "..." not in c or
                                                        not unescape(t).startswith(unescape(c).split("...")[0])], [])


def check_zoom(name, z):
    """What the probe saw of the timeline's zoom: the script shows the buttons; a plain wheel leaves the
    view (the page scrolls); Ctrl+wheel zooms 1.5x at the pointer, the button 2x more, a drag leftwards
    moves the window later, reset restores the whole session, the axis relabelled each time."""
    ok(f"{name}: zoom: probe saw the timeline", z is not None)
    if not z:
        return
    view = lambda k: [float(v) for v in z[k].split()]
    check(f"{name}: zoom: buttons shown by the script", z["bar"], True)
    x, y, w, h = view("start")
    check(f"{name}: zoom: whole session at first", (x, y, w), (0.0, 0.0, 1e6))
    check(f"{name}: zoom: a plain wheel leaves the view", z["plain_wheel"], z["start"])
    wx, _, ww, wh = view("wheel")
    close(f"{name}: zoom: Ctrl+wheel zooms 1.5x", ww, 1e6 / 1.5, 1e-6)
    ok(f"{name}: zoom: at the pointer (the middle of the chart, not the start)", 1e5 < wx < 3e5, z["wheel"])
    check(f"{name}: zoom: height kept", wh, h)
    bx, _, bw, _ = view("button")
    close(f"{name}: zoom: the zoom-in button halves the window", bw, ww / 2, 1e-6)
    dx, _, dw, _ = view("drag")
    check(f"{name}: zoom: a drag keeps the width", dw, bw)
    ok(f"{name}: zoom: dragging leftwards shows later times", dx > bx, f"{bx} -> {dx}")
    check(f"{name}: zoom: reset", z["reset"], z["start"])
    check(f"{name}: zoom: first axis label", (z["tick0"], z["tick0_reset"]), ("+0 ns", "+0 ns"))
    ok(f"{name}: zoom: axis relabelled when zoomed", z["tick0_zoomed"] != "+0 ns", z["tick0_zoomed"])


XSS = ["<script>window.pwned=1</script>", '<img src=x onerror="window.pwned=2">', "a & b \"quoted\" 'single'"]


def xss_session(path):
    """A wire-format session whose kernels carry hostile names (and an NVTX range named like one)."""
    n = 30
    kern = {"start": [], "end": []}
    for i in range(n):
        kern["start"].append(1000 * i)
        kern["end"].append(1000 * i + 200 + 100 * (i % 3))
    cols = {"device": [0] * n, "context": [1] * n, "stream": [7 + i % 2 for i in range(n)], "correlation": list(range(1, n + 1)),
            "name": [1 + i % 3 for i in range(n)], "mangled": [0] * n,
            **{k: [1] * n for k in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z")},
            **{k: [0] * n for k in ("cluster_x", "cluster_y", "cluster_z", "registers", "static_smem",
                                    "dynamic_smem", "local_mem", "graph_id", "graph_node")}}
    lines = [
        {"type": "header", "v": 1, "session": "xss<&>\"'", "pid": 1, "origin_ns": "1700000000000000000",
         "program": "<b>prog</b>", "hostname": "h'\"<i>"},
        {"type": "strings", "v": 1, "ids": [1, 2, 3, 4], "values": XSS + ["<svg onload=\"window.pwned=3\">"]},
        {"type": "kernel", "v": 1, "seq": 0, "n": n, **kern, **cols},
        {"type": "range", "v": 1, "seq": 0, "n": 1, "start": [0], "end": [n * 1000], "thread": [1], "name": [4],
         "domain": [0], "kind": [1], "depth": [0], "id": [1]},
        {"type": "end", "v": 1, "ts": n * 1000 + 10},
    ]
    with open(path, "w") as f:
        for ln in lines:
            f.write(json.dumps(ln) + "\n")


def check_long_names(tmp):
    """Chart labels: a name over 60 characters is cut in the middle as text tables cut names (two thirds of
    57 from the head, a third from the tail, two-byte characters here), shorter names stay whole. The full
    name is the label's tooltip."""
    long, short = "\u00e9" * 70, "k" * 60
    n = 2
    cols = {"start": [0, 1000], "end": [500, 1300], "name": [1, 2], "grid_x": [1] * n, "block_x": [32] * n}
    for f in ("device", "context", "stream", "correlation", "mangled", "grid_y", "grid_z", "block_y", "block_z",
              "cluster_x", "cluster_y", "cluster_z", "registers", "static_smem", "dynamic_smem", "local_mem",
              "graph_id", "graph_node"):
        cols[f] = [0] * n
    src = os.path.join(tmp, "long.ndjson")
    with open(src, "w") as f:
        for ln in ({"type": "header", "v": 1, "session": "long", "pid": 1, "origin_ns": "1700000000000000000"},
                   {"type": "strings", "v": 1, "ids": [1, 2], "values": [long, short]},
                   {"type": "kernel", "v": 1, "seq": 0, "n": n, **cols}, {"type": "end", "v": 1, "ts": 2000}):
            f.write(json.dumps(ln) + "\n")
    db = os.path.join(tmp, "long.db")
    run("gpuprof-ingest", "-q", src, "-o", db)
    html = run("gpuprof-report", db, "--format", "html").stdout
    chart = re.search(r'<section id="c-hotspots">(.*?)</section>', html, re.S)
    labels = re.findall(r'<text x="\d+" y="\d+" text-anchor="end">([^<]*)</text>', chart.group(1)) if chart else None
    check("long names: hotspot chart labels", labels, ["\u00e9" * 38 + "..." + "\u00e9" * 19, short])
    ok("long names: the whole name in the tooltip", f"<title>{long}: " in html)


def check_xss(tmp):
    src_dir = os.path.join(tmp, "xss")
    os.makedirs(src_dir)
    xss_session(os.path.join(src_dir, "1.ndjson"))
    db = os.path.join(tmp, "xss.db")
    run("gpuprof-ingest", "-q", src_dir, "-o", db)
    html = os.path.join(tmp, "xss.html")
    report(db, html)
    with open(html, encoding="utf-8") as f:
        src = f.read()
    ok("xss: escaped in the file", "&lt;script&gt;window.pwned=1&lt;/script&gt;" in src)
    ok("xss: attribute escaped", "&lt;img src=x onerror=&quot;window.pwned=2&quot;&gt;" in src)
    ok("xss: quotes and ampersand escaped", "a &amp; b &quot;quoted&quot; &#39;single&#39;" in src)
    ok("xss: no raw hostile markup", not any(x in src for x in XSS[:2]) and "<svg onload" not in src)
    dom, probe, cerr = probed(tmp, html, "xss")
    p = parse(dom)
    text = "".join(p.text)
    for x in XSS:
        ok(f"xss: shown as text {x!r}", x in text, "not in the page's text")
    check("xss: <script> elements", len(p.scripts), 3)  # the report's sort script and the two probes
    check("xss: <img> elements", p.imgs, [])
    ok("xss: no svg onload", "onload" not in re.sub(r"<script>.*?</script>", "", dom, flags=re.S).lower()
       .replace("&lt;svg onload", ""), "an onload attribute reached the DOM")
    ok("xss: probe ran", probe is not None)
    if probe:
        check("xss: window.pwned", probe["pwned"], "undefined")
        check("xss: script errors", probe["errs"], [])
    check("xss: console errors", cerr, [])


def fmt_ns(ns):
    """A time as the report writes it (lib/table.c's fmt_ns)."""
    a = abs(ns)
    return (f"{ns:.0f} ns" if a < 1e3 else f"{ns / 1e3:.3f} us" if a < 1e6 else f"{ns / 1e6:.3f} ms" if a < 1e9
            else f"{ns / 1e9:.3f} s")


def timeline_of(html):
    m = re.search(r'<section id="c-timeline">(.*?)</section>', html, re.S)
    return m.group(1) if m else ""


def timeline_bars(tl):
    """The plot's bars as (row y, class, title), and per (what, where) the events they hold: a bar of
    several says how many in its title, a bar of one is one event (kernels: class k, copies: cp)."""
    plot = re.search(r'<svg class="tlp"[^>]*>(.*?)</svg>', tl, re.S)
    bars, held = [], {}
    for y, row in re.findall(r'<g transform="translate\(0 (\d+)\)">(.*?)</g>', plot.group(1) if plot else "", re.S):
        for cls, title in re.findall(r'<rect class="([^"]+)"[^>]*><title>(.*?)</title></rect>', row, re.S):
            bars.append((int(y), cls, title))
            m = re.match(r"(\d+) (kernels|copies and memsets|NVTX ranges) in [^(]+\(busy [^)]+\) on ([^&]+)&#10;", title)
            if m:
                key, n = (m.group(2), m.group(3)), int(m.group(1))
            else:
                what = "kernels" if cls.split()[0] == "k" else "copies and memsets" if cls.split()[0] == "cp" else "NVTX ranges"
                key, n = (what, re.search(r" on ([^&]+)$", title).group(1)), 1
            held[key] = held.get(key, 0) + n
    return bars, held


def check_timeline_demo(tmp):
    """The demo recording's timeline: a row of NVTX ranges per host thread, nested ranges a sub-row lower,
    every kernel, copy, memset and range held by some bar, hover titles with name, duration and stream or
    thread, and the page's static form (buttons hidden until the script runs)."""
    demo = os.path.join(checks.ROOT, "tests", "data", "demo-session")
    db = os.path.join(tmp, "demo.db")
    run("gpuprof-ingest", "-q", demo, "-o", db)
    html = run("gpuprof-report", db, "--format", "html").stdout
    tl = timeline_of(html)
    con = sqlite3.connect(db)
    q = lambda sql: con.execute(sql).fetchall()
    threads = q("SELECT pid, thread_id, count(*) FROM ranges WHERE kind IN (1, 2) GROUP BY 1, 2")
    check("demo timeline: an NVTX row per host thread",
          sorted((w, int(n)) for w, n in re.findall(r"<title>(thread \d+, pid \d+): (\d+) NVTX ranges</title>", tl)),
          sorted((f"thread {t}, pid {p}", n) for p, t, n in threads))
    bars, held = timeline_bars(tl)
    check("demo timeline: every kernel, copy and memset in a bar of stream 7",
          {k: v for k, v in held.items() if k[0] != "NVTX ranges"},
          {("kernels", "stream 7, GPU 0"): q("SELECT count(*) FROM kernels")[0][0],
           ("copies and memsets", "stream 7, GPU 0"): q("SELECT (SELECT count(*) FROM memcpys) + (SELECT count(*) FROM memsets)")[0][0]})
    check("demo timeline: every range in a bar of its thread",
          {k[1]: v for k, v in held.items() if k[0] == "NVTX ranges"}, {f"thread {t}, pid {p}": n for p, t, n in threads})
    ok("demo timeline: bars bounded", len(bars) <= 4000 + 64 * 4, len(bars))
    # nesting: train_step and eval on one sub-row, their children (depth 1) on the next
    rows = {}
    for y, cls, title in bars:
        if cls.startswith("nv") and " m" not in cls:
            rows.setdefault(title.split("&#10;")[0], set()).add(y)
    top = rows.get("train_step", {0})
    check("demo timeline: train_step and eval share a sub-row", rows.get("eval"), top)
    check("demo timeline: forward, backward, data, optimizer a sub-row lower",
          [rows.get(n) for n in ("forward", "backward", "data", "optimizer")], [{min(top) + 16}] * 4)  # RANGE_H (report/timeline.c)
    p, t, dur = q("""SELECT pid, thread_id, end_ns - start_ns FROM range_events WHERE name = 'train_step'
                    ORDER BY dur_ns DESC LIMIT 1""")[0]
    ok("demo timeline: a range's title: name, duration, thread",
       f"<title>train_step&#10;{fmt_ns(dur)} on thread {t}, pid {p}</title>" in tl, fmt_ns(dur))
    ok("demo timeline: the CUB ranges' titles name their domain", "<title>CCCL: cub::DeviceRadixSort&#10;" in tl)
    ok("demo timeline: names written in wide range bars", re.search(r'<svg class="lb"[^>]*><text[^>]*>train_step<', tl))
    singles = [t for _, cls, t in bars if cls == "k"]
    ok("demo timeline: some kernels drawn alone", len(singles) > 20, len(singles))
    for t in singles[:: max(1, len(singles) // 20)]:
        name, dur, where = re.match(r"(.*)\n(.*) on (.*)$", unescape(t)).groups()
        cut = name.endswith("...")
        durs = [fmt_ns(d) for (d,) in con.execute("""SELECT k.end_ns - k.start_ns FROM kernels k JOIN strings s
                ON s.session_id = k.session_id AND s.id = k.name_id WHERE k.stream_id = 7
                AND (s.value = ?1 OR ?2 AND substr(s.value, 1, length(?1) - 3) || '...' = ?1)""", (name, cut))]
        ok(f"demo timeline: a kernel's title {name[:40]!r}: its duration on its stream",
           where == "stream 7, GPU 0" and dur in durs, f"{t}: {durs[:5]}")
    merged = [t for _, cls, t in bars if cls == "k m"]
    ok("demo timeline: a merged bar's title: count, span, busy, stream, longest kernel",
       merged and re.match(r"\d+ kernels in [0-9.]+ [mun]?s \(busy [0-9.]+ [mun]?s\) on stream 7, GPU 0&#10;longest: .+&#10;"
                           r"[0-9.]+ [mun]?s$", merged[0]), merged[:1])
    ok("demo timeline: the note says what was merged", re.search(r'<p class="note">[^<]*Bars of several events \(\d+', tl))
    ok("demo timeline: static without script: buttons hidden", '<p class="tlbar" hidden>' in tl)
    ok("demo timeline: static without script: the whole session", 'viewBox="0 0 1000000 ' in tl)
    png = os.path.join(tmp, "timeline.png")
    src = html.replace("</style>", "main > section:not(#c-timeline), header, footer {display: none}</style>", 1)
    with open(os.path.join(tmp, "timeline.html"), "w", encoding="utf-8") as f:
        f.write(src)
    chromium(tmp, f"--screenshot={png}", "--window-size=1400,700", "--hide-scrollbars",
             "file://" + os.path.join(tmp, "timeline.html"))
    ok("demo timeline: screenshot", os.path.exists(png) and os.path.getsize(png) > 10000)
    print(f"report_html: timeline screenshot {png}")


def check_timeline_gpus(tmp, db, name):
    """A session of several nodes: a GPU per (node, device), never two ranks' device 0 in one."""
    tl = timeline_of(run("gpuprof-report", db, "--format", "html").stdout)
    con = sqlite3.connect(db)
    want = sorted({f"rank {r} GPU {d}" for r, d in con.execute(
        "SELECT p.rank, k.device_id FROM kernels k JOIN processes p USING (session_id, pid)")})
    check(f"{name}: timeline: a heading per (rank, device)", sorted(re.findall(r'<text class="hd"[^>]*>(rank \d+ GPU \d+)</text>', tl)), want)
    _, held = timeline_bars(tl)
    got = {k[1]: v for k, v in held.items() if k[0] == "kernels"}
    want = {}
    for r, d, st, n in con.execute("""SELECT p.rank, k.device_id, k.stream_id, count(*) FROM kernels k
                                      JOIN processes p USING (session_id, pid) GROUP BY 1, 2, 3"""):
        want[f"stream {st}, rank {r} GPU {d}"] = n
    check(f"{name}: timeline: each lane holds its (rank, device, stream)'s kernels", got, want)


def check_timeline_gpu_ranges(tmp, trace):
    """GPU-side NVTX ranges (kind 3, Kineto's gpu_user_annotation) under their stream's lane."""
    db = os.path.join(tmp, "gpu_ranges.db")
    run("gpuprof-ingest", "-q", trace, "-o", db)
    tl = timeline_of(run("gpuprof-report", db, "--format", "html").stdout)
    con = sqlite3.connect(db)
    _, held = timeline_bars(tl)
    got = {k[1]: v for k, v in held.items() if k[0] == "NVTX ranges" and k[1].startswith("stream")}
    want = {f"stream {s}, GPU {d}": n for s, d, n in con.execute(
        """SELECT r.thread_id, (SELECT min(device_id) FROM kernels k WHERE k.stream_id = r.thread_id), count(*)
           FROM ranges r WHERE kind = 3 GROUP BY 1""")}
    ok("gpu ranges: the trace has some", want, "none")
    check("gpu ranges: every one under its stream", got, want)
    ok("gpu ranges: an NVTX row under a lane", re.search(r'<title>stream \d+, GPU \d+: GPU-side NVTX ranges</title>NVTX</text>', tl))


def check_large(tmp):
    """Size and time for a 200k-kernel synthetic session."""
    d = os.path.join(tmp, "synth200k")
    run("gpuprof-synth", "--kernels", "200000", "--seed", "7", "--no-expected", "-o", d)
    db = os.path.join(tmp, "synth200k.db")
    run("gpuprof-ingest", "-q", d, "-o", db)
    html = os.path.join(tmp, "synth200k.html")
    secs = report(db, html)
    size = os.path.getsize(html) if os.path.exists(html) else 0
    print(f"report_html: 200k kernels: {size} bytes, {secs:.2f} s")
    ok("200k: under 2 MB", 0 < size < 2_000_000, f"{size} bytes")
    ok("200k: under 20 s", secs < 20, f"{secs:.2f} s")
    with open(html, encoding="utf-8") as f:
        p = parse(f.read())
    ok("200k: memory chart and more", p.tags.get("svg", 0) >= 3, p.tags)
    with open(html, encoding="utf-8") as f:
        tl = timeline_of(f.read())
    bars, held = timeline_bars(tl)
    print(f"report_html: 200k kernels: timeline {len(tl)} bytes, {len(bars)} bars")
    ok("200k: timeline bars within budget (2000 + 2000, 64 a row at least)", 0 < len(bars) <= 4000 + 64 * 12, len(bars))
    check("200k: every kernel in a bar", sum(v for k, v in held.items() if k[0] == "kernels"), 200000)
    ok("200k: the note says bars merge", "Bars of several events" in tl)


def main():
    if not CHROMIUM:
        print("report_html: skipped: chromium not installed")
        print("report_html: 0 passed, 0 failed")
        return 0
    tmp = tempfile.mkdtemp(prefix="report_html.")
    keep = os.environ.get("KEEP_TMP")
    try:
        alexnet = os.path.join(TRACES, "kineto", "a100_alexnet.json.gz")
        memory = os.path.join(TRACES, "kineto", "v100_memory_events.json.gz")
        if os.path.exists(alexnet) and os.path.exists(memory):
            for name, trace, min_svg in (("alexnet", alexnet, 2), ("v100mem", memory, 3)):
                db = os.path.join(tmp, name + ".db")
                run("gpuprof-ingest", "-q", trace, "-o", db)
                check_report(tmp, db, name, min_svg)
            check_layout(tmp, os.path.join(tmp, "alexnet.html"), "alexnet")
        else:
            print("report_html: ../shared/traces absent: using gpuprof-synth")
            d = os.path.join(tmp, "synth3000")
            run("gpuprof-synth", "--kernels", "3000", "--seed", "7", "-o", d)
            db = os.path.join(tmp, "synth3000.db")
            run("gpuprof-ingest", "-q", d, "-o", db)
            check_report(tmp, db, "synth3000", 3)
            check_layout(tmp, os.path.join(tmp, "synth3000.html"), "synth3000")
        # A job of four ranks: the per-rank chart and the verdict.
        d = os.path.join(tmp, "ranks4")
        run("gpuprof-synth", "--ranks", "4", "--gpus-per-host", "2", "--seed", "5", "-o", d)
        db = os.path.join(tmp, "ranks4.db")
        run("gpuprof-ingest", "-q", *[os.path.join(d, f"rank{r}.json") for r in range(4)], "--session", "job",
            "-o", db)
        check_report(tmp, db, "ranks4", 2)
        check_timeline_gpus(tmp, db, "ranks4")
        check_timeline_demo(tmp)
        report(os.path.join(tmp, "demo.db"), os.path.join(tmp, "demo.html"))
        check_layout(tmp, os.path.join(tmp, "demo.html"), "demo")
        nccl = os.path.join(TRACES, "kineto", "a100_nccl.json.gz")
        if os.path.exists(nccl):
            check_timeline_gpu_ranges(tmp, nccl)
        check_xss(tmp)
        check_long_names(tmp)
        check_large(tmp)
    finally:
        if keep:
            print(f"report_html: kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("report_html")


if __name__ == "__main__":
    os.environ.setdefault("LC_ALL", "C")
    os.environ.setdefault("TZ", "UTC")
    sys.exit(main())
