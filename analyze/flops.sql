-- analysis: flops
-- title: Achieved TFLOP/s and MFU per op and per iteration, from PyTorch's FLOP counts or op shapes
-- include: views
-- section: 9 top 10
-- table: flops Achieved FLOP/s per op (PyTorch with_flops, else from shapes) and MFU against the GPU's peak
-- column: name text "Op" the op's name
-- column: calls count ops with a FLOP count
-- column: kernels count kernels they launched
-- column: flops count "FLOPs" their FLOPs
-- column: gpu_ns ns "GPU time" their kernels' summed time
-- column: tflops real "TFLOP/s" FLOPs over gpu_ns, TFLOP/s
-- column: dtype text "Type" the data type of the op's first input
-- column: gpu text "GPU" the GPU model (analyze/gpu-peaks.rules)
-- column: peak_tflops real "Peak TFLOP/s" its dense peak for the type, TFLOP/s
-- column: mfu real "MFU" FLOPs over what the peak allows in the kernels' time; NULL without a peak
-- table: flops_steps Achieved FLOP/s and MFU per iteration
-- column: step text "Iteration" the iteration's range name
-- column: start_ns time when it started
-- column: ops count ops with a FLOP count in it
-- column: flops count "FLOPs" their FLOPs
-- column: gpu_ns ns "GPU time" their kernels' summed time
-- column: tflops real "TFLOP/s" FLOPs over gpu_ns, TFLOP/s
-- column: mfu real "MFU" model FLOP utilisation; NULL without a peak
--
-- flops: achieved FLOP/s and MFU of the operators that carry a FLOP count (table flop_ops: PyTorch profiler
-- traces recorded with with_flops=True), else of those whose shapes give one (table ops, record_shapes=True),
-- per op name and per iteration.
--
-- An op's kernels are those whose launch call (api_calls) was made on the op's thread while it ran (from
-- its start to its end, nested ops' launches included), joined to the kernel by process and correlation
-- id, as kernexec and ranges link a kernel to its call. gpu_ns is their summed time; tflops the FLOPs of
-- the ops that launched kernels over that time (FLOPs per ns / 1000). MFU is the FLOPs over what the GPUs
-- could have done in the same time at their dense peak for the op's data type: sum(flops) / sum(kernel
-- time x peak), over the ops whose every kernel ran on a GPU with a known peak for that type; NULL when
-- none. The data type is the op's first tensor input's ("Input type"), mapped by the `type` lines of
-- analyze/gpu-peaks.rules; the GPU model is the first `gpu` line whose pattern matches the device's name,
-- and the peak its `peak` line (the file is checked at every load: gpu_peaks, analyze/ext/sqlext_peaks.c;
-- GPUPROF_GPU_PEAKS=FILE reads another).
--
-- Cost: ../shared/traces/kineto/v100_test.json.gz with a count added to each of its 31,236 CPU ops (105,167
-- events, 9,876 kernels) runs in 0.95 s (0.60 s of CPU, 2 shared cores): each op reads its own launch
-- calls through an index on a TEMP copy of the session's calls (statement 4), where a join on api_calls
-- itself would read every call once per op.
--
-- Iterations are temp.iterations (analyze/views.sql: ProfilerStep#N, step, iteration, train_step,
-- Step N; host ranges that ended, kind <> 3) of the op's process; an op belongs to the one it starts in.

-- Statement 1: the peaks file, checked (a malformed line fails the analysis, naming it).
DROP TABLE IF EXISTS temp.flop_peaks;
CREATE TEMP TABLE flop_peaks AS SELECT * FROM gpu_peaks(:gpu_peaks, :gpu_peaks_file);

-- Statement 2: each device the session declares, with its GPU model.
DROP TABLE IF EXISTS temp.flop_models;
CREATE TEMP TABLE flop_models(pid INTEGER, id INTEGER, gpu TEXT, PRIMARY KEY (pid, id)) WITHOUT ROWID;
INSERT OR IGNORE INTO temp.flop_models
SELECT d.pid, d.id, (SELECT p.gpu FROM temp.flop_peaks p WHERE p.kind = 'peak' AND d.name REGEXP p.pattern
		     ORDER BY p.gpu_ord LIMIT 1)
