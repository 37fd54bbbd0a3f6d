-- reference: api_columns
-- title: The CUDA API calls of every session, as the column chunks hold them
-- accelerator: SELECT session_id, pid, start_ns, end_ns, thread_id, name_id, correlation_id, dur_ns FROM api_columns
-- What the C table api_columns (analyze/ext/sqlext_vtab.c) gives: the api_calls table's rows with a NULL
-- thread, name or correlation id as 0, and the duration. It reads the column chunks where a session has a
-- complete set, else these rows.
-- Speed-up: 1.3x: the C table 1.59 s (best of 3), this reference 2.00 s (one run) (SELECT count(*), sum(dur_ns), sum(thread_id) over each);
-- 5M-kernel bench session, sqlite3 shell, rows to /dev/null, 2 cores shared (load 7-10), 2026-11-28.
SELECT session_id, pid, start_ns, end_ns, coalesce(thread_id, 0) AS thread_id, coalesce(name_id, 0) AS name_id,
       coalesce(correlation_id, 0) AS correlation_id, end_ns - start_ns AS dur_ns
FROM api_calls;
