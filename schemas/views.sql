-- Views for sqlite3 users: names joined, durations computed, no extension needed.
-- Statistics follow Nsight Systems' conventions: median = mean of the two middle values for even
-- counts, stddev = sample standard deviation (n-1), 0 for one instance, time_pct of summed kernel time.
-- With the extension loaded (`.load build/lib/gpuprof_sqlite`), hotspots is a fast TEMP view of the same
-- columns (schemas/views-ext.sql), the one gpuprof-analyze reads; the tests check that both agree.
--
-- Every event view ends with t_ns: the event's start (ts_ns for instants) as an offset from its session's
-- start (sessions.start_ns), so "kernels between 10 s and 10.5 s" is `WHERE t_ns BETWEEN 10e9 AND 10.5e9`.
-- Columns are only ever appended, so positions stay what they were.
--
-- Each view is dropped and made again whenever gpuprof-ingest opens a database (lib/db.c runs this file
-- after schemas/session.sql): a database made by an older gpuprof gets the views of this one, new columns
-- included. `main.` keeps the TEMP views the extension makes (schemas/views-ext.sql) out of the drops.

DROP VIEW IF EXISTS main.kernel_events;
CREATE VIEW main.kernel_events AS
SELECT k.session_id, k.pid, k.start_ns, k.end_ns, k.end_ns - k.start_ns AS dur_ns,
       k.device_id, k.stream_id, k.correlation_id, n.value AS name, m.value AS mangled,
       k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z, k.registers,
       k.static_smem, k.dynamic_smem, coalesce(k.shared_mem, k.static_smem + k.dynamic_smem) AS shared_mem,
       k.start_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = k.session_id) AS t_ns
FROM kernels k
JOIN strings n ON n.session_id = k.session_id AND n.id = k.name_id
LEFT JOIN strings m ON m.session_id = k.session_id AND m.id = k.mangled_id;

-- hotspots: per session and kernel name, the statistics of the durations (one row per name, most total
-- time first). This stored view is plain SQL on purpose, so that every database answers without the
-- extension; it sorts every kernel row, about 16 s on 5M kernels. `.load build/lib/gpuprof_sqlite` makes
-- a TEMP view of the same name, columns and numbers from the table kernel_stats (grouped in C from the
-- column chunks; schemas/views-ext.sql), which shadows this one for unqualified names: 0.3 s on 5M
-- kernels. gpuprof-analyze hotspots reads that view (analyze/hotspots.sql).
-- The comment inside the view is what `.schema hotspots` shows.
DROP VIEW IF EXISTS main.hotspots;
CREATE VIEW main.hotspots AS
-- Slow without gpuprof's SQLite extension: `.load build/lib/gpuprof_sqlite` (or $PREFIX/lib/gpuprof_sqlite)
-- first, and `SELECT * FROM hotspots` reads the column chunks instead (README "With sqlite3").
WITH d AS (
	SELECT session_id, name_id, end_ns - start_ns AS dur,
	       row_number() OVER w AS rn,
	       count(*) OVER (PARTITION BY session_id, name_id) AS n,
	       avg(end_ns - start_ns) OVER (PARTITION BY session_id, name_id) AS mean
	FROM kernels
	WINDOW w AS (PARTITION BY session_id, name_id ORDER BY end_ns - start_ns)
), g AS (
	SELECT session_id, name_id, count(*) AS calls, sum(dur) AS total_ns, avg(dur) AS avg_ns,
	       avg(CASE WHEN rn IN ((n + 1) / 2, n / 2 + 1) THEN dur END) AS med_ns,
	       min(dur) AS min_ns, max(dur) AS max_ns,
	       sum((dur - mean) * (dur - mean)) AS ss
	FROM d GROUP BY session_id, name_id
)
SELECT g.session_id, s.value AS name, calls, total_ns, avg_ns, med_ns, min_ns, max_ns,
       CASE WHEN calls > 1 THEN sqrt(ss / (calls - 1)) ELSE 0.0 END AS stddev_ns,
       100.0 * total_ns / sum(total_ns) OVER (PARTITION BY g.session_id) AS time_pct
FROM g JOIN strings s ON s.session_id = g.session_id AND s.id = g.name_id
ORDER BY g.session_id, total_ns DESC, name;

DROP VIEW IF EXISTS main.memcpy_events;
CREATE VIEW main.memcpy_events AS
SELECT c.session_id, c.pid, c.start_ns, c.end_ns, c.end_ns - c.start_ns AS dur_ns, c.device_id,
       c.stream_id, ck.name AS kind, sk.name AS src_kind, dk.name AS dst_kind, c.bytes,
       c.src_device, c.dst_device,
       CASE WHEN c.end_ns > c.start_ns THEN c.bytes * 1.0 / (c.end_ns - c.start_ns) END AS gbps,
       c.start_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = c.session_id) AS t_ns
