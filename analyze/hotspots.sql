-- hotspots: kernels by total GPU time, one row per name (per family with --short or --group), with
-- Nsight Systems' statistics: median the mean of the two middle values, stddev the sample one (0 for one
-- call). time_pct is a share of all the session's kernel time, also when --match/--exclude leave some out.
--
-- One statement, two forms of the same computation; the one whose :folded test fails reads nothing.
-- * Names as they are (:folded = 0): kernel_stats, which groups the session's kernel column chunks by
--   name id in C. It is the plain SQL
--     SELECT name_id, count(*), sum(dur_ns), avg(dur_ns), median(dur_ns), min(dur_ns), max(dur_ns),
--            stddev_samp(dur_ns) FROM kernel_columns WHERE session_id = :session GROUP BY name_id
--   (tests/sqlext.py checks that both agree), which SQLite runs through a sorter of every kernel:
--   3.5 s on the 5M-kernel bench session, kernel_stats 0.25 s.
-- * Folded names (--short, --group NAME=RE; :folded = 1): a family's median needs every duration of
--   every name in it, so this form groups kernel_columns by the folded name (slow on millions of kernels).
WITH stats AS MATERIALIZED (
	SELECT * FROM kernel_stats WHERE session_id = :session
),
-- The names --match and --exclude let through, as shown: short with --short, then the first --group
-- whose expression matches (temp.name_groups, in order).
names(id, name) AS MATERIALIZED (
	SELECT id, coalesce((SELECT g.name FROM temp.name_groups g WHERE n REGEXP g.pattern ORDER BY g.ord LIMIT 1), n)
	FROM (SELECT id, CASE WHEN :short THEN short_name(value) ELSE value END AS n
	      FROM strings
	      WHERE session_id = :session AND id IN (SELECT name_id FROM stats)
		AND (:match IS NULL OR value REGEXP :match)
		AND (:exclude IS NULL OR NOT value REGEXP :exclude))
),
-- A family's key: its first name id (sorting integers, not names, when grouping millions of kernels).
family(id, key, name) AS MATERIALIZED (
	SELECT id, min(id) OVER (PARTITION BY name), name FROM names
),
groups AS (
	SELECT n.id AS first_id, n.name, k.calls, k.total_ns, k.avg_ns, k.med_ns, k.min_ns, k.max_ns, k.stddev_ns
	FROM stats k JOIN names n ON n.id = k.name_id
	WHERE NOT :folded
	UNION ALL
	SELECT f.key, f.name, count(*), sum(k.dur_ns), avg(k.dur_ns), median(k.dur_ns), min(k.dur_ns),
	       max(k.dur_ns), stddev_samp(k.dur_ns)
	FROM kernel_columns k JOIN family f ON f.id = k.name_id
	WHERE :folded AND k.session_id = :session
	GROUP BY f.key
)
SELECT 100.0 * total_ns / (SELECT sum(total_ns) FROM stats) AS time_pct,
       total_ns, calls, avg_ns, med_ns, min_ns, max_ns, stddev_ns, name
FROM groups
ORDER BY total_ns DESC, first_id
LIMIT :top;
