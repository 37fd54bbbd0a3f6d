-- reference: gpu_busy
-- title: Per GPU of each session: span, busy and idle time, kernels and their busy time, copies' busy time
-- accelerator: SELECT * FROM gpu_busy
-- What the C table gpu_busy (analyze/ext/sqlext_busy.c) computes, in plain SQL. A GPU is (node, device):
-- a process's node is its (hostname, rank)'s place among the session's, from 0 (analyze/views.sql's
-- temp.gpu_nodes); a pid without a process is node 0. Its activity is its kernels, copies and memsets;
-- busy is the length of their union (busy_union), kernel_busy_ns of the kernels', copy_busy_ns of the
-- copies' and memsets', overlap_ns what both cover at once. A declared device that ran nothing has a row
-- of zeros. Not said here: a session with trace windows (trace_windows) counts idle time only inside
-- them; the C table cuts span and idle to the windows, this reference does not (no shipped trace has any).
-- Speed-up: 25x: the C table 1.02 s (best of 3), this reference 25.62 s (one run);
-- 5M-kernel bench session, sqlite3 shell, rows to /dev/null, 2 cores shared (load 7-10), 2026-11-28.
WITH nodes AS (
	SELECT session_id, pid, dense_rank() OVER (PARTITION BY session_id ORDER BY hostname, rank) - 1 AS node
	FROM processes
), raw AS (
	SELECT session_id, pid, device_id, stream_id, start_ns, end_ns, 1 AS kernel FROM kernel_columns
	UNION ALL SELECT session_id, pid, device_id, coalesce(stream_id, -1), start_ns, end_ns, 0 FROM memcpys
	UNION ALL SELECT session_id, pid, device_id, coalesce(stream_id, -1), start_ns, end_ns, 0 FROM memsets
), act AS (
	SELECT r.session_id, coalesce(n.node, 0) AS node, device_id, stream_id, start_ns, end_ns, kernel
	FROM raw r LEFT JOIN nodes n USING (session_id, pid)
), dev AS (
	SELECT session_id, node, device_id, min(start_ns) AS first_ns, max(end_ns) AS last_ns,
	       busy_union(start_ns, end_ns) AS busy, count(CASE WHEN kernel THEN 1 END) AS kernels,
	       coalesce(sum(CASE WHEN kernel THEN end_ns - start_ns END), 0) AS kernel_ns,
	       coalesce(busy_union(CASE WHEN kernel THEN start_ns END, end_ns), 0) AS kb,
	       coalesce(busy_union(CASE WHEN NOT kernel THEN start_ns END, end_ns), 0) AS cb
	FROM act GROUP BY 1, 2, 3
), ids AS (
	SELECT session_id, node, device_id FROM dev
	UNION SELECT d.session_id, coalesce(n.node, 0), d.id FROM devices d LEFT JOIN nodes n USING (session_id, pid)
)
SELECT i.session_id, i.device_id, d.first_ns, d.last_ns, coalesce(d.last_ns - d.first_ns, 0) AS span_ns,
       coalesce(d.busy, 0) AS busy_ns, coalesce(d.last_ns - d.first_ns - d.busy, 0) AS idle_ns,
       coalesce(d.kernels, 0) AS kernels, coalesce(d.kernel_ns, 0) AS kernel_ns, coalesce(d.kb, 0) AS kernel_busy_ns,
       coalesce(d.cb, 0) AS copy_busy_ns, coalesce(d.kb + d.cb - d.busy, 0) AS overlap_ns, i.node
FROM ids i LEFT JOIN dev d USING (session_id, node, device_id)
ORDER BY i.session_id, i.node, i.device_id;
