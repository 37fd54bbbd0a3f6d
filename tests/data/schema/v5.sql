-- Schema version 5 (what session.sql made from 5ff4702's time until version 6): run on a v4 database;
-- tests/schema_versions.py runs v1.sql to v4.sql, then this: schemas/migrate-5.sql's changes, then the version.
-- gpuprof-ingest remakes the views whenever it opens a database to write.
ALTER TABLE processes ADD COLUMN options TEXT;

CREATE TABLE trace_windows (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER,
	ranges_cut INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, pid, start_ns)
);

CREATE TABLE pc_totals (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	device_id INTEGER NOT NULL,
	total_samples INTEGER NOT NULL,
	non_user_samples INTEGER NOT NULL,
	dropped_samples INTEGER NOT NULL
);

ALTER TABLE host_metrics ADD COLUMN disk_read_bytes INTEGER;
ALTER TABLE host_metrics ADD COLUMN disk_write_bytes INTEGER;
ALTER TABLE host_metrics ADD COLUMN net_rx_bytes INTEGER;
ALTER TABLE host_metrics ADD COLUMN net_tx_bytes INTEGER;
DROP VIEW IF EXISTS host_metric_events;

CREATE TABLE flop_ops (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER NOT NULL,
	thread_id INTEGER,
	name_id INTEGER NOT NULL,
	flops INTEGER NOT NULL,
	dtype_id INTEGER,
	external_id INTEGER
);

CREATE TABLE alloc_failures (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	device_id INTEGER,
	thread_id INTEGER,
	correlation_id INTEGER,
	bytes INTEGER NOT NULL,
	call_id INTEGER,
	cbid INTEGER,
	domain INTEGER,
	result INTEGER,
	mem_kind INTEGER,
	total_allocated INTEGER,
	total_reserved INTEGER,
	path_id INTEGER
);
INSERT OR REPLACE INTO meta VALUES ('schema_version', '5');
PRAGMA user_version = 5;
