-- analysis: ops
-- title: PyTorch ops: CPU self/total, GPU self/total, kernels, FLOPs from shapes (--by-shape, --fold-backward)
-- option: by_shape 0 a row per op name, Input Dims and Input type (key_averages' group_by_input_shape)
-- option: fold_backward 0 add each backward op's figures to its forward op's row (op_links, else the same sequence number)
-- section: 7 top 10
-- table: ops PyTorch operators by GPU time (self and with their children), with FLOPs from their shapes
-- column: name text "Op" the op's name (per shape with --by-shape)
-- column: calls count how many ops
-- column: cpu_total_ns ns "CPU total" CPU time, end - start, summed
-- column: cpu_self_ns ns "CPU self" CPU time less the direct children's
-- column: gpu_self_ns ns "GPU self" GPU time of the kernels, copies and memsets of the op's own calls
-- column: gpu_total_ns ns "GPU total" GPU time with its children's
-- column: kernels count kernels it and its descendants launched
-- column: flops count "FLOPs" FLOPs from the shapes (op_flops), NULL when none has a count
-- column: tflops real "TFLOP/s" flops over the union of its kernels' time, TFLOP/s
-- column: mfu real "MFU" model FLOP utilisation against the GPU's dense peak for the data type
-- column: bytes bytes bytes the counted ops move (op_bytes)
-- column: intensity real "FLOP/byte" flops per byte
-- column: input_dims text,hide-null Input Dims (--by-shape)
-- column: input_types text,hide-null Input type (--by-shape)
--
-- ops: PyTorch operators (table ops: Kineto cpu_op events, emit_nvtx ranges), one row per op name (per
-- name, Input Dims and Input type with --by-shape, as key_averages(group_by_input_shape=True) groups),
-- with their CPU time, the GPU time of the kernels, copies and memsets they launched, and FLOPs from
-- their shapes.
--
-- The definitions (issue 33; README "Operators" says them against key_averages' columns):
-- * On one (pid, thread), ops nest by containment: in order of start, then the longest first (then the
--   External id, then the row), an op is a child of the innermost earlier op that contains it (starts at
--   or before it and ends at or after it). Overlapping ops that do not nest (old traces' microsecond
--   rounding) follow the same rule: the one that does not contain the other is no child of it.
--   cpu_total_ns = end - start; cpu_self_ns = total - the direct children's totals.
-- * A runtime or driver call belongs to the innermost op of its (pid, thread) whose [start, end] holds the
--   call's start. A GPU event (kernel, copy, memset) belongs to the call with its correlation id in its
--   process (the first in table order where several share one); all kernels of a CUDA graph's replay
--   share its cudaGraphLaunch's. gpu_self_ns = the summed durations of the GPU events of the op's own
--   calls; gpu_total_ns = gpu_self_ns + the children's gpu_total_ns. A row sums its ops' figures (a name
--   nested in itself counts in both, as key_averages counts).
-- * kernels: the kernels the row's ops launched, their own and their descendants', each counted once per
--   row. flops: op_flops (analyze/ext/sqlext_ops.c) per op, counted at the deepest op with a formula (the op
--   counts when no op below it has one) and summed over the row's ops and their descendants, each counted
--   once per row; NULL when none has a count. tflops = flops / the union of the row's kernels' time.
--   bytes: op_bytes of those same counted ops. mfu = flops over what the peaks (analyze/gpu-peaks.rules)
--   allow in the kernels' busy time, for the data type of the counted ops' first input (all of one type)
--   on the GPU the kernels ran on (all on one model); NULL otherwise (NVTX ops: no types).
-- * GPU events whose call is in no op: one row named "(no op)".
-- * --fold-backward: a backward op (the "f" end of an op_links flow, else an op with a Sequence number
--   and a non-zero Fwd thread id) that is the outermost of its sequence number on its thread counts in
--   its forward op's row (the "s" end of the flow; else the latest op started before it with that
--   sequence number on another thread of the process, the longest of those at one start): its CPU and
--   GPU time, kernels and FLOPs are added there, and leave its own row.
-- Sorted by gpu_total_ns, then name. The note counts the calls whose External id names another op than
-- containment gives (containment wins), and says when shapes or types were not recorded.
--
-- Cost: op_tree (analyze/ext/sqlext_ops.c, whose header states the plain SQL it stands for; tests/ops.py holds
-- them equal) reads the ops and calls, sorts them once and walks each thread, sums the GPU events per op
-- and up its ancestors, and computes the FLOPs: 0.56 s of CPU on a 200,000-kernel gpuprof-synth --kernels
-- 200000 --seed 1 --ops session (430,000 ops, 211,000 calls). What is left is SQLite's: the temp tables of
-- ops and walk rows and their indexes, the per-row keys and distinct (row, op) items, and the per-row
-- aggregates (busy_union). Measured with /usr/bin/time gpuprof-analyze ops on that session, 2 cores shared
-- with other jobs (wall times noisy): 3.8-4.0 s of CPU (5.5-6.1 s before op_tree, same output), so issue
-- 33's 1 s on the 5M-kernel bench session (~25x the ops) is NOT met: that needs the per-row keys, items
-- and aggregates in C too, and no temp copies of per-op rows.

-- Statement 1: the peaks file, checked (a malformed line fails the analysis, naming it).
DROP TABLE IF EXISTS temp.op_peaks;
CREATE TEMP TABLE op_peaks AS SELECT * FROM gpu_peaks(:gpu_peaks, :gpu_peaks_file);

-- Statement 2: each device the session declares, with its GPU model (the first gpu line that claims it).
DROP TABLE IF EXISTS temp.op_models;
CREATE TEMP TABLE op_models(pid INTEGER, id INTEGER, gpu TEXT, PRIMARY KEY (pid, id)) WITHOUT ROWID;
INSERT OR IGNORE INTO temp.op_models
SELECT d.pid, d.id, (SELECT p.gpu FROM temp.op_peaks p WHERE p.kind = 'peak' AND d.name REGEXP p.pattern
		     ORDER BY p.gpu_ord LIMIT 1)
FROM devices d WHERE d.session_id = :session AND d.name IS NOT NULL;

-- Statement 3: one walk per thread over its ops and calls: each op's parent, GPU time (its own, its
-- subtree's), children's CPU time, FLOPs and whether they count; each call's op; each op with kernels or
-- counted FLOPs with its ancestors (kind 2). op_tree, analyze/ext/sqlext_ops.c, states the plain SQL it stands for:
-- op_nest's walk, the GPU events of statements 5 and 6 summed per op and up its ancestors, op_flops.
DROP TABLE IF EXISTS temp.op_walk;
CREATE TEMP TABLE op_walk AS SELECT * FROM op_tree(:session);
CREATE INDEX temp.op_walk_id ON op_walk(kind, id);

-- Statement 4: the session's ops with their names, FLOPs, bytes and parents.
DROP TABLE IF EXISTS temp.op_list;
CREATE TEMP TABLE op_list(op INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, start_ns INTEGER, end_ns INTEGER,
			  name TEXT, external_id INTEGER, seq INTEGER, fwd_tid INTEGER, input_dims TEXT,
			  input_types TEXT, source INTEGER, flops INTEGER, bytes INTEGER, dtype TEXT, parent INTEGER);
INSERT INTO temp.op_list
SELECT o.rowid, o.pid, o.thread_id, o.start_ns, o.end_ns, n.value, o.external_id, o.seq, o.fwd_tid, o.input_dims,
       o.input_types, o.source, w.flops,
       CASE WHEN w.flops IS NOT NULL THEN op_bytes(n.value, o.input_dims, o.input_types, o.concrete_inputs) END, NULL,
       w.owner
FROM ops o JOIN strings n ON n.session_id = o.session_id AND n.id = o.name_id
JOIN temp.op_walk w ON w.kind = 0 AND w.id = o.rowid
WHERE o.session_id = :session;
-- The data type of the ops with a count: their first input's (a type the peaks file maps).
UPDATE temp.op_list SET dtype = (SELECT p.dtype FROM temp.op_peaks p WHERE p.kind = 'type'
				  AND p.torch_name = op_list.input_types ->> 0)
WHERE flops IS NOT NULL AND input_types IS NOT NULL;

CREATE INDEX temp.op_list_at ON op_list(pid, tid, start_ns);
CREATE INDEX temp.op_list_seq ON op_list(pid, seq);
CREATE INDEX temp.op_list_ext ON op_list(pid, external_id);

-- Statement 5: each call's op by process and correlation id (the first call of a correlation id).
DROP TABLE IF EXISTS temp.op_calls;
CREATE TEMP TABLE op_calls(pid INTEGER, corr INTEGER, op INTEGER, PRIMARY KEY (pid, corr)) WITHOUT ROWID;
INSERT OR IGNORE INTO temp.op_calls SELECT pid, corr, owner FROM temp.op_walk WHERE kind = 1 ORDER BY id;

-- Statement 6: the GPU events of the session's calls, with their op (NULL: in no op); kernels flagged.
DROP TABLE IF EXISTS temp.op_gpu;
CREATE TEMP TABLE op_gpu AS
SELECT c.op, k.start_ns, k.end_ns, 1 AS kernel, k.pid, k.device_id
FROM kernel_columns k JOIN temp.op_calls c ON c.pid = k.pid AND c.corr = k.correlation_id
WHERE k.session_id = :session
UNION ALL
SELECT c.op, m.start_ns, m.end_ns, 0, m.pid, m.device_id
FROM memcpys m JOIN temp.op_calls c ON c.pid = m.pid AND c.corr = m.correlation_id WHERE m.session_id = :session
UNION ALL
SELECT c.op, m.start_ns, m.end_ns, 0, m.pid, m.device_id
FROM memsets m JOIN temp.op_calls c ON c.pid = m.pid AND c.corr = m.correlation_id WHERE m.session_id = :session;
CREATE INDEX temp.op_gpu_op ON op_gpu(op);

-- Statement 7: the ops whose FLOPs count (no op below them has a formula).
DROP TABLE IF EXISTS temp.op_counted;
CREATE TEMP TABLE op_counted(op INTEGER PRIMARY KEY, flops INTEGER, bytes INTEGER, dtype TEXT);
INSERT INTO temp.op_counted
SELECT o.op, o.flops, o.bytes, o.dtype FROM temp.op_list o JOIN temp.op_walk w ON w.kind = 0 AND w.id = o.op
WHERE w.counted;

-- Statement 8: backward ops folded into their forward op (--fold-backward only).
DROP TABLE IF EXISTS temp.op_fold;
CREATE TEMP TABLE op_fold(op INTEGER PRIMARY KEY, fwd INTEGER);
INSERT OR IGNORE INTO temp.op_fold
SELECT b.op, f.op
FROM op_links l
JOIN temp.op_list b ON b.op = (SELECT x.op FROM temp.op_list x WHERE x.pid = l.pid AND x.tid IS l.bwd_thread_id
			       AND x.start_ns = l.bwd_ns AND x.seq IS NOT NULL ORDER BY x.end_ns DESC, x.op LIMIT 1)
JOIN temp.op_list f ON f.op = (SELECT x.op FROM temp.op_list x WHERE x.pid = l.pid AND x.tid IS l.fwd_thread_id
			       AND x.start_ns = l.fwd_ns AND x.seq IS NOT NULL ORDER BY x.end_ns DESC, x.op LIMIT 1)
WHERE :fold_backward AND l.session_id = :session;
INSERT OR IGNORE INTO temp.op_fold
SELECT b.op, (SELECT f.op FROM temp.op_list f WHERE f.pid = b.pid AND f.seq = b.seq AND f.tid IS NOT b.tid
	      AND f.start_ns <= b.start_ns AND NOT EXISTS (SELECT 1 FROM temp.op_fold z WHERE z.op = f.op)
	      ORDER BY f.start_ns DESC, f.end_ns DESC, f.op LIMIT 1)
FROM temp.op_list b
WHERE :fold_backward AND b.seq IS NOT NULL AND b.fwd_tid IS NOT NULL AND b.fwd_tid <> 0
  AND NOT EXISTS (SELECT 1 FROM temp.op_list p WHERE p.op = b.parent AND p.seq = b.seq)
  AND NOT EXISTS (SELECT 1 FROM temp.op_fold z WHERE z.op = b.op);
DELETE FROM temp.op_fold WHERE fwd IS NULL
   OR op IN (SELECT b.op FROM temp.op_fold b JOIN temp.op_list o ON o.op = b.op JOIN temp.op_fold p ON p.op = o.parent);

-- Statement 9: each op's row key (its name, or with --by-shape its name and shapes; a folded backward op
-- its forward op's), its figures and its subtree's.
DROP TABLE IF EXISTS temp.op_keys;
CREATE TEMP TABLE op_keys(kid INTEGER PRIMARY KEY, key TEXT UNIQUE, name TEXT, input_dims TEXT, input_types TEXT);
DROP TABLE IF EXISTS temp.op_rows;
CREATE TEMP TABLE op_rows(op INTEGER PRIMARY KEY, kid INTEGER, own INTEGER, cpu_total_ns INTEGER, cpu_self_ns INTEGER,
			  gpu_self_ns INTEGER, gpu_total_ns INTEGER);
WITH keyed AS (
	SELECT o.op, CASE WHEN :by_shape THEN json_array(s.name, s.input_dims, s.input_types) ELSE s.name END AS key,
	       f.op IS NULL AS own, s.name, s.input_dims, s.input_types
	FROM temp.op_list o LEFT JOIN temp.op_fold f ON f.op = o.op JOIN temp.op_list s ON s.op = coalesce(f.fwd, o.op)
	WHERE (:match IS NULL OR s.name REGEXP :match) AND (:exclude IS NULL OR s.name NOT REGEXP :exclude)
)
INSERT OR IGNORE INTO temp.op_keys(key, name, input_dims, input_types) SELECT key, name, input_dims, input_types FROM keyed;
INSERT INTO temp.op_rows
SELECT o.op, k.kid, f.op IS NULL, o.end_ns - o.start_ns, o.end_ns - o.start_ns - w.kids_ns, w.gpu_self_ns,
       w.gpu_total_ns
FROM temp.op_list o LEFT JOIN temp.op_fold f ON f.op = o.op JOIN temp.op_list s ON s.op = coalesce(f.fwd, o.op)
JOIN temp.op_keys k ON k.key = CASE WHEN :by_shape THEN json_array(s.name, s.input_dims, s.input_types) ELSE s.name END
JOIN temp.op_walk w ON w.kind = 0 AND w.id = o.op;

-- Each (row, op at or below one of its ops that has kernels or a counted figure), once.
DROP TABLE IF EXISTS temp.op_items;
CREATE TEMP TABLE op_items(kid INTEGER, op INTEGER, PRIMARY KEY (kid, op)) WITHOUT ROWID;
INSERT OR IGNORE INTO temp.op_items SELECT r.kid, u.id FROM temp.op_walk u JOIN temp.op_rows r ON r.op = u.owner
WHERE u.kind = 2;

-- Statement 10: the notes' figures.
DROP TABLE IF EXISTS temp.op_notes;
CREATE TEMP TABLE op_notes AS
SELECT (SELECT count(*) FROM api_calls a JOIN temp.op_walk w ON w.kind = 1 AND w.id = a.rowid
	LEFT JOIN temp.op_list o ON o.op = w.owner
	WHERE a.session_id = :session AND a.external_id IS NOT NULL AND o.external_id IS NOT a.external_id
	  AND EXISTS (SELECT 1 FROM temp.op_list x WHERE x.pid = a.pid AND x.external_id = a.external_id)) AS disagree,
       (SELECT count(*) FROM temp.op_list WHERE input_dims IS NULL) AS unshaped,
       (SELECT count(*) FROM temp.op_list WHERE source = 2) AS nvtx,
       (SELECT count(*) FROM temp.op_list) AS ops;

-- Statement 11: the table's note (a heading: also when it has no rows).
SELECT CASE WHEN ops = 0 THEN 'none: no operators in this session (a PyTorch profiler trace, or an Nsight '
		|| 'Systems export of torch.autograd.profiler.emit_nvtx, has them)'
	    ELSE nullif(trim(
	    CASE WHEN unshaped > 0 THEN unshaped || ' of ' || ops || ' ops have no shapes, so no FLOPs: record '
		 || 'with torch.profiler.profile(record_shapes=True) (emit_nvtx(record_shapes=True)). ' ELSE '' END
	    || CASE WHEN nvtx > 0 THEN nvtx || ' ops come from NVTX (emit_nvtx), which records sizes but no '
		 || 'types: FLOPs yes, bytes and mfu NULL. ' ELSE '' END
	    || CASE WHEN disagree > 0 THEN disagree || ' calls carry an External id of another op than the '
		 || 'one containing them; containment decides. ' ELSE '' END), '') END AS _note
FROM temp.op_notes;

-- Statement 12: per row.
WITH per AS (
	SELECT r.kid, k.name, k.input_dims, k.input_types, sum(r.own) AS calls, sum(r.cpu_total_ns) AS cpu_total_ns,
	       sum(r.cpu_self_ns) AS cpu_self_ns, sum(r.gpu_self_ns) AS gpu_self_ns, sum(r.gpu_total_ns) AS gpu_total_ns
	FROM temp.op_rows r JOIN temp.op_keys k ON k.kid = r.kid GROUP BY r.kid
), kern AS (
	SELECT i.kid, count(*) AS kernels, busy_union(g.start_ns, g.end_ns) AS busy_ns,
	       CASE WHEN count(DISTINCT m.gpu) = 1 AND count(m.gpu) = count(*) THEN min(m.gpu) END AS gpu
	FROM temp.op_items i JOIN temp.op_gpu g ON g.op = i.op AND g.kernel
	LEFT JOIN temp.op_models m ON m.pid = g.pid AND m.id = g.device_id
	GROUP BY i.kid
), fl AS (
	SELECT i.kid, sum(c.flops) AS flops, sum(c.bytes) AS bytes, count(c.bytes) = count(*) AS all_bytes,
	       CASE WHEN count(DISTINCT c.dtype) = 1 AND count(c.dtype) = count(*) THEN min(c.dtype) END AS dtype
	FROM temp.op_items i JOIN temp.op_counted c ON c.op = i.op GROUP BY i.kid
), rows AS (
	SELECT p.name, p.calls, p.cpu_total_ns, p.cpu_self_ns, p.gpu_self_ns, p.gpu_total_ns, coalesce(k.kernels, 0) AS kernels,
	       f.flops, f.flops / 1e3 / nullif(k.busy_ns, 0) AS tflops,
	       f.flops / 1e3 / nullif(k.busy_ns, 0) /
		       (SELECT e.tflops FROM temp.op_peaks e WHERE e.kind = 'peak' AND e.gpu = k.gpu AND e.dtype = f.dtype) AS mfu,
	       CASE WHEN f.all_bytes THEN f.bytes END AS bytes,
	       CASE WHEN f.all_bytes THEN f.flops * 1.0 / nullif(f.bytes, 0) END AS intensity,
	       p.input_dims, p.input_types
	FROM per p LEFT JOIN kern k ON k.kid = p.kid LEFT JOIN fl f ON f.kid = p.kid
	UNION ALL
	SELECT '(no op)', 0, NULL, NULL, sum(end_ns - start_ns), sum(end_ns - start_ns), sum(kernel), NULL, NULL, NULL,
	       NULL, NULL, NULL, NULL
	FROM temp.op_gpu WHERE op IS NULL
	HAVING count(*) > 0 AND (:match IS NULL OR '(no op)' REGEXP :match)
	   AND (:exclude IS NULL OR '(no op)' NOT REGEXP :exclude)
)
SELECT name, calls, cpu_total_ns, cpu_self_ns, gpu_self_ns, gpu_total_ns, kernels, flops, tflops, mfu, bytes,
       intensity,
       CASE WHEN :by_shape THEN input_dims END AS input_dims, CASE WHEN :by_shape THEN input_types END AS input_types
FROM rows ORDER BY gpu_total_ns DESC, name, input_dims, input_types LIMIT :top;
