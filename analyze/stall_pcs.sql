-- analysis: stall_pcs
-- title: Most sampled instructions with source line and dominant reason
-- include: stall-samples
-- table: stall_pcs Most sampled instructions and why they waited
-- column: samples count the instruction's samples
-- column: pc_offset int "PC offset" its offset in the function
-- column: source text its source file and line, where known
-- column: reason text "Dominant reason" the reason with most samples
-- column: reason_pct pct "Its share %" its share of the instruction's samples, %
-- column: function text "Kernel" the kernel
--
-- stall_pcs: the most sampled instructions (function, PC offset, source line; CUPTI PC sampling, the
-- not-issued twins left out), each with its dominant reason (the raw reason with most samples, the first
-- raw name among equals; none when no count is positive) and that reason's share of the instruction's
-- samples; 20 rows unless --top. --match and --exclude filter the functions' names.
-- The samples and their reasons' keys: temp.stall_samples (analyze/stall-samples.sql).
WITH keyed AS (
	SELECT * FROM temp.stall_samples WHERE session_id = :session
),
per AS (
	SELECT k.function_id, k.pc_offset, k.file_id, coalesce(k.line, 0) AS line, k.raw, k.key,
	       sum(k.samples) AS samples
	FROM keyed k
	JOIN strings s ON s.session_id = k.session_id AND s.id = k.function_id
	WHERE NOT k.twin
	  AND (:match IS NULL OR s.value REGEXP :match) AND (:exclude IS NULL OR NOT s.value REGEXP :exclude)
	GROUP BY k.function_id, k.pc_offset, k.file_id, coalesce(k.line, 0), k.raw
),
pcs AS (
	SELECT function_id, pc_offset, file_id, line, sum(samples) AS samples, max(max(samples), 0) AS top
	FROM per GROUP BY function_id, pc_offset, file_id, line
)
SELECT p.samples, p.pc_offset, f.value || ':' || p.line AS source,
       (SELECT x.key FROM per x WHERE x.function_id = p.function_id AND x.pc_offset = p.pc_offset
	  AND x.file_id IS p.file_id AND x.line = p.line AND x.samples = p.top AND p.top > 0
	ORDER BY x.raw LIMIT 1) AS reason,
       CASE WHEN p.samples <> 0 THEN 100.0 * p.top / p.samples END AS reason_pct,
       s.value AS function
FROM pcs p
JOIN strings s ON s.session_id = :session AND s.id = p.function_id
LEFT JOIN strings f ON f.session_id = :session AND f.id = p.file_id
ORDER BY p.samples DESC, p.pc_offset, s.value
LIMIT CASE WHEN :top > 0 THEN :top ELSE 20 END;
