-- trend: every session's kernel time per name, sessions in time order (step changes flagged in C).
-- Statement 1: (name, session, session start, total ns, calls), all sessions of the database.
SELECT s.value, k.session_id, se.start_ns, sum(k.end_ns - k.start_ns), count(*)
FROM kernels k
JOIN strings s ON s.session_id = k.session_id AND s.id = k.name_id
JOIN sessions se ON se.id = k.session_id
WHERE (:match IS NULL OR s.value REGEXP :match)
  AND (:exclude IS NULL OR NOT s.value REGEXP :exclude)
GROUP BY s.value, k.session_id
ORDER BY s.value, se.start_ns, k.session_id;
