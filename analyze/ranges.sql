-- analysis: ranges
-- title: NVTX ranges by nesting path: wall time and the GPU time they launched
-- include: views
-- section: 16 top 10
-- table: ranges NVTX ranges by path and style, with the GPU time of the kernels they launched
-- column: total_ns ns summed wall time of the ranges that ended
-- column: count count ranges of the path and style
-- column: avg_ns ns mean wall time
-- column: med_ns ns median wall time
-- column: min_ns ns shortest
-- column: max_ns ns longest
-- column: stddev_ns ns "StdDev" sample standard deviation of the wall times
-- column: gpu_ns ns "GPU time" summed time of the kernels launched on the range's thread while it was open
-- column: kernels count those kernels
-- column: window_gpu_ns ns "Window GPU" the same for launches by any thread of its process
-- column: window_kernels count those kernels
-- column: style text PushPop, StartEnd or GPU (a GPU-side annotation)
-- column: name text the innermost range's name
-- column: path text the nesting path (step/forward/attention)
--
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
-- * kernel_windows (analyze/ext/sqlext_window.c) sums the kernels of a window on a thread or stream. The plain
--   SQL (each kernel's first call by min(rowid) per process and correlation id, joined back, then a sum
--   per range over the launches on its thread in its window; tests/vtab.py checks both agree) did not
--   finish its first 100 ranges in 300 s on the 5M-kernel bench session: SQLite sorts and indexes the
--   5.3M calls and then scans the launches once per range. kernel_windows joins the session once by a hash
--   of correlation ids (about 0.3 s) and answers each window by two binary searches (0.04 s for 75,000).
-- * fold_name, short_name and regexp name the ranges as --short and --group show them.
-- The paths and wall time statistics are temp.range_walk and temp.range_stats (views.sql), shared with compare.
--
-- Statement 1: the session's ranges as side 0, named as shown (PyTorch's ", seq = N" counters folded
-- away, then --short and --group), in nesting order. Ranges whose name is not in strings are left out.
-- The names go into a keyed table first, as each range looks its name up: a materialized CTE gets no
-- automatic index here, and a scan of the names per range took 16 s on an Nsight export of 16,782 ranges
-- of distinct names.
DROP TABLE IF EXISTS temp.range_names;
CREATE TEMP TABLE range_names(id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO temp.range_names
SELECT id, CASE WHEN :folded
	THEN coalesce((SELECT g.name FROM temp.name_groups g WHERE n REGEXP g.pattern ORDER BY g.ord LIMIT 1), n)
	ELSE n END
FROM (SELECT id, CASE WHEN :short THEN short_name(fold_name(value)) ELSE fold_name(value) END AS n
      FROM strings
      WHERE session_id = :session AND id IN (SELECT name_id FROM ranges WHERE session_id = :session));
DELETE FROM temp.range_rows;
INSERT INTO temp.range_rows(side, pid, thread, kind, start_ns, end_ns, open_end, name)
SELECT 0, r.pid, coalesce(r.thread_id, 0), r.kind, r.start_ns, r.end_ns, coalesce(r.end_ns, 9223372036854775807),
       n.name
FROM ranges r JOIN temp.range_names n ON n.id = r.name_id
WHERE r.session_id = :session
ORDER BY r.pid, r.kind = 3, coalesce(r.thread_id, 0), r.start_ns, 7 DESC, r.rowid;

-- Statement 2: the paths --match and --exclude let through.
DELETE FROM temp.range_paths;
INSERT INTO temp.range_paths
SELECT * FROM temp.range_walk WHERE (:match IS NULL OR path REGEXP :match) AND (:exclude IS NULL OR NOT path REGEXP :exclude);

-- The table's note, also when it has no rows.
SELECT 'GPU time: kernels launched by the range''s thread while it was open; Window: by any thread of its '
       || 'process (GPU style: started on its stream; on any stream)' AS _note;

-- Statement 3: per path and style, the wall time statistics and the GPU time its ranges launched
-- (kernel_windows); the largest total first.
SELECT s.total_ns, s.count, s.avg_ns, s.med_ns, s.min_ns, s.max_ns, s.stddev_ns,
       g.gpu_ns, g.kernels, g.window_gpu_ns, g.window_kernels, s.style, s.name, s.path
FROM temp.range_stats s JOIN (
	SELECT p.path, p.style, sum(own.gpu_ns) AS gpu_ns, sum(own.kernels) AS kernels,
	       sum(win.gpu_ns) AS window_gpu_ns, sum(win.kernels) AS window_kernels
	FROM temp.range_paths p,
	     kernel_windows(:session, p.pid, CASE p.kind WHEN 3 THEN 'stream' ELSE 'thread' END, p.thread,
			    p.start_ns, p.end_ns) own,
	     kernel_windows(:session, p.pid, CASE p.kind WHEN 3 THEN 'stream' ELSE 'thread' END, NULL,
			    p.start_ns, p.end_ns) win
	GROUP BY p.path, p.style
) g ON g.path = s.path AND g.style = s.style
ORDER BY s.total_ns DESC, s.path, s.style_rank
LIMIT :top;
