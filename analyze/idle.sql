-- idle: per device, how much of the span between its first and last GPU activity it was busy.
-- GPU activity is kernels, copies and memsets; unions and overlaps are computed in C (stats.h).
-- Statement 1: every GPU interval: device, stream, start, end, and 0 for compute or 1 for copies.
SELECT device_id, stream_id, start_ns, end_ns, 0 FROM kernels WHERE session_id = :session
UNION ALL
SELECT device_id, stream_id, start_ns, end_ns, 1 FROM memcpys WHERE session_id = :session
UNION ALL
SELECT device_id, stream_id, start_ns, end_ns, 1 FROM memsets WHERE session_id = :session;

-- Statement 2 (gaps): what the host was doing: every runtime and driver call.
SELECT a.start_ns, a.end_ns, a.name_id FROM api_calls a WHERE a.session_id = :session;

-- Statement 3 (gaps): a call's name.
SELECT value FROM strings WHERE session_id = :session AND id = :id;
