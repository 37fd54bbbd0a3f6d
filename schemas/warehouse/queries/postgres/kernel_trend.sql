-- kernel_trend: one kernel's total time and calls in each of the last N sessions (by their start) that
-- ran it, oldest first: the points of `gpuprof-analyze trend` for that name.
--   psql -v kernel='NAME' -v last=N -f kernel_trend.sql
SELECT l.session, l.start_ns, sum(k.end_ns - k.start_ns)::bigint AS total_ns, count(*) AS calls
FROM (SELECT session, start_ns FROM sessions ORDER BY start_ns DESC NULLS LAST, session DESC LIMIT :last) l
JOIN strings s ON s.session = l.session AND s.value = :'kernel'
JOIN kernels k ON k.session = l.session AND k.name_id = s.id
GROUP BY l.session, l.start_ns
ORDER BY l.start_ns, l.session;
