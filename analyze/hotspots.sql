-- hotspots: kernels by total GPU time, one row per name (statistics computed in C, see stats.h).
-- Statement 1: (name, duration) of every kernel that passes the name filters.
SELECT name_id, end_ns - start_ns FROM kernels
WHERE session_id = :session
  AND ((:match IS NULL AND :exclude IS NULL) OR name_id IN (
	SELECT id FROM strings WHERE session_id = :session
	  AND (:match IS NULL OR value REGEXP :match)
	  AND (:exclude IS NULL OR NOT value REGEXP :exclude)));

-- Statement 2: summed time of all kernels, the base of time_pct (only run when a filter is given).
SELECT coalesce(sum(end_ns - start_ns), 0) FROM kernels WHERE session_id = :session;

-- Statement 3: a name by id.
SELECT value FROM strings WHERE session_id = :session AND id = :id;
