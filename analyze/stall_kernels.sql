-- analysis: stall_kernels
-- title: Stall reason mix per kernel (a kernel x reason matrix)
-- include: stall-samples
-- section: 12 top 10
-- table: stall_kernels Stall reasons per kernel (share of each kernel's samples, %)
-- column: samples count the kernel's samples (the not-issued twins not counted)
-- column: name text "Kernel" the kernel's name as shown
-- pivot: _pct pct at name
--
-- stall_kernels: kernels by sampled warps (CUPTI PC sampling; the not-issued twins not counted), each
-- with its reason mix: a column per reason among the ten most sampled overall (most first, then by key),
-- each the share of that kernel's samples (NULL where the kernel has no sample of it). Names as shown
-- (short with --short, then the first --group whose expression matches), filtered by --match and
-- --exclude on the full name.
-- The samples and their reasons' keys: temp.stall_samples (analyze/stall-samples.sql).
-- The reason columns depend on the data: the statement gives one result row per kernel and reason
-- column, the column's title in _pivot and the share in _value, and script_run lays them out as columns
-- (its header's pivot line): consecutive rows with the same samples and name are one table row.
WITH keyed AS (
	SELECT * FROM temp.stall_samples WHERE session_id = :session
),
names(id, name) AS (
	SELECT id, coalesce((SELECT g.name FROM temp.name_groups g WHERE n REGEXP g.pattern ORDER BY g.ord LIMIT 1), n)
	FROM (SELECT id, CASE WHEN :short THEN short_name(value) ELSE value END AS n
	      FROM strings
	      WHERE session_id = :session
		AND (:match IS NULL OR value REGEXP :match)
		AND (:exclude IS NULL OR NOT value REGEXP :exclude))
),
-- Per kernel and reason key: samples (0 where only the twin was sampled).
cells(name, key, samples) AS MATERIALIZED (
	SELECT n.name, k.key, sum(CASE WHEN k.twin THEN 0 ELSE k.samples END)
	FROM (SELECT function_id, key, twin, sum(samples) AS samples FROM keyed GROUP BY function_id, key, twin) k
	JOIN names n ON n.id = k.function_id
	GROUP BY n.name, k.key
),
kernels(name, samples) AS MATERIALIZED (
	SELECT name, sum(samples) FROM cells GROUP BY name ORDER BY 2 DESC, 1 LIMIT :top
),
reasons(key, ord) AS MATERIALIZED (
	SELECT key, row_number() OVER (ORDER BY sum(samples) DESC, key) FROM cells GROUP BY key ORDER BY 2 LIMIT 10
)
SELECT k.samples, k.name, r.key AS _pivot,
       CASE WHEN k.samples > 0 THEN 100.0 * c.samples / k.samples END AS _value
FROM kernels k
LEFT JOIN reasons r
LEFT JOIN cells c ON c.name = k.name AND c.key = r.key
ORDER BY k.samples DESC, k.name, r.ord;
