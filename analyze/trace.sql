-- module: trace
-- title: A session's events as the trace export writes them (gpuprof-report --format trace)
-- include: views
-- One view per kind of event, its columns in the order report/trace.c writes them, streamed in the
-- tables' order (nothing is sorted but the processes and devices). The views read what to keep from the
-- one row of temp.trace_args, which this module makes from its parameters:
--   :session            the session
--   :from, :to          the window's ends as offsets (ns) from the session's start, or from its end when
--   :from_end, :to_end  is 1; NULL: open. Events that end at or after from and start at or before to
--   :match, :exclude    PCRE2 patterns an event's name must (not) match; NULL: none. Memory events and
--                       metrics have no name of their own: kept
--   :rank               only that rank's processes (temp.trace_pids); NULL: all
-- In the sqlite3 shell: `.parameter set :session 1`, `.read analyze/views.sql`, `.read analyze/trace.sql`,
-- then `SELECT * FROM temp.trace_kernels`.

DROP TABLE IF EXISTS temp.trace_args;
CREATE TEMP TABLE trace_args AS
SELECT :session AS sid,
       CASE WHEN :from IS NULL THEN -9223372036854775807 - 1 WHEN :from_end THEN e - :from ELSE s + :from END AS from_ns,
       CASE WHEN :to IS NULL THEN 9223372036854775807 WHEN :to_end THEN e - :to ELSE s + :to END AS to_ns,
       :match AS match_re, :exclude AS exclude_re, :rank AS want_rank,
       EXISTS (SELECT 1 FROM ranges WHERE session_id = :session AND kind = 3) AS gpu_ranges
FROM (SELECT coalesce((SELECT start_ns FROM sessions WHERE id = :session), 0) AS s,
	     coalesce((SELECT end_ns FROM sessions WHERE id = :session), 0) AS e);

-- The session's processes by pid, with their node (temp.gpu_nodes) and what names them; with :rank only
-- that rank's, whose pids temp.trace_pids holds for the views' `want_rank IS NULL OR pid IN` test.
CREATE TEMP VIEW IF NOT EXISTS trace_procs AS
SELECT n.pid, n.node, nullif(p.hostname, '') AS host, p.rank, p.program
FROM temp.trace_args w CROSS JOIN temp.gpu_nodes n
JOIN main.processes p ON p.session_id = n.session_id AND p.pid = n.pid
WHERE +n.session_id = w.sid AND (w.want_rank IS NULL OR p.rank = w.want_rank)
ORDER BY n.pid;

CREATE TEMP TABLE IF NOT EXISTS trace_pids (pid INTEGER PRIMARY KEY);
DELETE FROM temp.trace_pids;
INSERT OR IGNORE INTO temp.trace_pids SELECT pid FROM temp.trace_procs WHERE :rank IS NOT NULL;

-- Kineto's words for memory kinds, as in its copy names "Memcpy HtoD (Pageable -> Device)".
CREATE TEMP TABLE IF NOT EXISTS trace_memory_kinds (id INTEGER PRIMARY KEY, name TEXT);
INSERT OR IGNORE INTO temp.trace_memory_kinds VALUES (1, 'Pageable'), (2, 'Pinned'), (3, 'Device'), (4, 'Array'),
	(5, 'Managed'), (6, 'Device Static'), (7, 'Managed Static');

