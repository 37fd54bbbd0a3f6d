-- busy: the devices whose busy time (the union of their kernel intervals, from the shared kernel
-- columns of kernels.sql) summary and devices show; the union is computed in C (summary.c).
-- Statement 1: the devices the source declared, so a device that ran nothing is shown too.
SELECT DISTINCT id FROM devices WHERE session_id = :session;
