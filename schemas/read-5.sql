-- Reading a database of schema version 4 as it is (lib/db.c runs it on a read-only connection): version
-- 5's trace_windows, empty, as a TEMP table (sessions of version 4 were traced throughout). The file is
-- not changed; gpuprof-ingest upgrades it for real (migrate-5.sql). processes.options is not read by
-- analyses.
CREATE TEMP TABLE trace_windows (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER,
	ranges_cut INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, pid, start_ns)
);
