-- gpuprof's warehouse tables for ClickHouse: what `gpuprof-export --to clickhouse` writes (JSONEachRow),
-- one table per session.db table (schemas/session.sql says what each column means). Keys are global:
-- `session` is the session's uuid (sessions.uuid of session.db) where session.db has its local
-- session_id; names are ids into `strings`, per session (join on session and id). Times are Unix-epoch
-- nanoseconds (Int64), durations ns, sizes bytes; NULL where session.db allows it.
--
-- Event tables are MergeTree partitioned by the day of their time (UTC on a server in UTC; rows without a
-- time in 1970-01-01) and ordered by session and time; the small tables by session alone. A partition
-- holds a day of many sessions, so DIR/load.sh deletes a session loaded before with ALTER TABLE ... DELETE
-- (waiting for the mutation) rather than by dropping a partition. Syntax that ClickHouse 18.16 (Debian 12)
-- and current releases both accept.
--   clickhouse-client --multiquery < schemas/warehouse/clickhouse.sql

CREATE TABLE IF NOT EXISTS sessions (
	session String,
	source String,
	path Nullable(String),
	program Nullable(String),
	args Nullable(String),
	hostname Nullable(String),
	engine Nullable(String),
	collector Nullable(String),
	options Nullable(String),
	format_version Nullable(Int64),
	origin_ns Nullable(Int64),
	start_ns Nullable(Int64),
	end_ns Nullable(Int64),
	clean_end Int64,
	ingested_at String
) ENGINE = MergeTree()
ORDER BY session;

CREATE TABLE IF NOT EXISTS alloc_failures (
	session String,
	pid Int64,
	ts_ns Int64,
	device_id Nullable(Int64),
	thread_id Nullable(Int64),
	correlation_id Nullable(Int64),
	bytes Int64,
	call_id Nullable(Int64),
	cbid Nullable(Int64),
	domain Nullable(Int64),
	result Nullable(Int64),
	mem_kind Nullable(Int64),
	total_allocated Nullable(Int64),
	total_reserved Nullable(Int64),
	path_id Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(ts_ns, 1000000000)))
ORDER BY (session, ts_ns);

CREATE TABLE IF NOT EXISTS api_calls (
	session String,
	pid Int64,
	start_ns Int64,
	end_ns Int64,
	thread_id Nullable(Int64),
	correlation_id Nullable(Int64),
	name_id Nullable(Int64),
	cbid Nullable(Int64),
	domain Nullable(Int64),
	external_id Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000)))
ORDER BY (session, start_ns);

CREATE TABLE IF NOT EXISTS collector_errors (
	session String,
	pid Int64,
	ts_ns Nullable(Int64),
	what Nullable(String),
	reason String
) ENGINE = MergeTree()
ORDER BY session;

CREATE TABLE IF NOT EXISTS device_metrics (
	session String,
	pid Int64,
	ts_ns Int64,
	device_id Int64,
	gpu_util Nullable(Int64),
	mem_util Nullable(Int64),
	mem_used Nullable(Int64),
	mem_total Nullable(Int64),
	temp_c Nullable(Int64),
	power_mw Nullable(Int64),
	sm_clock_mhz Nullable(Int64),
	energy_mj Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(ts_ns, 1000000000)))
ORDER BY (session, ts_ns);

CREATE TABLE IF NOT EXISTS devices (
	session String,
	pid Int64,
	id Int64,
	name Nullable(String),
	uuid Nullable(String),
	cc_major Nullable(Int64),
	cc_minor Nullable(Int64),
	sms Nullable(Int64),
	memory_bytes Nullable(Int64),
	core_clock_khz Nullable(Int64),
	mem_bandwidth_kbs Nullable(Int64),
	max_threads_per_sm Nullable(Int64),
	max_regs_per_sm Nullable(Int64),
	max_smem_per_sm Nullable(Int64)
) ENGINE = MergeTree()
ORDER BY session;

CREATE TABLE IF NOT EXISTS drops (
	session String,
	pid Int64,
	ts_ns Nullable(Int64),
	source String,
	what String,
	count Int64
) ENGINE = MergeTree()
ORDER BY session;

