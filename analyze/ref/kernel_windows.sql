-- reference: kernel_windows
-- title: The kernels of a window of time on one host thread or stream, summed
-- accelerator: SELECT kernels, gpu_ns FROM kernel_windows(:session, :pid, :by, :key, :start_ns, :end_ns)
-- What the C table-valued function kernel_windows (analyze/ext/sqlext_window.c) answers, in plain SQL,
-- for one window (:session, :pid, :by 'thread' or 'stream', :key the thread or stream id or NULL for any,
-- [:start_ns, :end_ns), :end_ns NULL for no end). 'thread': the kernels whose launch call (the first API
-- call with the kernel's process and correlation id, in table order; correlation id 0 has none) started
-- on the thread in the window; 'stream': the kernels of the process that started on the stream in it.
-- Speed-up: 34x: the C table 0.76 s (best of 3), this reference 25.72 s (one run) (one window: the process, by thread, any thread, no end);
-- 5M-kernel bench session, sqlite3 shell, rows to /dev/null, 2 cores shared (load 7-10), 2026-11-28.
WITH first AS MATERIALIZED (
	SELECT correlation_id AS corr, min(rowid) AS rid FROM api_calls
	WHERE session_id = :session AND pid = :pid AND correlation_id <> 0 GROUP BY correlation_id
), w(key, t, dur) AS (
	SELECT coalesce(c.thread_id, 0), c.start_ns, k.dur_ns
	FROM kernel_columns k CROSS JOIN first f ON f.corr = k.correlation_id JOIN api_calls c ON c.rowid = f.rid
	WHERE :by = 'thread' AND k.session_id = :session AND k.pid = :pid
	UNION ALL
	SELECT stream_id, start_ns, dur_ns FROM kernel_columns
	WHERE :by = 'stream' AND session_id = :session AND pid = :pid
)
SELECT count(dur) AS kernels, coalesce(sum(dur), 0) AS gpu_ns
FROM w
WHERE (:key IS NULL OR key = :key) AND t >= :start_ns AND (:end_ns IS NULL OR t < :end_ns);
