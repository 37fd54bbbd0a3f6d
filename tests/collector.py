#!/usr/bin/env python3
"""The collector without a GPU: hand-built CUPTI activity and PC-sampling buffers through the real conversion
paths, ingested and compared field by field; wire.c's batch lines that cannot be written; libgpuprof.so loaded
the way the driver loads it, with each engine and with bad PC-sampling settings; a program's life under it (50 forked
children, an exec, a SIGKILL mid-write, closed stdout and stderr) and every allocation it makes failing in turn
(failmalloc.so); trace windows (--trace-window) over a workload played in time; its exported symbols, none of
which can abort the program.
Skipped, with the reason printed, when the collector was not built (no CUPTI)."""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time

import checks
from checks import BIN, check, ok

BUILD = os.path.dirname(BIN)
LIB = os.path.join(BUILD, "lib", "libgpuprof.so")


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return [list(r) for r in con.execute(sql).fetchall()]
    finally:
        con.close()


def planted(tmp, name):
    """Run tests/collector/test_NAME, which writes hand-built buffers as a wire file and prints what it planted;
    ingest the file. Returns (file, what was planted, database, the ingest's CompletedProcess)."""
    out = os.path.join(tmp, name + ".ndjson")
    exp = json.loads(subprocess.run([os.path.join(BUILD, "tests", "collector", "test_" + name), out],
                                    capture_output=True, text=True, check=True).stdout)
    db = os.path.join(tmp, name + ".db")
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", out, "-o", db], capture_output=True, text=True)
    return out, exp, db, r


def activity(tmp):
    out, exp, db, r = planted(tmp, "activity")
    check("activity session ingests, the lost record reported", (r.returncode, r.stderr),
          (0, f"gpuprof-ingest: warning: {out}: the collector lost 1 unfinished records (cupti)\n"))
    check("every record walked by cuptiActivityGetNextRecord", exp["records_walked"], 22)
    k = exp["kernel"]
    cols = [c for c in k if c not in ("name", "mangled")]
    got = rows(db, "SELECT " + ", ".join(cols) + " FROM kernels")
    check("one kernel (the unfinished one dropped)", len(got), 1)
    if got:
        for c, v in zip(cols, got[0]):
            check(f"kernel {c}", v, k[c])
    check("kernel names (demangled, mangled kept)",
          rows(db, "SELECT name, mangled FROM kernel_events"), [[k["name"], k["mangled"]]])
    check("memcpys incl. peer-to-peer", rows(db, """SELECT start_ns, end_ns, kind, src_kind, dst_kind, bytes,
          src_device, dst_device, async, stream_id FROM memcpys ORDER BY start_ns"""), exp["memcpys"])
    check("memset", rows(db, "SELECT start_ns, end_ns, bytes, value, mem_kind, stream_id, correlation_id FROM memsets"),
          [exp["memset"]])
    check("sync", rows(db, "SELECT start_ns, end_ns, kind, stream_id, correlation_id FROM syncs"), [exp["sync"]])
    check("alloc and free", rows(db, """SELECT m.ts_ns, m.op, m.mem_kind, m.address, m.bytes, m.pc, s.value, m.stream_id
          FROM memory_events m LEFT JOIN strings s ON s.session_id = m.session_id AND s.id = m.site_id
          ORDER BY m.ts_ns"""), exp["memory"])
    launch = re.sub(r"_v[0-9]+$", "", exp["launch_name"])
    check("launch call", rows(db, """SELECT a.start_ns, a.end_ns, a.thread_id, a.correlation_id, a.cbid, a.domain
          FROM api_calls a WHERE correlation_id = 42"""), [exp["api"]])
    check("launch call name without the API version", rows(db, """SELECT s.value FROM api_calls a JOIN strings s
          ON s.session_id = a.session_id AND s.id = a.name_id WHERE correlation_id = 42"""), [[launch]])
    check("failed allocations: a callback per entry and return, an event per out-of-memory return only (not the "
          "driver call inside a runtime call, not a success, not an invalid value)",
          (exp["oom_calls"], exp["oom_events"], exp["oom_clock"]), (7, 4, "CUPTI's"))
    check("failed allocations: time, device, thread, correlation, bytes requested, call, cbid, domain, return code, "
          "memory kind, the NVTX path open on the thread (its ranges in start order, counters folded, not another "
          "thread's)", rows(db, """SELECT f.ts_ns, f.device_id, f.thread_id, f.correlation_id, f.bytes, s.value,
          f.cbid, f.domain, f.result, f.mem_kind, p.value FROM alloc_failures f
          LEFT JOIN strings s ON s.session_id = f.session_id AND s.id = f.call_id
          LEFT JOIN strings p ON p.session_id = f.session_id AND p.id = f.path_id ORDER BY f.ts_ns"""),
          exp["alloc_failures"])
    check("failed allocations: the allocator's totals unknown to the collector", rows(db, """SELECT
          count(total_allocated), count(total_reserved) FROM alloc_failures"""), [[0, 0]])
    check("a failed allocation joins its API record, which has the return code and no size",
          rows(db, """SELECT s.value, a.start_ns, a.end_ns, a.thread_id FROM alloc_failures f JOIN api_calls a
          ON a.session_id = f.session_id AND a.pid = f.pid AND a.correlation_id = f.correlation_id
          JOIN strings s ON s.session_id = a.session_id AND s.id = a.name_id"""),
          [["cudaMallocPitch", exp["origin"] + 11000, exp["origin"] + 11600, 5555]])
    check("kernel joins its launch by correlation", rows(db, """SELECT count(*) FROM kernels k JOIN api_calls a
          ON a.session_id = k.session_id AND a.pid = k.pid AND a.correlation_id = k.correlation_id"""), [[1]])
    check("NVTX ranges paired, nested, unfinished kept", rows(db, """SELECT n.value, r.start_ns, r.end_ns,
          r.thread_id, r.kind, r.depth, d.value FROM ranges r
          JOIN strings n ON n.session_id = r.session_id AND n.id = r.name_id
          LEFT JOIN strings d ON d.session_id = r.session_id AND d.id = r.domain_id ORDER BY n.value"""),
          exp["ranges"])
    check("instant marker", rows(db, """SELECT s.value, m.ts_ns, m.thread_id FROM markers m JOIN strings s
          ON s.session_id = m.session_id AND s.id = m.name_id"""), [exp["marker"]])
    check("device", rows(db, """SELECT id, name, uuid, cc_major, cc_minor, sms, memory_bytes, core_clock_khz,
          mem_bandwidth_kbs, max_threads_per_sm, max_regs_per_sm, max_smem_per_sm FROM devices"""), [exp["device"]])
    check("overheads: the object's ids only, untimed kept with NULL times", rows(db, """SELECT start_ns, end_ns,
          kind, object_kind, thread_id, device_id, context_id, stream_id, correlation_id FROM overheads
          ORDER BY rowid"""), exp["overheads"])
    check("overhead kinds and objects named", rows(db, """SELECT kind, object_kind, dur_ns FROM overhead_events
          ORDER BY rowid"""), [["CUPTI buffer flush", "thread", 2500], ["UVM activity init", "device", 300],
                                 ["lazy function loading", "context", 300], ["command buffer full", "stream", 100],
                                 ["activity buffer request", "process", None]])
    check("overhead details freed once, converted or dropped",
          (exp["overhead_data_released"], exp["dropped_overhead_data_released"]), (True, True))
    check("the untimed overhead leaves the session's span alone", rows(db, """SELECT start_ns - origin_ns,
          end_ns - origin_ns FROM sessions"""), [[500, 40000]])
    r = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "overhead", db, "--format", "json"], capture_output=True,
                       text=True)
    got = json.loads(r.stdout) if r.returncode == 0 else []
    check("overhead analysis: every kind, by time, the untimed one last",
          [(o["kind"], o["count"], o["untimed"], o["total_ns"], o["max_ns"]) for o in got],
          [("CUPTI buffer flush", 1, 0, 2500, 2500), ("UVM activity init", 1, 0, 300, 300),
           ("lazy function loading", 1, 0, 300, 300), ("command buffer full", 1, 0, 100, 100),
           ("activity buffer request", 1, 1, 0, None)])
    check("overhead analysis: share of the session's wall span", [round(o["wall_pct"], 6) for o in got],
          [round(100 * d / 39500, 6) for d in (2500, 300, 300, 100, 0)])
    check("unfinished records counted as dropped", rows(db, "SELECT source, what, count FROM drops"),
          [["cupti", "unfinished records", exp["dropped_unfinished"]]])
    check("clean end", rows(db, "SELECT clean_end FROM sessions"), [[1]])


