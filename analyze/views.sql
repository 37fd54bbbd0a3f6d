-- module: views
-- title: Shared TEMP tables and views: NVTX range paths, GPU nodes, iterations, energy steps
--
-- Shared TEMP tables and views of the analyses, made on a connection by the first analysis that includes
-- them (IF NOT EXISTS: once): what more than one analysis computes the same way is said once, here.
--
-- NVTX ranges by nesting path (ranges, compare). An analysis fills temp.range_rows with the ranges it
-- reads, side 0 (compare: the baseline side 0, the new one 1), named as it shows them, rn in nesting order:
-- per side and process, host ranges before GPU annotations, thread (stream), start, the longest first,
-- load order. temp.range_walk gives each range its path; the analysis keeps what its filters pass in
-- temp.range_paths, which temp.range_stats groups by path and style.
CREATE TEMP TABLE IF NOT EXISTS range_rows(rn INTEGER PRIMARY KEY, side INTEGER, pid INTEGER, thread INTEGER,
	kind INTEGER, start_ns INTEGER, end_ns INTEGER, open_end INTEGER, name TEXT);

-- Each range's path: range_path (analyze/ext/sqlext_nest.c) walks the ranges in nesting order with the stack of
-- the open ones per side, process, thread and host-or-GPU. A range closes the stack's ranges that ended
-- before it starts or that do not contain it, sits under the one left on top, and is pushed; start/end
-- ranges (kind 2) neither nest nor close anything: one may outlive the push/pop range it began in. (In
-- SQL the walk is a recursive CTE carrying the stack as text, tests/vtab.py's reference: about 0.5 s for
-- the 75,000 ranges of the 5M-kernel bench session, where the window function takes milliseconds.)
CREATE TEMP VIEW IF NOT EXISTS range_walk AS
SELECT side, rn, pid, thread, kind, start_ns, end_ns, name,
       range_path(start_ns, end_ns, kind, name)
	       OVER (PARTITION BY side, pid, thread, kind = 3 ORDER BY rn ROWS UNBOUNDED PRECEDING) AS path,
       CASE kind WHEN 1 THEN 'PushPop' WHEN 2 THEN 'StartEnd' WHEN 3 THEN 'GPU' ELSE '' END AS style
FROM temp.range_rows;

CREATE TEMP TABLE IF NOT EXISTS range_paths(side INTEGER, rn INTEGER, pid INTEGER, thread INTEGER, kind INTEGER,
	start_ns INTEGER, end_ns INTEGER, name TEXT, path TEXT, style TEXT);

-- Per side, path and style: the wall time statistics of the ranges that ended (0 when none did), as
-- analyze/ext/dstats.c gives them, and the count of all of them; style_rank orders the styles as ranges lists them.
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