CREATE TABLE IF NOT EXISTS flop_ops (
	session String,
	pid Int64,
	start_ns Int64,
	end_ns Int64,
	thread_id Nullable(Int64),
	name_id Int64,
	flops Int64,
	dtype_id Nullable(Int64),
	external_id Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000)))
ORDER BY (session, start_ns);

CREATE TABLE IF NOT EXISTS host_metrics (
	session String,
	pid Int64,
	ts_ns Int64,
	cpu_pct Nullable(Float64),
	rss_bytes Nullable(Int64),
	sys_mem_used Nullable(Int64),
	sys_mem_total Nullable(Int64),
	disk_read_bytes Nullable(Int64),
	disk_write_bytes Nullable(Int64),
	net_rx_bytes Nullable(Int64),
	net_tx_bytes Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(ts_ns, 1000000000)))
ORDER BY (session, ts_ns);

CREATE TABLE IF NOT EXISTS ingest_errors (
	session String,
	id Int64,
	file String,
	line Nullable(Int64),
	reason String,
	excerpt Nullable(String),
	ingested_at String
) ENGINE = MergeTree()
ORDER BY session;

CREATE TABLE IF NOT EXISTS ingest_skipped (
	session String,
	pid Int64,
	file String,
	category String,
	ph String,
	events Int64,
	gpu_events Int64
) ENGINE = MergeTree()
ORDER BY session;

-- schema version 6 (branch bytes): text repaired to valid UTF-8 at ingest
CREATE TABLE IF NOT EXISTS ingest_repairs (
	session String,
	pid Int64,
	file String,
	what String,
	count Int64
) ENGINE = MergeTree()
ORDER BY session;

CREATE TABLE IF NOT EXISTS kernels (
	session String,
	pid Int64,
	start_ns Int64,
	end_ns Int64,
	device_id Int64,
	context_id Nullable(Int64),
	stream_id Nullable(Int64),
	correlation_id Nullable(Int64),
	name_id Int64,
	mangled_id Nullable(Int64),
	grid_x Nullable(Int64),
	grid_y Nullable(Int64),
	grid_z Nullable(Int64),
	block_x Nullable(Int64),
	block_y Nullable(Int64),
	block_z Nullable(Int64),
	cluster_x Nullable(Int64),
	cluster_y Nullable(Int64),
	cluster_z Nullable(Int64),
	registers Nullable(Int64),
	static_smem Nullable(Int64),
	dynamic_smem Nullable(Int64),
	local_mem Nullable(Int64),
	graph_id Nullable(Int64),
	graph_node_id Nullable(Int64),
	shared_mem Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000)))
ORDER BY (session, start_ns);

CREATE TABLE IF NOT EXISTS markers (
	session String,
	pid Int64,
	ts_ns Int64,
	thread_id Nullable(Int64),
	name_id Int64,
	domain_id Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(ts_ns, 1000000000)))
ORDER BY (session, ts_ns);

CREATE TABLE IF NOT EXISTS memcpys (
	session String,
	pid Int64,
	start_ns Int64,
	end_ns Int64,
	device_id Int64,
	context_id Nullable(Int64),
	stream_id Nullable(Int64),
	correlation_id Nullable(Int64),
	kind Int64,
	src_kind Nullable(Int64),
	dst_kind Nullable(Int64),
	bytes Int64,
	src_device Nullable(Int64),
	dst_device Nullable(Int64),
	async Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000)))
ORDER BY (session, start_ns);

CREATE TABLE IF NOT EXISTS memory_events (
	session String,
	pid Int64,
	ts_ns Int64,
	device_id Nullable(Int64),
	context_id Nullable(Int64),
	stream_id Nullable(Int64),
	correlation_id Nullable(Int64),
	op Int64,
	mem_kind Nullable(Int64),
	address Nullable(Int64),
	bytes Int64,
	pc Nullable(Int64),
	site_id Nullable(Int64),
	thread_id Nullable(Int64),
	async Nullable(Int64),
	total_allocated Nullable(Int64),
	total_reserved Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(ts_ns, 1000000000)))
ORDER BY (session, ts_ns);

CREATE TABLE IF NOT EXISTS memsets (
	session String,
	pid Int64,
	start_ns Int64,
	end_ns Int64,
	device_id Int64,
	context_id Nullable(Int64),
	stream_id Nullable(Int64),
	correlation_id Nullable(Int64),
	bytes Int64,
	value Nullable(Int64),
	mem_kind Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000)))
