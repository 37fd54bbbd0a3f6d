-- reference: api_stats
-- title: Per session and API call name: calls and the statistics of their durations
-- accelerator: SELECT session_id, name_id, calls, total_ns, avg_ns, med_ns, min_ns, max_ns, stddev_ns FROM api_stats
-- What the C table api_stats (analyze/ext/sqlext_vtab.c) computes, in plain SQL: kernel_stats' figures
-- over the API calls (a NULL name is name id 0). The api analysis reads it.
-- Speed-up: 13x: the C table 0.77 s (best of 3), this reference 10.23 s (one run);
-- 5M-kernel bench session, sqlite3 shell, rows to /dev/null, 2 cores shared (load 7-10), 2026-11-28.
SELECT session_id, name_id, count(*) AS calls, sum(dur_ns) AS total_ns, avg(dur_ns) AS avg_ns,
       median(dur_ns) AS med_ns, min(dur_ns) AS min_ns, max(dur_ns) AS max_ns,
       coalesce(stddev_samp(dur_ns), 0.0) AS stddev_ns
FROM api_columns
GROUP BY session_id, name_id
ORDER BY session_id, name_id;
