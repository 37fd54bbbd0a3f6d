-- Schema version 1 to 2 (gpuprof-ingest applies it; see session.sql's version table): the column chunks,
-- as version 2 made them. Version 1's first databases also had an index per event table, which later
-- version-1 builds no longer made: dropped, so that an upgraded database is one made today.
-- The chunk triggers come with step 3, which (re)makes them. View range_events is made again from
-- views.sql: version 1's first one called GPU-side ranges (kind 3) StartEnd.
DROP INDEX IF EXISTS kernels_session;
DROP INDEX IF EXISTS memcpys_session;
DROP INDEX IF EXISTS memsets_session;
DROP INDEX IF EXISTS syncs_session;
DROP INDEX IF EXISTS memory_events_session;
DROP INDEX IF EXISTS api_calls_session;
DROP INDEX IF EXISTS ranges_session;
DROP INDEX IF EXISTS pc_samples_session;
DROP INDEX IF EXISTS device_metrics_session;
DROP INDEX IF EXISTS host_metrics_session;
DROP VIEW IF EXISTS range_events;

CREATE TABLE column_chunks (
	id INTEGER PRIMARY KEY,
	tbl TEXT NOT NULL,
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	first_row INTEGER NOT NULL,
	rows INTEGER NOT NULL,
	base_ns INTEGER NOT NULL,
	data BLOB NOT NULL
);
CREATE INDEX column_chunks_session ON column_chunks(tbl, session_id);

CREATE TABLE column_sets (
	session_id INTEGER NOT NULL,
	hostname TEXT NOT NULL,
	pid INTEGER NOT NULL,
	tbl TEXT NOT NULL,
	rows INTEGER NOT NULL
);