def wire(tmp):
    """Batch lines that cannot be written (file size limit): counted, the buffer reused, later lines valid."""
    out, exp, db, r = planted(tmp, "wire")
    lost = exp["added"]    # the adding stopped at the third failed line: every record added went with them
    check("three failed batch lines, each reported by wire_add", exp["failed_adds"], 3)
    check("their records counted as lost", exp["lost"], lost)
    check("writing goes on once the limit is lifted", (exp["flush"], exp["close"]), (0, 0))
    check("the file ingests, the loss reported", (r.returncode, r.stderr),
          (0, f"gpuprof-ingest: warning: {out}:3: 3 marker batch(es) missing before seq 3\n"
              f"gpuprof-ingest: warning: {out}: {lost} marker record(s) written by the collector are missing "
              "from the file\n"))
    check("the markers after the failures, named by a string whose first declaration was lost",
          rows(db, """SELECT count(*), min(s.value), max(s.value) FROM markers m JOIN strings s
          ON s.session_id = m.session_id AND s.id = m.name_id"""),
          [[exp["kept"], "lost-1", "lost-1"]])
    check("clean end", rows(db, "SELECT clean_end FROM sessions"), [[1]])


def pcsampling(tmp):
    out, exp, db, r = planted(tmp, "pcsampling")
    check("pc-sampling session ingests, the lost samples reported", (r.returncode, r.stderr),
          (0, f"gpuprof-ingest: warning: {out}: the collector lost 17 samples (pcsampling)\n"
              f"gpuprof-ingest: warning: {out}: the collector lost 1 events (hwbuffer)\n"))
    want = exp["samples"]
    check("a row per (PC, reason) with samples, none for a zero count", exp["rows_written"], len(want))
    got = rows(db, """SELECT p.ts_ns, p.device_id, f.value, p.cubin_crc, p.pc_offset, r.name, p.samples,
          p.correlation_id, src.value, p.line FROM pc_samples p
          JOIN stall_reasons r ON r.session_id = p.session_id AND r.pid = p.pid AND r.device_id = p.device_id
            AND r.id = p.stall_reason_id
          JOIN strings f ON f.session_id = p.session_id AND f.id = p.function_id
          LEFT JOIN strings src ON src.session_id = p.session_id AND src.id = p.file_id""")
    key = lambda x: [str(v) for v in x]
    check("pc samples: count", len(got), len(want))
    for i, (g, e) in enumerate(zip(sorted(got, key=key), sorted(want, key=key))):
        for c, gv, ev in zip(["ts", "device", "function", "cubin_crc", "pc_offset", "reason", "samples",
                              "correlation", "file", "line"], g, e):
            check(f"pc sample {i} {c}", gv, ev)
    by_reason = {}
    for e in want:
        by_reason[e[5]] = by_reason.get(e[5], 0) + e[6]
    check("samples per reason", rows(db, """SELECT r.name, sum(p.samples) FROM pc_samples p JOIN stall_reasons r
          ON r.session_id = p.session_id AND r.pid = p.pid AND r.device_id = p.device_id AND r.id = p.stall_reason_id
          GROUP BY r.name ORDER BY r.name"""), [[k, v] for k, v in sorted(by_reason.items())])
    check("stall-reason tables per device, as the devices number them",
          rows(db, "SELECT device_id, id, name FROM stall_reasons ORDER BY device_id, id"), exp["reasons"])
    check("every sample's function is a kernel's name (join by name)", rows(db, """SELECT count(*) FROM pc_samples p
          WHERE NOT EXISTS (SELECT 1 FROM kernels k WHERE k.session_id = p.session_id AND k.name_id = p.function_id
          AND k.device_id = p.device_id)"""), [[0]])
    check("serialized mode: samples join their launch by correlation", rows(db, """SELECT count(*) FROM pc_samples p
          JOIN kernels k ON k.session_id = p.session_id AND k.correlation_id = p.correlation_id
          AND k.name_id = p.function_id WHERE p.correlation_id != 0"""),
          [[sum(1 for e in want if e[7])]])
    check("dropped samples and a full hardware buffer, as data", rows(db, """SELECT ts_ns - (SELECT origin_ns
          FROM sessions), source, what, count FROM drops ORDER BY ts_ns"""),
          [[20000, "pcsampling", "samples", 17], [30000, "hwbuffer", "events", 1]])  # as test_pcsampling.c plants
    check("the converter counted what it was given", (exp["dropped"], exp["hwfull"]), (17, 1))
    check("PC sampling's totals per buffer, as planted (none for a buffer without)", rows(db, """SELECT ts_ns -
          (SELECT origin_ns FROM sessions), device_id, total_samples, non_user_samples, dropped_samples FROM pc_totals
          ORDER BY ts_ns"""), [[20000, 0, 147, 5, 17], [40000, 1, 9, 2, 0]])
    check("clean end", rows(db, "SELECT clean_end, engine FROM sessions"), [[1, "pcsampling"]])
    r = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "stalls", db, "--format", "csv"], capture_output=True,
                       text=True)
    check("the stalls analysis reads them", (r.returncode, "long_scoreboard" in r.stdout), (0, True))


