-- reference: kernel_exec
-- title: Every kernel with its launch call's duration and its time in the launch queue
-- accelerator: SELECT * FROM kernel_exec
-- What the C table kernel_exec (analyze/ext/sqlext_exec.c) computes, in plain SQL: each kernel joined to
-- its launch call, the first API call (table order) with the kernel's session, process and correlation id
-- (a kernel with correlation id 0 has none); api_ns is the call's duration, queue_ns the kernel's start
-- minus the call's end, both NULL without a call. Rows in name id order.
-- Speed-up: 5x: the C table 14.40 s (best of 3), this reference 67.07 s (one run) (both mostly printing 5M rows);
-- 5M-kernel bench session, sqlite3 shell, rows to /dev/null, 2 cores shared (load 7-10), 2026-11-28.
WITH first AS (
	SELECT session_id, pid, correlation_id AS corr, min(rowid) AS rid
	FROM api_calls WHERE correlation_id <> 0 GROUP BY session_id, pid, correlation_id
)
SELECT k.session_id, k.pid, k.name_id, k.start_ns, k.dur_ns, c.end_ns - c.start_ns AS api_ns,
       k.start_ns - c.end_ns AS queue_ns
FROM kernel_columns k
LEFT JOIN first f ON f.session_id = k.session_id AND f.pid = k.pid AND f.corr = k.correlation_id
LEFT JOIN api_calls c ON c.rowid = f.rid
ORDER BY k.session_id, k.name_id;
