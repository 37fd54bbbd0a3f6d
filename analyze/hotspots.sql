-- analysis: hotspots
-- title: Kernels by total GPU time: count, total, avg, med, min, max, stddev
-- section: 6 top 10
-- table: hotspots Top kernels by total GPU time
-- column: time_pct pct its share of all the session's kernel time, filters or not
-- column: total_ns ns summed duration
-- column: calls count how many
-- column: avg_ns ns mean duration
-- column: med_ns ns median duration (the mean of the two middle values for even counts)
-- column: min_ns ns shortest duration
-- column: max_ns ns longest duration
-- column: stddev_ns ns "StdDev" sample standard deviation of the durations (0 for one)
-- column: name text the kernel's name as shown (short with --short, its family with --group)
--
-- hotspots: kernels by total GPU time, one row per name (per family with --short or --group), with
-- Nsight Systems' statistics: median the mean of the two middle values, stddev the sample one (0 for one
-- call). time_pct is a share of all the session's kernel time, also when --match/--exclude leave some out.
--
-- One statement, two forms of the same computation; the one whose :folded test fails reads nothing.
-- * Names as they are (:folded = 0): the view hotspots, as a sqlite3 user reads it: the TEMP view of
--   schemas/views-ext.sql over kernel_stats (the column chunks grouped by name in C; 0.25 s on the
--   5M-kernel bench session), which shadows the stored plain-SQL one (views.sql: 16 s there).
-- * Folded names (--short, --group NAME=RE; :folded = 1): a family's median needs every duration of
--   every name in it, so this form groups kernel_columns by family here: 5.0 s with --short on the bench
--   session, SQLite's GROUP BY sorting every kernel.
-- The families of the kernel names --match and --exclude let through (folded form only): a name as
-- shown is short with --short, then the first --group whose expression matches (temp.name_groups, in
-- order); a family's key is its first name id (grouping millions of kernels by integers, not names).
DROP TABLE IF EXISTS temp.kernel_families;
CREATE TEMP TABLE kernel_families(id INTEGER PRIMARY KEY, key INTEGER, name TEXT);
WITH names(id, shown) AS (
	SELECT id, coalesce((SELECT g.name FROM temp.name_groups g WHERE n REGEXP g.pattern ORDER BY g.ord LIMIT 1), n)
	FROM (SELECT id, CASE WHEN :short THEN short_name(value) ELSE value END AS n
	      FROM strings
	      WHERE session_id = :session
		AND id IN (SELECT name_id FROM kernel_stats WHERE session_id = :session)
		AND (:match IS NULL OR value REGEXP :match)
		AND (:exclude IS NULL OR NOT value REGEXP :exclude))
)
INSERT INTO temp.kernel_families SELECT id, min(id) OVER (PARTITION BY shown), shown FROM names WHERE :folded;

WITH folded AS (
	SELECT f.key, count(*) AS calls, sum(k.dur_ns) AS total_ns, avg(k.dur_ns) AS avg_ns,
	       median(k.dur_ns) AS med_ns, min(k.dur_ns) AS min_ns, max(k.dur_ns) AS max_ns,
	       stddev_samp(k.dur_ns) AS stddev_ns
	FROM kernel_columns k CROSS JOIN temp.kernel_families f ON f.id = k.name_id	-- CROSS: read the kernels once
	WHERE :folded AND k.session_id = :session
	GROUP BY f.key
)
SELECT time_pct, total_ns, calls, avg_ns, med_ns, min_ns, max_ns, stddev_ns, name
FROM hotspots
WHERE NOT :folded AND session_id = :session
  AND (:match IS NULL OR name REGEXP :match) AND (:exclude IS NULL OR NOT name REGEXP :exclude)
UNION ALL
SELECT 100.0 * total_ns / (SELECT sum(total_ns) FROM kernel_stats WHERE session_id = :session),
       total_ns, calls, avg_ns, med_ns, min_ns, max_ns, stddev_ns,
       (SELECT f.name FROM temp.kernel_families f WHERE f.id = folded.key)	-- after grouping: the sorter carries integers
FROM folded
ORDER BY total_ns DESC, name
LIMIT :top;