FROM memcpys c
LEFT JOIN copy_kinds ck ON ck.id = c.kind
LEFT JOIN memory_kinds sk ON sk.id = c.src_kind
LEFT JOIN memory_kinds dk ON dk.id = c.dst_kind;

DROP VIEW IF EXISTS main.range_events;
CREATE VIEW main.range_events AS
SELECT r.session_id, r.pid, r.thread_id, r.start_ns, r.end_ns, r.end_ns - r.start_ns AS dur_ns,
       n.value AS name, d.value AS domain, CASE r.kind WHEN 1 THEN 'PushPop' WHEN 2 THEN 'StartEnd' ELSE 'GPU' END AS style,
       r.depth,
       r.start_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = r.session_id) AS t_ns
FROM ranges r
JOIN strings n ON n.session_id = r.session_id AND n.id = r.name_id
LEFT JOIN strings d ON d.session_id = r.session_id AND d.id = r.domain_id;

DROP VIEW IF EXISTS main.memory_timeline;
CREATE VIEW main.memory_timeline AS
SELECT m.session_id, m.pid, m.device_id, m.ts_ns, CASE m.op WHEN 1 THEN 'alloc' ELSE 'free' END AS op,
       mk.name AS mem_kind, m.address, m.bytes, s.value AS site,
       sum(CASE m.op WHEN 1 THEN m.bytes ELSE -m.bytes END)
	   OVER (PARTITION BY m.session_id, m.pid, m.device_id ORDER BY m.ts_ns, m.rowid) AS live_bytes,
       m.ts_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = m.session_id) AS t_ns
FROM memory_events m
LEFT JOIN memory_kinds mk ON mk.id = m.mem_kind
LEFT JOIN strings s ON s.session_id = m.session_id AND s.id = m.site_id;

DROP VIEW IF EXISTS main.overhead_events;
CREATE VIEW main.overhead_events AS
SELECT o.session_id, o.pid, o.start_ns, o.end_ns, o.end_ns - o.start_ns AS dur_ns,
       coalesce(ok.name, 'kind ' || o.kind) AS kind, bk.name AS object_kind, o.thread_id, o.device_id,
       o.context_id, o.stream_id, o.correlation_id,
       o.start_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = o.session_id) AS t_ns
FROM overheads o
LEFT JOIN overhead_kinds ok ON ok.id = o.kind
LEFT JOIN object_kinds bk ON bk.id = o.object_kind;

DROP VIEW IF EXISTS main.session_overview;
CREATE VIEW main.session_overview AS
SELECT s.id AS session_id, s.uuid, s.source, s.program, s.hostname, s.engine, s.start_ns, s.end_ns,
       s.end_ns - s.start_ns AS span_ns, s.clean_end,
       (SELECT count(*) FROM processes p WHERE p.session_id = s.id) AS processes,
       (SELECT count(*) FROM devices d WHERE d.session_id = s.id) AS devices,
       (SELECT count(*) FROM kernels k WHERE k.session_id = s.id) AS kernels,
       (SELECT coalesce(sum(bytes), 0) FROM memcpys c WHERE c.session_id = s.id) AS memcpy_bytes,
       (SELECT coalesce(sum(count), 0) FROM drops x WHERE x.session_id = s.id) AS dropped
FROM sessions s;

-- api_events: CUDA runtime and driver API calls (api_calls), named.
DROP VIEW IF EXISTS main.api_events;
CREATE VIEW main.api_events AS
SELECT a.session_id, a.pid, a.thread_id, a.start_ns, a.end_ns, a.end_ns - a.start_ns AS dur_ns,
       n.value AS name, CASE a.domain WHEN 1 THEN 'runtime' WHEN 2 THEN 'driver' END AS domain,
       a.correlation_id, a.cbid,
       a.start_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = a.session_id) AS t_ns
FROM api_calls a
LEFT JOIN strings n ON n.session_id = a.session_id AND n.id = a.name_id;

-- sync_events: host time blocked in synchronization (syncs), the kind named.
DROP VIEW IF EXISTS main.sync_events;
CREATE VIEW main.sync_events AS
SELECT y.session_id, y.pid, y.thread_id, y.start_ns, y.end_ns, y.end_ns - y.start_ns AS dur_ns,
       coalesce(sk.name, 'kind ' || y.kind) AS kind, y.device_id, y.context_id, y.stream_id, y.correlation_id,
       y.event_id,
       y.start_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = y.session_id) AS t_ns
FROM syncs y
LEFT JOIN sync_kinds sk ON sk.id = y.kind;

