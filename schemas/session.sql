-- gpuprof session database, schema version 6.
-- A public interface: users query these tables with plain sqlite3. Times are absolute Unix-epoch
-- nanoseconds (INTEGER), durations nanoseconds, sizes bytes. Every event row carries its session_id and
-- the pid of the process that recorded it. Names are ids into `strings`, scoped per session:
-- join with (session_id, id). The views in views.sql do those joins for you.
--
-- Versions. `PRAGMA user_version` is the schema version (meta's schema_version says the same, for
-- readers of tables), `PRAGMA application_id` 1196446278 (0x47505246, "GPRF") says the file is gpuprof's.
--   version  what it brought                                            first made by (commit, date)
--   1        the tables up to host_metrics, drops, collector_errors,   85755fc, 2026-11-22
--            ingest_errors, the lookup tables; the first builds also
--            indexed every event table on session_id (step 2 drops them)
--   2        column_chunks, column_sets and their triggers             54f9905, 2026-11-22
--   3        overheads, overhead_kinds, object_kinds (wire format v2)  e7583ec, 2026-11-22
--   4        kernels.shared_mem, ingest_skipped                        307fba0, 2026-11-23
--   5        trace_windows, processes.options, pc_totals, host_metrics'  this commit's merge, 2026-11-27
--            disk and network counters, flop_ops, alloc_failures
--            (wire format v3)
--   6        ingest_repairs, ops, op_links, api_calls.external_id      this commit's merge, 2026-11-28
-- Until user_version was set (with version 4 still), meta said 1 for versions 1 to 3 and 2 for version 4:
-- gpuprof tells those apart by their tables when it opens one, the only place it looks for tables.
-- gpuprof-ingest upgrades an older database in one transaction (schemas/migrate-N.sql takes version N-1
-- to N, then this file and views.sql run: the database is then what they make); gpuprof-analyze and
-- gpuprof-report read it as it is: overheads before version 3 read as none, kernels.shared_mem before
-- version 4 as static_smem + dynamic_smem (Kineto sessions kept the total in static_smem), kernel chunks
-- before version 4 (other columns) are not read, and before version 5 trace_windows, pc_totals, flop_ops
-- and alloc_failures read as none and host_metrics' I/O counters as NULL (schemas/read-5.sql), before
-- version 6 ops and op_links as none and api_calls.external_id as NULL (schemas/read-6.sql). A newer
-- version than a build knows is refused by every program (exit 3), the file untouched. A new version: a
-- migrate-N.sql, the numbers here and in lib/db.h (DB_SCHEMA_VERSION, and a DB_V_ name for what analyses
-- must know about), a line above.

CREATE TABLE IF NOT EXISTS meta (
	key TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS sessions (
	id INTEGER PRIMARY KEY,		-- session_id in every other table
	uuid TEXT NOT NULL UNIQUE,	-- the session id of the source (wire header "session", or derived)
	source TEXT NOT NULL,		-- ndjson, kineto or nsys
	path TEXT,			-- what was ingested
	program TEXT,
	args TEXT,			-- JSON array
	hostname TEXT,
	engine TEXT,
	collector TEXT,
	options TEXT,			-- JSON object
	format_version INTEGER,
	origin_ns INTEGER,		-- time origin of the source
	start_ns INTEGER,		-- first event
	end_ns INTEGER,			-- last event or session-end record
	clean_end INTEGER NOT NULL DEFAULT 0,	-- 1 when every process wrote its session-end record
	ingested_at TEXT NOT NULL	-- UTC, ISO 8601
);

CREATE TABLE IF NOT EXISTS processes (
	session_id INTEGER NOT NULL REFERENCES sessions(id),
	pid INTEGER NOT NULL,		-- unique in the session: another host's process of the same OS pid (or
					-- the program a process exec'd into, its own file) is stored as pid +
					-- k * 2^32 (the OS pid is pid % 4294967296); Kineto: the rank (0
					-- when none), + k * 2^32 for another trace of the session's rank
	ppid INTEGER,
	hostname TEXT NOT NULL DEFAULT '',
	program TEXT,
	args TEXT,
	file TEXT,			-- the file it came from
	origin_ns INTEGER,
	end_ns INTEGER,
	clean_end INTEGER NOT NULL DEFAULT 0,
	rank INTEGER,			-- distributed rank when known
	options TEXT,			-- JSON object: the options of this process's own header (the session's
					-- are its first header's, which may be a launcher's); Kineto:
					-- {"content_hash": "fnv1a64:<16 hex>"}, the file's, which tells
					-- the same trace (skipped when ingested again) from another
	PRIMARY KEY (session_id, hostname, pid)
);