FROM devices d WHERE d.session_id = :session AND d.name IS NOT NULL;

-- Statement 3: the ops, named, with their data type: those of flop_ops; in a session without any (every
-- real trace: PyTorch writes no `flops` arg, README "Operators"), the ops whose shapes give a count
-- (op_flops, analyze/ext/sqlext_ops.c), each counted at the deepest op with a formula as the ops analysis counts
-- it: an op counts unless one of its descendants (an op of its thread inside it that sorts after it:
-- start, the longest first, External id, row) has a count too. Their rowids are negated: no clash with
-- flop_ops' in temp.flop_launches.
DROP TABLE IF EXISTS temp.flop_list;
CREATE TEMP TABLE flop_list AS
SELECT o.rowid AS op, o.pid, o.thread_id, o.start_ns, o.end_ns, o.flops, n.value AS name,
       (SELECT p.dtype FROM temp.flop_peaks p WHERE p.kind = 'type' AND p.torch_name = t.value) AS dtype
FROM flop_ops o JOIN strings n ON n.session_id = o.session_id AND n.id = o.name_id
LEFT JOIN strings t ON t.session_id = o.session_id AND t.id = o.dtype_id
WHERE o.session_id = :session;
INSERT INTO temp.flop_list
WITH shaped AS (
	SELECT o.rowid AS op, o.pid, o.thread_id, o.start_ns, o.end_ns, coalesce(o.external_id, 0) AS ord,
	       op_flops(n.value, o.input_dims, o.concrete_inputs) AS flops, n.value AS name, o.input_types
	FROM ops o JOIN strings n ON n.session_id = o.session_id AND n.id = o.name_id
	WHERE o.session_id = :session AND o.input_dims IS NOT NULL AND NOT EXISTS (SELECT 1 FROM temp.flop_list)
)
SELECT -s.op, s.pid, s.thread_id, s.start_ns, s.end_ns, s.flops, s.name,
       (SELECT p.dtype FROM temp.flop_peaks p WHERE p.kind = 'type' AND p.torch_name = s.input_types ->> 0)
FROM shaped s
WHERE s.flops IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM shaped d WHERE d.flops IS NOT NULL AND d.pid = s.pid AND d.thread_id IS s.thread_id
		  AND d.start_ns >= s.start_ns AND d.end_ns <= s.end_ns AND d.op <> s.op
		  AND (d.start_ns, -d.end_ns, d.ord, d.op) > (s.start_ns, -s.end_ns, s.ord, s.op));

