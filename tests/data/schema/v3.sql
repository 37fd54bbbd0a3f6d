-- Schema version 3 (meta says 1; overheads).
-- Made by: (git show 8d55d89:schemas/session.sql; git show 8d55d89:schemas/views.sql) without comments; tests/schema_versions.py fills it.
CREATE TABLE IF NOT EXISTS meta (
	key TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
	id INTEGER PRIMARY KEY,
	uuid TEXT NOT NULL UNIQUE,
	source TEXT NOT NULL,
	path TEXT,
	program TEXT,
	args TEXT,
	hostname TEXT,
	engine TEXT,
	collector TEXT,
	options TEXT,
	format_version INTEGER,
	origin_ns INTEGER,
	start_ns INTEGER,
	end_ns INTEGER,
	clean_end INTEGER NOT NULL DEFAULT 0,
	ingested_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS processes (
	session_id INTEGER NOT NULL REFERENCES sessions(id),
	pid INTEGER NOT NULL,
	ppid INTEGER,
	hostname TEXT NOT NULL DEFAULT '',
	program TEXT,
	args TEXT,
	file TEXT,
	origin_ns INTEGER,
	end_ns INTEGER,
	clean_end INTEGER NOT NULL DEFAULT 0,
	rank INTEGER,
	PRIMARY KEY (session_id, hostname, pid)
);
CREATE TABLE IF NOT EXISTS devices (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL DEFAULT 0,
	id INTEGER NOT NULL,
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
	name_id INTEGER NOT NULL,
	mangled_id INTEGER,
	grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
	block_x INTEGER, block_y INTEGER, block_z INTEGER,
	cluster_x INTEGER, cluster_y INTEGER, cluster_z INTEGER,
	registers INTEGER,
	static_smem INTEGER,
	dynamic_smem INTEGER,
	local_mem INTEGER,
	graph_id INTEGER,
	graph_node_id INTEGER
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
	kind INTEGER NOT NULL,
	src_kind INTEGER,
	dst_kind INTEGER,
	bytes INTEGER NOT NULL,
	src_device INTEGER,
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
	device_id INTEGER,
	context_id INTEGER,
	stream_id INTEGER,
	correlation_id INTEGER,
	kind INTEGER NOT NULL,
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
	op INTEGER NOT NULL,
	mem_kind INTEGER,
	address INTEGER,
	bytes INTEGER NOT NULL,
	pc INTEGER,
	site_id INTEGER,
	thread_id INTEGER,
	async INTEGER,
	total_allocated INTEGER,
	total_reserved INTEGER
);
CREATE TABLE IF NOT EXISTS api_calls (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER NOT NULL,
	thread_id INTEGER,
	correlation_id INTEGER,
	name_id INTEGER,
	cbid INTEGER,
	domain INTEGER
);
CREATE TABLE IF NOT EXISTS ranges (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER,
	thread_id INTEGER,
	name_id INTEGER NOT NULL,
	domain_id INTEGER,
	kind INTEGER NOT NULL,
	depth INTEGER,
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
	id INTEGER NOT NULL,
	name TEXT NOT NULL,
	PRIMARY KEY (session_id, pid, device_id, id)
);
CREATE TABLE IF NOT EXISTS pc_samples (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER,
	device_id INTEGER NOT NULL,
	function_id INTEGER,
	cubin_crc INTEGER,
	pc_offset INTEGER,
	stall_reason_id INTEGER NOT NULL,
	samples INTEGER NOT NULL,
	correlation_id INTEGER,
	file_id INTEGER,
	line INTEGER
);
CREATE TABLE IF NOT EXISTS device_metrics (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	device_id INTEGER NOT NULL,
	gpu_util INTEGER,
	mem_util INTEGER,
	mem_used INTEGER,
	mem_total INTEGER,
	temp_c INTEGER,
	power_mw INTEGER,
	sm_clock_mhz INTEGER,
	energy_mj INTEGER
);
CREATE TABLE IF NOT EXISTS host_metrics (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	cpu_pct REAL,
	rss_bytes INTEGER,
	sys_mem_used INTEGER,
	sys_mem_total INTEGER
);
CREATE TABLE IF NOT EXISTS overheads (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER,
	end_ns INTEGER,
	kind INTEGER NOT NULL,
	object_kind INTEGER NOT NULL,
	thread_id INTEGER,
	device_id INTEGER,
	context_id INTEGER,
	stream_id INTEGER,
	correlation_id INTEGER
);
CREATE TABLE IF NOT EXISTS drops (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER,
	source TEXT NOT NULL,
	what TEXT NOT NULL,
	count INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS collector_errors (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER,
	what TEXT,
	reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ingest_errors (
	id INTEGER PRIMARY KEY,
	session_id INTEGER,
	file TEXT NOT NULL,
	line INTEGER,
	reason TEXT NOT NULL,
	excerpt TEXT,
	ingested_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS column_chunks (
	id INTEGER PRIMARY KEY,
	tbl TEXT NOT NULL,
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	first_row INTEGER NOT NULL,
	rows INTEGER NOT NULL,
	base_ns INTEGER NOT NULL,
	data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS column_chunks_session ON column_chunks(tbl, session_id);
CREATE TABLE IF NOT EXISTS column_sets (
	session_id INTEGER NOT NULL,
	hostname TEXT NOT NULL,
	pid INTEGER NOT NULL,
	tbl TEXT NOT NULL,
	rows INTEGER NOT NULL
);
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
INSERT OR IGNORE INTO meta VALUES ('schema_version', '1');
CREATE VIEW IF NOT EXISTS kernel_events AS
SELECT k.session_id, k.pid, k.start_ns, k.end_ns, k.end_ns - k.start_ns AS dur_ns,
       k.device_id, k.stream_id, k.correlation_id, n.value AS name, m.value AS mangled,
       k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z, k.registers,
       k.static_smem, k.dynamic_smem
FROM kernels k
JOIN strings n ON n.session_id = k.session_id AND n.id = k.name_id
LEFT JOIN strings m ON m.session_id = k.session_id AND m.id = k.mangled_id;
CREATE VIEW IF NOT EXISTS hotspots AS
WITH d AS (
	SELECT session_id, name_id, end_ns - start_ns AS dur,
	       row_number() OVER w AS rn,
	       count(*) OVER (PARTITION BY session_id, name_id) AS n,
	       avg(end_ns - start_ns) OVER (PARTITION BY session_id, name_id) AS mean
	FROM kernels
	WINDOW w AS (PARTITION BY session_id, name_id ORDER BY end_ns - start_ns)
), g AS (
	SELECT session_id, name_id, count(*) AS calls, sum(dur) AS total_ns, avg(dur) AS avg_ns,
	       avg(CASE WHEN rn IN ((n + 1) / 2, n / 2 + 1) THEN dur END) AS med_ns,
	       min(dur) AS min_ns, max(dur) AS max_ns,
	       sum((dur - mean) * (dur - mean)) AS ss
	FROM d GROUP BY session_id, name_id
)
SELECT g.session_id, s.value AS name, calls, total_ns, avg_ns, med_ns, min_ns, max_ns,
       CASE WHEN calls > 1 THEN sqrt(ss / (calls - 1)) ELSE 0.0 END AS stddev_ns,
       100.0 * total_ns / sum(total_ns) OVER (PARTITION BY g.session_id) AS time_pct
FROM g JOIN strings s ON s.session_id = g.session_id AND s.id = g.name_id
ORDER BY g.session_id, total_ns DESC, name;
CREATE VIEW IF NOT EXISTS memcpy_events AS
SELECT c.session_id, c.pid, c.start_ns, c.end_ns, c.end_ns - c.start_ns AS dur_ns, c.device_id,
       c.stream_id, ck.name AS kind, sk.name AS src_kind, dk.name AS dst_kind, c.bytes,
       c.src_device, c.dst_device,
       CASE WHEN c.end_ns > c.start_ns THEN c.bytes * 1.0 / (c.end_ns - c.start_ns) END AS gbps
FROM memcpys c
LEFT JOIN copy_kinds ck ON ck.id = c.kind
LEFT JOIN memory_kinds sk ON sk.id = c.src_kind
LEFT JOIN memory_kinds dk ON dk.id = c.dst_kind;
CREATE VIEW IF NOT EXISTS range_events AS
SELECT r.session_id, r.pid, r.thread_id, r.start_ns, r.end_ns, r.end_ns - r.start_ns AS dur_ns,
       n.value AS name, d.value AS domain, CASE r.kind WHEN 1 THEN 'PushPop' WHEN 2 THEN 'StartEnd' ELSE 'GPU' END AS style,
       r.depth
FROM ranges r
JOIN strings n ON n.session_id = r.session_id AND n.id = r.name_id
LEFT JOIN strings d ON d.session_id = r.session_id AND d.id = r.domain_id;
CREATE VIEW IF NOT EXISTS memory_timeline AS
SELECT m.session_id, m.pid, m.device_id, m.ts_ns, CASE m.op WHEN 1 THEN 'alloc' ELSE 'free' END AS op,
       mk.name AS mem_kind, m.address, m.bytes, s.value AS site,
       sum(CASE m.op WHEN 1 THEN m.bytes ELSE -m.bytes END)
	   OVER (PARTITION BY m.session_id, m.pid, m.device_id ORDER BY m.ts_ns, m.rowid) AS live_bytes
FROM memory_events m
LEFT JOIN memory_kinds mk ON mk.id = m.mem_kind
LEFT JOIN strings s ON s.session_id = m.session_id AND s.id = m.site_id;
CREATE VIEW IF NOT EXISTS overhead_events AS
SELECT o.session_id, o.pid, o.start_ns, o.end_ns, o.end_ns - o.start_ns AS dur_ns,
       coalesce(ok.name, 'kind ' || o.kind) AS kind, bk.name AS object_kind, o.thread_id, o.device_id,
       o.context_id, o.stream_id, o.correlation_id
FROM overheads o
LEFT JOIN overhead_kinds ok ON ok.id = o.kind
LEFT JOIN object_kinds bk ON bk.id = o.object_kind;
CREATE VIEW IF NOT EXISTS session_overview AS
SELECT s.id AS session_id, s.uuid, s.source, s.program, s.hostname, s.engine, s.start_ns, s.end_ns,
       s.end_ns - s.start_ns AS span_ns, s.clean_end,
       (SELECT count(*) FROM processes p WHERE p.session_id = s.id) AS processes,
       (SELECT count(*) FROM devices d WHERE d.session_id = s.id) AS devices,
       (SELECT count(*) FROM kernels k WHERE k.session_id = s.id) AS kernels,
       (SELECT coalesce(sum(bytes), 0) FROM memcpys c WHERE c.session_id = s.id) AS memcpy_bytes,
       (SELECT coalesce(sum(count), 0) FROM drops x WHERE x.session_id = s.id) AS dropped
FROM sessions s;
