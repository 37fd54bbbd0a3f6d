-- ranges: per NVTX range (or scope), shown as its nesting path (step/forward/attention): count, wall
-- time statistics, and the GPU time it caused: the kernels whose launch call (same process and
-- correlation id) was made on the range's thread between its start and end; a kernel without a
-- correlation id (NULL or 0) matches no call. Computed in C (ranges.c), over the shared kernel and API
-- call columns (kernels.sql).
-- compare runs statements 1 to 3 alone, for the wall time per path (ranges_by_path).
-- Statement 1: every range (put in nesting order per process and thread in C).
SELECT pid, coalesce(thread_id, 0), start_ns, end_ns, kind, name_id FROM ranges WHERE session_id = :session;

-- Statement 2: a name by id.
SELECT value FROM strings WHERE session_id = :session AND id = :id;

-- Statement 3: whether a path passes --match and --exclude.
SELECT (:match IS NULL OR :path REGEXP :match) AND (:exclude IS NULL OR NOT :path REGEXP :exclude);
