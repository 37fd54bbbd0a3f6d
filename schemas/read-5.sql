-- Reading a database of schema version 4 as it is (lib/db.c runs it on a read-only connection): version
-- 5's trace_windows and pc_totals, empty, as TEMP tables (sessions of version 4 were traced throughout). The file is
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

-- PC sampling's totals, one row per buffer CUPTI filled (wire format 3's pc_total): every sample taken
-- (total_samples: those of pc_samples, those of kernels CUPTI gives no PCs for (non_user_samples: the
-- driver's own kernels) and those dropped (dropped_samples, also in drops), all stall reasons counted).
CREATE TEMP TABLE pc_totals (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	device_id INTEGER NOT NULL,
	total_samples INTEGER NOT NULL,
	non_user_samples INTEGER NOT NULL,
	dropped_samples INTEGER NOT NULL
);
