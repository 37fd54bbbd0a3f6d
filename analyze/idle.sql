-- idle: GPU idle time per device that ran something (a declared device that ran nothing is in devices
-- only): span, busy and idle time as gpu_busy defines them (see summary.sql: busy = the union of kernels,
-- copies and memsets; gpu_busy is C for the reason given there), the union of kernels alone and of copies
-- and memsets alone, and their overlap: how much of the copy time kernels hid.
SELECT g.rank, g.host, device_id AS device, span_ns, busy_ns, idle_ns,
       CASE WHEN span_ns > 0 THEN 100.0 * idle_ns / span_ns END AS idle_pct,
       kernel_busy_ns, copy_busy_ns, overlap_ns,
       CASE WHEN copy_busy_ns > 0 THEN 100.0 * overlap_ns / copy_busy_ns END AS overlap_pct
FROM gpu_busy b LEFT JOIN temp.gpu_node_names g ON g.session_id = :session AND g.node = b.node
WHERE b.session_id = :session AND first_ns IS NOT NULL
ORDER BY b.node, device_id;