-- Statement 4: the launch calls made on an op's thread while it ran, by process and correlation id (a
-- call inside two nested ops counts for both). The session's calls are copied once into a TEMP table
-- indexed by thread and time (an analysis cannot index the database's tables), so that each op reads
-- only its own calls; nothing is copied when the session has no ops.
DROP TABLE IF EXISTS temp.flop_calls;
CREATE TEMP TABLE flop_calls AS
SELECT pid, thread_id, start_ns, correlation_id FROM api_columns
WHERE session_id = :session AND correlation_id <> 0 AND EXISTS (SELECT 1 FROM temp.flop_list);
CREATE INDEX temp.flop_calls_at ON flop_calls(pid, thread_id, start_ns);
DROP TABLE IF EXISTS temp.flop_launches;
CREATE TEMP TABLE flop_launches(pid INTEGER, corr INTEGER, op INTEGER, PRIMARY KEY (pid, corr, op)) WITHOUT ROWID;
INSERT OR IGNORE INTO temp.flop_launches
SELECT o.pid, a.correlation_id, o.op
FROM temp.flop_list o JOIN temp.flop_calls a
     ON a.pid = o.pid AND a.thread_id = o.thread_id AND a.start_ns >= o.start_ns AND a.start_ns < o.end_ns;

-- Statement 5: per op, its kernels' time and what its GPUs' peaks would have done in it.
DROP TABLE IF EXISTS temp.flop_ops_done;
CREATE TEMP TABLE flop_ops_done AS
WITH kern AS (
	SELECT l.op, k.end_ns - k.start_ns AS dur,
	       coalesce((SELECT gpu FROM temp.flop_models m WHERE m.pid = k.pid AND m.id = k.device_id),
			(SELECT gpu FROM temp.flop_models m WHERE m.id = k.device_id ORDER BY m.pid LIMIT 1)) AS gpu
	FROM kernel_columns k JOIN temp.flop_launches l ON l.pid = k.pid AND l.corr = k.correlation_id
	WHERE k.session_id = :session AND EXISTS (SELECT 1 FROM temp.flop_launches)
)
SELECT o.op, o.pid, o.start_ns, o.name, o.flops, o.dtype, count(k.op) AS kernels, coalesce(sum(k.dur), 0) AS gpu_ns,
       CASE WHEN count(DISTINCT k.gpu) = 1 AND count(k.gpu) = count(k.op) THEN min(k.gpu) END AS gpu,
       sum(k.dur * p.tflops * 1e3) AS peak_flops,	-- FLOPs the peak allows in the kernels' time
       count(k.op) > 0 AND count(p.tflops) = count(k.op) AS known
FROM temp.flop_list o LEFT JOIN kern k ON k.op = o.op
LEFT JOIN temp.flop_peaks p ON p.kind = 'peak' AND p.gpu = k.gpu AND p.dtype = o.dtype
GROUP BY o.op;

SELECT 'none: no operator in this session carries a FLOP count or shapes that give one (record with '
       || 'torch.profiler.profile(record_shapes=True) and ingest the trace)' AS _note
WHERE NOT EXISTS (SELECT 1 FROM temp.flop_ops_done);

-- Statement 6: per op name; its data type, GPU model and peak where all its ops share one.
WITH per AS (
	SELECT name, count(*) AS calls, sum(kernels) AS kernels, sum(flops) AS flops, sum(gpu_ns) AS gpu_ns,
	       sum(CASE WHEN gpu_ns > 0 THEN flops END) / 1e3 / nullif(sum(gpu_ns), 0) AS tflops,
	       CASE WHEN count(DISTINCT dtype) = 1 AND count(dtype) = count(*) THEN min(dtype) END AS dtype,
	       CASE WHEN count(DISTINCT gpu) = 1 AND count(gpu) = count(CASE WHEN kernels > 0 THEN 1 END)
		    THEN min(gpu) END AS gpu,
	       sum(CASE WHEN known THEN flops END) / sum(CASE WHEN known THEN peak_flops END) AS mfu
	FROM temp.flop_ops_done
	WHERE (:match IS NULL OR name REGEXP :match) AND (:exclude IS NULL OR name NOT REGEXP :exclude)
	GROUP BY name
)
SELECT name, calls, kernels, flops, gpu_ns, tflops, dtype, gpu,
       (SELECT p.tflops FROM temp.flop_peaks p WHERE p.kind = 'peak' AND p.gpu = per.gpu AND p.dtype = per.dtype)
	       AS peak_tflops,
       mfu
FROM per ORDER BY flops DESC, name LIMIT :top;

-- Statement 7: per iteration, the ops that start in it.
WITH iterations AS (
	SELECT pid, start_ns, end_ns, name FROM temp.iterations WHERE session_id = :session
)
SELECT i.name AS step, i.start_ns, count(d.op) AS ops, sum(d.flops) AS flops, sum(d.gpu_ns) AS gpu_ns,
       sum(CASE WHEN d.gpu_ns > 0 THEN d.flops END) / 1e3 / nullif(sum(d.gpu_ns), 0) AS tflops,
       sum(CASE WHEN d.known THEN d.flops END) / sum(CASE WHEN d.known THEN d.peak_flops END) AS mfu
FROM iterations i JOIN temp.flop_ops_done d ON d.pid = i.pid AND d.start_ns >= i.start_ns AND d.start_ns < i.end_ns
WHERE (:match IS NULL OR d.name REGEXP :match) AND (:exclude IS NULL OR d.name NOT REGEXP :exclude)
GROUP BY i.pid, i.start_ns, i.end_ns, i.name ORDER BY i.start_ns, i.pid LIMIT :top;
