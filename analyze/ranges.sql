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
-- end. Computed in C (ranges.c) by a sweep over the shared kernel and API call columns (kernels.sql).
-- compare runs statements 1 to 3 alone, for the wall time per path and style (ranges_by_path).
-- Statement 1: every range (put in nesting order per process and thread in C).
SELECT pid, coalesce(thread_id, 0), start_ns, end_ns, kind, name_id FROM ranges WHERE session_id = :session;

-- Statement 2: a name by id.
SELECT value FROM strings WHERE session_id = :session AND id = :id;

-- Statement 3: whether a path passes --match and --exclude.
SELECT (:match IS NULL OR :path REGEXP :match) AND (:exclude IS NULL OR NOT :path REGEXP :exclude);
