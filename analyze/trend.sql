-- trend: every session's kernel time per name, sessions in time order (step changes flagged in C).
-- Statement 1: (name, session, session start, total ns, calls), all sessions of the database. Kernels are
-- summed per (session, name id) first, so names are joined and filtered once per name, not per kernel.
WITH per AS (
	SELECT session_id, name_id, sum(end_ns - start_ns) AS total, count(*) AS calls
	FROM kernels GROUP BY session_id, name_id
)
SELECT s.value, per.session_id, se.start_ns, per.total, per.calls
FROM per
JOIN strings s ON s.session_id = per.session_id AND s.id = per.name_id
JOIN sessions se ON se.id = per.session_id
WHERE (:match IS NULL OR s.value REGEXP :match)
  AND (:exclude IS NULL OR NOT s.value REGEXP :exclude)
ORDER BY s.value, se.start_ns, per.session_id;
