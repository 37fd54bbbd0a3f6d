-- analysis: overhead
-- title: What CUPTI and the driver cost the program, by kind: buffer flushes, instrumentation, lazy loading
-- section: 25
-- table: overhead CUPTI and driver overhead by kind (what profiling itself cost)
-- column: wall_pct pct total_ns, % of the session's wall span (overheads on several threads add up)
-- column: total_ns ns summed duration
-- column: count count records, timed or not
-- column: untimed count records CUPTI could not time
-- column: avg_ns ns mean duration
-- column: max_ns ns longest duration
-- column: kind text the overhead's kind
--
-- overhead: what CUPTI and the driver cost the program itself, per overhead kind (buffer flushes,
-- instrumentation, lazy function loading, ...). Records CUPTI could not time (NULL times) count in
-- `count` and in `untimed` and add no time. wall_pct is the kind's time as a share of the session's wall
-- span; overheads on several threads at once add up, so the shares may sum past 100. A database from
-- before version 3 has no overheads (lib/db.c gives its reader empty ones, schemas/read-3.sql).
-- The note of a database from before overheads (a heading: it notes the table after it).
SELECT 'none recorded: schema version ' || gpuprof_schema_version() || ' is from before gpuprof recorded overheads'
	 AS _note
WHERE gpuprof_schema_version() < 3;

WITH o AS (
	SELECT coalesce((SELECT name FROM overhead_kinds WHERE id = kind), 'kind ' || kind) AS name,
	       end_ns - start_ns AS dur
	FROM overheads WHERE session_id = :session
)
SELECT 100.0 * coalesce(sum(dur), 0) / nullif((SELECT end_ns - start_ns FROM sessions WHERE id = :session), 0)
	 AS wall_pct,
       coalesce(sum(dur), 0) AS total_ns, count(*) AS count, count(*) - count(dur) AS untimed,
       avg(dur) AS avg_ns, max(dur) AS max_ns, name AS kind
FROM o
WHERE (:match IS NULL OR name REGEXP :match) AND (:exclude IS NULL OR NOT name REGEXP :exclude)
GROUP BY name ORDER BY total_ns DESC, name LIMIT :top;