-- memset_events: memsets, with their duration and kind of memory.
DROP VIEW IF EXISTS main.memset_events;
CREATE VIEW main.memset_events AS
SELECT m.session_id, m.pid, m.start_ns, m.end_ns, m.end_ns - m.start_ns AS dur_ns, m.device_id, m.stream_id,
       m.bytes, m.value, mk.name AS mem_kind, m.correlation_id,
       m.start_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = m.session_id) AS t_ns
FROM memsets m
LEFT JOIN memory_kinds mk ON mk.id = m.mem_kind;

-- marker_events: NVTX instant markers, named.
DROP VIEW IF EXISTS main.marker_events;
CREATE VIEW main.marker_events AS
SELECT k.session_id, k.pid, k.thread_id, k.ts_ns, n.value AS name, d.value AS domain,
       k.ts_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = k.session_id) AS t_ns
FROM markers k
JOIN strings n ON n.session_id = k.session_id AND n.id = k.name_id
LEFT JOIN strings d ON d.session_id = k.session_id AND d.id = k.domain_id;

-- device_metric_events: NVML samples per device (device_metrics), with power in watts.
DROP VIEW IF EXISTS main.device_metric_events;
CREATE VIEW main.device_metric_events AS
SELECT m.session_id, m.pid, m.ts_ns, m.device_id, m.gpu_util, m.mem_util, m.mem_used, m.mem_total, m.temp_c,
       m.power_mw, m.power_mw / 1000.0 AS power_w, m.sm_clock_mhz, m.energy_mj,
       m.ts_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = m.session_id) AS t_ns
FROM device_metrics m;

-- host_metric_events: the program's process tree and the system (host_metrics).
DROP VIEW IF EXISTS main.host_metric_events;
CREATE VIEW main.host_metric_events AS
-- The system's disk and network counters (bytes since boot) come after t_ns (schema version 5).
SELECT h.session_id, h.pid, h.ts_ns, h.cpu_pct, h.rss_bytes, h.sys_mem_used, h.sys_mem_total,
       h.ts_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = h.session_id) AS t_ns,
       h.disk_read_bytes, h.disk_write_bytes, h.net_rx_bytes, h.net_tx_bytes
FROM host_metrics h;

-- alloc_failure_events: device allocations that failed for want of memory (alloc_failures, schema version
-- 5), the call, memory kind and recorded NVTX path named; call and path NULL for Kineto's [OutOfMemory] events.
DROP VIEW IF EXISTS main.alloc_failure_events;
CREATE VIEW main.alloc_failure_events AS
SELECT f.session_id, f.pid, f.ts_ns, f.device_id, f.thread_id, f.correlation_id, f.bytes, c.value AS call,
       f.cbid, CASE f.domain WHEN 1 THEN 'runtime' WHEN 2 THEN 'driver' END AS domain, f.result,
       mk.name AS mem_kind, f.total_allocated, f.total_reserved, p.value AS path,
       f.ts_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = f.session_id) AS t_ns
FROM alloc_failures f
LEFT JOIN strings c ON c.session_id = f.session_id AND c.id = f.call_id
LEFT JOIN strings p ON p.session_id = f.session_id AND p.id = f.path_id
LEFT JOIN memory_kinds mk ON mk.id = f.mem_kind;

-- op_events: PyTorch operators (ops, schema version 6), named; source 'kineto' (cpu_op events) or 'nvtx'
-- (emit_nvtx ranges). Forward-backward links are in op_links (session.sql says how an end finds its op).
DROP VIEW IF EXISTS main.op_events;
CREATE VIEW main.op_events AS
SELECT o.session_id, o.pid, o.thread_id, o.start_ns, o.end_ns, o.end_ns - o.start_ns AS dur_ns, n.value AS name,
       o.external_id, o.seq, o.fwd_tid, o.record_function_id, o.input_dims, o.input_types, o.input_strides,
       o.concrete_inputs, CASE o.source WHEN 1 THEN 'kineto' WHEN 2 THEN 'nvtx' END AS source,
       o.start_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = o.session_id) AS t_ns
FROM ops o
JOIN strings n ON n.session_id = o.session_id AND n.id = o.name_id;

