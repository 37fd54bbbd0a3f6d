-- reference: kernel_columns
-- title: The kernels of every session, as the column chunks hold them
-- accelerator: SELECT session_id, pid, start_ns, end_ns, device_id, stream_id, name_id, correlation_id, dur_ns, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_smem, dynamic_smem, shared_mem FROM kernel_columns
-- What the C table kernel_columns (analyze/ext/sqlext_vtab.c) gives: the kernels table's rows with a NULL
-- stream as -1, a NULL correlation id as 0, the duration, and shared_mem the total when a row lacks it
-- (schema version 3 and before: Kineto's static_smem held the total; see the C file). It reads the column
-- chunks where a session has a complete set (a scan without SQLite's record decoding), else these rows.
-- Speed-up: 1.8x: the C table 1.47 s (best of 3), this reference 2.58 s (one run) (SELECT count(*), sum(dur_ns), sum(shared_mem) over each);
-- 5M-kernel bench session, sqlite3 shell, rows to /dev/null, 2 cores shared (load 7-10), 2026-11-28.
SELECT session_id, pid, start_ns, end_ns, device_id, coalesce(stream_id, -1) AS stream_id, name_id,
       coalesce(correlation_id, 0) AS correlation_id, end_ns - start_ns AS dur_ns, grid_x, grid_y, grid_z,
       block_x, block_y, block_z, registers, static_smem, dynamic_smem,
       coalesce(shared_mem, static_smem + dynamic_smem) AS shared_mem
FROM kernels;
