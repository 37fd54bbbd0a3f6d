-- analysis: summary
-- title: The session and its GPU span, busy and idle time (kernels, copies, memsets)
-- section: 2
-- table: summary vertical Session summary
-- column: session_id int "Session" sessions.id
-- column: session text "Session id" the session's uuid
-- column: source text the reader it was ingested with: ndjson (gpuprof), kineto or nsys
-- column: program text the profiled program
-- column: hostname text "Host" the host it ran on
-- column: engine text the engine the source names (sessions.engine)
-- column: start_ns time when the session started
-- column: end_ns time when it ended
-- column: wall_span_ns ns end - start
-- column: clean_end int "Ended cleanly" 1 when the collector ended the session cleanly
-- column: processes count processes recorded
-- column: devices count GPUs recorded
-- column: memcpys count memory copies
-- column: memcpy_bytes bytes bytes the copies moved
-- column: memsets count memsets
-- column: memset_bytes bytes bytes the memsets set
-- column: ranges count NVTX ranges
-- column: dropped_records count "Dropped by collector" records the collector (CUPTI, its rings) lost
-- column: missing_batches count batches missing from the wire
-- column: ingest_errors count "Rejected input lines" input lines ingest rejected
-- column: kernels count kernels
-- column: kernel_ns ns "Kernel time (kernels only, sum)" the kernels' summed durations
-- column: kernel_busy_ns ns "Kernel busy (kernels only, union)" the union of the kernels' intervals per device, summed
-- column: gpu_span_ns ns "GPU span (per device, summed)" first start to last end of each device's activity, summed
-- column: busy_ns ns "GPU busy (kernels, copies, memsets)" the union of kernels, copies and memsets per device, summed (gpu_busy)
-- column: idle_ns ns "GPU idle (span - busy)" gpu_span_ns - busy_ns
-- column: busy_pct pct "GPU busy % of GPU span" busy_ns, % of gpu_span_ns
-- column: collector_errors count errors the collector reported (problems lists them)
-- column: trace_window text,hide-group "Trace window (traced ON of every EVERY)" the trace window, ON/EVERY; NULL for a session traced throughout
-- column: traced_ns ns,hide-group "Traced time (trace windows)" the union of the trace windows
-- column: traced_pct pct,hide-group "Traced % of wall span" traced_ns, % of the wall span
--
-- summary: what the session is, and its GPU span, busy and idle time summed over its devices (gpu_busy,
-- the one definition devices, idle, streams and gaps use too: a device's GPU activity is its kernels,
-- copies and memsets; span = first start to last end of them, busy = the length of their union, idle =
-- span - busy), with the kernel-only figures beside. One row, shown vertically.
-- A session recorded with trace windows (gpuprof-collect --trace-window ON/EVERY) counts only traced time:
-- gpu_busy leaves untraced time out of span and idle; trace_window, traced_ns (the union of the windows)
-- and traced_pct (of the wall span) say how much was traced, and are NULL for a session traced throughout.
--
-- gpu_busy is C (analyze/ext/sqlext_busy.c) because the union of millions of intervals is slow in SQLite: the
-- plain SQL per device is
--   SELECT device_id, busy_union(start_ns, end_ns) FROM (SELECT device_id, start_ns, end_ns FROM
--     kernel_columns WHERE session_id = :session UNION ALL <memcpys> UNION ALL <memsets>) GROUP BY device_id
-- (tests/vtab.py checks both agree): over the kernels alone GROUP BY takes 2.2 s on the 5M-kernel bench
-- session, five aggregates in one streaming pass 1.3 s; gpu_busy 0.3 s for every figure.
WITH busy AS (
	SELECT coalesce(sum(kernels), 0) AS kernels, coalesce(sum(kernel_ns), 0) AS kernel_ns,
	       coalesce(sum(kernel_busy_ns), 0) AS kernel_busy_ns, coalesce(sum(span_ns), 0) AS gpu_span_ns,
	       coalesce(sum(busy_ns), 0) AS busy_ns, coalesce(sum(idle_ns), 0) AS idle_ns
	FROM gpu_busy WHERE session_id = :session
)
SELECT s.id AS session_id, s.uuid AS session, s.source, s.program, s.hostname, s.engine, s.start_ns, s.end_ns,
       s.end_ns - s.start_ns AS wall_span_ns, s.clean_end,
       (SELECT count(*) FROM processes p WHERE p.session_id = s.id) AS processes,
       (SELECT count(DISTINCT id) FROM devices d WHERE d.session_id = s.id) AS devices,
       (SELECT count(*) FROM memcpys c WHERE c.session_id = s.id) AS memcpys,
       (SELECT coalesce(sum(bytes), 0) FROM memcpys c WHERE c.session_id = s.id) AS memcpy_bytes,
       (SELECT count(*) FROM memsets m WHERE m.session_id = s.id) AS memsets,
       (SELECT coalesce(sum(bytes), 0) FROM memsets m WHERE m.session_id = s.id) AS memset_bytes,
       (SELECT count(*) FROM ranges r WHERE r.session_id = s.id) AS ranges,
       (SELECT coalesce(sum(count), 0) FROM drops x WHERE x.session_id = s.id AND x.source <> 'wire')
         AS dropped_records,
       (SELECT coalesce(sum(count), 0) FROM drops x WHERE x.session_id = s.id AND x.source = 'wire') AS missing_batches,
       (SELECT count(*) FROM ingest_errors e WHERE e.session_id = s.id) AS ingest_errors,
       b.kernels, b.kernel_ns, b.kernel_busy_ns, b.gpu_span_ns, b.busy_ns, b.idle_ns,
       CASE WHEN b.gpu_span_ns > 0 THEN 100.0 * b.busy_ns / b.gpu_span_ns END AS busy_pct,
       (SELECT count(*) FROM collector_errors e WHERE e.session_id = s.id) AS collector_errors,
       CASE WHEN w.traced_ns IS NOT NULL THEN coalesce(json_extract(s.options, '$.trace_window'), '?') END
         AS trace_window,
       w.traced_ns,
       CASE WHEN s.end_ns > s.start_ns THEN 100.0 * w.traced_ns / (s.end_ns - s.start_ns) END AS traced_pct
FROM sessions s, busy b,
     (SELECT busy_union(start_ns, end_ns) AS traced_ns FROM trace_windows WHERE session_id = :session) w
WHERE s.id = :session;
