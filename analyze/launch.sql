-- launch: launch configurations per kernel name, with theoretical occupancy (grouping and the
-- occupancy calculation are in launch.c: GROUP BY over millions of kernels is a sort in SQLite, and
-- the occupancy rules are a table of architectures).
-- Statement 1: the properties of every device the session declared. Kernels of process pid on device
-- id use the row (pid, id), else the row (0, id) (sources that know no pid, such as Kineto traces).
SELECT pid, id, cc_major, cc_minor, max_threads_per_sm, max_regs_per_sm, max_smem_per_sm
FROM devices WHERE session_id = :session;

-- Statement 2: the launch configuration and duration of every kernel (launch.c leaves out the names
-- --match and --exclude reject). Read in rowid slices on several connections at once (scan.c binds
-- :lo and :hi), when the session has no column chunks (lib/colstore.h) to read instead.
SELECT name_id, pid, device_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers,
       static_smem, dynamic_smem, coalesce(shared_mem, static_smem + dynamic_smem), end_ns - start_ns
FROM kernels
WHERE rowid BETWEEN :lo AND :hi AND (:one_session OR session_id = :session);

-- Statement 3: statement 2 for a database of schema version 3 or older, read as it is (lib/db.h): no
-- kernels.shared_mem, whose value is then static + dynamic, or static_smem alone where dynamic_smem is
-- NULL (Kineto sessions, whose static_smem held the total before version 4).
SELECT name_id, pid, device_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers,
       static_smem, dynamic_smem, coalesce(static_smem + dynamic_smem, static_smem), end_ns - start_ns
FROM kernels
WHERE rowid BETWEEN :lo AND :hi AND (:one_session OR session_id = :session);

-- Statement 4: a name by id.
SELECT value FROM strings WHERE session_id = :session AND id = :id;
