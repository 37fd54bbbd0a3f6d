-- analysis: ranks
-- title: Per rank: compute, exposed communication, idle, steps, wait at collectives, stragglers (--threshold)
-- include: views
-- include: comm
-- option: threshold 0.05 relative change of the median that counts (default 5%; trend: of the total against the median of earlier sessions)
-- section: 26 multi-gpu
-- kernel-cache: yes
-- table: ranks Per rank (GPU): compute, communication, idle, steps and time waited at collectives
-- column: rank int the GPU's rank, where the source names one
-- column: host text its host, where the source names one
-- column: device int the device number (on its node)
-- column: span_ns ns "GPU span" first start to last end of its activity
-- column: busy_ns ns "GPU busy" the union of its kernels, copies and memsets
-- column: compute_ns ns the union of its compute kernels
-- column: comm_ns ns the union of its communication kernels
-- column: exposed_comm_ns ns communication with no compute kernel running
-- column: idle_ns ns span_ns - busy_ns
-- column: steps count iterations of its node
-- column: step_med_ns ns their median wall time
-- column: step_max_ns ns the longest
-- column: wait_ns ns "Waited" time its matched collectives waited for the last GPU
-- column: last_arrivals count "Last" how often it was that last GPU
-- column: straggler int 1 when it is slower than the others (--threshold)
--
-- ranks: one row per GPU of the job (a Kineto rank's GPU; each GPU of each host otherwise), what it did
-- and how long it waited for the others. comm.sql, run first, matches the collectives across GPUs.
--
-- * span, busy and idle as gpu_busy gives them (devices, idle); compute and communication are the unions
--   of the kernels of those classes (classes: kernel_busy); exposed_comm_ns is communication time with no
--   compute kernel running on that GPU (the overlap distributed training wants large hides the rest).
-- * steps: the GPU's node's iterations (temp.iterations, analyze/views.sql: ProfilerStep#N, step, ...): count,
--   median and longest wall time.
-- * wait_ns: the time its matched collectives waited for the last GPU to arrive; last_arrivals: how
--   often it was that last one.
-- * straggler: compute time above the median over GPUs by more than --threshold (default 10%), or last
--   at more than half of its matched collectives. Ranks that meet at collectives end their steps together,
--   so step time alone never finds the slow one: the others' wait does.
-- The table's last line is the verdict: the GPU the others waited for most, and how long in all.
WITH busy AS MATERIALIZED (
	SELECT node, device_id AS device, span_ns, busy_ns, idle_ns
	FROM gpu_busy WHERE session_id = :session AND first_ns IS NOT NULL
),
cls AS MATERIALIZED (
	SELECT node, device_id AS device, class, other_class, busy_ns
	-- the arguments classes gives it (every name by its class, compute by default): in a report, the rows
	-- classes made are kept (analyze/ext/sqlext_classes.c)
	FROM kernel_busy((SELECT json_group_object(id, class) FROM temp.name_classes), 'compute')
	WHERE session_id = :session
),
split AS (
	SELECT b.node, b.device,
	       coalesce((SELECT busy_ns FROM cls c WHERE c.node = b.node AND c.device = b.device
			 AND c.class = 'compute' AND c.other_class IS NULL), 0) AS compute_ns,
	       coalesce((SELECT busy_ns FROM cls c WHERE c.node = b.node AND c.device = b.device
			 AND c.class = 'communication' AND c.other_class IS NULL), 0) AS comm_ns,
	       coalesce((SELECT busy_ns FROM cls c WHERE c.node = b.node AND c.device = b.device
			 AND ((c.class = 'compute' AND c.other_class = 'communication')
			      OR (c.class = 'communication' AND c.other_class = 'compute'))), 0) AS hidden_ns
	FROM busy b
),
steps AS (
	SELECT node, count(*) AS steps, median(end_ns - start_ns) AS med_ns, max(end_ns - start_ns) AS max_ns
	FROM temp.iterations WHERE session_id = :session
	GROUP BY 1
),
row AS (
	SELECT b.node, b.device, n.node_rank AS rank, n.node_host AS host, b.span_ns, b.busy_ns, s.compute_ns,
	       s.comm_ns, s.comm_ns - s.hidden_ns AS exposed_comm_ns, b.idle_ns, coalesce(t.steps, 0) AS steps,
	       t.med_ns AS step_med_ns, t.max_ns AS step_max_ns, coalesce(w.wait_ns, 0) AS wait_ns,
	       coalesce(w.last_arrivals, 0) AS last_arrivals, coalesce(w.matched, 0) AS matched,
	       coalesce(w.caused_ns, 0) AS caused_ns
	FROM busy b JOIN split s ON s.node = b.node AND s.device = b.device
	LEFT JOIN temp.gpu_node_names n ON n.session_id = :session AND n.node = b.node
	LEFT JOIN steps t ON t.node = b.node
	LEFT JOIN temp.comm_gpus w ON w.node = b.node AND w.device = b.device
),
judged AS (
	SELECT *, CASE WHEN (SELECT count(*) FROM row) < 2 THEN 0
		       WHEN compute_ns > (SELECT median(compute_ns) FROM row)
					 * (1 + CASE WHEN :threshold_given THEN :threshold ELSE 0.10 END)
			    OR 2 * last_arrivals > matched THEN 1 ELSE 0 END AS straggler,
	       CASE WHEN rank IS NOT NULL THEN 'rank ' || rank ELSE coalesce(host || ' ', '') || 'GPU ' || device END
		       AS label
	FROM row
),
-- The GPU the others waited for most (ties: the lower node, then device), and the verdict on the job.
blamed AS (
	SELECT * FROM judged WHERE caused_ns > 0 ORDER BY caused_ns DESC, node, device LIMIT 1
),
verdict(line) AS (
	SELECT CASE
		WHEN (SELECT count(*) FROM judged) < 2 THEN
			'verdict: one GPU, nothing to compare it with'
		WHEN EXISTS (SELECT 1 FROM blamed) THEN
			(SELECT 'verdict: the others wait for ' || label || ': it arrived last at ' || last_arrivals || ' of '
				|| matched || ' matched collectives, and the other GPUs waited ' || fmt_ns(caused_ns)
				|| ' in all for it' || CASE WHEN straggler THEN ' (straggler)' ELSE '' END
				|| coalesce('; compute stragglers: ' || (SELECT group_concat(label, ', ') FROM judged j
						WHERE j.straggler AND j.label <> b.label), '')
			 FROM blamed b)
		WHEN EXISTS (SELECT 1 FROM judged WHERE straggler) THEN
			'verdict: stragglers by compute time: ' || (SELECT group_concat(label, ', ') FROM judged WHERE straggler)
			|| '; no collectives were matched to show who the others wait for'
		WHEN EXISTS (SELECT 1 FROM temp.comm_gpus) THEN
			'verdict: no straggler: every matched collective started on every GPU at once'
		ELSE 'verdict: no straggler by compute time; no collectives were matched across GPUs'
	       END
)
SELECT rank, host, device, span_ns, busy_ns, compute_ns, comm_ns, exposed_comm_ns, idle_ns, steps, step_med_ns,
       step_max_ns, wait_ns, last_arrivals, straggler, NULL AS _note, (SELECT line FROM verdict) AS _footer
FROM judged
ORDER BY node, device;
