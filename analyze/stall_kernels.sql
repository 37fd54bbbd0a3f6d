-- stall_kernels: kernels by sampled warps (CUPTI PC sampling; the not-issued twins not counted), each
-- with its reason mix: a column per reason among the ten most sampled overall (most first, then by key),
-- each the share of that kernel's samples (NULL where the kernel has no sample of it). Names as shown
-- (short with --short, then the first --group whose expression matches), filtered by --match and
-- --exclude on the full name.
-- Samples join the device's own stall-reason table on (session, process, device, reason index). CUPTI
-- reports, per reason, the samples of warps in that state ("smsp__pcsamp_warps_issue_stalled_wait") and,
-- as a twin, the subset in which the warp issued nothing ("..._wait_not_issued"). A reason's key is its
-- raw name without that prefix and the twin's suffix. Plain SQL: a session has thousands of samples.
-- The reason columns depend on the data: the statement gives one result row per kernel and reason
-- column, the column's title in _pivot and the share in _value, and script_run lays them out as columns
-- (struct table_spec's pivot): consecutive rows with the same samples and name are one table row.
WITH keyed AS (
	SELECT p.*, CASE WHEN twin THEN substr(k, 1, length(k) - 11) ELSE k END AS key
	FROM (SELECT p.*, length(k) > 11 AND substr(k, -11) = '_not_issued' AS twin
	      FROM (SELECT p.*, r.name AS raw,
			   CASE WHEN substr(r.name, 1, 33) = 'smsp__pcsamp_warps_issue_stalled_' THEN substr(r.name, 34)
				ELSE r.name END AS k
		    FROM pc_samples p
		    JOIN stall_reasons r ON r.session_id = p.session_id AND r.pid = p.pid
		      AND r.device_id = p.device_id AND r.id = p.stall_reason_id
		    WHERE p.session_id = :session) p) p
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
	FROM keyed k JOIN names n ON n.id = k.function_id
	GROUP BY n.name, k.key
),
kernels(name, samples) AS (
	SELECT name, sum(samples) FROM cells GROUP BY name ORDER BY 2 DESC, 1 LIMIT :top
),
reasons(key, ord) AS (
	SELECT key, row_number() OVER (ORDER BY sum(samples) DESC, key) FROM cells GROUP BY key ORDER BY 2 LIMIT 10
)
SELECT k.samples, k.name, r.key AS _pivot,
       CASE WHEN k.samples > 0 THEN 100.0 * c.samples / k.samples END AS _value
FROM kernels k
LEFT JOIN reasons r
LEFT JOIN cells c ON c.name = k.name AND c.key = r.key
ORDER BY k.samples DESC, k.name, r.ord;