-- The session's first and last ns, the first event's start in the window (the trace's base), its
-- header's fields, its number of ranks and its devices (one row per device id, as Kineto names them).
CREATE TEMP VIEW IF NOT EXISTS trace_window AS
SELECT w.from_ns, w.to_ns,
       (SELECT min(m) FROM (
	SELECT min(start_ns) AS m FROM kernels WHERE +session_id = w.sid
	       AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND end_ns >= w.from_ns AND start_ns <= w.to_ns
	UNION ALL SELECT min(start_ns) FROM memcpys WHERE +session_id = w.sid
	       AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND end_ns >= w.from_ns AND start_ns <= w.to_ns
	UNION ALL SELECT min(start_ns) FROM memsets WHERE +session_id = w.sid
	       AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND end_ns >= w.from_ns AND start_ns <= w.to_ns
	UNION ALL SELECT min(start_ns) FROM syncs WHERE +session_id = w.sid
	       AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND end_ns >= w.from_ns AND start_ns <= w.to_ns
	UNION ALL SELECT min(start_ns) FROM api_calls WHERE +session_id = w.sid
	       AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND end_ns >= w.from_ns AND start_ns <= w.to_ns
	UNION ALL SELECT min(start_ns) FROM ranges WHERE +session_id = w.sid
	       AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND coalesce(end_ns, start_ns) >= w.from_ns
	       AND start_ns <= w.to_ns
	UNION ALL SELECT min(ts_ns) FROM markers WHERE +session_id = w.sid
	       AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND ts_ns BETWEEN w.from_ns AND w.to_ns
	UNION ALL SELECT min(ts_ns) FROM memory_events WHERE +session_id = w.sid
	       AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND ts_ns BETWEEN w.from_ns AND w.to_ns
	UNION ALL SELECT min(ts_ns) FROM device_metrics WHERE +session_id = w.sid
	       AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND ts_ns BETWEEN w.from_ns AND w.to_ns
	UNION ALL SELECT min(ts_ns) FROM host_metrics WHERE +session_id = w.sid
	       AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND ts_ns BETWEEN w.from_ns AND w.to_ns)) AS first_ns
FROM temp.trace_args w;

CREATE TEMP VIEW IF NOT EXISTS trace_session AS
SELECT s.uuid, s.program, s.hostname, s.source FROM temp.trace_args w CROSS JOIN sessions s WHERE s.id = w.sid;

CREATE TEMP VIEW IF NOT EXISTS trace_world AS
SELECT count(DISTINCT rank) AS ranks FROM temp.trace_args w CROSS JOIN processes WHERE +session_id = w.sid;

CREATE TEMP VIEW IF NOT EXISTS trace_devices AS
SELECT id, name, cc_major, cc_minor, sms, memory_bytes, max_threads_per_sm, max_regs_per_sm, max_smem_per_sm
FROM temp.trace_args w CROSS JOIN devices
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids)
GROUP BY id HAVING pid = min(pid) ORDER BY id;

-- GPU work: pid, start, end, device, context, stream, correlation, name, then each kind's own columns.
-- Kernels: grid and block, registers, shared memory per block (trace_kernels_v3 for databases before
-- schema version 4, which kept it as static_smem + dynamic_smem).
CREATE TEMP VIEW IF NOT EXISTS trace_kernels AS
SELECT pid, start_ns, end_ns, device_id, coalesce(context_id, 0) AS context, coalesce(stream_id, 0) AS stream,
       coalesce(correlation_id, 0) AS correlation,
       (SELECT value FROM strings WHERE session_id = w.sid AND id = name_id) AS name,
       grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, shared_mem
FROM temp.trace_args w CROSS JOIN kernels
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids)
      AND end_ns >= w.from_ns AND start_ns <= w.to_ns
      AND (w.match_re IS NULL OR name REGEXP w.match_re) AND (w.exclude_re IS NULL OR NOT name REGEXP w.exclude_re);

CREATE TEMP VIEW IF NOT EXISTS trace_kernels_v3 AS
SELECT pid, start_ns, end_ns, device_id, coalesce(context_id, 0) AS context, coalesce(stream_id, 0) AS stream,
       coalesce(correlation_id, 0) AS correlation,
       (SELECT value FROM strings WHERE session_id = w.sid AND id = name_id) AS name,
       grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_smem + dynamic_smem AS shared_mem
FROM temp.trace_args w CROSS JOIN kernels
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids)
      AND end_ns >= w.from_ns AND start_ns <= w.to_ns
      AND (w.match_re IS NULL OR name REGEXP w.match_re) AND (w.exclude_re IS NULL OR NOT name REGEXP w.exclude_re);

-- Copies, named as Kineto names them ("Memcpy HtoD (Pageable -> Device)"): bytes, source and destination device.
CREATE TEMP VIEW IF NOT EXISTS trace_memcpys AS
SELECT pid, start_ns, end_ns, device_id, coalesce(context_id, 0) AS context, coalesce(stream_id, 0) AS stream,
       coalesce(correlation_id, 0) AS correlation,
       'Memcpy ' || coalesce((SELECT name FROM copy_kinds WHERE id = kind), 'unknown') || ' ('
	       || coalesce((SELECT name FROM temp.trace_memory_kinds WHERE id = src_kind), 'Unknown') || ' -> '
	       || coalesce((SELECT name FROM temp.trace_memory_kinds WHERE id = dst_kind), 'Unknown') || ')' AS name,
       bytes, src_device, dst_device
