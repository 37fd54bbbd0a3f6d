-- analysis: devices
-- title: GPUs: span and busy time (kernels, copies, memsets), kernel-only time, properties
-- include: views
-- section: 5
-- table: devices GPU busy time per device: kernels, copies and memsets over the GPU span
-- column: rank int,hide-group the GPU's rank (its node's), where the source names one; left out in a session of one node
-- column: host text,hide-group the GPU's host, where the source names one; left out in a session of one node
-- column: device int the device number (on its node)
-- column: kernels count kernels it ran
-- column: kernel_ns ns "Kernel time (sum)" their summed durations
-- column: kernel_busy_ns ns the union of their intervals
-- column: span_ns ns "GPU span" first start to last end of its kernels, copies and memsets
-- column: busy_ns ns "GPU busy" the union of its kernels, copies and memsets
-- column: busy_pct pct busy_ns, % of span_ns
-- column: sms int "SMs" streaming multiprocessors
-- column: memory_bytes bytes "Memory" its memory
-- column: cc text "CC" compute capability
-- column: name text the device's name
--
-- devices: every GPU of the session, those the source declared (shown even when they ran nothing) and
-- those that ran something, by id: kernel-only figures (count, summed time, the union of their
-- intervals), the GPU span and busy time as gpu_busy defines them (see summary.sql: kernels, copies and
-- memsets; gpu_busy is C for the reason given there), and the device's properties (its first process's).
-- A GPU is its node's (host, rank; views.sql) and its device number: two ranks' device 0 are two rows.
-- In a session of several nodes, a declared device that ran nothing is left out: each rank of a host
-- declares every GPU of the host, and those it did not use are the other ranks'.
WITH props AS (
	SELECT coalesce(n.node, 0) AS node, d.id, sms, memory_bytes, cc_major || '.' || cc_minor AS cc, name,
	       row_number() OVER (PARTITION BY coalesce(n.node, 0), d.id ORDER BY d.pid) AS nth
	FROM devices d LEFT JOIN temp.gpu_nodes n ON n.session_id = d.session_id AND n.pid = d.pid
	WHERE d.session_id = :session
)
SELECT g.rank, g.host, b.device_id AS device, b.kernels, b.kernel_ns, b.kernel_busy_ns, b.span_ns, b.busy_ns,
       CASE WHEN b.span_ns > 0 THEN 100.0 * b.busy_ns / b.span_ns END AS busy_pct,
       p.sms, p.memory_bytes, p.cc, p.name
FROM gpu_busy b LEFT JOIN props p ON p.node = b.node AND p.id = b.device_id AND p.nth = 1
LEFT JOIN temp.gpu_node_names g ON g.session_id = :session AND g.node = b.node
WHERE b.session_id = :session
  AND (b.first_ns IS NOT NULL OR coalesce((SELECT nodes FROM temp.gpu_sessions WHERE session_id = :session), 1) < 2)
ORDER BY b.node, b.device_id;
