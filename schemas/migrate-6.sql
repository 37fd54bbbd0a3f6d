-- Schema version 5 to 6 (gpuprof-ingest applies it; see session.sql's version table).
-- ---- ingest_repairs (branch bytes) ----
-- Table ingest_repairs: the text gpuprof-ingest replaced with U+FFFD to store valid UTF-8. Sessions already
-- stored were not repaired: none (their text may hold any bytes; every output repairs it as it writes).
CREATE TABLE ingest_repairs (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	file TEXT NOT NULL,
	what TEXT NOT NULL,
	count INTEGER NOT NULL
);
-- ---- end of ingest_repairs ----
-- Tables ops and op_links (issue 33), and api_calls.external_id (Kineto's "External id" of a call: NULL in
-- the rows already there, not read then). Sessions already stored gain no ops: ingest them again into a
-- new database to have them.
ALTER TABLE api_calls ADD COLUMN external_id INTEGER;

-- PyTorch operators (schema version 6): Kineto cpu_op (PyTorch 1.8-1.9: cat "Operator") events, and NVTX
-- push/pop ranges written by torch.autograd.profiler.emit_nvtx ("NAME, seq = N, op_id = M, sizes = [[...]],
-- input_op_ids = [(id,out), ...]") in Nsight Systems exports and gpuprof sessions (those stay ranges too).
-- An op's children are the ops of its thread inside it; the runtime calls it made, those of its thread
-- inside it (api_calls.external_id names the innermost one in Kineto traces).
CREATE TABLE ops (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	thread_id INTEGER,		-- the OS tid as the trace gives it (Kineto: tid; NVTX: the range's thread)
	start_ns INTEGER NOT NULL,
	end_ns INTEGER NOT NULL,
	name_id INTEGER NOT NULL,	-- strings.id: "aten::mm" (NVTX: the text before ", seq = " / ", op_id = ")
	external_id INTEGER,		-- Kineto "External id"; NVTX op_id; NULL when none
	seq INTEGER,			-- autograd "Sequence number" / "seq = N"; NULL when none
	fwd_tid INTEGER,		-- Kineto "Fwd thread id" (RecordFunction thread number); NULL when none
	record_function_id INTEGER,	-- Kineto "Record function id"; NULL when none
	input_dims TEXT,		-- "Input Dims" as JSON text ("[[8192, 8192], [8192, 8192]]"); NVTX: the
					-- sizes list written the same way; NULL when shapes were not recorded
	input_types TEXT,		-- "Input type" JSON text ('["c10::BFloat16", "c10::BFloat16"]'); NULL for NVTX
	input_strides TEXT,		-- "Input Strides" JSON text; NULL when none
	concrete_inputs TEXT,		-- "Concrete Inputs" JSON text; NULL when none
	source INTEGER NOT NULL		-- 1 Kineto cpu_op/Operator, 2 NVTX (emit_nvtx)
);
CREATE INDEX ops_thread ON ops(session_id, pid, thread_id, start_ns);

-- Forward -> backward links (schema version 6): Kineto flow events "fwdbwd" (before late 2022
-- "forward_backward"): the "s" end sits on the forward op, the "f" end on the backward op (another
-- thread: autograd's). The ends are stored as the trace gives them; the op of an end is the op of that
-- (session, pid, thread) whose start_ns equals the end's time with a non-NULL seq (the longest such op when
-- several). A flow id with only one end is not a link: it is counted in ingest_skipped.
CREATE TABLE op_links (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	flow_id INTEGER NOT NULL,	-- the flow's id
	fwd_thread_id INTEGER,
	fwd_ns INTEGER NOT NULL,	-- the "s" event's time (absolute ns, like every time)
	bwd_thread_id INTEGER,
	bwd_ns INTEGER NOT NULL		-- the "f" event's time
);
