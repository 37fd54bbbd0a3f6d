-- overhead: what CUPTI and the driver cost the program itself, per overhead kind (buffer flushes,
-- instrumentation, lazy function loading, ...). Records CUPTI could not time (NULL times) count in
-- `count` and in `untimed` and add no time. wall_pct is the kind's time as a share of the session's wall
-- span; overheads on several threads at once add up, so the shares may sum past 100.
WITH o AS (
	SELECT coalesce((SELECT name FROM overhead_kinds WHERE id = kind), 'kind ' || kind) AS name,
	       end_ns - start_ns AS dur
	FROM overheads WHERE session_id = :session
)
SELECT 100.0 * coalesce(sum(dur), 0) / nullif((SELECT end_ns - start_ns FROM sessions WHERE id = :session), 0),
       coalesce(sum(dur), 0) AS total, count(*), count(*) - count(dur), avg(dur), max(dur), name
FROM o
WHERE (:match IS NULL OR name REGEXP :match) AND (:exclude IS NULL OR NOT name REGEXP :exclude)
GROUP BY name ORDER BY total DESC, name LIMIT :top;
