-- stall_pcs: the most sampled instructions (function, PC offset, source line; CUPTI PC sampling, the
-- not-issued twins left out), each with its dominant reason (the raw reason with most samples, the first
-- raw name among equals; none when no count is positive) and that reason's share of the instruction's samples; 20 rows unless --top.
-- --match and --exclude filter the functions' names.
-- Samples join the device's own stall-reason table on (session, process, device, reason index). CUPTI
-- reports, per reason, the samples of warps in that state ("smsp__pcsamp_warps_issue_stalled_wait") and,
-- as a twin, the subset in which the warp issued nothing ("..._wait_not_issued"). A reason's key is its
-- raw name without that prefix and the twin's suffix. Plain SQL: a session has thousands of samples.
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
