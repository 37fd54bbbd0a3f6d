-- Reading a database of schema version 2 as it is (lib/db.c runs it on a read-only connection): version
-- 3's tables, empty, as TEMP tables that only this connection sees, so that the analyses' SQL reads one
-- schema. The file is not changed; gpuprof-ingest upgrades it for real (migrate-3.sql).
CREATE TEMP TABLE overheads (
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
CREATE TEMP TABLE overhead_kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TEMP TABLE object_kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
