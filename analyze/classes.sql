-- analysis: classes
-- title: Compute, communication and memory kernels: time, busy, overlap
-- include: views
-- section: 10
-- table: classes Kernel classes: busy time and overlap per device, summed
-- column: rank int,hide-group the GPU's rank (its node's), where the source names one; left out in a session of one node
-- column: host text,hide-group the GPU's host, where the source names one; left out in a session of one node
-- column: device int,hide-null the device (NULL in the rows summed over devices)
-- column: class text compute, communication, memory, a pair such as compute+communication, or all
-- column: kernels count kernels of the class (NULL for pairs)
-- column: total_ns ns "Kernel time (sum)" their summed durations (NULL for pairs)
-- column: kernel_busy_ns ns "Kernel busy (union)" the union of their intervals; for a pair, the time both run at once
-- column: pct pct "% of kernel busy" kernel_busy_ns, % of all kernels' busy time
--
-- classes: kernels sorted into classes by name (compute, communication, memory), with per class the
-- kernels, their summed time and their busy time (the union of the class's kernel intervals per device,
-- summed over devices; per GPU in a session of several hosts or ranks), and per pair of classes the time both run at once on one device
-- ("compute+communication" is the overlap distributed training wants large). A last row "all" is the
-- union of every kernel shown. pct is a share of all kernels' busy time (summary's kernel_busy_ns, filters
-- or not). Every figure here is kernels only: copies and memsets of the copy engines (tables memcpys,
-- memsets) are not kernels and are left to `memcpy` and `idle`. Pair rows have no kernels or total (NULL);
-- when three classes run at once, that time counts in each of their pairs.
--
-- The rules are data: analyze/kernel-classes.rules, or the file GPUPROF_CLASS_RULES names, bound as
-- :class_rules (its text) and :class_rules_file (its name). class_rules (analyze/ext/sqlext_classes.c) parses and
-- checks them on every run: a rule without samples, a sample its own rule does not match, or a sample
-- that an earlier rule of another class takes, fails the analysis with a message naming the file, line
-- and rule. Checking samples against every earlier rule is regexp matching that SQL could say, but the
-- messages name lines and cut patterns, a parser's work: the table gives the checked rules as rows. A name's
-- class is its first matching rule's (plain SQL over the session's strings), else compute.
--
-- The busy and overlap times come from kernel_busy (analyze/ext/sqlext_classes.c): per device and class (the
-- JSON object of name ids to classes built below), the union of the class's kernel intervals, the
-- intersection of every two classes' unions, the union of all classes and of every kernel of the device.
-- The plain form is busy_union(start_ns, end_ns) over kernel_columns grouped by device and class, and
-- the intersections |A| + |B| - |A u B| per pair, a sorter pass over every kernel each: on the 5M-kernel
-- bench session the first of them, one GROUP BY device_id, class, takes 6.1 s of CPU; kernel_busy gives
-- every figure in 0.44 s.
-- The title says which: per GPU, or summed over devices (a heading statement).
SELECT CASE WHEN (SELECT nodes > 1 FROM temp.gpu_sessions WHERE session_id = :session)
	    THEN 'Kernel classes per GPU: busy time and overlap' END AS _title;

WITH rules AS MATERIALIZED (
	SELECT ord, class, class_ord, pattern FROM class_rules(:class_rules, :class_rules_file)
),
-- Compute first, then each class in order of first appearance.
classes(class, ord) AS (
	SELECT 'compute', 0
	UNION
	SELECT class, class_ord FROM rules
),
-- The names --match and --exclude let through, with their classes. The other kernels count in the
-- share's base only; kernels whose name id has no string are compute when no filter is given.
names(id, class) AS (
	SELECT id, coalesce((SELECT r.class FROM rules r WHERE s.value REGEXP r.pattern ORDER BY r.ord LIMIT 1),
			    'compute')
	FROM strings s
	WHERE session_id = :session
	  AND (:match IS NULL OR value REGEXP :match) AND (:exclude IS NULL OR NOT value REGEXP :exclude)
),
-- A session of several nodes (hosts or ranks: views.sql) has a set of rows per GPU, with its rank, host
-- and device; others one set for the whole session (the columns left out), as before.
multi(yes) AS (
	SELECT coalesce((SELECT nodes > 1 FROM temp.gpu_sessions WHERE session_id = :session), 0)
),
busy AS MATERIALIZED (
	SELECT CASE WHEN (SELECT yes FROM multi) THEN node END AS node,
	       CASE WHEN (SELECT yes FROM multi) THEN device_id END AS device,
	       class, other_class, kernels, total_ns, busy_ns, device_busy_ns
	FROM kernel_busy((SELECT json_group_object(id, class) FROM names),
			 CASE WHEN :match IS NULL AND :exclude IS NULL THEN 'compute' END)
	WHERE session_id = :session
),
gpus(node, device) AS (
	SELECT DISTINCT node, device FROM busy WHERE (SELECT yes FROM multi)
	UNION ALL
	SELECT NULL, NULL WHERE NOT (SELECT yes FROM multi)
),
base(node, device, ns) AS (
	SELECT g.node, g.device, (SELECT sum(device_busy_ns) FROM busy b WHERE b.node IS g.node AND b.device IS g.device
				  AND b.class IS NULL AND b.other_class IS NULL)
	FROM gpus g
),
shown(node, device, ord, class, kernels, total_ns, kernel_busy_ns) AS (
	SELECT g.node, g.device, c.ord, c.class, coalesce(sum(b.kernels), 0), coalesce(sum(b.total_ns), 0),
	       coalesce(sum(b.busy_ns), 0)
	FROM gpus g CROSS JOIN classes c
	LEFT JOIN busy b ON b.node IS g.node AND b.device IS g.device AND b.class = c.class AND b.other_class IS NULL
	GROUP BY g.node, g.device, c.class
	UNION ALL
	SELECT g.node, g.device, 1000 * (a.ord + 1) + b.ord, a.class || '+' || b.class, NULL, NULL,
	       (SELECT coalesce(sum(busy_ns), 0) FROM busy x
		WHERE x.node IS g.node AND x.device IS g.device
		  AND ((x.class = a.class AND x.other_class = b.class) OR (x.class = b.class AND x.other_class = a.class)))
	FROM gpus g CROSS JOIN classes a JOIN classes b ON b.ord > a.ord
	UNION ALL
	SELECT g.node, g.device, 1000000, 'all', coalesce(sum(x.kernels), 0), coalesce(sum(x.total_ns), 0),
	       coalesce(sum(x.busy_ns), 0)
	FROM gpus g LEFT JOIN busy x ON x.node IS g.node AND x.device IS g.device AND x.class IS NULL
	     AND x.other_class IS NULL
	GROUP BY g.node, g.device
)
SELECT n.rank, n.host, s.device, s.class, s.kernels, s.total_ns, s.kernel_busy_ns,
       CASE WHEN b.ns > 0 THEN 100.0 * s.kernel_busy_ns / b.ns END AS pct
FROM shown s JOIN base b ON b.node IS s.node AND b.device IS s.device
LEFT JOIN temp.gpu_node_names n ON n.session_id = :session AND n.node = s.node
ORDER BY s.node, s.device, s.ord;
