-- devices: every GPU of the session, those the source declared (shown even when they ran nothing) and
-- those that ran something, by id: kernel-only figures (count, summed time, the union of their
-- intervals), the GPU span and busy time as gpu_busy defines them (see summary.sql: kernels, copies and
-- memsets; gpu_busy is C for the reason given there), and the device's properties (its first process's).
WITH props AS (
	SELECT id, sms, memory_bytes, cc_major || '.' || cc_minor AS cc, name,
	       row_number() OVER (PARTITION BY id ORDER BY pid) AS nth
	FROM devices WHERE session_id = :session
)
SELECT b.device_id AS device, b.kernels, b.kernel_ns, b.kernel_busy_ns, b.span_ns, b.busy_ns,
       CASE WHEN b.span_ns > 0 THEN 100.0 * b.busy_ns / b.span_ns END AS busy_pct,
       p.sms, p.memory_bytes, p.cc, p.name
FROM gpu_busy b LEFT JOIN props p ON p.id = b.device_id AND p.nth = 1
WHERE b.session_id = :session
ORDER BY b.device_id;
