-- gpuprof's warehouse tables for PostgreSQL: what `gpuprof-export --to postgres` writes, one table per
-- session.db table (schemas/session.sql says what each column means). Keys are global: `session` is the
-- session's uuid (sessions.uuid of session.db) where session.db has its local session_id; names are ids
-- into `strings`, per session (join on session and id). Times are Unix-epoch nanoseconds (bigint),
-- durations ns, sizes bytes. Indexes serve the loader (a session's rows deleted before it is loaded
-- again) and the queries of queries/postgres/. Load: psql -v ON_ERROR_STOP=1 -f DIR/load.sql
--   psql -f schemas/warehouse/postgres.sql

CREATE TABLE IF NOT EXISTS sessions (
	"session" text PRIMARY KEY,
	"source" text NOT NULL,
	"path" text,
	"program" text,
	"args" text,
	"hostname" text,
	"engine" text,
	"collector" text,
	"options" text,
	"format_version" bigint,
	"origin_ns" bigint,
	"start_ns" bigint,
	"end_ns" bigint,
	"clean_end" bigint NOT NULL,
	"ingested_at" text NOT NULL
);

CREATE TABLE IF NOT EXISTS alloc_failures (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"ts_ns" bigint NOT NULL,
	"device_id" bigint,
	"thread_id" bigint,
	"correlation_id" bigint,
	"bytes" bigint NOT NULL,
	"call_id" bigint,
	"cbid" bigint,
	"domain" bigint,
	"result" bigint,
	"mem_kind" bigint,
	"total_allocated" bigint,
	"total_reserved" bigint,
	"path_id" bigint
);

CREATE TABLE IF NOT EXISTS api_calls (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"start_ns" bigint NOT NULL,
	"end_ns" bigint NOT NULL,
	"thread_id" bigint,
	"correlation_id" bigint,
	"name_id" bigint,
	"cbid" bigint,
	"domain" bigint,
	"external_id" bigint
);

CREATE TABLE IF NOT EXISTS collector_errors (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"ts_ns" bigint,
	"what" text,
	"reason" text NOT NULL
);

CREATE TABLE IF NOT EXISTS device_metrics (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"ts_ns" bigint NOT NULL,
	"device_id" bigint NOT NULL,
	"gpu_util" bigint,
	"mem_util" bigint,
	"mem_used" bigint,
	"mem_total" bigint,
	"temp_c" bigint,
	"power_mw" bigint,
	"sm_clock_mhz" bigint,
	"energy_mj" bigint
);

CREATE TABLE IF NOT EXISTS devices (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"id" bigint NOT NULL,
	"name" text,
	"uuid" text,
	"cc_major" bigint,
	"cc_minor" bigint,
	"sms" bigint,
	"memory_bytes" bigint,
	"core_clock_khz" bigint,
	"mem_bandwidth_kbs" bigint,
	"max_threads_per_sm" bigint,
	"max_regs_per_sm" bigint,
	"max_smem_per_sm" bigint
);

