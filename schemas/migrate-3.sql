-- Schema version 2 to 3 (gpuprof-ingest applies it; see session.sql's version table): CUPTI's overhead
-- records (table overheads and its two lookup tables). The chunk triggers are made anew: version 2's
-- first ones retired every session's chunks on any change, later ones only the changed session's.
DROP TRIGGER IF EXISTS kernels_columns_insert;
DROP TRIGGER IF EXISTS kernels_columns_update;
DROP TRIGGER IF EXISTS kernels_columns_delete;
DROP TRIGGER IF EXISTS api_calls_columns_insert;
DROP TRIGGER IF EXISTS api_calls_columns_update;
DROP TRIGGER IF EXISTS api_calls_columns_delete;
CREATE TRIGGER kernels_columns_insert AFTER INSERT ON kernels
WHEN EXISTS (SELECT 1 FROM column_sets WHERE tbl = 'kernels' AND session_id = NEW.session_id) BEGIN
	DELETE FROM column_chunks WHERE tbl = 'kernels' AND session_id = NEW.session_id;
	DELETE FROM column_sets WHERE tbl = 'kernels' AND session_id = NEW.session_id; END;
CREATE TRIGGER kernels_columns_update AFTER UPDATE ON kernels
WHEN EXISTS (SELECT 1 FROM column_sets WHERE tbl = 'kernels' AND session_id IN (OLD.session_id, NEW.session_id)) BEGIN
	DELETE FROM column_chunks WHERE tbl = 'kernels' AND session_id IN (OLD.session_id, NEW.session_id);
	DELETE FROM column_sets WHERE tbl = 'kernels' AND session_id IN (OLD.session_id, NEW.session_id); END;
CREATE TRIGGER kernels_columns_delete AFTER DELETE ON kernels
WHEN EXISTS (SELECT 1 FROM column_sets WHERE tbl = 'kernels' AND session_id = OLD.session_id) BEGIN
	DELETE FROM column_chunks WHERE tbl = 'kernels' AND session_id = OLD.session_id;
	DELETE FROM column_sets WHERE tbl = 'kernels' AND session_id = OLD.session_id; END;
CREATE TRIGGER api_calls_columns_insert AFTER INSERT ON api_calls
WHEN EXISTS (SELECT 1 FROM column_sets WHERE tbl = 'api_calls' AND session_id = NEW.session_id) BEGIN
	DELETE FROM column_chunks WHERE tbl = 'api_calls' AND session_id = NEW.session_id;
	DELETE FROM column_sets WHERE tbl = 'api_calls' AND session_id = NEW.session_id; END;
CREATE TRIGGER api_calls_columns_update AFTER UPDATE ON api_calls
WHEN EXISTS (SELECT 1 FROM column_sets WHERE tbl = 'api_calls' AND session_id IN (OLD.session_id, NEW.session_id)) BEGIN
	DELETE FROM column_chunks WHERE tbl = 'api_calls' AND session_id IN (OLD.session_id, NEW.session_id);
	DELETE FROM column_sets WHERE tbl = 'api_calls' AND session_id IN (OLD.session_id, NEW.session_id); END;
CREATE TRIGGER api_calls_columns_delete AFTER DELETE ON api_calls
WHEN EXISTS (SELECT 1 FROM column_sets WHERE tbl = 'api_calls' AND session_id = OLD.session_id) BEGIN
	DELETE FROM column_chunks WHERE tbl = 'api_calls' AND session_id = OLD.session_id;
	DELETE FROM column_sets WHERE tbl = 'api_calls' AND session_id = OLD.session_id; END;

CREATE TABLE overheads (
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
-- Their rows come from session.sql (INSERT OR IGNORE), applied after the steps.
CREATE TABLE overhead_kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE object_kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
