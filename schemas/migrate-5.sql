-- Schema version 4 to 5 (gpuprof-ingest applies it; see session.sql's version table), energy branch:
-- host_metrics gains the system's disk and network counters (NULL in the rows already there: not
-- sampled then), and table flop_ops holds the operators that carry a FLOP count. host_metric_events
-- shows the new columns: dropped here, made again from views.sql.
ALTER TABLE host_metrics ADD COLUMN disk_read_bytes INTEGER;
ALTER TABLE host_metrics ADD COLUMN disk_write_bytes INTEGER;
ALTER TABLE host_metrics ADD COLUMN net_rx_bytes INTEGER;
ALTER TABLE host_metrics ADD COLUMN net_tx_bytes INTEGER;
DROP VIEW IF EXISTS host_metric_events;

CREATE TABLE flop_ops (
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