def inject_pcsampling(tmp, prog):
    """The pcsampling engine without a GPU: returns, records why it is off; bad settings recorded, defaults kept."""
    cases = [
        ("pcs-bad", {"GPUPROF_PC_PERIOD": "4", "GPUPROF_PC_MODE": "sometimes", "GPUPROF_PC_HWBUF_MB": "0"},
         ["GPUPROF_PC_MODE: 'sometimes' is not continuous or serialized; continuous is used",
          "GPUPROF_PC_PERIOD: '4' is not an integer in 5..31; CUPTI's default period is used",
          "GPUPROF_PC_HWBUF_MB: '0' is not an integer in 1..65536; the default, 512 MB, is used"],
         {"pc_mode": "continuous", "pc_period": None, "pc_scratch_mb": 4, "pc_hwbuf_mb": 512, "pc_cubin_mb": 256}),
        ("pcs-big", {"GPUPROF_PC_PERIOD": "32", "GPUPROF_PC_SCRATCH_MB": "x"},
         ["GPUPROF_PC_PERIOD: '32' is not an integer in 5..31; CUPTI's default period is used",
          "GPUPROF_PC_SCRATCH_MB: 'x' is not an integer in 1..4096; the default, 4 MB, is used"],
         {"pc_mode": "continuous", "pc_period": None, "pc_scratch_mb": 4, "pc_hwbuf_mb": 512, "pc_cubin_mb": 256}),
        ("pcs-good", {"GPUPROF_PC_PERIOD": "5", "GPUPROF_PC_MODE": "serialized", "GPUPROF_PC_SCRATCH_MB": "16",
                      "GPUPROF_PC_HWBUF_MB": "64", "GPUPROF_PC_CUBIN_MB": "0"}, [],
         {"pc_mode": "serialized", "pc_period": 5, "pc_scratch_mb": 16, "pc_hwbuf_mb": 64, "pc_cubin_mb": 0}),
    ]
    for name, settings, notes, options in cases:
        env = dict(os.environ, GPUPROF_OUTPUT=os.path.join(tmp, name), GPUPROF_SESSION=name,
                   GPUPROF_ENGINE="pcsampling", **settings)
        env.pop("GPUPROF_LAUNCHER", None)
        r = subprocess.run([prog, LIB], env=env, capture_output=True, text=True, timeout=60)
        check(f"{name}: InitializeInjection returns, prints nothing", (r.returncode, r.stdout, r.stderr), (0, "", ""))
        db = os.path.join(tmp, name + ".db")
        r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", os.path.join(tmp, name, name), "-o", db],
                           capture_output=True, text=True)
        check(f"{name}: the session ingests", (r.returncode, r.stderr), (0, ""))
        check(f"{name}: clean end, engine", rows(db, "SELECT clean_end, engine FROM sessions"), [[1, "pcsampling"]])
        opts = json.loads(rows(db, "SELECT options FROM sessions")[0][0])
        check(f"{name}: the settings in force in the header", {k: opts.get(k, "missing") for k in options}, options)
        reasons = [x[0] for x in rows(db, "SELECT reason FROM collector_errors WHERE what = 'pcsampling' ORDER BY ts_ns")]
        check(f"{name}: rejected settings recorded, then why PC sampling is off", reasons,
              notes + ["PC sampling needs CUPTI's callbacks (cuptiSubscribe: CUPTI_ERROR_UNKNOWN): it is off"])
        check(f"{name}: no 'not implemented' left", rows(db, """SELECT count(*) FROM collector_errors
              WHERE reason LIKE '%not implemented%'"""), [[0]])


def knobs(tmp, prog):
    """The settings kept for measuring the collector's cost on a GPU (tests/gpu/peers.sh): GPUPROF_API=runtime or
    driver enables the core calls of that domain alone; GPUPROF_CUPTI_ATTRS reaches cuptiActivitySetAttribute
    before the buffer callbacks are registered, with the right sizes (the stand-in checks), a bad item recorded
    and left out; GPUPROF_WRITER_CPU pins the writer; the header says what was in force."""
    fake = os.path.join(BUILD, "tests", "collector", "fake")
    for api, runtime, driver in (("runtime", ["cudaLaunchKernel_v7000", "cudaMemcpyAsync_v3020",
                                              "cudaStreamSynchronize_v3020"], []),
                                 ("driver", [], ["cuLaunchKernel", "cuMemAlloc_v2", "cuLibraryLoadData",
                                                 "cuCtxIsland_Fake", "cuStreamDisable_Fake"])):
        name = "knobs-" + api
        env = dict(os.environ, GPUPROF_OUTPUT=os.path.join(tmp, name), GPUPROF_SESSION=name, GPUPROF_ENGINE="trace",
                   LD_LIBRARY_PATH=fake, GPUPROF_API=api, GPUPROF_WRITER_CPU="0",
                   GPUPROF_CUPTI_ATTRS="per_thread=0,device_buffer_mb=32,prealloc=2,bogus=1,pinned=7,pool_limit=9,pinned=1")
        env.pop("GPUPROF_LAUNCHER", None)
        r = subprocess.run([prog, LIB, "0"], env=env, capture_output=True, text=True, timeout=60)
        check(f"{name}: runs", (r.returncode, r.stderr), (0, ""))
        rep = json.loads(r.stdout)
        check(f"{name}: no call out of order or of the wrong size", rep["violations"], [])
        check(f"{name}: API records of one domain", (rep["api"]["runtime"], rep["api"]["driver"]), (runtime, driver))
        check(f"{name}: CUPTI's attributes as given", rep["attrs"], {"device_buffer": 32 << 20, "pool_limit": 9,
              "prealloc": 2, "pinned": 1, "per_thread": 0})
        db = os.path.join(tmp, name + ".db")
        ingest(os.path.join(tmp, name, name), db)
        opts = json.loads(rows(db, "SELECT options FROM sessions")[0][0])
        check(f"{name}: the header says what was in force", (opts["api"], opts["cupti_attrs"]),
              (api, "per_thread=0,device_buffer_mb=32,prealloc=2,pool_limit=9,pinned=1"))
        check(f"{name}: the first bad item recorded", [x[0] for x in rows(db, "SELECT reason FROM collector_errors WHERE "
              "reason LIKE 'GPUPROF_CUPTI_ATTRS%' OR reason LIKE 'GPUPROF_WRITER_CPU%'")],
              ["GPUPROF_CUPTI_ATTRS: 'bogus=1' is not one of per_thread=0|1, device_buffer_mb=1..4096, prealloc=0..64, "
               "pool_limit=0..1024, pinned=0|1; left out"])


