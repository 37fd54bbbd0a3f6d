-- idle: per device, how much of the span between its first and last GPU activity it was busy.
-- GPU activity is kernels, copies and memsets; unions and overlaps are computed in C (stats.h).
-- Kernel intervals come from the shared columns of kernels.sql.
-- Statement 1: every copy and memset interval: device, stream (-1 when unknown), start, end.
SELECT device_id, coalesce(stream_id, -1), start_ns, end_ns FROM memcpys WHERE session_id = :session
UNION ALL
SELECT device_id, coalesce(stream_id, -1), start_ns, end_ns FROM memsets WHERE session_id = :session;

-- gaps: what the host was doing comes from the shared API call columns (kernels.sql).
-- Statement 2 (gaps): a call's name.
SELECT value FROM strings WHERE session_id = :session AND id = :id;
