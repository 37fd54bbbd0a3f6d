-- regressions: the kernels whose median grew from a baseline session to a new one, as `gpuprof-analyze
-- compare --base-session BASE --session NEW` finds them (its kernel table's `regressed` rows, same
-- columns and numbers), the largest change of total time first:
--   clickhouse-client --param_base=UUID --param_new=UUID --param_threshold=0.05 --param_min_delta=10000 \
--                     --param_min_calls=1 < regressions.sql
-- A name regressed when its median grew by more than both threshold (of the base median) and min_delta
-- ns, unless it has fewer than min_calls calls on both sides (gpuprof-analyze's defaults above). Names
-- are compared as recorded (no --short, --group or per-rank names). Medians as hotspots.sql makes them.
SELECT 'regressed' AS status,
       if(base_med_ns > 0, 100. * (new_med_ns - base_med_ns) / base_med_ns, NULL) AS delta_pct,
       new_med_ns - base_med_ns AS delta_ns, base_med_ns, new_med_ns, base_avg_ns, new_avg_ns,
       base_total_ns, new_total_ns,
       if(base_total_ns > 0, 100. * (new_total_ns - base_total_ns) / base_total_ns, NULL) AS total_delta_pct,
       base_calls, new_calls, name
FROM (
	SELECT name, countIf(session = {base:String}) AS base_calls, countIf(session = {new:String}) AS new_calls,
	       sumIf(dur, session = {base:String}) AS base_total_ns, sumIf(dur, session = {new:String}) AS new_total_ns,
	       base_total_ns / base_calls AS base_avg_ns, new_total_ns / new_calls AS new_avg_ns,
	       arraySort(groupArrayIf(dur, session = {base:String})) AS base_sorted,
	       arraySort(groupArrayIf(dur, session = {new:String})) AS new_sorted,
	       (base_sorted[intDiv(base_calls + 1, 2)] + base_sorted[intDiv(base_calls + 2, 2)]) / 2 AS base_med_ns,
	       (new_sorted[intDiv(new_calls + 1, 2)] + new_sorted[intDiv(new_calls + 2, 2)]) / 2 AS new_med_ns
	FROM (SELECT session, name_id AS id, end_ns - start_ns AS dur FROM kernels
	      WHERE session IN ({base:String}, {new:String}))
	ALL INNER JOIN (SELECT session, id, value AS name FROM strings WHERE session IN ({base:String}, {new:String}))
	USING (session, id)
	GROUP BY name
	HAVING base_calls > 0 AND new_calls > 0
)
WHERE NOT (base_calls < {min_calls:UInt64} AND new_calls < {min_calls:UInt64})
  AND new_med_ns - base_med_ns > {min_delta:Float64}
  AND new_med_ns - base_med_ns > {threshold:Float64} * base_med_ns
ORDER BY abs(new_total_ns - base_total_ns) DESC, name;
