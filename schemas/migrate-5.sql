-- Schema version 4 to 5 (gpuprof-ingest applies it; see session.sql's version table): table
-- trace_windows (wire format 3's window lines), processes.options (each process's own header options) and
-- pc_totals (wire format 3's pc_total batches).
-- Sessions already stored were traced throughout: no windows; their processes' options stay unknown (NULL).
ALTER TABLE processes ADD COLUMN options TEXT;

CREATE TABLE trace_windows (
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
CREATE TABLE pc_totals (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	device_id INTEGER NOT NULL,
	total_samples INTEGER NOT NULL,
	non_user_samples INTEGER NOT NULL,
	dropped_samples INTEGER NOT NULL
);