def engine(tmp, prog):
    """The pcsampling engine against the stand-in libcupti (fake_cupti.c): its calls in the order and shape the
    API asks, samples read by the writer, at launches, unload, destroy and exit, with source lines."""
    fake = os.path.join(BUILD, "tests", "collector", "fake")
    scenarios = [
        ("continuous", "0", {"GPUPROF_PC_PERIOD": "9", "GPUPROF_PC_SCRATCH_MB": "8", "GPUPROF_PC_HWBUF_MB": "64"},
         {"period": 9, "mode": 1, "scratch": 8 << 20, "hwbuf": 64 << 20, "launch": 0}, 0, []),
        ("serialized", "1", {"GPUPROF_PC_MODE": "serialized", "GPUPROF_PC_PERIOD": "7", "GPUPROF_PC_HWBUF_MB": "2048",
                             "GPUPROF_API": "all"},
         {"period": 0, "mode": 2, "scratch": 0, "hwbuf": 0, "launch": 1}, 7,
         ["cuptiPCSamplingSetConfigurationAttribute (device 0): CUPTI_ERROR_INVALID_PARAMETER (hardware buffer "
          "size: CUPTI_ERROR_INVALID_PARAMETER)", "device 0 samples with CUPTI's default period and buffer sizes"]),
    ]
    for name, destroy, settings, config, corr, config_notes in scenarios:
        env = dict(os.environ, GPUPROF_OUTPUT=os.path.join(tmp, "eng-" + name), GPUPROF_SESSION=name,
                   GPUPROF_ENGINE="pcsampling", LD_LIBRARY_PATH=fake, **settings)
        env.pop("GPUPROF_LAUNCHER", None)
        r = subprocess.run([prog, LIB, destroy], env=env, capture_output=True, text=True, timeout=60)
        check(f"engine {name}: runs, prints only the stand-in's report", (r.returncode, r.stderr), (0, ""))
        try:
            rep = json.loads(r.stdout)
        except ValueError:
            check(f"engine {name}: the stand-in's report", r.stdout, "JSON")
            continue
        check(f"engine {name}: every call in the order and shape the API asks", rep["violations"], [])
        got = {k: rep[k] for k in ("period", "mode", "scratch", "hwbuf")}
        got["launch"] = rep["callbacks"]["launch"]
        check(f"engine {name}: the configuration CUPTI was given", got, config)
        check(f"engine {name}: context and module callbacks on", (rep["callbacks"]["context_created"],
              rep["callbacks"]["module_loaded"]), (1, 1))
        check(f"engine {name}: one Disable (context A; B never started)", rep["disables"], 1)
        check(f"engine {name}: NVTX's injection reaches the libcupti the library is bound to", rep["nvtx_table"], "0x5eed")
        buf = rep["buffers"]
        check(f"engine {name}: CUPTI told buffers come zeroed; 6 asked for, every one zeroed",
              (buf["zeroed_attr"], buf["requested"], buf["dirty"]), (1, 6, 0))
        ok(f"engine {name}: converted buffers are cleared and handed out again", buf["reused"] >= 1, buf)
        api = rep["api"]
        if settings.get("GPUPROF_API") == "all":
            check(f"engine {name}: GPUPROF_API=all: every runtime and driver call", api,
                  {"runtime_kind": 1, "driver_kind": 1, "runtime": [], "driver": []})
        else:
            check(f"engine {name}: API calls by default: all but those that only read state", api,
                  {"runtime_kind": 0, "driver_kind": 0,
                   "runtime": ["cudaLaunchKernel_v7000", "cudaMemcpyAsync_v3020", "cudaStreamSynchronize_v3020"],
                   "driver": ["cuLaunchKernel", "cuMemAlloc_v2", "cuLibraryLoadData", "cuCtxIsland_Fake",
                              "cuStreamDisable_Fake"]})
        check(f"engine {name}: the kept cubin's CRC taken once", rep["crc_calls"], 1)
        db = os.path.join(tmp, f"eng-{name}.db")
        r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", os.path.join(tmp, "eng-" + name, name), "-o", db],
                           capture_output=True, text=True)
        check(f"engine {name}: the session ingests, the overflow reported", (r.returncode, r.stderr.count("lost")), (0, 2))
        check(f"engine {name}: clean end", rows(db, "SELECT clean_end FROM sessions"), [[1]])
        check(f"engine {name}: the API selection in the header", json.loads(rows(db, "SELECT options FROM sessions")[0][0])
              .get("api"), settings.get("GPUPROF_API", "core"))
        check(f"engine {name}: every sample handed out is in the session", rows(db, "SELECT sum(samples) FROM pc_samples"),
              [[rep["samples_handed"]]])
        check(f"engine {name}: PC sampling's totals as GetData gave them",
              rows(db, "SELECT sum(total_samples), sum(non_user_samples), sum(dropped_samples) FROM pc_totals"),
              [[rep["totals_handed"], rep["nonuser_handed"], 5]])
        check(f"engine {name}: PCs read once each", rows(db, """SELECT count(*) FROM (SELECT pc_offset, stall_reason_id
              FROM pc_samples GROUP BY pc_offset, stall_reason_id HAVING count(*) > 1)"""), [[0]])
        check(f"engine {name}: function names demangled", rows(db, """SELECT DISTINCT s.value FROM pc_samples p
              JOIN strings s ON s.session_id = p.session_id AND s.id = p.function_id ORDER BY 1"""),
              [["fma_chain(float*, int)"], ["memory_walk(float const*, float*, int, int)"]])
        check(f"engine {name}: source lines from the kept cubin", rows(db, """SELECT count(*) FROM pc_samples p
              JOIN strings f ON f.session_id = p.session_id AND f.id = p.file_id
              WHERE f.value = '/src/fake.cu' AND p.line = 100 + p.pc_offset / 16"""),
              rows(db, "SELECT count(*) FROM pc_samples"))
        check(f"engine {name}: what Disable flushed is written", rows(db, "SELECT samples FROM pc_samples WHERE pc_offset = 1600"),
              [[101]])
        check(f"engine {name}: correlation ids", rows(db, "SELECT DISTINCT correlation_id FROM pc_samples"), [[corr]])
        check(f"engine {name}: device 0's stall reasons, once", rows(db, "SELECT device_id, id FROM stall_reasons ORDER BY id"),
              [[0, 0], [0, 3], [0, 5], [0, 9]])
        check(f"engine {name}: the overflow as data", rows(db, "SELECT source, what, count FROM drops ORDER BY source"),
              [["hwbuffer", "events", 1], ["pcsampling", "samples", 5]])
        notes = [x[0] for x in rows(db, "SELECT reason FROM collector_errors WHERE what = 'pcsampling' ORDER BY ts_ns")]
        check(f"engine {name}: what went wrong, recorded", notes, config_notes + [
            "cuptiPCSamplingEnable (device 1): CUPTI_ERROR_NOT_SUPPORTED; PC sampling does not run with activity "
            "tracing here: tracing goes on without it",
            "the hardware buffer of device 0 overflowed and its samples were lost (raise GPUPROF_PC_HWBUF_MB or "
            "GPUPROF_PC_PERIOD)"])


