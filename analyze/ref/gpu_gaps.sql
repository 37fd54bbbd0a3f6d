-- reference: gpu_gaps
-- title: Each idle gap of each GPU: where nothing ran between two of its operations
-- accelerator: SELECT * FROM gpu_gaps
-- What the C table gpu_gaps (analyze/ext/sqlext_busy.c) computes, in plain SQL: a gap starts where an
-- operation (kernel, copy, memset; of length > 0) starts after every earlier one of its GPU (by start)
-- ended; it runs from the latest end before it to that start. GPUs are (node, device) as gpu_busy's
-- reference says. Not said here: a session with trace windows keeps only the traced pieces of a gap
-- (the C table cuts them; no shipped trace has windows).
-- Speed-up: 6x: the C table 6.42 s (best of 3), this reference 38.46 s (one run) (3.1 M gaps; count(*) over the C table takes as long, 5.9 s);
-- 5M-kernel bench session, sqlite3 shell, rows to /dev/null, 2 cores shared (load 7-10), 2026-11-28.
WITH nodes AS (
	SELECT session_id, pid, dense_rank() OVER (PARTITION BY session_id ORDER BY hostname, rank) - 1 AS node
	FROM processes
), raw AS (
	SELECT session_id, pid, device_id, start_ns, end_ns FROM kernel_columns
	UNION ALL SELECT session_id, pid, device_id, start_ns, end_ns FROM memcpys
	UNION ALL SELECT session_id, pid, device_id, start_ns, end_ns FROM memsets
), act AS (
	SELECT r.session_id, coalesce(n.node, 0) AS node, device_id, start_ns, end_ns
	FROM raw r LEFT JOIN nodes n USING (session_id, pid)
), run AS (
	SELECT session_id, node, device_id, start_ns,
	       max(end_ns) OVER (PARTITION BY session_id, node, device_id ORDER BY start_ns
				 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
	FROM act WHERE end_ns > start_ns
)
SELECT session_id, device_id, prev AS start_ns, start_ns AS end_ns, start_ns - prev AS gap_ns, node
FROM run WHERE start_ns > prev
ORDER BY session_id, node, device_id, start_ns;
