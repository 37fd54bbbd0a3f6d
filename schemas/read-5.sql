-- Reading a database of schema version 4 or older as it is (lib/db.c runs it on a read-only connection):
-- what version 5 brought, as TEMP objects that only this connection sees, so that the analyses' SQL reads
-- one schema. The file is not changed; gpuprof-ingest upgrades it for real (migrate-5.sql).
-- host_metrics' I/O counters: a TEMP view of the same name, which unqualified names find first, gives the
-- old rows with the new columns NULL (not sampled then).
CREATE TEMP VIEW host_metrics AS
SELECT *, NULL AS disk_read_bytes, NULL AS disk_write_bytes, NULL AS net_rx_bytes, NULL AS net_tx_bytes
FROM main.host_metrics;
CREATE TEMP TABLE flop_ops (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns INTEGER NOT NULL,
	thread_id INTEGER,
	name_id INTEGER NOT NULL,
	flops INTEGER NOT NULL,
	dtype_id INTEGER,
	external_id INTEGER
);
