-- analysis: api
-- title: CUDA runtime and driver API calls by name (nsys cuda_api_sum): count, time, stats
-- section: 15 top 10
-- table: api CUDA API calls (runtime and driver) by total time
-- column: time_pct pct its share of all the session's API call time, filters or not
-- column: total_ns ns summed duration
-- column: calls count how many
-- column: avg_ns ns mean duration
-- column: med_ns ns median duration (the mean of the two middle values for even counts)
-- column: min_ns ns shortest duration
-- column: max_ns ns longest duration
-- column: stddev_ns ns "StdDev" sample standard deviation of the durations (0 for one)
-- column: name text the call's name (without nsys's version suffix)
--
-- api: CUDA runtime and driver API calls by name, as Nsight Systems' cuda_api_sum report gives them: per
-- name its calls, total, avg, med (the mean of the two middle values for even counts), min, max and the
-- sample stddev (0 for a single call, as nsys prints it, hotspots and memcpy give it) of the calls'
-- durations, and time_pct, the name's share of the
-- time of all the session's API calls (also when --match/--exclude leave some out; not a share of wall or
-- CPU time: calls on several threads overlap).
--
-- Driver calls count too, as in nsys: cuda_api_sum reads CUPTI_ACTIVITY_KIND_RUNTIME, which in an nsys
-- export holds the driver's cu* calls beside the runtime's cuda* ones (the exports in ../shared/traces
-- have no CUPTI_ACTIVITY_KIND_DRIVER table; mfu_2gpu_before's RUNTIME table holds 1,074 cu* calls), so
-- api_calls of both domains (1 runtime, 2 driver) are read. Names are as ingest stores them: without
-- nsys's version suffix (cudaLaunchKernel_v7000 is cudaLaunchKernel), so an old export that records a
-- call twice under both names (nsys 2022) counts it twice under one. A call without a name is
-- "(unknown)". --match/--exclude filter names; --top N keeps the first N by total time.
--
-- Grouped by name id in C by api_stats (analyze/ext/sqlext_vtab.c, kernel_stats' statistics over api_columns, the
-- column chunks): SQLite's GROUP BY sorted the 5.3M calls of the 5M-kernel bench session (2.8 s).
WITH g AS (
	SELECT name_id, calls, total_ns AS total, avg_ns AS mean, med_ns AS med, min_ns AS lo, max_ns AS hi,
	       stddev_ns AS sd
	FROM api_stats WHERE session_id = :session
),
named AS (
	SELECT g.*, coalesce((SELECT value FROM strings s WHERE s.session_id = :session AND s.id = g.name_id),
			     '(unknown)') AS name
	FROM g
)
SELECT 100.0 * total / nullif((SELECT sum(total) FROM g), 0) AS time_pct, total AS total_ns, calls, mean AS avg_ns,
       med AS med_ns, lo AS min_ns, hi AS max_ns, sd AS stddev_ns, name
FROM named
WHERE (:match IS NULL OR name REGEXP :match) AND (:exclude IS NULL OR NOT name REGEXP :exclude)
ORDER BY total DESC, name
LIMIT :top;
