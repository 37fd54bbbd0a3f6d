-- Reading a database of schema version 4 or older as it is (lib/db.c runs it on a read-only connection):
-- what version 5 brought, as TEMP objects that only this connection sees, so that the analyses' SQL reads
-- one schema. The file is not changed; gpuprof-ingest upgrades it for real (migrate-5.sql).
-- trace_windows and pc_totals: empty TEMP tables (sessions before version 5 were traced throughout);
-- processes.options is not read by analyses. host_metrics' I/O counters: a TEMP view of the same name,
-- which unqualified names find first, gives the old rows with the new columns NULL (not sampled then).
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

-- alloc_failures (none recorded before version 5).
CREATE TEMP TABLE alloc_failures (
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
