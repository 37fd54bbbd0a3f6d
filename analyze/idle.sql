-- analysis: idle
-- title: GPU idle time per device; kernel and copy busy time and their overlap
-- include: views
-- section: 20
-- table: idle GPU idle time per device (busy = union of kernels, copies, memsets)
-- column: rank int,hide-group the GPU's rank (its node's), where the source names one; left out in a session of one node
-- column: host text,hide-group the GPU's host, where the source names one; left out in a session of one node
-- column: device int the device number (on its node)
-- column: span_ns ns "GPU span" first start to last end of its kernels, copies and memsets
-- column: busy_ns ns "GPU busy" the union of its kernels, copies and memsets
-- column: idle_ns ns "GPU idle" span_ns - busy_ns
-- column: idle_pct pct idle_ns, % of span_ns
-- column: kernel_busy_ns ns the union of its kernels alone
-- column: copy_busy_ns ns "Copy+memset busy" the union of its copies and memsets alone
-- column: overlap_ns ns "Kernel+copy overlap" time kernels and copies ran at once
-- column: overlap_pct pct "Copy hidden %" overlap_ns, % of copy_busy_ns: how much copy time kernels hid
--
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