def inject(tmp):
    out = os.path.join(tmp, "inj", "inject-test")
    env = dict(os.environ, GPUPROF_OUTPUT=os.path.join(tmp, "inj"), GPUPROF_SESSION="inject-test")
    env.pop("GPUPROF_LAUNCHER", None)
    prog = os.path.join(BUILD, "tests", "collector", "test_inject")
    r = subprocess.run([prog, LIB], env=env, capture_output=True, text=True, timeout=60)
    check("InitializeInjection without a GPU: returns 1 twice, exit 0, prints nothing",
          (r.returncode, r.stdout, r.stderr), (0, "", ""))
    files = sorted(os.listdir(out)) if os.path.isdir(out) else []
    check("one file for the process", len(files), 1)
    db = os.path.join(tmp, "inj.db")
    r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", out, "-o", db], capture_output=True, text=True)
    check("the session ingests", (r.returncode, r.stderr), (0, ""))
    check("clean end", rows(db, "SELECT clean_end, engine FROM sessions"), [[1, "trace"]])
    reasons = [r[0] + ": " + r[1] for r in rows(db, "SELECT what, reason FROM collector_errors")]
    check("why tracing is off is recorded",
          any(x.startswith("cupti: cuptiActivityEnable(CONCURRENT_KERNEL)") for x in reasons), True)
    check("no NVML here is recorded", any(x.startswith("nvml: ") for x in reasons), True)
    check("host metrics sampled by the library itself", rows(db, "SELECT count(*) > 0 FROM host_metrics"), [[1]])

    env["GPUPROF_DISABLED"] = "1"
    env["GPUPROF_OUTPUT"] = os.path.join(tmp, "off")
    r = subprocess.run([prog, LIB], env=env, capture_output=True, text=True, timeout=60)
    check("GPUPROF_DISABLED=1: inert", (r.returncode, os.path.exists(os.path.join(tmp, "off"))), (0, False))
    inject_pcsampling(tmp, prog)
    engine(tmp, prog)
    knobs(tmp, prog)


FAKE = os.path.join(BUILD, "tests", "collector", "fake")
LIFE = os.path.join(BUILD, "tests", "collector", "life")
FAILMALLOC = os.path.join(BUILD, "tests", "collector", "failmalloc.so")
# make test-sanitize: the programs carry ASan's allocator, which failmalloc.so cannot come before, and which
# a child forked from a threaded parent may find locked for good (life_fork is skipped there).
SANITIZED = bool(os.environ.get("GPUPROF_SANITIZE"))


def life_env(sdir, **more):
    """The environment of a program under the collector as gpuprof-collect sets it, with the stand-in libcupti."""
    env = dict(os.environ, LD_LIBRARY_PATH=FAKE, CUDA_INJECTION64_PATH=os.path.abspath(LIB), GPUPROF_SESSION_DIR=sdir,
               GPUPROF_SESSION="life", GPUPROF_BUFFER_MB="1", **more)
    env.pop("GPUPROF_LAUNCHER", None)
    return env


def ingest(path, db):
    if os.path.exists(db):
        os.remove(db)
    return subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", path, "-o", db], capture_output=True, text=True)


def per_process(db):
    """{pid: [clean_end, kernels, memcpys]} of a database."""
    return {r[0]: r[1:] for r in rows(db, """SELECT p.pid, p.clean_end,
            (SELECT count(*) FROM kernels k WHERE k.session_id = p.session_id AND k.pid = p.pid),
            (SELECT count(*) FROM memcpys m WHERE m.session_id = p.session_id AND m.pid = p.pid) FROM processes p""")}


def failmalloc(tmp):
    """Every allocation libgpuprof.so makes in a run fails in turn (failmalloc.so), alone and with all after it:
    the program exits with its own status and the session ingests with kernels + memcpys + what the drops
    lines count of them = what the stand-in delivered."""
    import time
    k, m = 1000, 300
    rep = os.path.join(tmp, "fm-report")
    sdir = os.path.join(tmp, "fm-count")
    r = subprocess.run([LIFE, "work", str(k), str(m), "7"], env=life_env(sdir, LD_PRELOAD=FAILMALLOC,
                       FAILMALLOC_REPORT=rep), capture_output=True, text=True, timeout=60)
    check("failmalloc: counting run exits with the program's status", (r.returncode, r.stderr), (7, ""))
    points = int(open(rep).read().split()[0])
    ok("failmalloc: the library allocates (points counted)", points >= 10, points)
    bad, nofile, dropped, started = [], [], 0, time.time()
    for after in ("0", "1"):
        for n in range(1, points + 3):	# a run may allocate a little more than the counting one
            sdir = os.path.join(tmp, f"fm-{after}-{n}")
            r = subprocess.run([LIFE, "work", str(k), str(m), "7"], env=life_env(sdir, LD_PRELOAD=FAILMALLOC,
                               FAILMALLOC_N=str(n), FAILMALLOC_AFTER=after), capture_output=True, text=True, timeout=60)
            if (r.returncode, r.stdout, r.stderr) != (7, "", ""):
                bad.append((after, n, "exit", r.returncode, r.stderr[-300:]))
                continue
            if not os.path.isdir(sdir):
                nofile.append((after, n))	# its set-up found no memory: no session, the program untouched
                continue
            db = sdir + ".db"
            i = ingest(sdir, db)
            if i.returncode:
                bad.append((after, n, "ingest", i.returncode, i.stderr[-300:]))
                continue
            got = rows(db, """SELECT (SELECT count(*) FROM kernels), (SELECT count(*) FROM memcpys),
                   (SELECT coalesce(sum(count), 0) FROM drops WHERE source IN ('cupti', 'ring')
                    OR (source = 'memory' AND what IN ('kernel records', 'memcpy records'))),
                   (SELECT clean_end FROM sessions)""")[0]
            dropped += got[2]
            if got[0] + got[1] + got[2] != k + m or got[3] != 1:
                bad.append((after, n, "counts", got))
    print(f"failmalloc: {points} allocation points, each failed alone and with all after it: "
          f"{2 * (points + 2)} runs in {time.time() - started:.1f} s; {len(nofile)} left no session, "
          f"{dropped} records dropped and counted")
    check("failmalloc: every run exits with its own status, ingests, and its counts add up", bad, [])
    ok("failmalloc: only a failure in the set-up leaves no session", len(nofile) <= 4, nofile)