FROM temp.trace_args w CROSS JOIN memcpys
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids)
      AND end_ns >= w.from_ns AND start_ns <= w.to_ns
      AND (w.match_re IS NULL OR name REGEXP w.match_re) AND (w.exclude_re IS NULL OR NOT name REGEXP w.exclude_re);

CREATE TEMP VIEW IF NOT EXISTS trace_memsets AS
SELECT pid, start_ns, end_ns, device_id, coalesce(context_id, 0) AS context, coalesce(stream_id, 0) AS stream,
       coalesce(correlation_id, 0) AS correlation,
       'Memset (' || coalesce((SELECT name FROM temp.trace_memory_kinds WHERE id = mem_kind), 'Unknown') || ')' AS name,
       bytes
FROM temp.trace_args w CROSS JOIN memsets
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids)
      AND end_ns >= w.from_ns AND start_ns <= w.to_ns
      AND (w.match_re IS NULL OR name REGEXP w.match_re) AND (w.exclude_re IS NULL OR NOT name REGEXP w.exclude_re);

-- Synchronizations: the stream NULL where the sync names none (-1, 2^32 - 1), then the event waited on and
-- the thread.
CREATE TEMP VIEW IF NOT EXISTS trace_syncs AS
SELECT pid, start_ns, end_ns, device_id, coalesce(context_id, 0) AS context,
       CASE WHEN stream_id IS NOT NULL AND stream_id NOT IN (-1, 4294967295) THEN stream_id END AS stream,
       coalesce(correlation_id, 0) AS correlation,
       CASE kind WHEN 1 THEN 'Event Sync' WHEN 2 THEN 'Stream Wait Event' WHEN 3 THEN 'Stream Sync'
		 WHEN 4 THEN 'Context Sync' ELSE 'Unknown Sync' END AS name,
       coalesce(event_id, 0) AS event, coalesce(thread_id, 0) AS thread
FROM temp.trace_args w CROSS JOIN syncs
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids)
      AND end_ns >= w.from_ns AND start_ns <= w.to_ns
      AND (w.match_re IS NULL OR name REGEXP w.match_re) AND (w.exclude_re IS NULL OR NOT name REGEXP w.exclude_re);

-- Runtime and driver calls: pid, start, end, thread, correlation, name, cbid, domain (2: driver).
CREATE TEMP VIEW IF NOT EXISTS trace_api_calls AS
SELECT pid, start_ns, end_ns, coalesce(thread_id, 0) AS thread, coalesce(correlation_id, 0) AS correlation,
       coalesce((SELECT value FROM strings WHERE session_id = w.sid AND id = name_id), '') AS name, cbid, domain
FROM temp.trace_args w CROSS JOIN api_calls
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids)
      AND end_ns >= w.from_ns AND start_ns <= w.to_ns
      AND (w.match_re IS NULL OR name REGEXP w.match_re) AND (w.exclude_re IS NULL OR NOT name REGEXP w.exclude_re);

-- NVTX ranges: pid, start, end (NULL: never ended), thread (a GPU annotation's stream), name, domain, kind,
-- and for a GPU annotation (kind 3) the device its stream's kernels ran on.
CREATE TEMP VIEW IF NOT EXISTS trace_ranges AS
WITH sd AS MATERIALIZED (
	SELECT k.pid, k.stream_id, min(k.device_id) AS device FROM temp.trace_args w CROSS JOIN kernels k
	WHERE +k.session_id = w.sid AND w.gpu_ranges GROUP BY k.pid, k.stream_id)
SELECT r.pid, start_ns, end_ns, coalesce(thread_id, 0) AS thread,
       (SELECT value FROM strings WHERE session_id = w.sid AND id = name_id) AS name,
       (SELECT value FROM strings WHERE session_id = w.sid AND id = domain_id) AS domain, kind,
       CASE WHEN kind = 3 THEN sd.device END AS device
FROM temp.trace_args w CROSS JOIN ranges r LEFT JOIN sd ON sd.pid = r.pid AND sd.stream_id = r.thread_id AND r.kind = 3
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR r.pid IN temp.trace_pids)
      AND coalesce(end_ns, start_ns) >= w.from_ns AND start_ns <= w.to_ns
      AND (w.match_re IS NULL OR name REGEXP w.match_re) AND (w.exclude_re IS NULL OR NOT name REGEXP w.exclude_re);

