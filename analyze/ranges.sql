-- ranges: per NVTX range (or scope), shown as its nesting path (step/forward/attention): count, wall
-- time statistics, and the GPU time it caused: the kernels whose launch call (same process and
-- correlation id) was made on the range's thread between its start and end. Computed in C (ranges.c).
-- compare runs statements 1 and 2 alone, for the wall time per path (ranges_by_path).
-- Statement 1: every range, in nesting order per process and thread.
SELECT r.pid, coalesce(r.thread_id, 0), r.start_ns, r.end_ns, r.kind, s.value
FROM ranges r JOIN strings s ON s.session_id = r.session_id AND s.id = r.name_id
WHERE r.session_id = :session
ORDER BY r.pid, r.kind = 3, coalesce(r.thread_id, 0), r.start_ns, coalesce(r.end_ns, 9223372036854775807) DESC;

-- Statement 2: whether a path passes --match and --exclude.
SELECT (:match IS NULL OR :path REGEXP :match) AND (:exclude IS NULL OR NOT :path REGEXP :exclude);

-- Statement 3: every launch (and other) call: where and when it was made.
SELECT pid, correlation_id, coalesce(thread_id, 0), start_ns FROM api_calls WHERE session_id = :session;

-- Statement 4: every kernel: the call that launched it, and its GPU time.
SELECT pid, correlation_id, end_ns - start_ns FROM kernels WHERE session_id = :session;
