-- memory_growth: the sessions whose peak GPU memory grew over the session before (by start, among those
-- with memory events): the peak of their most used device, as `gpuprof-analyze memory` gives it
-- (peak_bytes), and the previous session's.
--   clickhouse-client < memory_growth.sql
-- The rules, and the one of gpuprof's three not made here, are those of queries/postgres/memory_growth.sql.
-- Running sums are cumulative sums over each device's events sorted by time (arrays: ClickHouse 18.16
-- has no window functions).
SELECT tupleElement(t, 2) AS session, tupleElement(t, 1) AS start_ns, tupleElement(t, 3) AS peak_bytes,
       tupleElement(t, 4) AS peak_from, tupleElement(p, 2) AS prev_session,
       tupleElement(p, 3) AS prev_peak_bytes, peak_bytes - prev_peak_bytes AS grew_bytes
FROM (
	SELECT arraySort(groupArray((start_ns, session, peak_bytes, peak_from))) AS a
	FROM (
		SELECT session, max(dev_peak) AS peak_bytes, argMax(dev_from, dev_peak) AS peak_from
		FROM (
			SELECT session, device,
			       if(sum(totals) = sum(events), 'total_allocated', 'bytes') AS dev_from,
			       arraySort(groupArrayArray(steps)) AS ev,
			       if(sum(totals) = sum(events),
				  arrayReduce('max', arrayCumSum(arrayMap(x -> tupleElement(x, 2), ev))),
				  greatest(arrayReduce('max', arrayCumSum(arrayMap(x -> tupleElement(x, 3), ev))), 0))
				       AS dev_peak
			FROM (
				-- per process: (time, change of its running total, signed bytes) of each event
				SELECT session, ifNull(device_id, -1) AS device, count() AS events,
				       count(total_allocated) AS totals,
				       arraySort(groupArray((ts_ns, ifNull(total_allocated, 0),
							     if(op = 1, bytes, -bytes)))) AS own,
				       arrayMap((ts, total, signed) -> (ts, total, signed),
						arrayMap(x -> tupleElement(x, 1), own),
						arrayPopFront(arrayDifference(arrayPushFront(arrayMap(x -> tupleElement(x, 2), own), 0))),
						arrayMap(x -> tupleElement(x, 3), own)) AS steps
				FROM memory_events
				GROUP BY session, device, pid
			)
			GROUP BY session, device
		)
		GROUP BY session
	)
	ALL INNER JOIN (SELECT session, ifNull(start_ns, 0) AS start_ns FROM sessions) USING (session)
)
ARRAY JOIN arrayPopFront(a) AS t, arrayPopBack(a) AS p
WHERE tupleElement(t, 3) > tupleElement(p, 3)
ORDER BY start_ns, session;
