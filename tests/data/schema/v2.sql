-- Schema version 2 as gpuprof first made it (meta says 1; column chunks, triggers retiring every session's chunks):
-- what differs from version 1 (v1.sql), run on a version-1 database; tests/schema_versions.py runs v1.sql, then this.
-- Made from: git diff 85755fc 54f9905 -- schemas/session.sql schemas/views.sql, without comments.
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
CREATE TRIGGER IF NOT EXISTS kernels_columns_insert AFTER INSERT ON kernels BEGIN
	DELETE FROM column_chunks WHERE tbl = 'kernels'; DELETE FROM column_sets WHERE tbl = 'kernels'; END;
CREATE TRIGGER IF NOT EXISTS kernels_columns_update AFTER UPDATE ON kernels BEGIN
	DELETE FROM column_chunks WHERE tbl = 'kernels'; DELETE FROM column_sets WHERE tbl = 'kernels'; END;
CREATE TRIGGER IF NOT EXISTS kernels_columns_delete AFTER DELETE ON kernels BEGIN
	DELETE FROM column_chunks WHERE tbl = 'kernels'; DELETE FROM column_sets WHERE tbl = 'kernels'; END;
CREATE TRIGGER IF NOT EXISTS api_calls_columns_insert AFTER INSERT ON api_calls BEGIN
	DELETE FROM column_chunks WHERE tbl = 'api_calls'; DELETE FROM column_sets WHERE tbl = 'api_calls'; END;
CREATE TRIGGER IF NOT EXISTS api_calls_columns_update AFTER UPDATE ON api_calls BEGIN
	DELETE FROM column_chunks WHERE tbl = 'api_calls'; DELETE FROM column_sets WHERE tbl = 'api_calls'; END;
CREATE TRIGGER IF NOT EXISTS api_calls_columns_delete AFTER DELETE ON api_calls BEGIN
	DELETE FROM column_chunks WHERE tbl = 'api_calls'; DELETE FROM column_sets WHERE tbl = 'api_calls'; END;
DROP INDEX kernels_session;
DROP INDEX memcpys_session;
DROP INDEX memsets_session;
DROP INDEX syncs_session;
DROP INDEX memory_events_session;
DROP INDEX api_calls_session;
DROP INDEX ranges_session;
DROP INDEX pc_samples_session;
DROP INDEX device_metrics_session;
DROP INDEX host_metrics_session;
DROP VIEW range_events;
CREATE VIEW IF NOT EXISTS range_events AS
SELECT r.session_id, r.pid, r.thread_id, r.start_ns, r.end_ns, r.end_ns - r.start_ns AS dur_ns,
       n.value AS name, d.value AS domain, CASE r.kind WHEN 1 THEN 'PushPop' WHEN 2 THEN 'StartEnd' ELSE 'GPU' END AS style,
       r.depth
FROM ranges r
JOIN strings n ON n.session_id = r.session_id AND n.id = r.name_id
LEFT JOIN strings d ON d.session_id = r.session_id AND d.id = r.domain_id;
