-- Shared TEMP tables and views of the analyses, made on a connection before its first analysis runs
-- (script_run): what more than one analysis computes the same way is said once, here.
--
-- NVTX ranges by nesting path (ranges, compare). An analysis fills temp.range_rows with the ranges it
-- reads, side 0 (compare: the baseline side 0, the new one 1), named as it shows them, rn in nesting order:
-- per side and process, host ranges before GPU annotations, thread (stream), start, the longest first,
-- load order. temp.range_walk gives each range its path; the analysis keeps what its filters pass in
-- temp.range_paths, which temp.range_stats groups by path and style.
CREATE TEMP TABLE IF NOT EXISTS range_rows(rn INTEGER PRIMARY KEY, side INTEGER, pid INTEGER, thread INTEGER,
	kind INTEGER, start_ns INTEGER, end_ns INTEGER, open_end INTEGER, name TEXT);

-- Each range's path, walking the ranges in nesting order with the stack of the open ones per side,
-- process, thread and host-or-GPU: a range closes the stack's ranges that ended before it starts or that
-- do not contain it (the stack's ends never grow upwards, so those are its top), sits under the one left
-- on top, and is pushed. Start/end ranges (kind 2) neither nest nor close anything: one may outlive the
-- push/pop range it began in. The stack is a JSON array of [end, path], bottom first. (ranges.c did this
-- walk in C; SQLite's recursive CTE walks 75,000 ranges in about 0.25 s.)
CREATE TEMP VIEW IF NOT EXISTS range_walk AS
WITH RECURSIVE walk(rn, side, pid, thread, gpu, stack) AS (
	SELECT 0, NULL, NULL, NULL, NULL, '[]'
	UNION ALL
	-- The stack after r: what contains r (end >= r's end and > its start), r pushed on top; unchanged by
	-- kind 2.
	SELECT r.rn, r.side, r.pid, r.thread, r.kind = 3,
	       (SELECT CASE WHEN r.kind = 2 THEN kept ELSE substr(kept, 1, length(kept) - 1) || CASE WHEN kept = '[]' THEN '' ELSE ',' END ||
			json_array(r.open_end, coalesce((kept ->> '$[#-1][1]') || '/', '') || r.name) || ']' END
		FROM (SELECT CASE
			WHEN r.side IS NOT w.side OR r.pid IS NOT w.pid OR r.thread IS NOT w.thread OR (r.kind = 3) IS NOT w.gpu THEN '[]'
			WHEN r.kind = 2 OR w.stack ->> '$[#-1][0]' >= max(r.open_end, r.start_ns + 1) THEN w.stack
			-- Closing one or two, the usual cases, without reading the whole stack.
			WHEN w.stack ->> '$[#-2][0]' >= max(r.open_end, r.start_ns + 1) THEN json_remove(w.stack, '$[#-1]')
			WHEN w.stack ->> '$[#-3][0]' >= max(r.open_end, r.start_ns + 1)
				THEN json_remove(w.stack, '$[#-1]', '$[#-1]')
			WHEN coalesce(w.stack ->> '$[0][0]' < max(r.open_end, r.start_ns + 1), 1) THEN '[]'
			ELSE (SELECT json_group_array(json(value)) FROM json_each(w.stack)
			      WHERE value ->> 0 >= max(r.open_end, r.start_ns + 1))
			END AS kept))
	FROM walk w JOIN temp.range_rows r ON r.rn = w.rn + 1
),
paths(rn, path) AS (
	SELECT w.rn, CASE WHEN r.kind = 2 THEN r.name ELSE w.stack ->> '$[#-1][1]' END
	FROM walk w JOIN temp.range_rows r ON r.rn = w.rn
)
SELECT r.side, r.rn, r.pid, r.thread, r.kind, r.start_ns, r.end_ns, r.name, p.path,
       CASE r.kind WHEN 1 THEN 'PushPop' WHEN 2 THEN 'StartEnd' WHEN 3 THEN 'GPU' ELSE '' END AS style
FROM paths p JOIN temp.range_rows r ON r.rn = p.rn;

CREATE TEMP TABLE IF NOT EXISTS range_paths(side INTEGER, rn INTEGER, pid INTEGER, thread INTEGER, kind INTEGER,
	start_ns INTEGER, end_ns INTEGER, name TEXT, path TEXT, style TEXT);

-- Per side, path and style: the wall time statistics of the ranges that ended (0 when none did), as
-- lib/dstats.c gives them, and the count of all of them; style_rank orders the styles as ranges lists them.
CREATE TEMP VIEW IF NOT EXISTS range_stats AS
SELECT side, path, style, CASE style WHEN 'PushPop' THEN 1 WHEN 'StartEnd' THEN 2 WHEN 'GPU' THEN 3 ELSE 0 END
	AS style_rank,
       coalesce(sum(end_ns - start_ns), 0) AS total_ns, count(*) AS count,
       coalesce(1.0 * sum(end_ns - start_ns) / count(end_ns), 0.0) AS avg_ns,
       coalesce(median(end_ns - start_ns), 0.0) AS med_ns,
       coalesce(min(end_ns - start_ns), 0) AS min_ns, coalesce(max(end_ns - start_ns), 0) AS max_ns,
       coalesce(stddev_samp(end_ns - start_ns), 0.0) AS stddev_ns, min(name) AS name
FROM temp.range_paths
GROUP BY side, path, style;
