-- kernel_trend: one kernel's total time and calls in each of the last N sessions (by their start) that
-- ran it, oldest first: the points of `gpuprof-analyze trend` for that name.
--   clickhouse-client --param_kernel=NAME --param_last=N < kernel_trend.sql
SELECT session, start_ns, total_ns, calls
FROM (
	SELECT session, sum(end_ns - start_ns) AS total_ns, count() AS calls
	FROM (SELECT session, name_id AS id, start_ns, end_ns FROM kernels
	      WHERE session IN (SELECT session FROM sessions ORDER BY start_ns DESC, session DESC LIMIT {last:UInt32}))
	ALL INNER JOIN (SELECT session, id FROM strings WHERE value = {kernel:String}) USING (session, id)
	GROUP BY session
)
ALL INNER JOIN (SELECT session, start_ns FROM sessions) USING (session)
ORDER BY start_ns, session;
