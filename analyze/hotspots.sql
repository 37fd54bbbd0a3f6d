-- hotspots: kernels by total GPU time, one row per name. The kernels come from kernels.sql (read once,
-- shared); their durations are grouped by name in C (kernels_by_name in columns.c), since a median needs
-- every value.
-- Statement 1: a name by id.
SELECT value FROM strings WHERE session_id = :session AND id = :id;