CREATE TABLE IF NOT EXISTS devices (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL DEFAULT 0,
	id INTEGER NOT NULL,		-- CUDA ordinal (source device id)
	name TEXT,
	uuid TEXT,
	cc_major INTEGER,
	cc_minor INTEGER,
	sms INTEGER,
	memory_bytes INTEGER,
	core_clock_khz INTEGER,
	mem_bandwidth_kbs INTEGER,
	max_threads_per_sm INTEGER,
	max_regs_per_sm INTEGER,
	max_smem_per_sm INTEGER,
	PRIMARY KEY (session_id, pid, id)
);

CREATE TABLE IF NOT EXISTS strings (
	session_id INTEGER NOT NULL,
	id INTEGER NOT NULL,
	value TEXT NOT NULL,
	PRIMARY KEY (session_id, id)
);
CREATE UNIQUE INDEX IF NOT EXISTS strings_value ON strings(session_id, value);

CREATE TABLE IF NOT EXISTS kernels (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER NOT NULL,
	device_id INTEGER NOT NULL,
	context_id INTEGER,
	stream_id INTEGER,
	correlation_id INTEGER,
	name_id INTEGER NOT NULL,	-- strings.id: demangled name
	mangled_id INTEGER,		-- strings.id: mangled name, NULL when unknown
	grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
	block_x INTEGER, block_y INTEGER, block_z INTEGER,
	cluster_x INTEGER, cluster_y INTEGER, cluster_z INTEGER,
	registers INTEGER,		-- per thread
	static_smem INTEGER,		-- bytes per block; NULL when the source gives only the total (Kineto)
	dynamic_smem INTEGER,		-- bytes per block; NULL likewise
	local_mem INTEGER,		-- bytes per thread
	graph_id INTEGER,
	graph_node_id INTEGER,
	shared_mem INTEGER		-- shared memory per block, bytes: static + dynamic, or the total a source
					-- reports without its parts (Kineto's "shared memory"); NULL when unknown.
					-- Added in schema version 4 (gpuprof-ingest adds it to older databases)
);

CREATE TABLE IF NOT EXISTS memcpys (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER NOT NULL,
	device_id INTEGER NOT NULL,
	context_id INTEGER,
	stream_id INTEGER,
	correlation_id INTEGER,
	kind INTEGER NOT NULL,		-- 1 HtoD, 2 DtoH, 8 DtoD, 9 HtoH, 10 PtoP (CUPTI numbering; see copy_kinds)
	src_kind INTEGER,		-- memory kinds (see memory_kinds)
	dst_kind INTEGER,
	bytes INTEGER NOT NULL,
	src_device INTEGER,		-- peer copies; NULL otherwise
	dst_device INTEGER,
	async INTEGER
);

CREATE TABLE IF NOT EXISTS memsets (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER NOT NULL,
	device_id INTEGER NOT NULL,
	context_id INTEGER,
	stream_id INTEGER,
	correlation_id INTEGER,
	bytes INTEGER NOT NULL,
	value INTEGER,
	mem_kind INTEGER
);

CREATE TABLE IF NOT EXISTS syncs (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER NOT NULL,
	device_id INTEGER,		-- NULL when unknown
	context_id INTEGER,
	stream_id INTEGER,		-- NULL for context syncs
	correlation_id INTEGER,
	kind INTEGER NOT NULL,		-- 1 event sync, 2 stream wait event, 3 stream sync, 4 context sync
	event_id INTEGER,
	thread_id INTEGER
);

CREATE TABLE IF NOT EXISTS memory_events (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	device_id INTEGER,
	context_id INTEGER,
	stream_id INTEGER,
	correlation_id INTEGER,
	op INTEGER NOT NULL,		-- 1 allocation, 2 free
	mem_kind INTEGER,		-- see memory_kinds
	address INTEGER,		-- NULL where the source gives none (Kineto traces of some PyTorch versions)
	bytes INTEGER NOT NULL,
	pc INTEGER,
	site_id INTEGER,		-- strings.id of the allocating site, NULL when unknown
	thread_id INTEGER,
	async INTEGER,
	total_allocated INTEGER,	-- the source's running total after this event, when it has one
	total_reserved INTEGER
);

CREATE TABLE IF NOT EXISTS api_calls (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER NOT NULL,
	thread_id INTEGER,
	correlation_id INTEGER,
	name_id INTEGER,		-- strings.id, e.g. cudaLaunchKernel
	cbid INTEGER,
					-- domain: 1 runtime, 2 driver (said here: SQLite's DROP COLUMN of
					-- external_id fails on a comment after domain's comma)
	domain INTEGER,
	external_id INTEGER		-- Kineto "External id" of a runtime/driver call (the innermost op on its
					-- thread when it was made); NULL when none. Added in schema version 6
);

CREATE TABLE IF NOT EXISTS ranges (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER,			-- NULL when the range never ended
	thread_id INTEGER,
	name_id INTEGER NOT NULL,
	domain_id INTEGER,		-- NULL for the default domain
	kind INTEGER NOT NULL,		-- 1 push/pop, 2 start/end, 3 GPU-side annotation (thread_id holds the stream)
	depth INTEGER,			-- push/pop nesting depth, 0 outermost
	range_id INTEGER
);

CREATE TABLE IF NOT EXISTS markers (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	thread_id INTEGER,
	name_id INTEGER NOT NULL,
	domain_id INTEGER
);

CREATE TABLE IF NOT EXISTS stall_reasons (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL DEFAULT 0,
	device_id INTEGER NOT NULL,
	id INTEGER NOT NULL,		-- the device's reason index
	name TEXT NOT NULL,		-- raw CUPTI name
	PRIMARY KEY (session_id, pid, device_id, id)
);

CREATE TABLE IF NOT EXISTS pc_samples (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER,
	device_id INTEGER NOT NULL,
	function_id INTEGER,		-- strings.id
	cubin_crc INTEGER,
	pc_offset INTEGER,
	stall_reason_id INTEGER NOT NULL,	-- joins stall_reasons on (session_id, pid, device_id, id)
	samples INTEGER NOT NULL,
	correlation_id INTEGER,
	file_id INTEGER,		-- strings.id of the source file, NULL when unknown
	line INTEGER
);

-- PC sampling's totals, one row per buffer CUPTI filled (wire format 3's pc_total): every sample taken
-- (total_samples: those of pc_samples, those of kernels CUPTI gives no PCs for (non_user_samples: the
-- driver's own kernels) and those dropped (dropped_samples, also in drops), all stall reasons counted).
CREATE TABLE IF NOT EXISTS pc_totals (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	device_id INTEGER NOT NULL,
	total_samples INTEGER NOT NULL,
	non_user_samples INTEGER NOT NULL,
	dropped_samples INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS device_metrics (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	device_id INTEGER NOT NULL,
	gpu_util INTEGER,		-- percent
	mem_util INTEGER,		-- percent
	mem_used INTEGER,		-- bytes
	mem_total INTEGER,
	temp_c INTEGER,
	power_mw INTEGER,
	sm_clock_mhz INTEGER,
	energy_mj INTEGER
);

-- The last four columns (schema version 5) are the system's I/O counters at the sample, since boot, NULL
-- where unknown: bytes read from and written to whole disks (/proc/diskstats sectors x 512, partitions
-- not counted again) and received and sent by network interfaces other than lo (/proc/net/dev). Rates are
-- differences between samples (the `host` analysis).
CREATE TABLE IF NOT EXISTS host_metrics (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	cpu_pct REAL,			-- percent of one core, process tree
	rss_bytes INTEGER,
	sys_mem_used INTEGER,
	sys_mem_total INTEGER,
	disk_read_bytes INTEGER,	-- whole disks, since boot
	disk_write_bytes INTEGER,
	net_rx_bytes INTEGER,		-- interfaces but lo, since boot
	net_tx_bytes INTEGER
);

-- Operators that carry a FLOP count (schema version 5): PyTorch profiler traces recorded with
-- with_flops=True give CPU ops ("cpu_op") an arg "flops", the floating-point operations the op's formula
-- counts (matrix products and convolutions: 2 per multiply-add). Only ops with a count are kept. The
-- kernels an op launched are those whose launch call (api_calls, same pid and correlation id) was made on
-- its thread while it ran (the `flops` analysis).
CREATE TABLE IF NOT EXISTS flop_ops (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER NOT NULL,
	thread_id INTEGER,
	name_id INTEGER NOT NULL,	-- strings.id: the op, e.g. aten::mm
	flops INTEGER NOT NULL,
	dtype_id INTEGER,		-- strings.id: the type of its first tensor input ("float", "c10::BFloat16"), NULL when unknown
	external_id INTEGER		-- Kineto's "External id", 0 when none
);

-- PyTorch operators (schema version 6): Kineto cpu_op (PyTorch 1.8-1.9: cat "Operator") events, and NVTX
-- push/pop ranges written by torch.autograd.profiler.emit_nvtx ("NAME, seq = N, op_id = M, sizes = [[...]],
-- input_op_ids = [(id,out), ...]") in Nsight Systems exports and gpuprof sessions (those stay ranges too).
-- An op's children are the ops of its thread inside it; the runtime calls it made, those of its thread
-- inside it (api_calls.external_id names the innermost one in Kineto traces).
CREATE TABLE IF NOT EXISTS ops (
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
CREATE INDEX IF NOT EXISTS ops_thread ON ops(session_id, pid, thread_id, start_ns);

-- Forward -> backward links (schema version 6): Kineto flow events "fwdbwd" (before late 2022
-- "forward_backward"): the "s" end sits on the forward op, the "f" end on the backward op (another
-- thread: autograd's). The ends are stored as the trace gives them; the op of an end is the op of that
-- (session, pid, thread) whose start_ns equals the end's time with a non-NULL seq (the longest such op when
-- several). A flow id with only one end is not a link: it is counted in ingest_skipped.
CREATE TABLE IF NOT EXISTS op_links (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	flow_id INTEGER NOT NULL,	-- the flow's id
	fwd_thread_id INTEGER,
	fwd_ns INTEGER NOT NULL,	-- the "s" event's time (absolute ns, like every time)
	bwd_thread_id INTEGER,
	bwd_ns INTEGER NOT NULL		-- the "f" event's time
);

-- What CUPTI and the driver cost the program itself (CUPTI_ACTIVITY_KIND_OVERHEAD): activity buffer flushes
-- and requests, instrumentation, lazy function loading, a full command buffer, ... One row per record. A
-- record CUPTI could not time (it gives 0 for both) is kept with start_ns and end_ns NULL: it still says
-- what happened, and it counts but adds no time. The object an overhead belongs to fills thread_id (a
-- thread), device_id (a device, context or stream), context_id (a context or stream) and stream_id (a
-- stream); the others are NULL.
CREATE TABLE IF NOT EXISTS overheads (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER,		-- NULL when CUPTI could not time it
	end_ns INTEGER,
	kind INTEGER NOT NULL,		-- CUPTI overhead kind (see overhead_kinds)
	object_kind INTEGER NOT NULL,	-- 1 process, 2 thread, 3 device, 4 context, 5 stream (see object_kinds)
	thread_id INTEGER,
	device_id INTEGER,
	context_id INTEGER,
	stream_id INTEGER,
	correlation_id INTEGER		-- the API call that caused it, 0 when none (buffer flushes)
);

-- Device allocations that failed for want of memory (schema version 5, wire format 3): one row per attempt
-- (PyTorch's caching allocator frees its cache and tries again: two rows). From the collector, the
-- runtime or driver call (cudaMalloc, cudaMallocAsync, cudaMallocManaged, cudaMallocPitch, cudaMalloc3D,
-- cuMemAlloc*, cuMemCreate, ...) that returned out of memory, with the size it asked for, read from the
-- call's parameters at its return (CUPTI's API records carry the return code, not the size); its API
-- record has the same correlation_id. From Kineto traces, PyTorch's `[OutOfMemory]` events.
CREATE TABLE IF NOT EXISTS alloc_failures (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,		-- when the call returned (Kineto: the event's time)
	device_id INTEGER,		-- NULL when unknown
	thread_id INTEGER,		-- the calling host thread (0 unknown)
	correlation_id INTEGER,		-- the call's API record (0 unknown)
	bytes INTEGER NOT NULL,		-- bytes requested
	call_id INTEGER,		-- strings.id of the call (cudaMalloc), NULL when the source names none
	cbid INTEGER,			-- CUPTI callback id (0 unknown)
	domain INTEGER,			-- 1 runtime, 2 driver, 0 unknown (Kineto)
	result INTEGER,			-- the return code (cudaError_t, CUresult; 2 out of memory), NULL unknown
	mem_kind INTEGER,		-- see memory_kinds: 3 device, 5 managed, 0 unknown
	total_allocated INTEGER,	-- the allocator's totals then, when the source has them (Kineto)
	total_reserved INTEGER,
	path_id INTEGER			-- strings.id of the NVTX path open on the thread then, as the collector
					-- recorded it (ranges' form: step/forward); NULL when none (Kineto)
);

CREATE TABLE IF NOT EXISTS drops (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER,
	source TEXT NOT NULL,		-- cupti, ring, pcsampling, hwbuffer, wire (missing batches), memory
					-- (the collector found none for a record), ingest
	what TEXT NOT NULL,		-- records, samples, events, batches, "kernel records" (memory);
					-- ingest from nsys: "TABLE rows (not read)"
	count INTEGER NOT NULL
);

-- Trace windows (gpuprof-collect --trace-window ON/EVERY): the times a process traced its activity, one
-- row each. A session with none traced throughout. Kernels, copies, memsets, syncs, API calls and ranges
-- exist only inside a window: each window ends at the later of when tracing went off and the end of the
-- last record it holds (a kernel launched inside runs to its end), and a range still open when it closed
-- was left out (ranges_cut). Memory allocations, devices, NVML and host metrics are recorded throughout.
-- Analyses count only traced time (idle, gaps, span); the summary and problems say how much was traced.
CREATE TABLE IF NOT EXISTS trace_windows (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER,			-- NULL only while ingest reads the file (then the process's end)
	ranges_cut INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, pid, start_ns)
);

CREATE TABLE IF NOT EXISTS collector_errors (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER,
	what TEXT,
	reason TEXT NOT NULL
);

-- Rejected input, one row each. For an Nsight Systems export: file is the export, line the rowid of the
-- rejected row in its table (0 for a table without rowids), reason "TABLE rowid N: what is wrong" (e.g.
-- 'CUPTI_ACTIVITY_KIND_KERNEL rowid 17: "start" is text, not an integer') and excerpt the offending value
-- as "column = value" ("start = 'abc'", "end = NULL"). For a Kineto trace: an event or top-level member that
-- is no valid JSON (nested too deeply, say), line 0, reason "byte N: trace event nested deeper than 512 arrays
-- and objects", excerpt its first 120 bytes.
CREATE TABLE IF NOT EXISTS ingest_errors (
	id INTEGER PRIMARY KEY,
	session_id INTEGER,		-- NULL when the session itself could not be read
	file TEXT NOT NULL,
	line INTEGER,			-- 1-based line (NDJSON), the rowid (nsys), or 0 when neither
	reason TEXT NOT NULL,
	excerpt TEXT,			-- the start of the offending line; nsys: the offending value
	ingested_at TEXT NOT NULL
);

-- What an input held that no rule of the reader turned into a record, one row per file, category and
-- phase. Kineto traces: CPU operators, Python functions, flow arrows, metadata, and any category this
-- version does not know; gpu_events counts those that look like GPU work: complete ("X") events on a GPU's
-- pid, or whose category names GPU work (kernel, memcpy, memset, gpu, cuda, nccl, ..., or starting with hip or roc). Nsight Systems
-- exports: the rows of each GPU-activity table gpuprof does not read (category = the table's name, ph '',
-- every row counted in gpu_events). gpuprof-ingest warns when gpu_events is not 0, and exits 3 when such
-- events were skipped and no kernel, memcpy or memset was read (with a row in ingest_errors).
CREATE TABLE IF NOT EXISTS ingest_skipped (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,		-- processes.pid of the process the file became
	file TEXT NOT NULL,
	category TEXT NOT NULL,		-- the event's "cat", '' when it has none; nsys: the table
	ph TEXT NOT NULL,		-- the event's phase ("X", "i", "M", "s", "f", ...), '' when none
	events INTEGER NOT NULL,
	gpu_events INTEGER NOT NULL
);

-- ---- schema version 6: ingest_repairs (branch bytes; kept as one block for the merge of version 6) ----
-- What gpuprof-ingest changed in the text it stored, so that what is stored is valid UTF-8: per process
-- and kind, how many it replaced with U+FFFD. what: 'invalid UTF-8' (invalid sequences in any string of
-- the input: names, arguments, host names, an nsys export's TEXT; a string of the strings table counted
-- once per session, when it is first stored) or 'NUL' (\u0000 escapes of a JSON input, which no C string
-- holds). The ingest warned of them ("FILE: 3 invalid UTF-8 sequences and 1 NUL replaced with U+FFFD");
-- the rest of the data is as read.
CREATE TABLE IF NOT EXISTS ingest_repairs (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,		-- processes.pid of the process the text belonged to
	file TEXT NOT NULL,		-- the file it came from (the input as given when the reader knows no file)
	what TEXT NOT NULL,		-- 'invalid UTF-8' or 'NUL'
	count INTEGER NOT NULL		-- sequences (characters) replaced with U+FFFD
);
-- ---- end of schema version 6's ingest_repairs ----

-- Column chunks: kernels and api_calls kept a second time, as compressed columns, so that analyses load
-- millions of rows in a fraction of the time SQLite needs to decode them. A cache, not data: the blob
-- format is lib/colstore.h's, and the tables above stay the truth. gpuprof-ingest writes the chunks with
-- the rows; the triggers below delete a session's chunks when anything else changes its rows, and
-- analyses use them only while `column_sets` has a row for every process of the session
-- (`gpuprof-ingest --reindex` rebuilds them). Emptying them is safe (`DELETE FROM column_sets` is enough):
-- analyses then read the rows. The tables themselves belong to schema version 2 and later: without them
-- analyses stop until `gpuprof-ingest --reindex` makes them again.
CREATE TABLE IF NOT EXISTS column_chunks (
	id INTEGER PRIMARY KEY,		-- chunks in table order
	tbl TEXT NOT NULL,		-- 'kernels' or 'api_calls'
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	first_row INTEGER NOT NULL,	-- position of its first row among the session's rows of tbl
	rows INTEGER NOT NULL,
	base_ns INTEGER NOT NULL,	-- start_ns values are stored relative to this
	data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS column_chunks_session ON column_chunks(tbl, session_id);

-- One row per process and table whose rows are all in column_chunks.
CREATE TABLE IF NOT EXISTS column_sets (
	session_id INTEGER NOT NULL,
	hostname TEXT NOT NULL,
	pid INTEGER NOT NULL,
	tbl TEXT NOT NULL,
	rows INTEGER NOT NULL
);

-- A row written, changed or deleted by anything but ingest retires its session's chunks of that table
-- (WHEN: the first row of a bulk change does it, the others find nothing left to retire).
CREATE TRIGGER IF NOT EXISTS kernels_columns_insert AFTER INSERT ON kernels
WHEN EXISTS (SELECT 1 FROM column_sets WHERE tbl = 'kernels' AND session_id = NEW.session_id) BEGIN
	DELETE FROM column_chunks WHERE tbl = 'kernels' AND session_id = NEW.session_id;
	DELETE FROM column_sets WHERE tbl = 'kernels' AND session_id = NEW.session_id; END;
CREATE TRIGGER IF NOT EXISTS kernels_columns_update AFTER UPDATE ON kernels
WHEN EXISTS (SELECT 1 FROM column_sets WHERE tbl = 'kernels' AND session_id IN (OLD.session_id, NEW.session_id)) BEGIN
	DELETE FROM column_chunks WHERE tbl = 'kernels' AND session_id IN (OLD.session_id, NEW.session_id);
	DELETE FROM column_sets WHERE tbl = 'kernels' AND session_id IN (OLD.session_id, NEW.session_id); END;
CREATE TRIGGER IF NOT EXISTS kernels_columns_delete AFTER DELETE ON kernels
WHEN EXISTS (SELECT 1 FROM column_sets WHERE tbl = 'kernels' AND session_id = OLD.session_id) BEGIN
	DELETE FROM column_chunks WHERE tbl = 'kernels' AND session_id = OLD.session_id;
	DELETE FROM column_sets WHERE tbl = 'kernels' AND session_id = OLD.session_id; END;
CREATE TRIGGER IF NOT EXISTS api_calls_columns_insert AFTER INSERT ON api_calls
WHEN EXISTS (SELECT 1 FROM column_sets WHERE tbl = 'api_calls' AND session_id = NEW.session_id) BEGIN
	DELETE FROM column_chunks WHERE tbl = 'api_calls' AND session_id = NEW.session_id;
	DELETE FROM column_sets WHERE tbl = 'api_calls' AND session_id = NEW.session_id; END;
CREATE TRIGGER IF NOT EXISTS api_calls_columns_update AFTER UPDATE ON api_calls
WHEN EXISTS (SELECT 1 FROM column_sets WHERE tbl = 'api_calls' AND session_id IN (OLD.session_id, NEW.session_id)) BEGIN
	DELETE FROM column_chunks WHERE tbl = 'api_calls' AND session_id IN (OLD.session_id, NEW.session_id);
	DELETE FROM column_sets WHERE tbl = 'api_calls' AND session_id IN (OLD.session_id, NEW.session_id); END;
CREATE TRIGGER IF NOT EXISTS api_calls_columns_delete AFTER DELETE ON api_calls
WHEN EXISTS (SELECT 1 FROM column_sets WHERE tbl = 'api_calls' AND session_id = OLD.session_id) BEGIN
	DELETE FROM column_chunks WHERE tbl = 'api_calls' AND session_id = OLD.session_id;
	DELETE FROM column_sets WHERE tbl = 'api_calls' AND session_id = OLD.session_id; END;

-- Lookup tables for the CUPTI enumerations used above.
CREATE TABLE IF NOT EXISTS copy_kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT OR IGNORE INTO copy_kinds VALUES
	(0, 'unknown'), (1, 'HtoD'), (2, 'DtoH'), (3, 'HtoA'), (4, 'AtoH'), (5, 'AtoA'), (6, 'AtoD'),
	(7, 'DtoA'), (8, 'DtoD'), (9, 'HtoH'), (10, 'PtoP');
CREATE TABLE IF NOT EXISTS memory_kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT OR IGNORE INTO memory_kinds VALUES
	(0, 'unknown'), (1, 'pageable'), (2, 'pinned'), (3, 'device'), (4, 'array'), (5, 'managed'),
	(6, 'device static'), (7, 'managed static');
CREATE TABLE IF NOT EXISTS sync_kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT OR IGNORE INTO sync_kinds VALUES
	(0, 'unknown'), (1, 'event sync'), (2, 'stream wait event'), (3, 'stream sync'), (4, 'context sync');

CREATE TABLE IF NOT EXISTS overhead_kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT OR IGNORE INTO overhead_kinds VALUES
	(0, 'unknown'), (1, 'driver compiler'), (65536, 'CUPTI buffer flush'), (131072, 'CUPTI instrumentation'),
	(196608, 'CUPTI resource'), (262144, 'runtime module loading'), (327680, 'lazy function loading'),
	(393216, 'command buffer full'), (458752, 'activity buffer request'), (524288, 'UVM activity init');
CREATE TABLE IF NOT EXISTS object_kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT OR IGNORE INTO object_kinds VALUES
	(0, 'unknown'), (1, 'process'), (2, 'thread'), (3, 'device'), (4, 'context'), (5, 'stream');

-- The version (lib/db.h's DB_SCHEMA_VERSION): the last statements, so a database is marked only once made.
INSERT OR REPLACE INTO meta VALUES ('schema_version', '6');
PRAGMA application_id = 1196446278;
PRAGMA user_version = 6;
