-- analysis: problems
-- title: Recording problems: collector errors (no NVML, CUPTI refused, ...) and records it lost
-- section: 3
-- table: problems Recording problems: collector errors and what the collector lost
-- column: problem text what went wrong
-- column: source text the component that reported it
-- column: count count how often (records lost, windows, ...)
-- column: first_ns time when it was first reported
-- column: detail text what the component said
--
-- problems: what went wrong while recording, which the numbers of every other table do not show: the
-- collector's errors (no NVML, CUPTI refused a subscription, PC sampling not available: table
-- collector_errors, one row per component and reason) and what it lost (CUPTI's dropped records, ring
-- overflows, PC samples; batches missing from the wire: table drops, summed per source and kind). Rows
-- gpuprof itself did not read (drops from 'ingest') and rejected input lines are ingest's, not the
-- recording's: the summary counts those. first_ns is when each was first reported. A session recorded
-- with trace windows says so first ('partly traced', count = windows): its totals are over traced time
-- only, and rates scaled by wall / traced extrapolate to the whole run.
WITH windows AS (
	SELECT count(*) AS n, min(start_ns) AS first_ns, busy_union(start_ns, end_ns) AS traced_ns,
	       sum(ranges_cut) AS cut
	FROM trace_windows WHERE session_id = :session
),
session AS (
	SELECT end_ns - start_ns AS wall_ns, json_extract(options, '$.trace_window') AS window
	FROM sessions WHERE id = :session
)
SELECT problem, source, count, first_ns, detail
FROM (
	SELECT 'partly traced' AS problem, 'trace window' AS source, w.n AS count, w.first_ns,
	       printf('traced %s (%.1f %% of the session, %d windows, %d ranges cut at their edges): totals are over ' ||
		      'traced time only; multiply a total by %.2f to extrapolate it to the whole session',
		      coalesce(replace(s.window, '/', ' of every '), 'part of the time'),
		      100.0 * w.traced_ns / nullif(s.wall_ns, 0), w.n, w.cut, 1.0 * s.wall_ns / nullif(w.traced_ns, 0))
	         AS detail, -1 AS ord
	FROM windows w, session s WHERE w.n > 0
	UNION ALL
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
