-- hotspots: one session's kernels by total GPU time, one row per name, as `gpuprof-analyze hotspots
-- --format json` gives them (same columns, same numbers; every name, ordered as it orders them):
--   clickhouse-client --param_session=UUID < hotspots.sql
-- The median is gpuprof's (Nsight Systems'): the middle value, for an even count the mean of the two
-- middle ones, from the sorted durations. ClickHouse's quantileExact(0.5) is not that: it returns the
-- upper of the two middle values for an even count (quantileExactLow/High, from 20.x, are one each; no
-- function averages them), so this query averages them itself, on ClickHouse 18.16 as on current ones.
-- stddev is the sample one, 0 for one call, in two passes over the durations (stddevSamp of 18.16 was
-- 5e-12 off gpuprof's, which is exact in 128-bit integers; this is within 1e-15); time_pct a share of
-- the session's summed kernel time.
SELECT 100. * total_ns / (SELECT sum(end_ns - start_ns) FROM kernels WHERE session = {session:String}) AS time_pct,
       total_ns, calls, avg_ns, med_ns, min_ns, max_ns, stddev_ns, name
FROM (
	SELECT id, count() AS calls, sum(dur) AS total_ns, total_ns / calls AS avg_ns,
	       arraySort(groupArray(dur)) AS sorted,
	       (sorted[intDiv(calls + 1, 2)] + sorted[intDiv(calls + 2, 2)]) / 2 AS med_ns,
	       min(dur) AS min_ns, max(dur) AS max_ns,
	       if(calls > 1, sqrt(arraySum(arrayMap(x -> (x - avg_ns) * (x - avg_ns), sorted)) / (calls - 1)), 0) AS stddev_ns
	FROM (SELECT name_id AS id, end_ns - start_ns AS dur FROM kernels WHERE session = {session:String})
	GROUP BY id
)
ALL INNER JOIN (SELECT id, value AS name FROM strings WHERE session = {session:String}) USING (id)
ORDER BY total_ns DESC, name;
