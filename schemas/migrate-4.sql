-- Schema version 3 to 4 (gpuprof-ingest applies it; see session.sql's version table): kernels.shared_mem
-- and table ingest_skipped. shared_mem of the rows already there is what ingest now writes: static +
-- dynamic, except for Kineto sessions, whose version-3 rows held Kineto's total in static_smem (now in
-- shared_mem, its parts NULL). Kernel column chunks of versions 2 and 3 lack the column: retired first
-- (so that the UPDATEs find nothing for the triggers to do), `gpuprof-ingest --reindex` rebuilds them.
-- kernel_events shows shared_mem: dropped here, made again from views.sql.
DELETE FROM column_chunks WHERE tbl = 'kernels';
DELETE FROM column_sets WHERE tbl = 'kernels';
ALTER TABLE kernels ADD COLUMN shared_mem INTEGER;
UPDATE kernels SET shared_mem = static_smem + dynamic_smem
WHERE session_id NOT IN (SELECT id FROM sessions WHERE source = 'kineto');
UPDATE kernels SET shared_mem = static_smem, static_smem = NULL, dynamic_smem = NULL
WHERE session_id IN (SELECT id FROM sessions WHERE source = 'kineto');
DROP VIEW IF EXISTS kernel_events;

CREATE TABLE ingest_skipped (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	file TEXT NOT NULL,
	category TEXT NOT NULL,
	ph TEXT NOT NULL,
	events INTEGER NOT NULL,
	gpu_events INTEGER NOT NULL
);
