-- memory_growth: the sessions whose peak GPU memory grew over the session before (by start, among those
-- with memory events): the peak of their most used device, as `gpuprof-analyze memory` gives it
-- (peak_bytes), and the previous session's.
--   psql -f memory_growth.sql
-- A device's peak by gpuprof's rules, two of three: where every event carries the source's running total
-- (Kineto's "Total Allocated"), the highest sum over processes of each one's latest total
-- (`total_allocated`); else the highest running sum of signed bytes, 0 at least (`bytes`). gpuprof's
-- third rule, the live bytes of allocations paired with their frees by address (`addresses`: a device
-- whose events all have addresses but not all a total, or whose paired peak is above its total), is not
-- made here: for such a device this peak is the `bytes` one and may differ from gpuprof's. Devices are
-- told by device_id alone (gpuprof also by host or rank). Events at the same nanosecond sum in any
-- order, which can move a peak of several processes or of signed bytes.
WITH e AS (
	SELECT session, coalesce(device_id, -1) AS device, ts_ns, total_allocated,
	       total_allocated - coalesce(lag(total_allocated) OVER (PARTITION BY session, coalesce(device_id, -1), pid
								       ORDER BY ts_ns), 0) AS total_step,
	       CASE WHEN op = 1 THEN bytes ELSE -bytes END AS signed_bytes
	FROM memory_events
),
running AS (
	SELECT session, device, total_allocated,
	       sum(total_step) OVER w AS total_now, sum(signed_bytes) OVER w AS sum_now
	FROM e
	WINDOW w AS (PARTITION BY session, device ORDER BY ts_ns ROWS UNBOUNDED PRECEDING)
),
devices AS (
	SELECT session, device,
	       CASE WHEN count(total_allocated) = count(*) THEN 'total_allocated' ELSE 'bytes' END AS peak_from,
	       CASE WHEN count(total_allocated) = count(*) THEN max(total_now) ELSE greatest(max(sum_now), 0) END AS peak_bytes
	FROM running GROUP BY session, device
),
peaks AS (
	SELECT DISTINCT ON (d.session) d.session, s.start_ns, d.peak_bytes::bigint AS peak_bytes, d.peak_from
	FROM devices d JOIN sessions s ON s.session = d.session
	ORDER BY d.session, d.peak_bytes DESC, d.device
),
ordered AS (
	SELECT p.*, lag(session) OVER o AS prev_session, lag(peak_bytes) OVER o AS prev_peak_bytes
	FROM peaks p
	WINDOW o AS (ORDER BY start_ns, session)
)
SELECT session, start_ns, peak_bytes, peak_from, prev_session, prev_peak_bytes, peak_bytes - prev_peak_bytes AS grew_bytes
FROM ordered
WHERE peak_bytes > prev_peak_bytes
ORDER BY start_ns, session;
