-- ranges: per NVTX range (or scope), shown as its nesting path (step/forward/attention): count, wall
-- time statistics, and the GPU time it caused: the kernels whose launch call (same process and
-- correlation id) was made on the range's thread between its start and end. Computed in C (ranges.c).
-- Statement 1: every range, in nesting order per process and thread.
SELECT r.pid, coalesce(r.thread_id, 0), r.start_ns, r.end_ns, r.kind, s.value
FROM ranges r JOIN strings s ON s.session_id = r.session_id AND s.id = r.name_id
WHERE r.session_id = :session
ORDER BY r.pid, r.kind = 3, coalesce(r.thread_id, 0), r.start_ns, coalesce(r.end_ns, 9223372036854775807) DESC;

-- Statement 2: every launch (and other) call: where and when it was made. Read in rowid slices on
-- several connections at once (scan.c binds :lo and :hi); kernels come from kernels.sql.
SELECT pid, correlation_id, coalesce(thread_id, 0), start_ns FROM api_calls
WHERE rowid BETWEEN :lo AND :hi AND session_id = :session;

-- Statement 3: whether a path passes --match and --exclude.
SELECT (:match IS NULL OR :path REGEXP :match) AND (:exclude IS NULL OR NOT :path REGEXP :exclude);
