-- Schema version 4 to 5 (gpuprof-ingest applies it; see session.sql's version table): table
-- trace_windows (wire format 3's window lines) and processes.options (each process's own header options).
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
