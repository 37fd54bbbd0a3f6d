-- reference: kernel_exec_summary
-- title: The launch pipeline of a session's kernels per name and per quarter of the session (kernexec)
-- accelerator: SELECT * FROM kernel_exec_summary(:session, :match, :exclude)
-- What the C table kernel_exec_summary (analyze/ext/sqlext_exec.c, whose header defines each column)
-- computes, in SQL: the grouping of kernel_exec's rows (the join of each kernel with its launch call,
-- done in C) for session :session. Rows of kind 'name', one per name id (every name): calls, launched
-- (with a launch call), qcount (with a positive queue time), the statistics of the calls' durations, of
-- the positive queue times (p90, p99 too) and of the kernels' durations. Rows of kind 'quarter', over the
-- kernels whose names match :match and not :exclude (REGEXP; NULL none): per quarter of the span from the
-- first to the last kernel start and queue-time bucket (0 no launch call, 1 none, 2 under 1 us, 3 under
-- 10 us ... 7 10 ms or more) with kernels in it, n of them and the quarter's figures (its first start,
-- kernels, launched ones, those that waited, and the median, p90 and max wait of the launched ones, a
-- wait being the queue time or 0).
-- Speed-up: 23x: the C table 2.50 s (best of 3), this reference 57.48 s (one run) (one session, no patterns);
-- 5M-kernel bench session, sqlite3 shell, rows to /dev/null, 2 cores shared (load 7-10), 2026-11-28.
-- It stays a C table: gpuprof-analyze kernexec takes 5.7 s there with it under that load (best of 3; the C
-- file says 1.4 s on an idle machine), over the 1 s target already; the grouping in SQL alone takes ten times longer.
WITH e AS (
	SELECT name_id, start_ns, dur_ns, api_ns, queue_ns, CASE WHEN queue_ns > 0 THEN queue_ns END AS q
	FROM kernel_exec WHERE session_id = :session
), kept AS (
	SELECT *, CASE WHEN api_ns IS NULL THEN 0 WHEN queue_ns <= 0 THEN 1 WHEN queue_ns < 1000 THEN 2
		       WHEN queue_ns < 10000 THEN 3 WHEN queue_ns < 100000 THEN 4 WHEN queue_ns < 1000000 THEN 5
		       WHEN queue_ns < 10000000 THEN 6 ELSE 7 END AS bucket
	FROM e
	WHERE (:match IS NULL AND :exclude IS NULL)
	   OR name_id IN (SELECT id FROM strings WHERE session_id = :session AND (:match IS NULL OR value REGEXP :match)
			  AND (:exclude IS NULL OR NOT value REGEXP :exclude))
), span AS (
	SELECT min(start_ns) AS t0, max(start_ns) - min(start_ns) + 1 AS len FROM kept
), qk AS (
	SELECT k.*, min(3, (k.start_ns - s.t0) * 4 / s.len) + 1 AS quarter,
	       CASE WHEN k.api_ns IS NOT NULL THEN max(k.queue_ns, 0) END AS wait
	FROM kept k, span s
), quarters AS (
	SELECT quarter, min(start_ns) AS start_ns, count(*) AS kernels, count(api_ns) AS launched,
	       count(CASE WHEN bucket > 1 THEN 1 END) AS waited, median(wait) AS wait_med, percentile(wait, 90) AS wait_p90,
	       max(wait) AS wait_max
	FROM qk GROUP BY quarter
)
SELECT 'name' AS kind, name_id, count(*) AS calls, count(api_ns) AS launched,
       count(CASE WHEN api_ns IS NOT NULL THEN q END) AS qcount, avg(api_ns) AS api_avg_ns,
       median(api_ns) AS api_med_ns, min(api_ns) AS api_min_ns, max(api_ns) AS api_max_ns,
       avg(CASE WHEN api_ns IS NOT NULL THEN q END) AS queue_avg_ns,
       median(CASE WHEN api_ns IS NOT NULL THEN q END) AS queue_med_ns,
       min(CASE WHEN api_ns IS NOT NULL THEN q END) AS queue_min_ns,
       max(CASE WHEN api_ns IS NOT NULL THEN q END) AS queue_max_ns,
       percentile(CASE WHEN api_ns IS NOT NULL THEN q END, 90) AS queue_p90_ns,
       percentile(CASE WHEN api_ns IS NOT NULL THEN q END, 99) AS queue_p99_ns,
       sum(dur_ns) AS kernel_total_ns, avg(dur_ns) AS kernel_avg_ns, median(dur_ns) AS kernel_med_ns,
       min(dur_ns) AS kernel_min_ns, max(dur_ns) AS kernel_max_ns, NULL AS quarter, NULL AS bucket, NULL AS n,
       NULL AS start_ns, NULL AS kernels, NULL AS quarter_launched, NULL AS waited, NULL AS wait_med_ns,
       NULL AS wait_p90_ns, NULL AS wait_max_ns
FROM e GROUP BY name_id
UNION ALL
SELECT 'quarter', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, b.quarter, b.bucket, b.n, q.start_ns, q.kernels, q.launched, q.waited, q.wait_med,
       q.wait_p90, q.wait_max
FROM (SELECT quarter, bucket, count(*) AS n FROM qk GROUP BY quarter, bucket) b JOIN quarters q USING (quarter);
