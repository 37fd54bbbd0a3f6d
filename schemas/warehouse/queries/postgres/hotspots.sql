-- hotspots: one session's kernels by total GPU time, one row per name, as `gpuprof-analyze hotspots
-- --format json` gives them (same columns, same numbers; every name, ordered as it orders them):
--   psql -v session=UUID -f hotspots.sql
-- Statistics as Nsight Systems has them: the median by percentile_cont(0.5), which for an even count is
-- the mean of the two middle values, gpuprof's definition; stddev the sample one, 0 for one call;
-- time_pct a share of the session's summed kernel time. Averages and shares are float8 divisions of the
-- same integers gpuprof divides; stddev_samp sums in another order than gpuprof's C (the last digits may
-- differ).
SELECT 100.0::float8 * k.total_ns / sum(k.total_ns) OVER () AS time_pct, k.total_ns, k.calls,
       k.total_ns::float8 / k.calls AS avg_ns, k.med_ns, k.min_ns, k.max_ns, k.stddev_ns, s.value AS name
FROM (SELECT name_id, count(*) AS calls, sum(end_ns - start_ns)::bigint AS total_ns,
	     percentile_cont(0.5) WITHIN GROUP (ORDER BY end_ns - start_ns) AS med_ns,
	     min(end_ns - start_ns) AS min_ns, max(end_ns - start_ns) AS max_ns,
	     coalesce(stddev_samp((end_ns - start_ns)::float8), 0) AS stddev_ns
      FROM kernels WHERE session = :'session' GROUP BY name_id) k
JOIN strings s ON s.session = :'session' AND s.id = k.name_id
ORDER BY k.total_ns DESC, s.value COLLATE "C";