-- kernel_ranges: every kernel with its launch call and the innermost NVTX push/pop range open on the
-- launching thread when the call started. The launch call is the first api_calls row (table order) with the
-- kernel's session, process and correlation id, as kernexec and ranges find it; a kernel with correlation
-- id 0 or NULL, or whose call was not recorded, has none. The range is the push/pop range (kind 1) of that
-- session, process and thread with start_ns <= the call's start < end_ns (a NULL end never ended), the
-- deepest one, then the latest started. No call or no such range: the launch or range columns are NULL.
-- Plain SQL, sweeps: the ranges open on a thread change only at their starts and ends (bounds, numbered in
-- time order); each range is walked over the bounds it spans (the pairs are as many as the bounds times the
-- ranges open at each), the innermost kept per bound (innermost); each call takes the last bound at or
-- before its start by a running max over the calls and bounds in time order. About 0.05 s for the demo
-- session's 10,440 kernels and 486 ranges, against 0.2 s (CPU) when each kernel's call searched its
-- thread's ranges; it grows as n log n of the kernels and of the bounds times the nesting depth.
DROP VIEW IF EXISTS main.kernel_ranges;
CREATE VIEW main.kernel_ranges AS
WITH RECURSIVE calls AS (
	SELECT session_id, pid, correlation_id, min(rowid) AS call
	FROM api_calls WHERE correlation_id <> 0 GROUP BY session_id, pid, correlation_id
), pushpop AS MATERIALIZED (
	SELECT rowid AS id, session_id, pid, thread_id, start_ns, end_ns, depth FROM ranges
	WHERE kind = 1 AND thread_id IS NOT NULL
), seg AS MATERIALIZED (
	SELECT session_id, pid, thread_id, t, row_number() OVER (PARTITION BY session_id, pid, thread_id ORDER BY t) AS ord
	FROM (SELECT session_id, pid, thread_id, start_ns AS t FROM pushpop
	      UNION SELECT session_id, pid, thread_id, end_ns FROM pushpop WHERE end_ns IS NOT NULL)
), span(id, session_id, pid, thread_id, depth, start_ns, ord, hi) AS (
	SELECT r.id, r.session_id, r.pid, r.thread_id, r.depth, r.start_ns, a.ord,
	       coalesce(b.ord, (SELECT max(g.ord) + 1 FROM seg g WHERE g.session_id = r.session_id AND g.pid = r.pid
				AND g.thread_id = r.thread_id))
	FROM pushpop r
	JOIN seg a ON a.session_id = r.session_id AND a.pid = r.pid AND a.thread_id = r.thread_id AND a.t = r.start_ns
	LEFT JOIN seg b ON b.session_id = r.session_id AND b.pid = r.pid AND b.thread_id = r.thread_id
		AND b.t = r.end_ns
	WHERE r.end_ns IS NULL OR r.end_ns > r.start_ns
	UNION ALL
	SELECT s.id, s.session_id, s.pid, s.thread_id, s.depth, s.start_ns, s.ord + 1, s.hi FROM span s
	WHERE s.ord + 1 < s.hi
), innermost AS MATERIALIZED (
	SELECT session_id, pid, thread_id, ord, id FROM (
		SELECT session_id, pid, thread_id, ord, id, row_number() OVER (PARTITION BY session_id, pid, thread_id, ord
			ORDER BY depth DESC, start_ns DESC, id DESC) AS n FROM span)
	WHERE n = 1
), launched AS (
	SELECT k.session_id, k.pid, k.start_ns, k.end_ns, k.device_id, k.stream_id, k.correlation_id, k.name_id,
	       a.thread_id, a.start_ns AS call_ns, a.name_id AS call_name_id, 1 AS call, NULL AS ord
	FROM kernels k
	LEFT JOIN calls c ON c.session_id = k.session_id AND c.pid = k.pid AND c.correlation_id = k.correlation_id
	LEFT JOIN api_calls a ON a.rowid = c.call
), sweep AS (
	SELECT *, max(ord) OVER (PARTITION BY session_id, pid, thread_id ORDER BY call_ns, call
				 ROWS UNBOUNDED PRECEDING) AS at
	FROM (SELECT * FROM launched
	      UNION ALL SELECT session_id, pid, NULL, NULL, NULL, NULL, NULL, NULL, thread_id, t, NULL, 0, ord FROM seg)
)
SELECT l.session_id, l.pid, l.start_ns, l.end_ns, l.end_ns - l.start_ns AS dur_ns, l.device_id, l.stream_id,
       l.correlation_id, n.value AS name, l.thread_id, l.call_ns, an.value AS call_name, rn.value AS range_name,
       rd.value AS range_domain, r.depth AS range_depth, r.start_ns AS range_start_ns, r.end_ns AS range_end_ns,
       l.start_ns - (SELECT st.start_ns FROM sessions st WHERE st.id = l.session_id) AS t_ns
FROM sweep l
JOIN strings n ON n.session_id = l.session_id AND n.id = l.name_id
LEFT JOIN strings an ON an.session_id = l.session_id AND an.id = l.call_name_id
LEFT JOIN innermost g ON l.call_ns IS NOT NULL AND g.session_id = l.session_id AND g.pid = l.pid
	AND g.thread_id = l.thread_id AND g.ord = l.at
LEFT JOIN ranges r ON r.rowid = g.id
LEFT JOIN strings rn ON rn.session_id = r.session_id AND rn.id = r.name_id
LEFT JOIN strings rd ON rd.session_id = r.session_id AND rd.id = r.domain_id
WHERE l.call;
