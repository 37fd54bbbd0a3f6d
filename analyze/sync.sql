-- analysis: sync
-- title: Host time blocked in synchronization, by type and stream
-- section: 14 top 10
-- table: sync Host time blocked in synchronization, by type and stream
-- column: time_pct pct its share of the time of the rows shown
-- column: total_ns ns summed duration
-- column: count count how many
-- column: avg_ns ns mean duration
-- column: med_ns ns median duration (the mean of the two middle values for even counts)
-- column: min_ns ns shortest duration
-- column: max_ns ns longest duration
-- column: stddev_ns ns "StdDev" sample standard deviation of the durations (0 for one)
-- column: stream int the stream (none for context syncs)
-- column: kind text "Type" event, stream wait, stream or context
--
-- sync: host time blocked in synchronization, one row per type (event, stream wait, stream, context) and
-- stream (none for context syncs), with Nsight's statistics. --match/--exclude apply to the type's name;
-- time_pct is a share of the rows shown.
WITH g AS (
	SELECT kind, stream_id, count(*) AS n, sum(end_ns - start_ns) AS total, avg(end_ns - start_ns) AS mean,
	       median(end_ns - start_ns) AS med, min(end_ns - start_ns) AS lo, max(end_ns - start_ns) AS hi,
	       stddev_samp(end_ns - start_ns) AS sd,
	       coalesce((SELECT name FROM sync_kinds WHERE id = kind), 'kind ' || kind) AS name
	FROM syncs WHERE session_id = :session
	GROUP BY kind, stream_id
)
SELECT 100.0 * total / nullif(sum(total) OVER (), 0) AS time_pct, total AS total_ns, n AS count,
       mean AS avg_ns, med AS med_ns, lo AS min_ns, hi AS max_ns, sd AS stddev_ns, stream_id AS stream,
       name AS kind
FROM g
WHERE (:match IS NULL OR name REGEXP :match) AND (:exclude IS NULL OR NOT name REGEXP :exclude)
ORDER BY total DESC, g.kind, stream_id
LIMIT :top;
