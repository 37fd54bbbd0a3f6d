-- analysis: oom
-- title: Failed device allocations (out of memory): bytes asked and live, device memory, NVTX path, largest blocks
-- include: views
-- include: memory-events
-- section: 4 top 10
-- table: oom Allocations that failed for want of memory: bytes asked, bytes live then, the device's memory
-- column: ts_ns time "Time" when the allocation failed
-- column: rank int the GPU's rank where the source names one, in a session of one node too
-- column: host text the GPU's host where the source names one, in a session of one node too
-- column: device int the device number (on its node)
-- column: requested_bytes bytes "Requested" bytes asked for
-- column: live_bytes bytes "Live then" bytes live then (the allocator's total where the source gives one)
-- column: reserved_bytes bytes,hide-null "Reserved then" bytes the allocator had reserved then, where the source says
-- column: total_bytes bytes "Device memory" the device's memory (NULL when unknown)
-- column: call text the allocation call that failed
-- column: result int,hide-null "Return code" its return code
-- column: thread int the calling thread
-- column: path text "NVTX path" the NVTX path open on that thread
-- table: oom_blocks The largest blocks live at each failed allocation, with their sites
-- column: oom int "Failure" which failure (its row number in the oom table)
-- column: ts_ns time "Failed at" when that allocation failed
-- column: rank int,hide-group the GPU's rank (its node's), where the source names one; left out in a session of one node
-- column: host text,hide-group the GPU's host, where the source names one; left out in a session of one node
-- column: device int the device number (on its node)
-- column: bytes bytes the block's size
-- column: alloc_ns time "Allocated at" when the block was allocated
-- column: address int its device address
-- column: mem_kind text "Kind" the memory kind (memory_kinds' name)
-- column: site text where it was allocated (NVTX path, call, or the source's stack)
--
-- oom: the post-mortem of every device allocation that failed for want of memory (table alloc_failures: the
-- collector's failed cudaMalloc, cudaMallocAsync, cuMemAlloc, cuMemCreate, ... calls, one row per attempt,
-- and Kineto's [OutOfMemory] events), in time order: when, which GPU (its node's rank and host where the
-- source names them, in a session of one node too: NULL where unknown), the bytes asked for, the bytes live
-- then, the device's memory, the call and its return code, the calling thread and the NVTX path open on it;
-- then the largest blocks live then, with their sites.
-- memory-events.sql, run first, pairs the session's allocations and frees.
--
-- live_bytes is the allocator's own total at the failure where the source gives one (Kineto's Total
-- Allocated, which counts blocks from before the capture too), else the device's live bytes by the memory
-- analysis's rule (the paired blocks, else the source's running total, else the running sum of signed
-- bytes) after its last event at or before the failure; NULL where the device has no allocation events.
-- total_bytes is the device's memory (mem_totals). path is the NVTX path the collector recorded with the
-- failure (alloc_failures.path_id: the ranges then open on the thread, in the form `ranges` gives them,
-- which a program killed right after the failure never ends, so never writes); where none was recorded,
-- the innermost push/pop range open on the failing thread of its process, as `ranges` paths it
-- (step/forward/attention, PyTorch's counters folded).
-- The blocks are those of devices whose events pair (leaks' rule): allocated at or before the failure and
-- not freed by then, largest first; --top N keeps the first N failures and N blocks of each.

-- Statement 1: the session's failures, numbered in time order, with their GPU's node.
CREATE TEMP TABLE IF NOT EXISTS oom_rows(k INTEGER PRIMARY KEY, session_id INTEGER, pid INTEGER, node INTEGER,
					 device INTEGER, ts INTEGER, thread INTEGER, bytes INTEGER, call_id INTEGER,
					 result INTEGER, total_allocated INTEGER, total_reserved INTEGER, path_id INTEGER);
DELETE FROM temp.oom_rows;
INSERT INTO temp.oom_rows
SELECT row_number() OVER (ORDER BY f.ts_ns, f.rowid), f.session_id, f.pid, coalesce(g.node, 0),
       coalesce(f.device_id, -1), f.ts_ns, coalesce(f.thread_id, 0), f.bytes, f.call_id, f.result, f.total_allocated,
       f.total_reserved, f.path_id
FROM alloc_failures f LEFT JOIN temp.gpu_nodes g ON g.session_id = f.session_id AND g.pid = f.pid
WHERE f.session_id = :session;
CREATE INDEX IF NOT EXISTS temp.mem_events_at ON mem_events(node, device, ts);

-- Statement 2: the push/pop ranges of the failing threads, pathed as ranges paths them (views.sql).
DELETE FROM temp.range_rows;
INSERT INTO temp.range_rows(side, pid, thread, kind, start_ns, end_ns, open_end, name)
SELECT 0, r.pid, coalesce(r.thread_id, 0), r.kind, r.start_ns, r.end_ns, coalesce(r.end_ns, 9223372036854775807),
       fold_name(n.value)
FROM ranges r JOIN strings n ON n.session_id = r.session_id AND n.id = r.name_id
WHERE r.session_id = :session AND r.kind = 1
  AND (r.pid, coalesce(r.thread_id, 0)) IN (SELECT pid, thread FROM temp.oom_rows)
ORDER BY r.pid, coalesce(r.thread_id, 0), r.start_ns, 7 DESC, r.rowid;
DELETE FROM temp.range_paths;
INSERT INTO temp.range_paths SELECT * FROM temp.range_walk;

-- Statement 3: the failures, and the verdict: how many, and the first.
SELECT ts_ns, rank, host, device, requested_bytes, live_bytes, reserved_bytes, total_bytes, call, result, thread, path,
       CASE WHEN k = 1 THEN
	    n || ' allocation' || CASE WHEN n > 1 THEN 's' ELSE '' END || ' failed for want of memory; the first asked '
	    || fmt_bytes(requested_bytes) || coalesce(' with ' || fmt_bytes(live_bytes) || ' live', '')
	    || coalesce(' of ' || fmt_bytes(total_bytes), '') || ' on '
	    || coalesce('device ' || device, 'an unknown device') || coalesce(' (rank ' || rank || ')', '')
	    || coalesce(' in ' || path, '') END AS _footer
FROM (
	SELECT o.k, (SELECT count(*) FROM temp.oom_rows) AS n, o.ts AS ts_ns, g.node_rank AS rank, g.node_host AS host,
	       nullif(o.device, -1) AS device, o.bytes AS requested_bytes,
	       coalesce(o.total_allocated,
			(SELECT CASE WHEN d.paired THEN e.live_now WHEN d.peak_from = 'total_allocated' THEN e.total_now
				     ELSE e.sum_now END
			 FROM mem_events e WHERE e.node = o.node AND e.device = o.device AND e.ts <= o.ts
			 ORDER BY e.ts DESC, e.n DESC LIMIT 1)) AS live_bytes,
	       o.total_reserved AS reserved_bytes, t.total AS total_bytes,
	       coalesce((SELECT value FROM strings s WHERE s.session_id = o.session_id AND s.id = o.call_id),
			'[OutOfMemory]') AS call,
	       o.result, o.thread,
	       coalesce((SELECT s.value FROM strings s WHERE s.session_id = o.session_id AND s.id = o.path_id),
	       (SELECT p.path FROM temp.range_paths p WHERE p.pid = o.pid AND p.thread = o.thread AND p.start_ns <= o.ts
		  AND (p.end_ns IS NULL OR p.end_ns > o.ts)
		ORDER BY p.start_ns DESC, p.rn DESC LIMIT 1)) AS path
	FROM temp.oom_rows o
	LEFT JOIN mem_devices d ON d.node = o.node AND d.device = o.device
	LEFT JOIN temp.mem_totals t ON t.session_id = :session AND t.node = o.node AND t.device = o.device
	LEFT JOIN temp.gpu_node_names g ON g.session_id = :session AND g.node = o.node
	WHERE :top < 0 OR o.k <= :top
)
ORDER BY k;

-- Statement 4: the largest blocks live at each failure, with their sites (mem_blocks).
SELECT l.k AS oom, o.ts AS ts_ns, g.rank, g.host, nullif(o.device, -1) AS device, b.bytes, b.ts AS alloc_ns,
       b.address, b.mem_kind, b.site
FROM (SELECT o.k, e.n, row_number() OVER (PARTITION BY o.k ORDER BY e.bytes DESC, e.ts, e.n) AS j
      FROM temp.oom_rows o
      JOIN mem_devices d ON d.node = o.node AND d.device = o.device AND d.paired
      JOIN mem_events e ON e.node = o.node AND e.device = o.device AND e.alloc AND e.ts <= o.ts
		       AND (e.freed_ns IS NULL OR e.freed_ns > o.ts)
      WHERE :top < 0 OR o.k <= :top) l
JOIN temp.oom_rows o ON o.k = l.k
JOIN mem_blocks b ON b.n = l.n
LEFT JOIN temp.gpu_node_names g ON g.session_id = :session AND g.node = o.node
WHERE :top < 0 OR l.j <= :top
ORDER BY l.k, l.j;
