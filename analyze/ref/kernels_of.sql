-- reference: kernels_of
-- title: The kernels of some names (a JSON array of name ids, :ids)
-- accelerator: SELECT * FROM kernels_of(:ids)
-- What the C table kernels_of (analyze/ext/sqlext_classes.c) gives, in plain SQL: kernel_columns' rows
-- whose name id is in the array, in table order.
-- Speed-up: 1.6x: the C table 3.00 s (best of 3), this reference 4.74 s (one run) (every third name id);
-- 5M-kernel bench session, sqlite3 shell, rows to /dev/null, 2 cores shared (load 7-10), 2026-11-28.
SELECT session_id, pid, device_id, name_id, start_ns, end_ns
FROM kernel_columns
WHERE name_id IN (SELECT value FROM json_each(:ids));
