-- analysis: gaps
-- title: Longest GPU idle gaps, with the host calls made during them
-- include: views
-- section: 21 top 5
-- table: gaps Longest GPU idle gaps and what the host was doing
-- column: rank int,hide-group the GPU's rank (its node's), where the source names one; left out in a session of one node
-- column: hostname text,hide-group "Host" the GPU's host, where the source names one
-- column: device int the device number (on its node)
-- column: start_ns time when the gap started
-- column: gap_ns ns "Idle for" how long the GPU was idle
-- column: host text "Host calls during the gap (time inside it)" the three API calls with the most time inside the gap
--
-- gaps: the longest GPU idle gaps (10 unless --top says; at most 100000), and what the host was doing
-- during each: the three API call names with the most time inside the gap (time inside it; ties: the
-- name called first). A device's gaps are the holes between the spans of its busy time (the union of its
-- kernels, copies and memsets, as gpu_busy defines it: see summary.sql); longest first, then earliest.
--
-- C does two things here (analyze/ext/sqlext_busy.c, analyze/ext/sqlext_vtab.c):
-- * gpu_gaps: the holes of the union of millions of intervals. SQL says them by sorting every interval
--   and comparing each start with the largest end before it,
--     max(end_ns) OVER (PARTITION BY device_id ORDER BY start_ns ROWS BETWEEN UNBOUNDED PRECEDING AND
--     1 PRECEDING)
--   over kernel_columns, memcpys and memsets (tests/vtab.py checks both agree): 7.8 s of CPU on the
--   5M-kernel bench session for the 10 longest; gpu_gaps 0.35 s, keeping only the LIMIT longest as it goes.
-- * api_columns takes `start_ns < x AND end_ns > y` itself, skipping the rows outside in C and, once a
--   scan has seen them, the column chunks outside: the join below decodes the 5.3M calls for the first
--   gap (0.05 s) and a few chunks for each further one (10 gaps: 0.1 s; 0.6 s when every gap decodes all).
-- * fmt_ns writes a time as the tables do (C's printf): SQLite's printf('%.3f') rounds some halves the
--   other way (566141725500 ns: SQLite 566141.726 ms, C 566141.725 ms).
WITH longest AS MATERIALIZED (
	SELECT device_id, start_ns, end_ns, gap_ns, node FROM gpu_gaps
	WHERE session_id = :session
	ORDER BY gap_ns DESC, start_ns, device_id, node
	LIMIT CASE WHEN :top > 0 THEN min(:top, 100000) ELSE 10 END
),
nodes(multi) AS MATERIALIZED (
	SELECT coalesce((SELECT nodes > 1 FROM temp.gpu_sessions WHERE session_id = :session), 0)
),
gap AS MATERIALIZED (
	SELECT row_number() OVER (ORDER BY gap_ns DESC, start_ns, device_id, node) AS ord, * FROM longest
),
-- Per gap and call name: the time inside the gap, and the first call (its position among the calls); the
-- calls of the gap's node's processes (another rank's calls say nothing about this GPU).
inside AS (
	SELECT g.ord, a.name_id, sum(min(a.end_ns, g.end_ns) - max(a.start_ns, g.start_ns)) AS ns, min(a.rowid) AS first
	FROM gap g CROSS JOIN api_columns a
	WHERE a.session_id = :session AND a.start_ns < g.end_ns AND a.end_ns > g.start_ns
	  AND min(a.end_ns, g.end_ns) > max(a.start_ns, g.start_ns)
	  AND (NOT (SELECT multi FROM nodes) OR a.pid IN (SELECT pid FROM temp.gpu_nodes n
							 WHERE n.session_id = :session AND n.node = g.node))
	GROUP BY g.ord, a.name_id
),
ranked AS (
	SELECT i.ord, coalesce(s.value, '?') || ' ' || fmt_ns(i.ns) AS call,
	       row_number() OVER (PARTITION BY i.ord ORDER BY i.ns DESC, i.first) AS nth
	FROM inside i LEFT JOIN strings s ON s.session_id = :session AND s.id = i.name_id
),
host AS (
	SELECT ord, max(CASE nth WHEN 1 THEN call END) || coalesce(', ' || max(CASE nth WHEN 2 THEN call END), '')
		    || coalesce(', ' || max(CASE nth WHEN 3 THEN call END), '') AS calls
	FROM ranked WHERE nth <= 3 GROUP BY ord
)
SELECT n.rank, n.host AS hostname, g.device_id AS device, g.start_ns, g.gap_ns,
       coalesce(h.calls, '(no host calls recorded)') AS host
FROM gap g LEFT JOIN host h ON h.ord = g.ord
LEFT JOIN temp.gpu_node_names n ON n.session_id = :session AND n.node = g.node
ORDER BY g.ord;
