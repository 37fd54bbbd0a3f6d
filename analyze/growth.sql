-- analysis: growth
-- title: Memory growth per iteration with R^2, severity and what to check (--fail-on-growth)
-- include: views
-- include: memory-events
-- gate: fail_on_growth exit 1 when a device's growth is of severity LEVEL (low, medium or high) or worse
-- section: 19
-- table: growth Memory growth per iteration (catches leaks freed only at exit)
-- column: rank int,hide-group the GPU's rank (its node's), where the source names one; left out in a session of one node
-- column: host text,hide-group the GPU's host, where the source names one; left out in a session of one node
-- column: device int the device number (on its node)
-- column: source text "From" where the live bytes come from (at iteration ends), or device memory samples
-- column: points count points of the series (iterations, or samples)
-- column: first_bytes bytes "First" live bytes at the first point
-- column: last_bytes bytes "Last" at the last
-- column: slope_bytes bytes "Slope" least-squares growth per point
-- column: r2 real "R^2" how well a line fits (1: exactly)
-- column: leaked_bytes bytes "Unfreed at end" bytes still allocated at the end
-- column: severity text none, low, medium or high; the --fail-on-growth gate reads it
-- column: verdict text the verdict in words
-- column: suggestion text "What to check" what to check
--
-- growth: live bytes at the end of each iteration (ranges such as ProfilerStep#N or step), a least-squares
-- slope per iteration and its R^2, which catches memory that leaks but is freed at exit; with severity and
-- what to check. Live bytes are the device's by its rule (memory-events.sql, run first): the paired blocks,
-- else the source's running total, else the running sum of signed bytes, as of its last event at or
-- before the iteration's end (0 before its first). Without allocation events, each device's used-memory
-- samples (device_metrics), per second (x scaled by the samples' mean spacing).
--
-- The fit is y = a + b x over x = 0..n-1 (b per point): the deviations' sums taken in x order, as double
-- sums one after another; R^2 = sxy^2 / (sxx syy), 1 for a flat series. A trend needs 4 points; growing
-- is a positive slope with R^2 >= 0.9. Severity weighs what is at stake, the growth over the series or
-- the bytes unfreed at the end if more: none, low (< 64 MiB), medium (< 1 GiB), high.
--
-- C does one thing here, fmt_fixed (analyze/ext/sqlext_fmt.c): the verdict's numbers are printed as C's
-- printf("%.2f") prints them, the binary value rounded; SQLite 3.40's printf('%.2f') rounds the decimal
-- digits it makes, so 2675 bytes would read 2.68 kB beside gpuprof's 2.67 kB elsewhere.
CREATE INDEX IF NOT EXISTS temp.mem_events_at ON mem_events(node, device, ts);

-- The iteration ends of each node (a rank's steps are its own).
WITH ends(node, j, end_ns) AS MATERIALIZED (
	SELECT node, row_number() OVER (PARTITION BY node ORDER BY end_ns) - 1, end_ns
	FROM temp.iterations WHERE session_id = :session
),
-- The device metrics' samples with their GPU's node.
samples AS (
	SELECT coalesce(g.node, 0) AS node, m.device_id, m.ts_ns, m.rowid AS n, m.mem_used
	FROM device_metrics m LEFT JOIN temp.gpu_nodes g ON g.session_id = m.session_id AND g.pid = m.pid
	WHERE m.session_id = :session AND m.mem_used IS NOT NULL AND NOT EXISTS (SELECT 1 FROM mem_devices)
),
-- The series: (GPU, x, y), y the GPU's live bytes by its rule at its last event at or before its node's
-- x-th iteration end (0 before its first); else each GPU's used-memory samples.
series(node, device, x, y) AS MATERIALIZED (
	SELECT d.node, d.device, x.j,
	       coalesce((SELECT CASE WHEN d.paired THEN e.live_now WHEN d.peak_from = 'total_allocated' THEN e.total_now
				     ELSE e.sum_now END
			 FROM mem_events e WHERE e.node = d.node AND e.device = d.device AND e.ts <= x.end_ns
			 ORDER BY e.ts DESC, e.n DESC LIMIT 1), 0)
	FROM mem_devices d JOIN ends x ON x.node = d.node
	UNION ALL
	SELECT node, device_id, row_number() OVER (PARTITION BY node, device_id ORDER BY ts_ns, n) - 1, mem_used
	FROM samples
),
-- Each series: its points, what it is, and what a point is worth (per_point: seconds between samples).
info(node, device, points, source, per, per_point, leaked) AS (
	SELECT node, device, (SELECT count(*) FROM ends x WHERE x.node = d.node),
	       CASE WHEN EXISTS (SELECT 1 FROM ends x WHERE x.node = d.node)
		    THEN CASE WHEN paired THEN 'allocations' ELSE peak_from END || ' at iteration ends'
		    ELSE 'no iterations found' END,
	       'step', 1.0, CASE WHEN paired THEN live_end_bytes END
	FROM mem_devices d
	UNION ALL
	SELECT node, device_id, count(*), 'device memory samples', 's',
	       CASE WHEN count(*) > 1 THEN (max(ts_ns) - min(ts_ns)) / 1e9 / (count(*) - 1) ELSE 1.0 END, 0
	FROM samples
	GROUP BY node, device_id
),
-- Each series' mean point, and its first y.
mean AS MATERIALIZED (
	SELECT i.*, (i.points - 1) / 2.0 AS mx, t.sy * 1.0 / i.points AS my, t.first_y
	FROM info i
	LEFT JOIN (SELECT node, device, sum(y) AS sy, max(CASE WHEN x = 0 THEN y END) AS first_y FROM series
		   GROUP BY node, device) t
	       ON t.node = i.node AND t.device = i.device
),
-- The deviations' sums, one after another in x order, as of the last point.
sums AS MATERIALIZED (
	SELECT * FROM (
		SELECT s.node, s.device, s.x, s.y, m.points,
		       sum((s.x - m.mx) * (s.y - m.my)) OVER w AS sxy, sum((s.x - m.mx) * (s.x - m.mx)) OVER w AS sxx,
		       sum((s.y - m.my) * (s.y - m.my)) OVER w AS syy
		FROM series s JOIN mean m ON m.node = s.node AND m.device = s.device
		WINDOW w AS (PARTITION BY s.node, s.device ORDER BY s.x ROWS UNBOUNDED PRECEDING))
	WHERE x = points - 1
),
fit AS (
	SELECT m.*, m.first_y AS first_bytes, f.y AS last_bytes,
	       CASE WHEN m.points >= 2 THEN f.sxy / f.sxx / m.per_point ELSE 0.0 END AS slope,
	       CASE WHEN m.points < 2 THEN 0.0 WHEN f.syy > 0 THEN f.sxy * f.sxy / (f.sxx * f.syy) ELSE 1.0 END AS r2
	FROM mean m LEFT JOIN sums f ON f.node = m.node AND f.device = m.device
),
judged AS (
	SELECT *, CASE WHEN leaked > at_stake THEN leaked ELSE at_stake END AS worth
	FROM (SELECT *, points >= 4 AND slope > 0 AND r2 >= 0.9 AS growing,
		     CASE WHEN points >= 4 AND slope > 0 AND r2 >= 0.9 THEN slope * per_point * (points - 1) ELSE 0.0 END
			     AS at_stake
	      FROM fit)
),
rated AS (
	SELECT *, CASE WHEN worth <= 0 THEN 'none' WHEN worth < 67108864.0 THEN 'low'
		       WHEN worth < 1073741824.0 THEN 'medium' ELSE 'high' END AS severity,
	       fmt_bytes(abs(slope)) AS amount	-- as every table prints bytes (lib/table.c)
	FROM judged
)
SELECT g.rank, g.host, device, source, points, first_bytes, last_bytes, slope AS slope_bytes, r2, leaked AS leaked_bytes, severity,
       CASE WHEN points < 4 THEN 'too few points (' || points || ') for a trend'
	    ELSE CASE WHEN growing THEN 'growing ' ELSE 'no steady growth: ' END || amount || ' per ' || per ||
		 ', R^2 ' || fmt_fixed(r2, 2) END AS verdict,
       CASE WHEN severity = 'none' THEN 'no action needed'
	    WHEN growing THEN 'memory grows every iteration and is freed only at exit: look for tensors or buffers '
			      || 'kept across iterations (caches, lists of outputs, graphs retained by '
			      || 'loss.backward(retain_graph=True))'
	    ELSE 'free these blocks, or check that they are meant to live for the whole run' END AS suggestion
FROM rated r LEFT JOIN temp.gpu_node_names g ON g.session_id = :session AND g.node = r.node
ORDER BY r.node, device;