def life_fork(tmp):
    """fork: the parent and its 25 children that initialise CUDA again each write a file of the session."""
    sdir = os.path.join(tmp, "life-fork")
    r = subprocess.run([LIFE, "fork", "50", "300", "100", "9"], env=life_env(sdir), capture_output=True, text=True,
                       timeout=120)
    check("fork: 50 children end with their own statuses, the parent with its own", (r.returncode, r.stderr), (9, ""))
    db = os.path.join(tmp, "life-fork.db")
    i = ingest(sdir, db)
    check("fork: the session ingests", (i.returncode, i.stderr), (0, ""))
    procs = per_process(db)
    parent = [p for p, v in procs.items() if v[1] != 300]
    check("fork: one file per process that initialised (the parent and 25 children)", len(procs), 26)
    check("fork: each child: clean end, its 300 kernels and 100 memcpys",
          sorted(v for p, v in procs.items() if p not in parent), [[1, 300, 100]] * 25)
    check("fork: the parent: clean end, its kernels and memcpys (300 + 5 x 30, 100 + 5 x 10)",
          [procs[p] for p in parent], [[1, 450, 150]])
    if parent:
        check("fork: the children's parent is the parent",
              rows(db, f"SELECT DISTINCT ppid FROM processes WHERE pid != {int(parent[0])}"), [[parent[0]]])



def life_oom(tmp):
    """Allocations that fail for want of memory, then a SIGKILL at once (life oom): the failures, the records
    queued before them and those CUPTI held until the collector's immediate flush are all in the session."""
    sdir = os.path.join(tmp, "life-oom")
    r = subprocess.run([LIFE, "oom", "300", "100", "40"], env=life_env(sdir), capture_output=True, text=True,
                       timeout=60)
    check("oom: the program died of SIGKILL right after its failed allocations", (r.returncode, r.stderr),
          (-9, ""))
    thread = int(r.stdout.split()[1]) if r.stdout.startswith("thread ") else None
    db = os.path.join(tmp, "life-oom.db")
    i = ingest(sdir, db)
    check("oom: the session ingests (truncated: not an error)", i.returncode, 0)
    check("oom: no session-end record, and every record delivered before the failure is there: 300 kernels "
          "and 100 memcpys of the workload, the 40 CUPTI held until the flush",
          [v for v in per_process(db).values()], [[0, 340, 100]])
    check("oom: the held kernels, flushed by the failure", rows(db, """SELECT count(*), min(device_id), max(stream_id)
          FROM kernels WHERE correlation_id >= 900"""), [[40, 1, 9]])
    check("oom: each attempt of the caching allocator a record, the driver's cuMemCreate too (no success, no "
          "invalid value, no driver call inside a runtime call)",
          rows(db, """SELECT f.device_id, f.thread_id, f.correlation_id, f.bytes, s.value, f.domain, f.result
          FROM alloc_failures f JOIN strings s ON s.session_id = f.session_id AND s.id = f.call_id ORDER BY f.ts_ns"""),
          [[1, thread, 1001, 3 << 30, "cudaMalloc", 1, 2], [1, thread, 1004, 3 << 30, "cudaMalloc", 1, 2],
           [0, thread, 1005, 2000 << 20, "cuMemCreate", 2, 2]])
    check("oom: the failures lie in the session, in order", rows(db, """SELECT count(*) FROM alloc_failures f
          JOIN processes p ON p.session_id = f.session_id AND p.pid = f.pid WHERE f.ts_ns >= p.origin_ns"""), [[3]])
    a = subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "oom", db, "--format", "json"], capture_output=True,
                       text=True)
    failures = json.loads(a.stdout)["oom"] if a.returncode == 0 else []
    check("oom: the analysis names the NVTX range open on the failing thread, which never ended (the program was "
          "killed in it): recorded with the failure", [(f.get("thread"), f.get("path")) for f in failures],
          [(thread, "oom-step")] * 3)


