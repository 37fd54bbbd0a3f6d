-- module: memory-events
-- title: Allocation events paired, with running figures; per device how memory is known
-- include: views
--
-- memory-events: what the analyses oom, memory, leaks, peak and growth share, run before each one's own
-- file (they include it): the session's allocation events in time order with their pairing and
-- running figures, and per device how its memory is known, its peak and what is live at the end.
--
-- Rules (as the analyses have always told them):
-- * Allocations and frees pair by (process, device, address) in time order (ts_ns, then rowid): a free
--   ends the newest live allocation there, or is a free of memory allocated before the capture (counted
--   apart, never a leak). A device pairs only when every one of its events has an address (some PyTorch
--   versions write none): otherwise nothing of it pairs and what it leaked is unknown, never guessed.
-- * The peak is the source's running total (Kineto's "Total Allocated", each process's latest summed)
--   when every event has one and, for a device that pairs, when it is no lower than the paired blocks'
--   peak (it holds blocks from before the capture); else the paired blocks' (`addresses`); else the
--   running sum of signed bytes (`bytes`). A peak is the first event that reaches the highest value,
--   and a paired peak or a running sum's is never below zero (0 at no time: none).
--
-- C does the pairing and the running figures: memory_pairs (analyze/ext/sqlext_memory.c), one pass in time
-- order with a stack per address, 0.07 s over the 100k events of the 5M-kernel bench session. In SQL it
-- is a running count of allocations less frees per address (its stack level), lead/lag over (address,
-- level) and a running sum per device: three window passes, 0.8 s of CPU there (tests/vtab.py checks
-- that both agree). Everything else is here and in each analysis's file.

-- The tables stay on the connection for its next analysis of the same session (gpuprof-report runs three):
-- mem_key says which session's events they hold (their count and last rowid), and valid whether that is
-- still this session's events as they are now; else they are made again.
CREATE TEMP TABLE IF NOT EXISTS mem_key(session_id INTEGER, events INTEGER, last INTEGER, valid INTEGER);
INSERT INTO mem_key SELECT NULL, NULL, NULL, 0 WHERE NOT EXISTS (SELECT 1 FROM mem_key);
UPDATE mem_key
SET valid = mem_key.session_id IS :session AND mem_key.events IS now.events AND mem_key.last IS now.last,
    session_id = :session, events = now.events, last = now.last
FROM (SELECT count(*) AS events, max(rowid) AS last FROM memory_events WHERE session_id = :session) AS now;

-- Every event: n its place in time; node and device its GPU (views.sql); prior a free of a block allocated before the capture; freed_ns an
-- allocation's free (NULL while live at the end); live_now, sum_now, total_now the device's paired live
-- bytes, running sum of signed bytes and running source total after it.
CREATE TEMP TABLE IF NOT EXISTS mem_events(n INTEGER PRIMARY KEY, session_id INTEGER, pid INTEGER, node INTEGER,
					   device INTEGER,
					   address INTEGER, ts INTEGER, alloc INTEGER, bytes INTEGER, site_id INTEGER,
					   kind INTEGER, pc INTEGER, total INTEGER, prior INTEGER, freed_ns INTEGER,
					   live_now INTEGER, sum_now INTEGER, total_now INTEGER);
DELETE FROM mem_events WHERE NOT (SELECT valid FROM mem_key);
INSERT INTO mem_events
SELECT p.seq, e.session_id, e.pid, coalesce(g.node, 0), coalesce(e.device_id, -1), e.address, e.ts_ns, e.op = 1, e.bytes, e.site_id,
       coalesce(e.mem_kind, 0), coalesce(e.pc, 0), e.total_allocated,
       e.op <> 1 AND e.address IS NOT NULL AND p.pair IS NULL,
       CASE WHEN e.op = 1 THEN (SELECT f.ts_ns FROM memory_events f WHERE f.rowid = p.pair) END,
       p.live_bytes, p.sum_bytes, p.total_bytes
FROM memory_pairs p JOIN memory_events e ON e.rowid = p.event
LEFT JOIN temp.gpu_nodes g ON g.session_id = e.session_id AND g.pid = e.pid
WHERE p.session_id = :session
LIMIT (SELECT CASE WHEN valid THEN 0 ELSE -1 END FROM mem_key);	-- kept: not even read (LIMIT 0 reads nothing)

-- Per GPU (node, device): its counts, whether it pairs and where its peak comes from (peak_from), the peak and when
-- (peak_ns 0: never above zero), the paired blocks' peak time (what peak lists), live bytes at the end by
-- its rule, frees of earlier blocks (NULL where it does not pair), and why its leaks are unknown (NULL
-- where known).
CREATE TEMP TABLE IF NOT EXISTS mem_devices(node INTEGER, device INTEGER, events INTEGER, allocs INTEGER, frees INTEGER,
					    alloc_bytes INTEGER, paired INTEGER, peak_from TEXT, live_peak_ns INTEGER,
					    peak INTEGER, peak_ns INTEGER, live_end_bytes INTEGER, prior_frees INTEGER,
					    prior_free_bytes INTEGER, unknown TEXT);
