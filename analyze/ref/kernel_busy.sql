-- reference: kernel_busy
-- title: Per GPU and class of kernel names: kernels, busy time, and the time two classes run at once
-- accelerator: SELECT * FROM kernel_busy(:classes, :default_class)
-- What the C table kernel_busy (analyze/ext/sqlext_classes.c) computes, in plain SQL. :classes maps name
-- ids to classes as a JSON object ({"12": "gemm", "13": null, ...}; null or a non-text value: no class),
-- :default_class is the class of the names it lacks (NULL: none). The classes are the map's text values
-- in their order, then the default. Per GPU (node, device; gpu_busy's reference says how) that ran a
-- kernel: a row per class (its kernels, their summed time and the length of their union, busy_ns), a row
-- per pair of classes (busy_ns the time both run: |A| + |B| - |A u B|), and a row of every classed kernel
-- (class NULL); device_busy_ns is the union of all the GPU's kernels, classed or not.
-- Speed-up: 76x: the C table 1.58 s (best of 3), this reference 120.11 s (one run) (three classes by name id);
-- 5M-kernel bench session, sqlite3 shell, rows to /dev/null, 2 cores shared (load 7-10), 2026-11-28.
WITH nodes AS (
	SELECT session_id, pid, dense_rank() OVER (PARTITION BY session_id ORDER BY hostname, rank) - 1 AS node
	FROM processes
), map AS (
	SELECT CAST(key AS INTEGER) AS id, CASE WHEN type = 'text' THEN value END AS class, id AS ord
	FROM json_each(:classes)
), cls AS (
	SELECT class, min(ord) AS ord FROM map WHERE class IS NOT NULL GROUP BY class
	UNION ALL
	SELECT :default_class, 1 << 62 WHERE :default_class IS NOT NULL
		AND :default_class NOT IN (SELECT class FROM map WHERE class IS NOT NULL)
), k AS (
	SELECT k.session_id, coalesce(n.node, 0) AS node, k.device_id, k.start_ns, k.end_ns, k.dur_ns,
	       CASE WHEN m.id IS NULL THEN :default_class ELSE m.class END AS class
	FROM kernel_columns k
	LEFT JOIN nodes n ON n.session_id = k.session_id AND n.pid = k.pid
	LEFT JOIN map m ON m.id = k.name_id
), dev AS (
	SELECT session_id, node, device_id, busy_union(start_ns, end_ns) AS every FROM k GROUP BY 1, 2, 3
), per AS (
	SELECT session_id, node, device_id, class, count(*) AS kernels, sum(dur_ns) AS total,
	       busy_union(start_ns, end_ns) AS busy
	FROM k WHERE class IS NOT NULL GROUP BY 1, 2, 3, 4
), pairs AS (
	SELECT a.class AS a, b.class AS b FROM cls a JOIN cls b ON a.ord < b.ord
), both AS (
	SELECT k.session_id, k.node, k.device_id, p.a, p.b, busy_union(k.start_ns, k.end_ns) AS u
	FROM k JOIN pairs p ON k.class IN (p.a, p.b) GROUP BY 1, 2, 3, 4, 5
), every AS (
	SELECT session_id, node, device_id, count(*) AS kernels, sum(dur_ns) AS total,
	       busy_union(start_ns, end_ns) AS busy
	FROM k WHERE class IS NOT NULL GROUP BY 1, 2, 3
)
SELECT d.session_id, d.device_id, c.class, NULL AS other_class, coalesce(p.kernels, 0) AS kernels,
       coalesce(p.total, 0) AS total_ns, coalesce(p.busy, 0) AS busy_ns, d.every AS device_busy_ns, d.node
FROM dev d CROSS JOIN cls c
LEFT JOIN per p ON p.session_id = d.session_id AND p.node = d.node AND p.device_id = d.device_id AND p.class = c.class
UNION ALL
SELECT d.session_id, d.device_id, p.a, p.b, NULL, NULL,
       coalesce(pa.busy, 0) + coalesce(pb.busy, 0) - coalesce(u.u, 0), d.every, d.node
FROM dev d CROSS JOIN pairs p
LEFT JOIN per pa ON pa.session_id = d.session_id AND pa.node = d.node AND pa.device_id = d.device_id AND pa.class = p.a
LEFT JOIN per pb ON pb.session_id = d.session_id AND pb.node = d.node AND pb.device_id = d.device_id AND pb.class = p.b
LEFT JOIN both u ON u.session_id = d.session_id AND u.node = d.node AND u.device_id = d.device_id AND u.a = p.a
	AND u.b = p.b
UNION ALL
SELECT d.session_id, d.device_id, NULL, NULL, coalesce(e.kernels, 0), coalesce(e.total, 0), coalesce(e.busy, 0),
       d.every, d.node
FROM dev d
LEFT JOIN every e ON e.session_id = d.session_id AND e.node = d.node AND e.device_id = d.device_id;
