-- reference: kernel_launches
-- title: Per session, process, device, kernel name and launch configuration: kernels and their time
-- accelerator: SELECT * FROM kernel_launches
-- What the C table kernel_launches (analyze/ext/sqlext_launch.c) computes, in plain SQL: a GROUP BY over
-- every launch field (a NULL field is a value of its own).
-- Speed-up: 47x: the C table 0.99 s (best of 3), this reference 46.45 s (one run);
-- 5M-kernel bench session, sqlite3 shell, rows to /dev/null, 2 cores shared (load 7-10), 2026-11-28.
SELECT session_id, pid, device_id, name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers,
       static_smem, dynamic_smem, shared_mem, count(*) AS calls, sum(dur_ns) AS total_ns
FROM kernel_columns
GROUP BY session_id, pid, device_id, name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers,
	 static_smem, dynamic_smem, shared_mem;
