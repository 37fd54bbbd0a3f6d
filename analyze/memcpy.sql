-- analysis: memcpy
-- title: Copies by kind (HtoD, DtoH, DtoD, PtoP) and memsets: time, bytes, GB/s
-- section: 13
-- table: memcpy Memory copies and memsets by kind
-- column: time_pct pct its share of the time of the kinds shown
-- column: total_ns ns summed duration
-- column: count count how many
-- column: avg_ns ns mean duration
-- column: med_ns ns median duration (the mean of the two middle values for even counts)
-- column: min_ns ns shortest duration
-- column: max_ns ns longest duration
-- column: stddev_ns ns "StdDev" sample standard deviation of the durations (0 for one)
-- column: bytes bytes bytes moved or set
-- column: avg_bytes bytes mean bytes per operation
-- column: gbps real "GB/s" achieved bandwidth, bytes per ns (GB/s)
-- column: kind text "Operation" HtoD, DtoH, DtoD, PtoP, ... or memset
-- column: med_bytes bytes median bytes per operation
-- column: min_bytes bytes fewest bytes of an operation
-- column: max_bytes bytes most bytes of an operation
-- column: stddev_bytes bytes "StdDev bytes" sample standard deviation of the bytes per operation
--
-- memcpy: copies per kind (HtoD, DtoH, DtoD, PtoP, ...) and memsets, one row each: time statistics
-- (Nsight's: median the mean of the two middle values, stddev the sample one), bytes moved and the
-- achieved bandwidth (bytes per ns = GB/s). --match/--exclude apply to the kind's name; time_pct is a
-- share of the kinds shown. Then the sizes as Nsight's cuda_gpu_mem_size_sum gives them per operation:
-- count (count), total (bytes), avg (avg_bytes), med, min, max and the sample stddev of the bytes each
-- moved or set (med_bytes ... stddev_bytes, after the kind: the columns before keep their places).
WITH ops(kind, dur, bytes) AS (
	SELECT kind, end_ns - start_ns, bytes FROM memcpys WHERE session_id = :session
	UNION ALL
	SELECT -1, end_ns - start_ns, bytes FROM memsets WHERE session_id = :session
), g AS (
	SELECT kind, count(*) AS n, sum(dur) AS total, avg(dur) AS mean, median(dur) AS med, min(dur) AS lo,
	       max(dur) AS hi, stddev_samp(dur) AS sd, coalesce(sum(bytes), 0) AS bytes, median(bytes) AS b_med,
	       min(bytes) AS b_min, max(bytes) AS b_max, stddev_samp(bytes) AS b_sd,
	       CASE kind WHEN -1 THEN 'memset'
		 ELSE coalesce((SELECT name FROM copy_kinds WHERE id = kind), 'kind ' || kind) END AS name
	FROM ops GROUP BY kind
)
SELECT 100.0 * total / nullif(sum(total) OVER (), 0) AS time_pct, total AS total_ns, n AS count,
       mean AS avg_ns, med AS med_ns, lo AS min_ns, hi AS max_ns, sd AS stddev_ns, bytes,
       1.0 * bytes / n AS avg_bytes, CASE WHEN total > 0 THEN 1.0 * bytes / total END AS gbps, name AS kind,
       b_med AS med_bytes, b_min AS min_bytes, b_max AS max_bytes, b_sd AS stddev_bytes
FROM g
WHERE (:match IS NULL OR name REGEXP :match) AND (:exclude IS NULL OR NOT name REGEXP :exclude)
ORDER BY total DESC, g.kind
LIMIT :top;
