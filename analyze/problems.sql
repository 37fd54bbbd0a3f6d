-- problems: what went wrong while recording, which the numbers of every other table do not show: the
-- collector's errors (no NVML, CUPTI refused a subscription, PC sampling not available: table
-- collector_errors, one row per component and reason) and what it lost (CUPTI's dropped records, ring
-- overflows, PC samples; batches missing from the wire: table drops, summed per source and kind). Rows
-- gpuprof itself did not read (drops from 'ingest') and rejected input lines are ingest's, not the
-- recording's: the summary counts those. first_ns is when each was first reported.
SELECT problem, source, count, first_ns, detail
FROM (
	SELECT 'collector error' AS problem, coalesce(what, '-') AS source, count(*) AS count, min(ts_ns) AS first_ns,
	       reason AS detail, 0 AS ord
	FROM collector_errors WHERE session_id = :session
	GROUP BY what, reason
	UNION ALL
	SELECT CASE WHEN source = 'wire' THEN 'batches missing' ELSE 'lost by the collector' END, source, sum(count),
	       min(ts_ns), what, 1
	FROM drops WHERE session_id = :session AND source <> 'ingest' AND count > 0
	GROUP BY source, what
)
ORDER BY ord, count DESC, source, detail LIMIT :top;