def life(tmp):
    """A program's life under the collector: 50 forked children, an exec, a SIGKILL mid-write, closed stdout
    and stderr. Each exits with its own status; its files ingest with every delivered record."""
    import signal
    import time
    if SANITIZED:
        # (gdb on a hung child: its writer thread waits forever on a lock of ASan's allocator that another
        # thread of the parent held at the fork; glibc's malloc is made whole again in a child, ASan's
        # allocator in gcc 12's libasan is not.)
        print("collector: fork skipped: under ASan a forked child can hang in the allocator (make test runs it)")
    else:
        life_fork(tmp)
    # exec: the image before keeps what its writer flushed (it ends with no exit handler: truncated), the
    # image after writes <pid>-2.ndjson; each file ingests with its own records.
    sdir = os.path.join(tmp, "life-exec")
    r = subprocess.run([LIFE, "exec", "200", "50", "5"], env=life_env(sdir), capture_output=True, text=True, timeout=60)
    check("exec: the exec'd program's status", (r.returncode, r.stderr), (5, ""))
    files = sorted(os.listdir(sdir)) if os.path.isdir(sdir) else []
    check("exec: a file for each program of the process", [re.sub(r"^\d+", "PID", f) for f in files],
          ["PID-2.ndjson", "PID.ndjson"])
    for f, clean in zip(files, (1, 0)):
        db = os.path.join(tmp, f + ".db")
        i = ingest(os.path.join(sdir, f), db)
        check(f"exec: {re.sub(r'^[0-9]+', 'PID', f)} ingests", i.returncode, 0)
        check(f"exec: {re.sub(r'^[0-9]+', 'PID', f)}: clean end {clean}, 200 kernels, 50 memcpys",
              list(per_process(db).values()), [[clean, 200, 50]])
    # The session at once: both programs of the pid, the one exec'd into under pid + 2^32 (it is read first:
    # PID-2 sorts before PID), whatever the order; again: nothing added.
    if len(files) == 2:
        pid = int(files[1].split(".")[0])
        db = os.path.join(tmp, "life-exec.db")
        for order, paths in (("the session", [sdir]), ("the files in exec order", [os.path.join(sdir, files[1]),
                             os.path.join(sdir, files[0])])):
            if os.path.exists(db):
                os.remove(db)
            i = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-q", *paths, "-o", db], capture_output=True,
                               text=True)
            check(f"exec: {order} ingests, warning only of the first program's missing end",
                  (i.returncode, [l.split(": ", 3)[-1] for l in i.stderr.splitlines()]),
                  (0, ["no session-end record: the process did not finish cleanly (clean_end = 0)"]))
            got = {(p_ % (1 << 32), os.path.basename(f_)): (c, k, m) for p_, f_, c, k, m in rows(db, """SELECT p.pid,
                   p.file, p.clean_end, (SELECT count(*) FROM kernels k WHERE k.session_id = p.session_id AND k.pid = p.pid),
                   (SELECT count(*) FROM memcpys m WHERE m.session_id = p.session_id AND m.pid = p.pid) FROM processes p""")}
            check(f"exec: {order}: both programs of pid, each with its own records", got,
                  {(pid, files[0]): (1, 200, 50), (pid, files[1]): (0, 200, 50)})
        i = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), sdir, "-o", db], capture_output=True, text=True)
        check("exec: the session again: both skipped", (i.returncode, i.stderr.count("already in the database")), (0, 2))
        check("exec: the session again: nothing added", len(rows(db, "SELECT * FROM processes")), 2)

    # SIGKILL while the writer writes: every whole line is kept, the cut-off one dropped with a warning.
    sdir = os.path.join(tmp, "life-kill")
    p = subprocess.Popen([LIFE, "stream", "2000", "500"], env=life_env(sdir, LIFE_PER_BUFFER="500"),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = p.stdout.readline()
    time.sleep(1.6)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    check("kill: the program ran, then died of SIGKILL", (ready, p.returncode), ("ready\n", -signal.SIGKILL))
    files = os.listdir(sdir)
    whole = {"kernel": 0, "memcpy": 0}
    for f in files:
        with open(os.path.join(sdir, f), "rb") as fh:
            for line in fh.read().split(b"\n")[:-1]:
                rec = json.loads(line)
                if rec["type"] in whole:
                    whole[rec["type"]] += rec["n"]
    db = os.path.join(tmp, "life-kill.db")
    i = ingest(sdir, db)
    check("kill: the session ingests (truncated: not an error)", i.returncode, 0)
    check("kill: no session-end record, so clean_end = 0", [v[0] for v in per_process(db).values()], [0])
    ok("kill: the writer had written batches before the kill", whole["kernel"] > 0, whole)
    check("kill: every kernel and memcpy of the whole lines is in the database",
          [v[1:] for v in per_process(db).values()], [[whole["kernel"], whole["memcpy"]]])

    life_oom(tmp)

    # stdout and stderr closed first: the file must not take fd 1 or 2, where the program's output would go.
    sdir = os.path.join(tmp, "life-closed")
    r = subprocess.run([LIFE, "closed", "300", "100", "6"], env=life_env(sdir), capture_output=True, text=True,
                       timeout=60)
    check("closed: the program's status, nothing printed", (r.returncode, r.stdout, r.stderr), (6, "", ""))
    db = os.path.join(tmp, "life-closed.db")
    i = ingest(sdir, db)
    check("closed: the session ingests, none of the program's output in it", (i.returncode, i.stderr), (0, ""))
    check("closed: clean end, 300 kernels, 100 memcpys", list(per_process(db).values()), [[1, 300, 100]])


def merged(spans):
    """Intervals [start, end) sorted and merged."""
    out = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def traced_idle(busy, windows):
    """The gaps between merged busy spans, cut to the windows: the pieces, as gpu_gaps should give them."""
    pieces = []
    for (_, e0), (s1, _) in zip(busy, busy[1:]):
        for ws, we in windows:
            a, b = max(e0, ws), min(s1, we)
            if a < b:
                pieces.append((a, b))
    return pieces


def trace_windows(tmp):
    """--trace-window ON/EVERY through the stand-in libcupti, which records a kernel or an NVTX marker only while
    its kind is enabled and delivers a kernel only once it has ended (every 20th runs 150 ms: across a window's
    edge). Windows open and close on the session origin's grid; every recorded kernel lies inside one window,
    whose end moved on to cover the kernels launched in it; no kernel is lost or half-recorded; a range is whole
    or counted as cut; memory and device records stay on; idle, gaps and the summary count only traced time."""
    on, every, ms = 100, 300, 1300
    sdir = os.path.join(tmp, "windows")
    origin = time.time_ns()
    r = subprocess.run([LIFE, "timeline", str(ms), "1000", "150"], env=life_env(
        sdir, GPUPROF_TRACE_WINDOW=f"{on}ms/{every}ms", GPUPROF_ORIGIN_NS=str(origin)),
        capture_output=True, text=True, timeout=60)
    check("windows: the program's exit status", (r.returncode, r.stderr), (0, ""))
    fake = json.loads(r.stdout)
    db = os.path.join(tmp, "windows.db")
    r = ingest(sdir, db)
    check("windows: ingest", (r.returncode, r.stderr), (0, ""))
    wins = rows(db, "SELECT start_ns, end_ns, ranges_cut FROM trace_windows ORDER BY start_ns")
    n = len(wins)
    ok("windows: one per EVERY of the run (less the first when starting took long)", ms // every - 1 <= n <= ms // every + 1, wins)
    check("windows: the kernel kind went on once per window, off after each closed",
          (fake["kernel_on"], fake["kernel_off"] in (n, n - 1)), (n, True))
    check("windows: the marker kind too", (fake["marker_on"], fake["marker_off"]), (fake["kernel_on"], fake["kernel_off"]))
    check("windows: memory and device records never turned off", (fake["memory_off"], fake["device_off"]), (0, 0))
    grid = [((s - origin) // (every * 10**6), (s - origin) % (every * 10**6), e - origin) for s, e, _ in wins]
    check("windows: each opens inside its place on the origin's grid, closes at or after its end",
          [(k, off < on * 10**6, end >= k * every * 10**6 + on * 10**6) for k, off, end in grid],
          [(k, True, True) for k, _, _ in grid])
    check("windows: one per grid slot", len({k for k, _, _ in grid}), n)
    kernels = rows(db, "SELECT start_ns, end_ns FROM kernels ORDER BY start_ns")
    check("windows: every recorded kernel is in the session, none lost",
          (len(kernels), rows(db, "SELECT coalesce(sum(count), 0) FROM drops")[0][0]), (fake["recorded"], 0))
    ok("windows: launches outside the windows made no record", 0 < fake["recorded"] < fake["launched"], fake)
    outside = [k for k in kernels if not any(s <= k[0] and k[1] <= e for s, e, _ in wins)]
    check("windows: every kernel lies whole inside one window", outside, [])
    crossing = [(k, w) for k in kernels for w in wins
                if w[0] <= k[0] < w[0] + on * 10**6 <= k[1] and k[1] - k[0] >= 100 * 10**6]
    ok("windows: a long kernel ran across its window's nominal end, and the window's end covers it",
       crossing and all(w[1] >= k[1] for k, w in crossing), crossing)
    ranges = rows(db, "SELECT start_ns, end_ns FROM ranges")
    check("windows: ranges whole: recorded + cut at an edge = START records made",
          (len(ranges) + sum(w[2] for w in wins), all(e is not None for _, e in ranges)), (fake["ranges_begun"], True))
    check("windows: every range inside one window",
          [x for x in ranges if not any(s <= x[0] and x[1] <= e for s, e, _ in wins)], [])
    ok("windows: some range was cut", sum(w[2] for w in wins) > 0, wins)
    traced = sum(e - s for s, e in merged([(s, e) for s, e, _ in wins]))
    summary = json.loads(subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "summary", db, "--format", "json"],
                                        capture_output=True, text=True).stdout)[0]
    check("windows: summary's trace window and traced time", (summary["trace_window"], summary["traced_ns"]),
          (f"{on}ms/{every}ms", traced))
    busy = merged(kernels)
    pieces = traced_idle(busy, merged([(s, e) for s, e, _ in wins]))
    idle = json.loads(subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "idle", db, "--format", "json"],
                                     capture_output=True, text=True).stdout)[0]
    check("windows: idle = the gaps' traced pieces; span = busy + idle",
          (idle["idle_ns"], idle["busy_ns"], idle["span_ns"]),
          (sum(b - a for a, b in pieces), sum(e - s for s, e in busy), sum(e - s for s, e in busy) + sum(b - a for a, b in pieces)))
    gaps = json.loads(subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "gaps", db, "--format", "json", "--top", "100000"],
                                     capture_output=True, text=True).stdout)
    check("windows: the gaps are those pieces", sorted((g["start_ns"], g["start_ns"] + g["gap_ns"]) for g in gaps), pieces)
    problems = json.loads(subprocess.run([os.path.join(BIN, "gpuprof-analyze"), "problems", db, "--format", "json"],
                                         capture_output=True, text=True).stdout)
    check("windows: problems says the session was partly traced, first",
          (problems[0]["problem"], problems[0]["count"], f"traced {on}ms of every {every}ms" in problems[0]["detail"]),
          ("partly traced", n, True))
    check("windows: the process's own options", json.loads(rows(db, "SELECT options FROM processes")[0][0])["trace_window"],
          f"{on}ms/{every}ms")

    # Settings that leave the session traced throughout: ON = EVERY, and a bad value (recorded).
    for value, error in (("1s/1s", None), ("2/60", "GPUPROF_TRACE_WINDOW: '2/60': not ON/EVERY")):
        sdir = os.path.join(tmp, "win-" + value.replace("/", "-"))
        r = subprocess.run([LIFE, "timeline", "200", "1000", "5"], env=life_env(sdir, GPUPROF_TRACE_WINDOW=value),
                           capture_output=True, text=True, timeout=60)
        fake = json.loads(r.stdout)
        db = sdir + ".db"
        ingest(sdir, db)
        check(f"windows {value}: traced throughout", (fake["recorded"], fake["kernel_off"],
              rows(db, "SELECT count(*) FROM trace_windows")[0][0], rows(db, "SELECT count(*) FROM kernels")[0][0]),
              (fake["launched"], 0, 0, fake["launched"]))
        errs = [e[0] for e in rows(db, "SELECT reason FROM collector_errors WHERE what = 'cupti'")]
        check(f"windows {value}: the error recorded", [e.startswith(error) for e in errs] if error else errs,
              [True] if error else [])

    # gpuprof-collect checks the flag and passes it on.
    collect = os.path.join(BIN, "gpuprof-collect")
    for bad, why in (("2/60", "not ON/EVERY"), ("500us/1s", "ON is under 1 ms"), ("2s/1s", "ON is longer than EVERY")):
        r = subprocess.run([collect, "--trace-window", bad, "--", "true"], capture_output=True, text=True)
        check(f"gpuprof-collect --trace-window {bad}", (r.returncode, r.stderr.startswith(
            f"gpuprof-collect: error: --trace-window: invalid trace window '{bad}': {why}")), (2, True))
    out = os.path.join(tmp, "collect-win")
    r = subprocess.run([collect, "-q", "-o", out, "--trace-window", "100ms/300ms", "--", LIFE, "timeline", "700", "1000", "150"],
                       env=dict(life_env(out), GPUPROF_LIBRARY=os.path.abspath(LIB)), capture_output=True, text=True, timeout=60)
    check("gpuprof-collect --trace-window: the program's status", r.returncode, 0)
    db = os.path.join(tmp, "collect-win.db")
    sessions = [os.path.join(out, d) for d in os.listdir(out)]
    ingest(sessions[0], db)
    check("gpuprof-collect --trace-window: windows, and the option in the session and its process",
          (rows(db, "SELECT count(*) > 1 FROM trace_windows")[0][0],
           rows(db, "SELECT json_extract(options, '$.trace_window') FROM sessions")[0][0],
           rows(db, "SELECT DISTINCT json_extract(options, '$.trace_window') FROM processes")),
          (1, "100ms/300ms", [["100ms/300ms"]]))