-- GPU identity. A GPU is (node, device): a node is one (host, rank) of the session's processes, numbered
-- from 0 in that order (analyze/ext/sqlext_nodes.c says the same in C for gpu_busy and the other tables, which
-- give each row's node; tests/vtab.py checks they agree). gpuprof and Nsight Systems sessions name hosts,
-- Kineto traces ranks. Per process: its node, and the node's host and rank to show, NULL in a session of
-- one node (whose outputs leave the columns out: C_HIDE_NULL) or where the source does not say; node_host
-- and node_rank are the node's host and rank whatever the number of nodes (ranks shows them always).
CREATE TEMP VIEW IF NOT EXISTS gpu_nodes AS
SELECT session_id, pid, node, CASE WHEN nodes > 1 THEN host END AS host, CASE WHEN nodes > 1 THEN rank END AS rank,
       host AS node_host, rank AS node_rank
FROM (SELECT *, max(node) OVER (PARTITION BY session_id) + 1 AS nodes
      FROM (SELECT session_id, pid, nullif(hostname, '') AS host, rank,
		   dense_rank() OVER (PARTITION BY session_id ORDER BY hostname, rank) - 1 AS node
	    FROM main.processes));
-- Per node: its host and rank as gpu_nodes shows them.
CREATE TEMP VIEW IF NOT EXISTS gpu_node_names AS
SELECT DISTINCT session_id, node, host, rank, node_host, node_rank FROM temp.gpu_nodes;
-- Per session: its nodes (1 for one host and one rank: what the analyses show as before).
CREATE TEMP VIEW IF NOT EXISTS gpu_sessions AS
SELECT session_id, count(DISTINCT node) AS nodes FROM temp.gpu_nodes GROUP BY session_id;

-- The training iterations (growth, ranks, energy, flops): host ranges that ended, named as PyTorch's
-- profiler (ProfilerStep#N) or a training loop usually names its step, with their process's node.
CREATE TEMP VIEW IF NOT EXISTS iterations AS
SELECT r.session_id, r.pid, coalesce(g.node, 0) AS node, r.start_ns, r.end_ns, s.value AS name
FROM ranges r
JOIN strings s ON s.session_id = r.session_id AND s.id = r.name_id
LEFT JOIN temp.gpu_nodes g ON g.session_id = r.session_id AND g.pid = r.pid
WHERE r.end_ns IS NOT NULL AND r.kind <> 3
  AND s.value REGEXP '^(ProfilerStep#\d+|step|iteration|train_step|Step \d+)$';

-- Energy (energy, compare). An analysis fills temp.energy_input with the NVML samples it reads, side 0
-- (compare: the baseline side 0, the new one 1), each with its GPU's node, in the order side, node, device,
-- pid, ts_ns (n numbers them so: a sample's predecessor in its series is the row before it). NVML's energy
-- counter (device_metrics.energy_mj) is the millijoules the device used since the driver was loaded: a
-- step between two consecutive samples of one series (a process's samples of a GPU) used their difference.
-- Where the counter is missing at either end, or fell (the driver was reloaded, or it wrapped), the step
-- falls back to power integrated over its time (the mean of the two samples' power_mw, the trapezoid
-- rule); a step with neither has no energy (j NULL). A GPU sampled by several processes (each sampling
-- NVML itself) keeps one series: the one with the most samples, the lowest pid on a tie. (Pairing rows by
-- n rather than with lag() windows: 1M samples in 2.7 s against 7.7 s.)
CREATE TEMP TABLE IF NOT EXISTS energy_input(n INTEGER PRIMARY KEY, side INTEGER, node INTEGER, device INTEGER,
	pid INTEGER, ts_ns INTEGER, energy_mj INTEGER, power_mw INTEGER);
CREATE TEMP VIEW IF NOT EXISTS energy_steps AS
WITH chosen AS MATERIALIZED (
	SELECT side, node, device, pid, samples FROM (
		SELECT side, node, device, pid, count(*) AS samples,
		       row_number() OVER (PARTITION BY side, node, device ORDER BY count(*) DESC, pid) AS r
		FROM temp.energy_input GROUP BY side, node, device, pid)
	WHERE r = 1
),
pairs AS (
	SELECT i.side, i.node, i.device, c.samples, p.ts_ns AS t0, i.ts_ns AS t1, p.energy_mj AS e0, i.energy_mj AS e1,
	       p.power_mw AS p0, i.power_mw AS p1
	FROM temp.energy_input i
	JOIN temp.energy_input p ON p.n = i.n - 1 AND p.side = i.side AND p.node = i.node AND p.device = i.device
				 AND p.pid = i.pid
	JOIN chosen c ON c.side = i.side AND c.node = i.node AND c.device = i.device AND c.pid = i.pid
)
SELECT side, node, device, samples, t0, t1,
       CASE WHEN e0 IS NOT NULL AND e1 IS NOT NULL AND e1 >= e0 THEN (e1 - e0) / 1000.0
	    WHEN p0 IS NOT NULL AND p1 IS NOT NULL THEN (p0 + p1) / 2000.0 * (t1 - t0) / 1e9 END AS j,
       CASE WHEN e0 IS NOT NULL AND e1 IS NOT NULL AND e1 >= e0 THEN 'counter'
	    WHEN p0 IS NOT NULL AND p1 IS NOT NULL THEN 'power' END AS method
FROM pairs;
