-- stalls, stall_kernels and stall_pcs: sampled warp states from CUPTI PC sampling. Samples join the
-- device's own stall-reason table on (session, process, device, reason index); names are folded in C.
-- Statement 1: samples per raw reason name.
SELECT r.name, sum(p.samples) FROM pc_samples p
JOIN stall_reasons r ON r.session_id = p.session_id AND r.pid = p.pid AND r.device_id = p.device_id
  AND r.id = p.stall_reason_id
WHERE p.session_id = :session GROUP BY r.name;

-- Statement 2: samples per (function, raw reason name), for functions passing --match/--exclude.
SELECT s.value, r.name, sum(p.samples) FROM pc_samples p
JOIN stall_reasons r ON r.session_id = p.session_id AND r.pid = p.pid AND r.device_id = p.device_id
  AND r.id = p.stall_reason_id
JOIN strings s ON s.session_id = p.session_id AND s.id = p.function_id
WHERE p.session_id = :session
  AND (:match IS NULL OR s.value REGEXP :match) AND (:exclude IS NULL OR NOT s.value REGEXP :exclude)
GROUP BY s.value, r.name;

-- Statement 3: samples per (function, PC, source line, raw reason name).
SELECT s.value, p.pc_offset, f.value, p.line, r.name, sum(p.samples) FROM pc_samples p
JOIN stall_reasons r ON r.session_id = p.session_id AND r.pid = p.pid AND r.device_id = p.device_id
  AND r.id = p.stall_reason_id
JOIN strings s ON s.session_id = p.session_id AND s.id = p.function_id
LEFT JOIN strings f ON f.session_id = p.session_id AND f.id = p.file_id
WHERE p.session_id = :session
  AND (:match IS NULL OR s.value REGEXP :match) AND (:exclude IS NULL OR NOT s.value REGEXP :exclude)
GROUP BY p.function_id, p.pc_offset, p.file_id, p.line, r.name
ORDER BY p.function_id, p.pc_offset, p.file_id, p.line;	-- stalls.c folds each instruction's rows in a run