def symbols():
    out = subprocess.run(["nm", "-D", "--defined-only", LIB], capture_output=True, text=True, check=True).stdout
    exported = sorted(l.split()[-1] for l in out.splitlines() if l.split() and l.split()[-2] in ("T", "D", "B", "W"))
    check("only the injection entry points are exported", exported, ["InitializeInjection", "InitializeInjectionNvtx2"])
    # The link keeps only what the entry points can reach (--gc-sections): none of it may end the program.
    undefined = subprocess.run(["nm", "-D", "--undefined-only", LIB], capture_output=True, text=True, check=True).stdout
    check("nothing in the library can end the program (abort, exit, assert)",
          sorted({l.split()[-1].split("@")[0] for l in undefined.splitlines()} &
                 {"abort", "exit", "_exit", "_Exit", "quick_exit", "__assert_fail", "err", "errx"}), [])
    local = subprocess.run(["nm", LIB], capture_output=True, text=True, check=True).stdout
    check("no aborting allocator (lib/util.c's x*, out_of_memory) is linked in",
          sorted({l.split()[-1] for l in local.splitlines()} &
                 {"xmalloc", "xcalloc", "xrealloc", "xstrdup", "xstrndup", "grow_array", "xmap", "out_of_memory",
                  "intmap_put", "die"}), [])


def main():
    if not os.path.exists(LIB):
        print("collector: skipped: libgpuprof.so was not built (no CUPTI at /usr/local/cuda)")
        print("collector: 0 passed, 0 failed")
        return 0
    with tempfile.TemporaryDirectory(prefix="gpuprof-collector-") as tmp:
        activity(tmp)
        wire(tmp)
        pcsampling(tmp)
        inject(tmp)
        life(tmp)
        if SANITIZED:
            print("collector: failmalloc skipped: under ASan its allocator comes first (make test runs it)")
        else:
            failmalloc(tmp)
        trace_windows(tmp)
        symbols()
    return checks.summary("collector")


if __name__ == "__main__":
    sys.exit(main())