-- NVTX marks: pid, time, thread, name, domain.
CREATE TEMP VIEW IF NOT EXISTS trace_markers AS
SELECT pid, ts_ns, coalesce(thread_id, 0) AS thread,
       (SELECT value FROM strings WHERE session_id = w.sid AND id = name_id) AS name,
       (SELECT value FROM strings WHERE session_id = w.sid AND id = domain_id) AS domain
FROM temp.trace_args w CROSS JOIN markers
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND ts_ns BETWEEN w.from_ns AND w.to_ns
      AND (w.match_re IS NULL OR name REGEXP w.match_re) AND (w.exclude_re IS NULL OR NOT name REGEXP w.exclude_re);

-- Device allocations and frees: pid, time, thread, device, op (2: free), bytes, address, total allocated, kind.
CREATE TEMP VIEW IF NOT EXISTS trace_memory_events AS
SELECT pid, ts_ns, coalesce(thread_id, 0) AS thread, coalesce(device_id, 0) AS device, op, bytes, address,
       total_allocated, coalesce((SELECT name FROM temp.trace_memory_kinds WHERE id = mem_kind), 'Unknown') AS kind
FROM temp.trace_args w CROSS JOIN memory_events
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND ts_ns BETWEEN w.from_ns AND w.to_ns;

-- Failed allocations: pid, time, thread, device, bytes, total allocated and reserved, the call, its result.
CREATE TEMP VIEW IF NOT EXISTS trace_alloc_failures AS
SELECT pid, ts_ns, coalesce(thread_id, 0) AS thread, device_id, bytes, total_allocated, total_reserved,
       (SELECT value FROM strings WHERE session_id = w.sid AND id = call_id) AS call, result
FROM temp.trace_args w CROSS JOIN alloc_failures
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND ts_ns BETWEEN w.from_ns AND w.to_ns;

-- NVML samples (pid, time, device, then trace_device_metric_keys' columns) and host samples (pid, time,
-- then trace_host_metric_keys' columns: lib/records.h).
CREATE TEMP VIEW IF NOT EXISTS trace_device_metrics AS
SELECT pid, ts_ns, device_id, gpu_util, mem_util, mem_used, mem_total, temp_c, power_mw, sm_clock_mhz, energy_mj
FROM temp.trace_args w CROSS JOIN device_metrics
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND ts_ns BETWEEN w.from_ns AND w.to_ns;

CREATE TEMP VIEW IF NOT EXISTS trace_host_metrics AS
SELECT pid, ts_ns, cpu_pct, rss_bytes, sys_mem_used, sys_mem_total, disk_read_bytes, disk_write_bytes, net_rx_bytes,
       net_tx_bytes
FROM temp.trace_args w CROSS JOIN host_metrics
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids) AND ts_ns BETWEEN w.from_ns AND w.to_ns;

-- Ops with a FLOP count: pid, start, end, thread, name, flops, external id, the first input's type.
CREATE TEMP VIEW IF NOT EXISTS trace_flop_ops AS
SELECT pid, start_ns, end_ns, coalesce(thread_id, 0) AS thread,
       (SELECT value FROM strings WHERE session_id = w.sid AND id = name_id) AS name, flops, external_id,
       (SELECT value FROM strings WHERE session_id = w.sid AND id = dtype_id) AS dtype
FROM temp.trace_args w CROSS JOIN flop_ops
WHERE +session_id = w.sid AND (w.want_rank IS NULL OR pid IN temp.trace_pids)
      AND end_ns >= w.from_ns AND start_ns <= w.to_ns
      AND (w.match_re IS NULL OR name REGEXP w.match_re) AND (w.exclude_re IS NULL OR NOT name REGEXP w.exclude_re);

-- The flows: a launch call and the GPU work of its correlation id in the same process, when both are
-- written (the window and the name filters hold for both ends): the call's pid, thread and start, the
-- work's start, device and stream. One view per kind of work, written in this order.
CREATE TEMP VIEW IF NOT EXISTS trace_kernel_flows AS
SELECT a.pid, coalesce(a.thread_id, 0) AS thread, a.start_ns AS call_ns, g.start_ns, g.device_id,
       coalesce(g.stream_id, 0) AS stream
