-- Schema version 4 to 5 (gpuprof-ingest applies it; see session.sql's version table).
-- Table trace_windows (wire format 3's window lines), processes.options (each process's own header
-- options) and pc_totals (wire format 3's pc_total batches). Sessions already stored were traced
-- throughout: no windows; their processes' options stay unknown (NULL).
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
	total_reserved INTEGER,
	path_id INTEGER
);