DELETE FROM mem_devices WHERE NOT (SELECT valid FROM mem_key);
INSERT INTO mem_devices
WITH d AS MATERIALIZED (
	SELECT node, device, count(*) AS events, count(address) AS addressed, sum(alloc) AS allocs,
	       count(*) - sum(alloc) AS frees, sum(CASE WHEN alloc THEN bytes ELSE 0 END) AS alloc_bytes,
	       count(address) = count(*) AS paired, count(total) = count(*) AS totals,
	       max(coalesce(max(CASE WHEN alloc THEN live_now END), 0), 0) AS live_peak,
	       max(max(sum_now), 0) AS sum_peak, max(CASE WHEN total IS NOT NULL THEN total_now END) AS total_peak,
	       max(n) AS last, sum(prior) AS prior_frees, sum(CASE WHEN prior THEN bytes ELSE 0 END) AS prior_bytes
	FROM mem_events GROUP BY node, device
),
k AS MATERIALIZED (
	SELECT d.*,
	       CASE WHEN paired THEN CASE WHEN totals AND total_peak >= live_peak THEN 'total_allocated'
					 ELSE 'addresses' END
		    WHEN totals THEN 'total_allocated' ELSE 'bytes' END AS peak_from,
	       CASE WHEN paired AND live_peak > 0
		    THEN (SELECT ts FROM mem_events e WHERE e.node = d.node AND e.device = d.device AND e.alloc
			  AND e.live_now = d.live_peak
			  ORDER BY n LIMIT 1) ELSE 0 END AS live_peak_ns
	FROM d
)
SELECT node, device, events, allocs, frees, alloc_bytes, paired, peak_from, live_peak_ns,
       CASE peak_from WHEN 'addresses' THEN live_peak WHEN 'total_allocated' THEN total_peak ELSE sum_peak END
	       AS peak,
       CASE WHEN peak_from = 'addresses' THEN live_peak_ns
	    WHEN peak_from = 'total_allocated'
	    THEN (SELECT ts FROM mem_events e WHERE e.node = k.node AND e.device = k.device AND e.total IS NOT NULL
		  AND e.total_now = k.total_peak ORDER BY n LIMIT 1)
	    WHEN sum_peak > 0
	    THEN (SELECT ts FROM mem_events e WHERE e.node = k.node AND e.device = k.device AND e.sum_now = k.sum_peak
		  ORDER BY n LIMIT 1)
	    ELSE 0 END AS peak_ns,
       (SELECT CASE WHEN k.paired THEN live_now WHEN k.peak_from = 'total_allocated' THEN total_now ELSE sum_now END
	FROM mem_events e WHERE e.n = k.last) AS live_end_bytes,
       CASE WHEN paired THEN prior_frees END AS prior_frees, CASE WHEN paired THEN prior_bytes END AS prior_free_bytes,
       CASE WHEN paired THEN NULL WHEN addressed = 0 THEN 'unknown: the trace has no addresses'
	    ELSE printf('unknown: %d of %d events have no address', events - addressed, events) END AS unknown
FROM k
LIMIT (SELECT CASE WHEN valid THEN 0 ELSE -1 END FROM mem_key);

-- The allocations of the devices that pair, with their memory kind's name and where they were made: the
-- site's string, else its PC, else the innermost range open in its process then (not a GPU-side
-- annotation; of two that opened at once, the first stored), else its size. A view: the site is worked
-- out only for the rows a query keeps.
CREATE TEMP VIEW IF NOT EXISTS mem_blocks AS
SELECT b.n, b.pid, b.node, b.device, b.address, b.ts, b.bytes, b.kind, b.freed_ns,
       coalesce((SELECT name FROM memory_kinds WHERE id = b.kind), 'kind ' || b.kind) AS mem_kind,
       CASE WHEN b.site_id <> 0 AND (SELECT value FROM strings s WHERE s.session_id = b.session_id
				      AND s.id = b.site_id) <> ''
	    THEN (SELECT value FROM strings s WHERE s.session_id = b.session_id AND s.id = b.site_id)
	    WHEN b.pc <> 0 THEN printf('pc 0x%x', b.pc)
	    ELSE coalesce('in ' || (SELECT n.value FROM ranges r
				    JOIN strings n ON n.session_id = r.session_id AND n.id = r.name_id
				    WHERE r.session_id = b.session_id AND r.pid = b.pid AND r.kind <> 3
				      AND r.start_ns <= b.ts AND (r.end_ns IS NULL OR r.end_ns > b.ts)
				    ORDER BY r.start_ns DESC, r.rowid LIMIT 1),
			  b.bytes || '-byte blocks') END AS site
FROM mem_events b
WHERE b.alloc AND (b.node, b.device) IN (SELECT node, device FROM mem_devices WHERE paired);

-- Each GPU's memory, as its device record gives it (CUPTI's globalMemorySize, Kineto's deviceProperties,
-- nsys's TARGET_INFO_GPU), else the largest total its NVML samples saw; per session, node and device.
CREATE TEMP VIEW IF NOT EXISTS mem_totals AS
SELECT session_id, node, device, max(bytes) AS total
FROM (SELECT d.session_id, coalesce(g.node, 0) AS node, d.id AS device, d.memory_bytes AS bytes
      FROM main.devices d LEFT JOIN temp.gpu_nodes g ON g.session_id = d.session_id AND g.pid = d.pid
      WHERE d.memory_bytes > 0
      UNION ALL
      SELECT m.session_id, coalesce(g.node, 0), m.device_id, m.mem_total
      FROM main.device_metrics m LEFT JOIN temp.gpu_nodes g ON g.session_id = m.session_id AND g.pid = m.pid
      WHERE m.mem_total > 0)
GROUP BY session_id, node, device;