FROM temp.trace_args w CROSS JOIN api_calls a
JOIN kernels g ON g.session_id = a.session_id AND g.pid = a.pid AND g.correlation_id = a.correlation_id
WHERE +a.session_id = w.sid AND (w.want_rank IS NULL OR a.pid IN temp.trace_pids) AND a.correlation_id <> 0
      AND a.end_ns >= w.from_ns AND a.start_ns <= w.to_ns AND g.end_ns >= w.from_ns AND g.start_ns <= w.to_ns
      AND (w.match_re IS NULL OR ((SELECT value FROM strings WHERE session_id = w.sid AND id = a.name_id) REGEXP w.match_re
	   AND (SELECT value FROM strings WHERE session_id = w.sid AND id = g.name_id) REGEXP w.match_re))
      AND (w.exclude_re IS NULL OR NOT (coalesce((SELECT value FROM strings WHERE session_id = w.sid AND id = a.name_id), '')
	   REGEXP w.exclude_re OR (SELECT value FROM strings WHERE session_id = w.sid AND id = g.name_id) REGEXP w.exclude_re));

CREATE TEMP VIEW IF NOT EXISTS trace_memcpy_flows AS
WITH f AS (
	SELECT a.pid, coalesce(a.thread_id, 0) AS thread, a.start_ns AS call_ns, g.start_ns, g.device_id,
	       coalesce(g.stream_id, 0) AS stream,
	       (SELECT value FROM strings WHERE session_id = w.sid AND id = a.name_id) AS call_name,
	       'Memcpy ' || coalesce((SELECT name FROM copy_kinds WHERE id = g.kind), 'unknown') || ' ('
		       || coalesce((SELECT name FROM temp.trace_memory_kinds WHERE id = g.src_kind), 'Unknown') || ' -> '
		       || coalesce((SELECT name FROM temp.trace_memory_kinds WHERE id = g.dst_kind), 'Unknown') || ')'
		       AS work_name, w.match_re, w.exclude_re
	FROM temp.trace_args w CROSS JOIN api_calls a
	JOIN memcpys g ON g.session_id = a.session_id AND g.pid = a.pid AND g.correlation_id = a.correlation_id
	WHERE +a.session_id = w.sid AND (w.want_rank IS NULL OR a.pid IN temp.trace_pids) AND a.correlation_id <> 0
	      AND a.end_ns >= w.from_ns AND a.start_ns <= w.to_ns AND g.end_ns >= w.from_ns AND g.start_ns <= w.to_ns)
SELECT pid, thread, call_ns, start_ns, device_id, stream FROM f
WHERE (match_re IS NULL OR (call_name REGEXP match_re AND work_name REGEXP match_re))
      AND (exclude_re IS NULL OR NOT (coalesce(call_name, '') REGEXP exclude_re OR work_name REGEXP exclude_re));

CREATE TEMP VIEW IF NOT EXISTS trace_memset_flows AS
WITH f AS (
	SELECT a.pid, coalesce(a.thread_id, 0) AS thread, a.start_ns AS call_ns, g.start_ns, g.device_id,
	       coalesce(g.stream_id, 0) AS stream,
	       (SELECT value FROM strings WHERE session_id = w.sid AND id = a.name_id) AS call_name,
	       'Memset (' || coalesce((SELECT name FROM temp.trace_memory_kinds WHERE id = g.mem_kind), 'Unknown') || ')'
		       AS work_name, w.match_re, w.exclude_re
	FROM temp.trace_args w CROSS JOIN api_calls a
	JOIN memsets g ON g.session_id = a.session_id AND g.pid = a.pid AND g.correlation_id = a.correlation_id
	WHERE +a.session_id = w.sid AND (w.want_rank IS NULL OR a.pid IN temp.trace_pids) AND a.correlation_id <> 0
	      AND a.end_ns >= w.from_ns AND a.start_ns <= w.to_ns AND g.end_ns >= w.from_ns AND g.start_ns <= w.to_ns)
SELECT pid, thread, call_ns, start_ns, device_id, stream FROM f
WHERE (match_re IS NULL OR (call_name REGEXP match_re AND work_name REGEXP match_re))
      AND (exclude_re IS NULL OR NOT (coalesce(call_name, '') REGEXP exclude_re OR work_name REGEXP exclude_re));
