-- Schema version 4 to 5 (gpuprof-ingest applies it; see session.sql's version table).
-- Each change of version 5 is its own statement below, apart, so that they merge one by one.

-- alloc_failures: failed device allocations (wire format 3's alloc_fail, Kineto's [OutOfMemory]).
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
	total_reserved INTEGER
);
