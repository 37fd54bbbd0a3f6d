-- busy: the GPU activity that defines every device's span and busy time (busy.h): kernels (from the
-- shared kernel columns of kernels.sql), copies and memsets. span = first start to last end of all of
-- them; busy = the union of their intervals (computed in C, busy.c); idle = span - busy.
-- Statement 1: every copy and memset interval: device, stream (-1 when unknown), start, end.
SELECT device_id, coalesce(stream_id, -1), start_ns, end_ns FROM memcpys WHERE session_id = :session
UNION ALL
SELECT device_id, coalesce(stream_id, -1), start_ns, end_ns FROM memsets WHERE session_id = :session;

-- Statement 2: the devices the source declared, so a device that ran nothing is shown too.
SELECT DISTINCT id FROM devices WHERE session_id = :session;
