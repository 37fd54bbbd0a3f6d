-- Reading a database of schema version 4 or older as it is (lib/db.c runs it on a read-only connection):
-- version 5's tables, empty, as TEMP tables that only this connection sees, so that the analyses' SQL
-- reads one schema. The file is not changed; gpuprof-ingest upgrades it for real (migrate-5.sql).

-- alloc_failures (none recorded before version 5).
CREATE TEMP TABLE alloc_failures (
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
	total_reserved INTEGER
);
