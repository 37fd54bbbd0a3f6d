-- Schema version 4 before PRAGMA user_version (meta says 2; kernels.shared_mem, ingest_skipped): what differs
-- from version 3, run on a version-3 database; tests/schema_versions.py runs v1.sql, v2.sql, v3.sql, then this.
-- Made from: git diff 8d55d89 6dac820 -- schemas/session.sql schemas/views.sql, without comments (the new
-- column of kernels, last in its CREATE TABLE, is added as ALTER TABLE adds it).
ALTER TABLE kernels ADD COLUMN shared_mem INTEGER;
CREATE TABLE IF NOT EXISTS ingest_skipped (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	file TEXT NOT NULL,
	category TEXT NOT NULL,
	ph TEXT NOT NULL,
	events INTEGER NOT NULL,
	gpu_events INTEGER NOT NULL
);
INSERT OR REPLACE INTO meta VALUES ('schema_version', '2');
DROP VIEW kernel_events;
CREATE VIEW IF NOT EXISTS kernel_events AS
SELECT k.session_id, k.pid, k.start_ns, k.end_ns, k.end_ns - k.start_ns AS dur_ns,
       k.device_id, k.stream_id, k.correlation_id, n.value AS name, m.value AS mangled,
       k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z, k.registers,
       k.static_smem, k.dynamic_smem, coalesce(k.shared_mem, k.static_smem + k.dynamic_smem) AS shared_mem
FROM kernels k
JOIN strings n ON n.session_id = k.session_id AND n.id = k.name_id
LEFT JOIN strings m ON m.session_id = k.session_id AND m.id = k.mangled_id;
