-- compare: kernels of a baseline session against a new one, per name (statistics and verdicts in C).
-- Run once per side, each on its own connection and session (the baseline may be another database); the
-- kernels come from the shared kernel columns of kernels.sql, ranges from ranges.sql, copies from memcpy.sql.
-- Statement 1: a name by id.
SELECT value FROM strings WHERE session_id = :session AND id = :id;
