-- Schema version 3 (meta says 1; overheads, triggers retiring one session's chunks): what differs from version 2,
-- run on a version-2 database; tests/schema_versions.py runs v1.sql, v2.sql, then this.
-- Made from: git diff 54f9905 8d55d89 -- schemas/session.sql schemas/views.sql, without comments.
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
DROP TRIGGER kernels_columns_insert;
DROP TRIGGER kernels_columns_update;
DROP TRIGGER kernels_columns_delete;
DROP TRIGGER api_calls_columns_insert;
DROP TRIGGER api_calls_columns_update;
DROP TRIGGER api_calls_columns_delete;
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
CREATE TABLE IF NOT EXISTS overhead_kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT OR IGNORE INTO overhead_kinds VALUES
	(0, 'unknown'), (1, 'driver compiler'), (65536, 'CUPTI buffer flush'), (131072, 'CUPTI instrumentation'),
	(196608, 'CUPTI resource'), (262144, 'runtime module loading'), (327680, 'lazy function loading'),
	(393216, 'command buffer full'), (458752, 'activity buffer request'), (524288, 'UVM activity init');
CREATE TABLE IF NOT EXISTS object_kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT OR IGNORE INTO object_kinds VALUES
	(0, 'unknown'), (1, 'process'), (2, 'thread'), (3, 'device'), (4, 'context'), (5, 'stream');
CREATE VIEW IF NOT EXISTS overhead_events AS
SELECT o.session_id, o.pid, o.start_ns, o.end_ns, o.end_ns - o.start_ns AS dur_ns,
       coalesce(ok.name, 'kind ' || o.kind) AS kind, bk.name AS object_kind, o.thread_id, o.device_id,
       o.context_id, o.stream_id, o.correlation_id
FROM overheads o
LEFT JOIN overhead_kinds ok ON ok.id = o.kind
LEFT JOIN object_kinds bk ON bk.id = o.object_kind;
