-- analysis: host
-- title: Host metrics: CPU and memory of the program's process tree; system memory, disk and network I/O
-- section: 24
-- table: host Host metrics: the program's process tree and the system
-- column: samples count /proc samples
-- column: cpu_pct_avg pct "CPU avg % of a core" mean CPU of the process tree, % of a core
-- column: cpu_pct_max pct "CPU max %" highest
-- column: rss_max bytes "RSS max" highest resident memory of the process tree
-- column: sys_mem_used_max bytes "System memory used max" most system memory used
-- column: sys_mem_total bytes "System memory" the system's memory
-- column: disk_read_bps bytes,hide-group "Disk read /s" disk bytes read per second, on average
-- column: disk_read_bps_max bytes,hide-group "max /s" fastest step
-- column: disk_write_bps bytes,hide-group "Disk written /s" disk bytes written per second, on average
-- column: disk_write_bps_max bytes,hide-group "max /s" fastest step
-- column: net_rx_bps bytes,hide-group "Net received /s" network bytes received per second, on average
-- column: net_rx_bps_max bytes,hide-group "max /s" fastest step
-- column: net_tx_bps bytes,hide-group "Net sent /s" network bytes sent per second, on average
-- column: net_tx_bps_max bytes,hide-group "max /s" fastest step
--
-- host: what /proc said of the program's process tree and of the system during the session, summarised
-- in one row (none when nothing was sampled).
--
-- The system's disk and network I/O (schema version 5; the columns are left out when no sample has them):
-- host_metrics holds the counters since boot at each sample, and a rate is a difference between two
-- consecutive samples of one process's series over the time between them. The average is the bytes of
-- every such step over their summed time (a session whose processes each sampled the system counts each
-- step once per series, weighted by its time: no bytes counted twice); the maximum the fastest step.
-- A step whose counter fell (a reset, or a sample without it) is left out. Bytes per second, rounded.
WITH steps AS (
	SELECT pid, ts_ns, cpu_pct, rss_bytes, sys_mem_used, sys_mem_total,
	       ts_ns - lag(ts_ns) OVER w AS dt,
	       disk_read_bytes - lag(disk_read_bytes) OVER w AS d_rd,
	       disk_write_bytes - lag(disk_write_bytes) OVER w AS d_wr,
	       net_rx_bytes - lag(net_rx_bytes) OVER w AS d_rx,
	       net_tx_bytes - lag(net_tx_bytes) OVER w AS d_tx
	FROM host_metrics WHERE session_id = :session
	WINDOW w AS (PARTITION BY pid ORDER BY ts_ns, rowid)
)
SELECT count(*) AS samples, avg(cpu_pct) AS cpu_pct_avg, max(cpu_pct) AS cpu_pct_max, max(rss_bytes) AS rss_max,
       max(sys_mem_used) AS sys_mem_used_max, max(sys_mem_total) AS sys_mem_total,
       CAST(round(sum(CASE WHEN dt > 0 AND d_rd >= 0 THEN d_rd END) * 1e9
		  / sum(CASE WHEN dt > 0 AND d_rd >= 0 THEN dt END)) AS INTEGER) AS disk_read_bps,
       CAST(round(max(CASE WHEN dt > 0 AND d_rd >= 0 THEN d_rd * 1e9 / dt END)) AS INTEGER) AS disk_read_bps_max,
       CAST(round(sum(CASE WHEN dt > 0 AND d_wr >= 0 THEN d_wr END) * 1e9
		  / sum(CASE WHEN dt > 0 AND d_wr >= 0 THEN dt END)) AS INTEGER) AS disk_write_bps,
       CAST(round(max(CASE WHEN dt > 0 AND d_wr >= 0 THEN d_wr * 1e9 / dt END)) AS INTEGER) AS disk_write_bps_max,
       CAST(round(sum(CASE WHEN dt > 0 AND d_rx >= 0 THEN d_rx END) * 1e9
		  / sum(CASE WHEN dt > 0 AND d_rx >= 0 THEN dt END)) AS INTEGER) AS net_rx_bps,
       CAST(round(max(CASE WHEN dt > 0 AND d_rx >= 0 THEN d_rx * 1e9 / dt END)) AS INTEGER) AS net_rx_bps_max,
       CAST(round(sum(CASE WHEN dt > 0 AND d_tx >= 0 THEN d_tx END) * 1e9
		  / sum(CASE WHEN dt > 0 AND d_tx >= 0 THEN dt END)) AS INTEGER) AS net_tx_bps,
       CAST(round(max(CASE WHEN dt > 0 AND d_tx >= 0 THEN d_tx * 1e9 / dt END)) AS INTEGER) AS net_tx_bps_max
FROM steps HAVING count(*) > 0;
