-- compare: kernels of a baseline session against a new one, per name (statistics and verdicts in C).
-- Run once per side, each on its own connection and session (the baseline may be another database).
-- Statement 1: (name, duration) of every kernel that passes the name filters.
SELECT name_id, end_ns - start_ns FROM kernels
WHERE session_id = :session
  AND ((:match IS NULL AND :exclude IS NULL) OR name_id IN (
	SELECT id FROM strings WHERE session_id = :session
	  AND (:match IS NULL OR value REGEXP :match)
	  AND (:exclude IS NULL OR NOT value REGEXP :exclude)));

-- Statement 2: a name by id.
SELECT value FROM strings WHERE session_id = :session AND id = :id;

-- Statement 3: the default baseline, the session before the new one.
SELECT max(id) FROM sessions WHERE id < :session;
