-- busy: what the busy-time union per device is computed from (C code in analyses.c merges intervals).
-- Statement 1: the devices the source declared, so a device that ran nothing is shown too.
SELECT DISTINCT id FROM devices WHERE session_id = :session;

-- Statement 2: every kernel's interval.
SELECT device_id, start_ns, end_ns FROM kernels WHERE session_id = :session;