ORDER BY (session, start_ns);

CREATE TABLE IF NOT EXISTS op_links (
	session String,
	pid Int64,
	flow_id Int64,
	fwd_thread_id Nullable(Int64),
	fwd_ns Int64,
	bwd_thread_id Nullable(Int64),
	bwd_ns Int64
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(fwd_ns, 1000000000)))
ORDER BY (session, fwd_ns);

CREATE TABLE IF NOT EXISTS ops (
	session String,
	pid Int64,
	thread_id Nullable(Int64),
	start_ns Int64,
	end_ns Int64,
	name_id Int64,
	external_id Nullable(Int64),
	seq Nullable(Int64),
	fwd_tid Nullable(Int64),
	record_function_id Nullable(Int64),
	input_dims Nullable(String),
	input_types Nullable(String),
	input_strides Nullable(String),
	concrete_inputs Nullable(String),
	source Int64
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000)))
ORDER BY (session, start_ns);

CREATE TABLE IF NOT EXISTS overheads (
	session String,
	pid Int64,
	start_ns Nullable(Int64),
	end_ns Nullable(Int64),
	kind Int64,
	object_kind Int64,
	thread_id Nullable(Int64),
	device_id Nullable(Int64),
	context_id Nullable(Int64),
	stream_id Nullable(Int64),
	correlation_id Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(ifNull(start_ns, 0), 1000000000)))
ORDER BY (session, ifNull(start_ns, 0));

CREATE TABLE IF NOT EXISTS pc_samples (
	session String,
	pid Int64,
	ts_ns Nullable(Int64),
	device_id Int64,
	function_id Nullable(Int64),
	cubin_crc Nullable(Int64),
	pc_offset Nullable(Int64),
	stall_reason_id Int64,
	samples Int64,
	correlation_id Nullable(Int64),
	file_id Nullable(Int64),
	line Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(ifNull(ts_ns, 0), 1000000000)))
ORDER BY (session, ifNull(ts_ns, 0));

CREATE TABLE IF NOT EXISTS pc_totals (
	session String,
	pid Int64,
	ts_ns Int64,
	device_id Int64,
	total_samples Int64,
	non_user_samples Int64,
	dropped_samples Int64
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(ts_ns, 1000000000)))
ORDER BY (session, ts_ns);

CREATE TABLE IF NOT EXISTS processes (
	session String,
	pid Int64,
	ppid Nullable(Int64),
	hostname String,
	program Nullable(String),
	args Nullable(String),
	file Nullable(String),
	origin_ns Nullable(Int64),
	end_ns Nullable(Int64),
	clean_end Int64,
	rank Nullable(Int64),
	options Nullable(String)
) ENGINE = MergeTree()
ORDER BY session;

CREATE TABLE IF NOT EXISTS ranges (
	session String,
	pid Int64,
	start_ns Int64,
	end_ns Nullable(Int64),
	thread_id Nullable(Int64),
	name_id Int64,
	domain_id Nullable(Int64),
	kind Int64,
	depth Nullable(Int64),
	range_id Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000)))
ORDER BY (session, start_ns);

CREATE TABLE IF NOT EXISTS stall_reasons (
	session String,
	pid Int64,
	device_id Int64,
	id Int64,
	name String
) ENGINE = MergeTree()
ORDER BY session;

CREATE TABLE IF NOT EXISTS strings (
	session String,
	id Int64,
	value String
) ENGINE = MergeTree()
ORDER BY session;

CREATE TABLE IF NOT EXISTS syncs (
	session String,
	pid Int64,
	start_ns Int64,
	end_ns Int64,
	device_id Nullable(Int64),
	context_id Nullable(Int64),
	stream_id Nullable(Int64),
	correlation_id Nullable(Int64),
	kind Int64,
	event_id Nullable(Int64),
	thread_id Nullable(Int64)
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000)))
ORDER BY (session, start_ns);

CREATE TABLE IF NOT EXISTS trace_windows (
	session String,
	pid Int64,
	start_ns Int64,
	end_ns Nullable(Int64),
	ranges_cut Int64
) ENGINE = MergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000)))
ORDER BY (session, start_ns);
