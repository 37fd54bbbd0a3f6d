-- ranges: per NVTX range (or scope), shown as its nesting path (step/forward/attention) and its style
-- (PushPop: kind 1, StartEnd: kind 2, GPU: kind 3, a GPU-side annotation such as Kineto's
-- gpu_user_annotation): rows are keyed by path and style, so a host range and a GPU annotation of one
-- name (ProfilerStep#6) are two rows. Per row: count, wall time statistics, and the GPU time:
--   gpu_ns, kernels: the summed durations (a sum, not a union: overlapping kernels each count whole) and
--     the number of the kernels whose launch call (the first API call with the kernel's process and
--     correlation id, in table order) was made on the range's own thread at or after its start and before
--     its end; a kernel without a correlation id (NULL or 0) matches no call.
--   window_gpu_ns, window_kernels: the same for launch calls made by any thread of the range's process in
--     [start, end): work that other threads launched while the range was open (PyTorch runs backward on
--     autograd's own thread, so `backward` launches little itself).
--   For GPU annotations (kind 3, thread_id holding the stream) there is no launching thread: gpu_ns and
--     kernels are the kernels of the annotation's process and stream that started in [start, end), the
--     window those of any stream of its process (ranges keep no device: streams are matched by id).
-- Every figure of a row is summed over its ranges (parents include their children; ranges of one path
-- open at once on two threads each count a kernel). Ranges that never ended have no duration and an open
-- end; the wall time statistics are those of the ranges that ended, the count counts every range.
--
-- Where C does the work:
-- * kernel_windows (lib/sqlext_window.c) sums the kernels of a window on a thread or stream. The plain
--   SQL, a join of kernel_columns and api_columns on (pid, correlation_id) summed per range, makes SQLite
--   build an automatic index over the 5.3M calls of the bench session and then visit every kernel once
--   per enclosing range: minutes; kernel_windows joins the session once by a hash of correlation ids and
--   answers each range by two binary searches (0.45 s for the join, 0.12 s for 62,500 ranges).
-- * fold_name, short_name and regexp name the ranges as --short and --group show them.
--
-- Statement 1: the session's ranges named as shown (PyTorch's ", seq = N" counters folded away, then
-- --short and --group), in nesting order: per process, host ranges before GPU annotations, thread (stream),
-- start, the longest first, load order. Ranges whose name is not in strings are left out.
DROP TABLE IF EXISTS temp.range_rows;
CREATE TEMP TABLE range_rows(rn INTEGER PRIMARY KEY, pid, thread, kind, start_ns, end_ns, open_end, name);
WITH names(id, name) AS MATERIALIZED (
	SELECT id, CASE WHEN :folded
		THEN coalesce((SELECT g.name FROM temp.name_groups g WHERE n REGEXP g.pattern ORDER BY g.ord LIMIT 1), n)
		ELSE n END
	FROM (SELECT id, CASE WHEN :short THEN short_name(fold_name(value)) ELSE fold_name(value) END AS n
	      FROM strings
	      WHERE session_id = :session AND id IN (SELECT name_id FROM ranges WHERE session_id = :session))
)
INSERT INTO temp.range_rows(pid, thread, kind, start_ns, end_ns, open_end, name)
SELECT r.pid, coalesce(r.thread_id, 0), r.kind, r.start_ns, r.end_ns, coalesce(r.end_ns, 9223372036854775807), n.name
FROM ranges r JOIN names n ON n.id = r.name_id
WHERE r.session_id = :session
ORDER BY r.pid, r.kind = 3, coalesce(r.thread_id, 0), r.start_ns, 6 DESC, r.rowid;

-- Statement 2: each range's path, walking the ranges in nesting order with the stack of the open ones
-- per process, thread and host-or-GPU: a range closes the stack's ranges that ended before it starts or
-- that do not contain it (the stack's ends never grow upwards, so those are its top), sits under the one
-- left on top, and is pushed. Start/end ranges (kind 2) neither nest nor close anything: one may outlive
-- the push/pop range it began in. The stack is a JSON array of [end, path], bottom first.
DROP TABLE IF EXISTS temp.range_paths;
CREATE TEMP TABLE range_paths AS
WITH RECURSIVE walk(rn, pid, thread, gpu, stack) AS (
	SELECT 0, NULL, NULL, NULL, '[]'
	UNION ALL
	-- The stack after r: what contains r (end >= r's end and > its start), r pushed on top; unchanged by
	-- kind 2.
	SELECT r.rn, r.pid, r.thread, r.kind = 3,
	       (SELECT CASE WHEN r.kind = 2 THEN kept ELSE json_insert(kept, '$[#]',
			json_array(r.open_end, coalesce((kept ->> '$[#-1][1]') || '/', '') || r.name)) END
		FROM (SELECT CASE
			WHEN r.pid IS NOT w.pid OR r.thread IS NOT w.thread OR (r.kind = 3) IS NOT w.gpu THEN '[]'
			WHEN r.kind = 2 OR w.stack ->> '$[#-1][0]' >= max(r.open_end, r.start_ns + 1) THEN w.stack
			ELSE (SELECT json_group_array(json(value)) FROM json_each(w.stack)
			      WHERE value ->> 0 >= max(r.open_end, r.start_ns + 1))
			END AS kept))
	FROM walk w JOIN temp.range_rows r ON r.rn = w.rn + 1
),
paths(rn, path) AS (
	SELECT w.rn, CASE WHEN r.kind = 2 THEN r.name ELSE w.stack ->> '$[#-1][1]' END
	FROM walk w JOIN temp.range_rows r ON r.rn = w.rn
)
SELECT r.rn, r.pid, r.thread, r.kind, r.start_ns, r.end_ns, r.name, p.path,
       CASE r.kind WHEN 1 THEN 'PushPop' WHEN 2 THEN 'StartEnd' WHEN 3 THEN 'GPU' ELSE '' END AS style
FROM paths p JOIN temp.range_rows r ON r.rn = p.rn
WHERE (:match IS NULL OR p.path REGEXP :match) AND (:exclude IS NULL OR NOT p.path REGEXP :exclude);

-- Statement 3: per path and style, the wall time statistics of the ranges that ended (0 when none did),
-- the count of all, and the GPU time they launched (kernel_windows); the largest total first.
SELECT coalesce(sum(p.end_ns - p.start_ns), 0) AS total_ns, count(*) AS count,
       coalesce(1.0 * sum(p.end_ns - p.start_ns) / count(p.end_ns), 0.0) AS avg_ns,
       coalesce(median(p.end_ns - p.start_ns), 0.0) AS med_ns,
       coalesce(min(p.end_ns - p.start_ns), 0) AS min_ns, coalesce(max(p.end_ns - p.start_ns), 0) AS max_ns,
       coalesce(stddev_samp(p.end_ns - p.start_ns), 0.0) AS stddev_ns,
       sum(own.gpu_ns) AS gpu_ns, sum(own.kernels) AS kernels,
       sum(win.gpu_ns) AS window_gpu_ns, sum(win.kernels) AS window_kernels,
       p.style AS style, min(p.name) AS name, p.path AS path,
       'GPU time: kernels launched by the range''s thread while it was open; Window: by any thread of its '
       || 'process (GPU style: started on its stream; on any stream)' AS _note
FROM temp.range_paths p,
     kernel_windows(:session, p.pid, CASE p.kind WHEN 3 THEN 'stream' ELSE 'thread' END, p.thread, p.start_ns,
		    p.end_ns) own,
     kernel_windows(:session, p.pid, CASE p.kind WHEN 3 THEN 'stream' ELSE 'thread' END, NULL, p.start_ns,
		    p.end_ns) win
GROUP BY p.path, p.style
ORDER BY total_ns DESC, p.path, CASE p.style WHEN 'PushPop' THEN 1 WHEN 'StartEnd' THEN 2 WHEN 'GPU' THEN 3 ELSE 0 END
LIMIT :top;
