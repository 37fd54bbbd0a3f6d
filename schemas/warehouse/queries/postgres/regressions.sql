-- regressions: the kernels whose median grew from a baseline session to a new one, as `gpuprof-analyze
-- compare --base-session BASE --session NEW` finds them (its kernel table's `regressed` rows, same
-- columns and numbers), the largest change of total time first:
--   psql -v base=UUID -v new=UUID [-v threshold=0.05 -v min_delta=10000 -v min_calls=1] -f regressions.sql
-- A name regressed when its median grew by more than both threshold (of the base median) and min_delta
-- ns, unless it has fewer than min_calls calls on both sides; the defaults are gpuprof-analyze's. Names
-- are compared as recorded (no --short, --group or per-rank names).
\if :{?threshold}
\else
\set threshold 0.05
\endif
\if :{?min_delta}
\else
\set min_delta 10000
\endif
\if :{?min_calls}
\else
\set min_calls 1
\endif
WITH side AS (
	SELECT k.session, s.value AS name, count(*) AS calls, sum(k.end_ns - k.start_ns)::bigint AS total_ns,
	       sum(k.end_ns - k.start_ns)::float8 / count(*) AS avg_ns,
	       percentile_cont(0.5) WITHIN GROUP (ORDER BY k.end_ns - k.start_ns) AS med_ns
	FROM kernels k JOIN strings s ON s.session = k.session AND s.id = k.name_id
	WHERE k.session IN (:'base', :'new')
	GROUP BY k.session, s.value
)
SELECT 'regressed' AS status,
       CASE WHEN b.med_ns > 0 THEN 100.0::float8 * (n.med_ns - b.med_ns) / b.med_ns END AS delta_pct,
       n.med_ns - b.med_ns AS delta_ns, b.med_ns AS base_med_ns, n.med_ns AS new_med_ns,
       b.avg_ns AS base_avg_ns, n.avg_ns AS new_avg_ns, b.total_ns AS base_total_ns, n.total_ns AS new_total_ns,
       CASE WHEN b.total_ns > 0 THEN 100.0::float8 * (n.total_ns - b.total_ns) / b.total_ns END AS total_delta_pct,
       b.calls AS base_calls, n.calls AS new_calls, n.name
FROM side b JOIN side n ON n.name = b.name
WHERE b.session = :'base' AND n.session = :'new'
  AND NOT (b.calls < :min_calls AND n.calls < :min_calls)
  AND n.med_ns - b.med_ns > :min_delta AND n.med_ns - b.med_ns > :threshold * b.med_ns
ORDER BY abs(n.total_ns - b.total_ns) DESC, n.name COLLATE "C";
