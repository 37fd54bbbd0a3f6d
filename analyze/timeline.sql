-- module: timeline
-- title: What the HTML report draws over the session's time: its span, GPU lanes, NVTX rows, memory, metrics
-- include: views
-- The rows of report/timeline.c's timeline and report/html.c's time charts, for session :session. The
-- views read it, and the session's span, from the one row of temp.timeline_args: the session's start and
-- end, or where it has none the first kernel's start and the last one's end.

DROP TABLE IF EXISTS temp.timeline_args;
CREATE TEMP TABLE timeline_args AS
SELECT :session AS sid,
       coalesce(s.start_ns, (SELECT min(start_ns) FROM kernels WHERE session_id = s.id)) AS span_start,
       coalesce(s.end_ns, (SELECT max(end_ns) FROM kernels WHERE session_id = s.id)) AS span_end
FROM (SELECT 1) LEFT JOIN sessions s ON s.id = :session;

CREATE TEMP VIEW IF NOT EXISTS timeline_span AS SELECT span_start AS start_ns, span_end AS end_ns FROM temp.timeline_args;

-- Each process's node and what names it: rank, else host (temp.gpu_nodes).
CREATE TEMP VIEW IF NOT EXISTS timeline_nodes AS
SELECT n.pid, n.node, n.host, n.rank FROM temp.timeline_args w CROSS JOIN temp.gpu_nodes n WHERE +n.session_id = w.sid;

-- GPU work by lane (0 kernels, 1 copies and memsets), a view each: pid, device, stream (-1 unknown), start,
-- end, and what names it: a kernel's strings id, -1000 - copy_kinds id for a copy, -1 for a memset.
CREATE TEMP VIEW IF NOT EXISTS timeline_kernels AS
SELECT 0 AS lane, pid, device_id, stream_id, start_ns, end_ns, name_id
FROM temp.timeline_args w CROSS JOIN kernel_columns WHERE session_id = w.sid;
CREATE TEMP VIEW IF NOT EXISTS timeline_memcpys AS
SELECT 1 AS lane, pid, device_id, coalesce(stream_id, -1) AS stream_id, start_ns, end_ns, -1000 - kind AS name_id
FROM temp.timeline_args w CROSS JOIN memcpys WHERE +session_id = w.sid;
CREATE TEMP VIEW IF NOT EXISTS timeline_memsets AS
SELECT 1 AS lane, pid, device_id, coalesce(stream_id, -1) AS stream_id, start_ns, end_ns, -1 AS name_id
FROM temp.timeline_args w CROSS JOIN memsets WHERE +session_id = w.sid;

-- NVTX ranges: host ones (kinds 1 push/pop, 2 start/end) by process and thread, then GPU-side ones (3) by
-- stream; each by start, the longest first. A range that never ended lasts to the session's end.
CREATE TEMP VIEW IF NOT EXISTS timeline_ranges AS
SELECT kind, pid, coalesce(thread_id, -1) AS thread, start_ns, coalesce(end_ns, w.span_end) AS end_ns, name_id,
       coalesce(domain_id, -1) AS domain_id, end_ns IS NULL AS open
FROM temp.timeline_args w CROSS JOIN ranges r
WHERE +r.session_id = w.sid AND kind IN (1, 2, 3)
ORDER BY kind = 3, pid, 3, kind, start_ns, coalesce(r.end_ns, w.span_end) DESC;

-- Names for the bars' titles: the session's strings and the copy kinds, by id.
CREATE TEMP VIEW IF NOT EXISTS timeline_strings AS
SELECT s.value, s.id FROM temp.timeline_args w CROSS JOIN strings s WHERE s.session_id = w.sid;
CREATE TEMP VIEW IF NOT EXISTS timeline_copy_kinds AS SELECT name, id FROM copy_kinds;

-- Device memory events per device in time order, and whether the device's live bytes are the source's
-- own running total (own: every event of the device carries one, from one process).
CREATE TEMP VIEW IF NOT EXISTS timeline_memory AS
SELECT m.device_id, m.ts_ns, m.op, m.bytes, m.total_allocated, t.own
FROM temp.timeline_args w CROSS JOIN memory_events m
JOIN (SELECT coalesce(device_id, -1) AS dev, count(*) = count(total_allocated) AND count(DISTINCT pid) = 1 AS own
      FROM temp.timeline_args w2 CROSS JOIN memory_events WHERE +session_id = w2.sid GROUP BY 1) t
  ON t.dev = coalesce(m.device_id, -1)
WHERE +m.session_id = w.sid ORDER BY coalesce(m.device_id, -1), m.ts_ns, m.rowid;

-- NVML samples per device in time order: utilisation, memory utilisation, power, temperature.
CREATE TEMP VIEW IF NOT EXISTS timeline_metrics AS
SELECT device_id, ts_ns, gpu_util, mem_util, power_mw, temp_c
FROM temp.timeline_args w CROSS JOIN device_metrics WHERE +session_id = w.sid ORDER BY device_id, ts_ns;