CREATE TABLE IF NOT EXISTS drops (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"ts_ns" bigint,
	"source" text NOT NULL,
	"what" text NOT NULL,
	"count" bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS flop_ops (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"start_ns" bigint NOT NULL,
	"end_ns" bigint NOT NULL,
	"thread_id" bigint,
	"name_id" bigint NOT NULL,
	"flops" bigint NOT NULL,
	"dtype_id" bigint,
	"external_id" bigint
);

CREATE TABLE IF NOT EXISTS host_metrics (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"ts_ns" bigint NOT NULL,
	"cpu_pct" double precision,
	"rss_bytes" bigint,
	"sys_mem_used" bigint,
	"sys_mem_total" bigint,
	"disk_read_bytes" bigint,
	"disk_write_bytes" bigint,
	"net_rx_bytes" bigint,
	"net_tx_bytes" bigint
);

CREATE TABLE IF NOT EXISTS ingest_errors (
	"session" text NOT NULL,
	"id" bigint NOT NULL,
	"file" text NOT NULL,
	"line" bigint,
	"reason" text NOT NULL,
	"excerpt" text,
	"ingested_at" text NOT NULL
);

CREATE TABLE IF NOT EXISTS ingest_skipped (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"file" text NOT NULL,
	"category" text NOT NULL,
	"ph" text NOT NULL,
	"events" bigint NOT NULL,
	"gpu_events" bigint NOT NULL
);

-- schema version 6 (branch bytes): text repaired to valid UTF-8 at ingest
CREATE TABLE IF NOT EXISTS ingest_repairs (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"file" text NOT NULL,
	"what" text NOT NULL,
	"count" bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS kernels (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"start_ns" bigint NOT NULL,
	"end_ns" bigint NOT NULL,
	"device_id" bigint NOT NULL,
	"context_id" bigint,
	"stream_id" bigint,
	"correlation_id" bigint,
	"name_id" bigint NOT NULL,
	"mangled_id" bigint,
	"grid_x" bigint,
	"grid_y" bigint,
	"grid_z" bigint,
	"block_x" bigint,
	"block_y" bigint,
	"block_z" bigint,
	"cluster_x" bigint,
	"cluster_y" bigint,
	"cluster_z" bigint,
	"registers" bigint,
	"static_smem" bigint,
	"dynamic_smem" bigint,
	"local_mem" bigint,
	"graph_id" bigint,
	"graph_node_id" bigint,
	"shared_mem" bigint
);

CREATE TABLE IF NOT EXISTS markers (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"ts_ns" bigint NOT NULL,
	"thread_id" bigint,
	"name_id" bigint NOT NULL,
	"domain_id" bigint
);

CREATE TABLE IF NOT EXISTS memcpys (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"start_ns" bigint NOT NULL,
	"end_ns" bigint NOT NULL,
	"device_id" bigint NOT NULL,
	"context_id" bigint,
	"stream_id" bigint,
	"correlation_id" bigint,
	"kind" bigint NOT NULL,
	"src_kind" bigint,
	"dst_kind" bigint,
	"bytes" bigint NOT NULL,
	"src_device" bigint,
	"dst_device" bigint,
	"async" bigint
);

CREATE TABLE IF NOT EXISTS memory_events (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"ts_ns" bigint NOT NULL,
	"device_id" bigint,
	"context_id" bigint,
	"stream_id" bigint,
	"correlation_id" bigint,
	"op" bigint NOT NULL,
	"mem_kind" bigint,
	"address" bigint,
	"bytes" bigint NOT NULL,
	"pc" bigint,
	"site_id" bigint,
	"thread_id" bigint,
	"async" bigint,
	"total_allocated" bigint,
	"total_reserved" bigint
);

CREATE TABLE IF NOT EXISTS memsets (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"start_ns" bigint NOT NULL,
	"end_ns" bigint NOT NULL,
	"device_id" bigint NOT NULL,
	"context_id" bigint,
	"stream_id" bigint,
	"correlation_id" bigint,
	"bytes" bigint NOT NULL,
	"value" bigint,
	"mem_kind" bigint
);

CREATE TABLE IF NOT EXISTS op_links (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"flow_id" bigint NOT NULL,
	"fwd_thread_id" bigint,
	"fwd_ns" bigint NOT NULL,
	"bwd_thread_id" bigint,
	"bwd_ns" bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS ops (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"thread_id" bigint,
	"start_ns" bigint NOT NULL,
	"end_ns" bigint NOT NULL,
	"name_id" bigint NOT NULL,
	"external_id" bigint,
	"seq" bigint,
	"fwd_tid" bigint,
	"record_function_id" bigint,
	"input_dims" text,
	"input_types" text,
	"input_strides" text,
	"concrete_inputs" text,
	"source" bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS overheads (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"start_ns" bigint,
	"end_ns" bigint,
	"kind" bigint NOT NULL,
	"object_kind" bigint NOT NULL,
	"thread_id" bigint,
	"device_id" bigint,
	"context_id" bigint,
	"stream_id" bigint,
	"correlation_id" bigint
);

CREATE TABLE IF NOT EXISTS pc_samples (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"ts_ns" bigint,
	"device_id" bigint NOT NULL,
	"function_id" bigint,
	"cubin_crc" bigint,
	"pc_offset" bigint,
	"stall_reason_id" bigint NOT NULL,
	"samples" bigint NOT NULL,
	"correlation_id" bigint,
	"file_id" bigint,
	"line" bigint
);

CREATE TABLE IF NOT EXISTS pc_totals (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"ts_ns" bigint NOT NULL,
	"device_id" bigint NOT NULL,
	"total_samples" bigint NOT NULL,
	"non_user_samples" bigint NOT NULL,
	"dropped_samples" bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS processes (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"ppid" bigint,
	"hostname" text NOT NULL,
	"program" text,
	"args" text,
	"file" text,
	"origin_ns" bigint,
	"end_ns" bigint,
	"clean_end" bigint NOT NULL,
	"rank" bigint,
	"options" text
);

CREATE TABLE IF NOT EXISTS ranges (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"start_ns" bigint NOT NULL,
	"end_ns" bigint,
	"thread_id" bigint,
	"name_id" bigint NOT NULL,
	"domain_id" bigint,
	"kind" bigint NOT NULL,
	"depth" bigint,
	"range_id" bigint
);

CREATE TABLE IF NOT EXISTS stall_reasons (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"device_id" bigint NOT NULL,
	"id" bigint NOT NULL,
	"name" text NOT NULL
);

CREATE TABLE IF NOT EXISTS strings (
	"session" text NOT NULL,
	"id" bigint NOT NULL,
	"value" text NOT NULL
);

CREATE TABLE IF NOT EXISTS syncs (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"start_ns" bigint NOT NULL,
	"end_ns" bigint NOT NULL,
	"device_id" bigint,
	"context_id" bigint,
	"stream_id" bigint,
	"correlation_id" bigint,
	"kind" bigint NOT NULL,
	"event_id" bigint,
	"thread_id" bigint
);

CREATE TABLE IF NOT EXISTS trace_windows (
	"session" text NOT NULL,
	"pid" bigint NOT NULL,
	"start_ns" bigint NOT NULL,
	"end_ns" bigint,
	"ranges_cut" bigint NOT NULL
);

-- Every table by session: load.sql deletes a session before loading it; the queries pick sessions.
CREATE INDEX IF NOT EXISTS alloc_failures_session ON alloc_failures (session);
CREATE INDEX IF NOT EXISTS api_calls_session ON api_calls (session);
CREATE INDEX IF NOT EXISTS collector_errors_session ON collector_errors (session);
CREATE INDEX IF NOT EXISTS device_metrics_session ON device_metrics (session);
CREATE INDEX IF NOT EXISTS devices_session ON devices (session);
CREATE INDEX IF NOT EXISTS drops_session ON drops (session);
CREATE INDEX IF NOT EXISTS flop_ops_session ON flop_ops (session);
CREATE INDEX IF NOT EXISTS host_metrics_session ON host_metrics (session);
CREATE INDEX IF NOT EXISTS ingest_errors_session ON ingest_errors (session);
CREATE INDEX IF NOT EXISTS ingest_repairs_session ON ingest_repairs (session);
CREATE INDEX IF NOT EXISTS ingest_skipped_session ON ingest_skipped (session);
CREATE INDEX IF NOT EXISTS kernels_session_name ON kernels (session, name_id);
CREATE INDEX IF NOT EXISTS markers_session ON markers (session);
CREATE INDEX IF NOT EXISTS memcpys_session ON memcpys (session);
CREATE INDEX IF NOT EXISTS memory_events_session ON memory_events (session);
CREATE INDEX IF NOT EXISTS memsets_session ON memsets (session);
CREATE INDEX IF NOT EXISTS op_links_session ON op_links (session);
CREATE INDEX IF NOT EXISTS ops_session_thread ON ops (session, pid, thread_id, start_ns);
CREATE INDEX IF NOT EXISTS overheads_session ON overheads (session);
CREATE INDEX IF NOT EXISTS pc_samples_session ON pc_samples (session);
CREATE INDEX IF NOT EXISTS pc_totals_session ON pc_totals (session);
CREATE INDEX IF NOT EXISTS processes_session ON processes (session);
CREATE INDEX IF NOT EXISTS ranges_session ON ranges (session);
CREATE INDEX IF NOT EXISTS stall_reasons_session ON stall_reasons (session);
CREATE UNIQUE INDEX IF NOT EXISTS strings_session_id ON strings (session, id);
CREATE INDEX IF NOT EXISTS syncs_session ON syncs (session);
CREATE INDEX IF NOT EXISTS trace_windows_session ON trace_windows (session);
CREATE INDEX IF NOT EXISTS sessions_start ON sessions (start_ns);
