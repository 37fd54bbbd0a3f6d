-- analysis: launch
-- title: Launch configurations per kernel: calls, time, theoretical occupancy
-- table: launch Launch configurations per kernel, with theoretical occupancy
-- column: total_ns ns summed duration of the kernels of this configuration
-- column: calls count how many ran
-- column: occupancy_pct pct theoretical occupancy on its device (NVIDIA's calculator), NULL when unknown
-- column: limiter text "Limited by" the limits that set it: warps, registers, shared memory, blocks (or unknown)
-- column: grid_x int grid size
-- column: grid_y int "y" grid size
-- column: grid_z int "z" grid size
-- column: block_x int block size
-- column: block_y int "y" block size
-- column: block_z int "z" block size
-- column: registers int "Regs" registers per thread
-- column: static_smem bytes static shared memory per block
-- column: dynamic_smem bytes dynamic shared memory per block
-- column: shared_mem bytes shared memory per block in all (or Kineto's total)
-- column: name text the kernel's name as shown
--
-- launch: launch configurations per kernel name (grid, block, registers, shared memory), how often each
-- ran and for how long, and the theoretical occupancy it reaches on its device. Rows are sorted by total
-- time (then calls, name, the launch fields with NULL first); --top N keeps the first N; --match and
-- --exclude filter names; --short and --group fold names as in hotspots (a family's configurations merge).
--
-- The kernels' configurations come grouped from kernel_launches (analyze/ext/sqlext_launch.c), per process,
-- device, name id and configuration: the plain
--   SELECT pid, device_id, name_id, grid_x, ..., shared_mem, count(*), sum(dur_ns) FROM kernel_columns
--   WHERE session_id = :session GROUP BY pid, device_id, name_id, grid_x, ..., shared_mem
-- is what it is (tests/vtab.py checks), but SQLite groups through a sorter of every kernel, 13 keys
-- each: 16 s of CPU (35 s wall) on the 5M-kernel bench session, kernel_launches 0.39 s. The rest is
-- plain SQL over the configurations (642 on that session).
--
-- Kernels of process pid on device id take the properties of the devices row (pid, id), else of (0, id)
-- (sources that know no pid, such as Kineto traces); kernels on an undeclared device have none.
-- Configurations merge per kernel name (or family) and distinct property set.
--
-- Occupancy follows NVIDIA's occupancy calculator (cuda_occupancy.h,
-- cudaOccMaxActiveBlocksPerMultiprocessor, default shared-memory carveout, partitioned global caching
-- off): the resident blocks per SM are the least of four limits, and occupancy is the resident warps
-- over the SM's maximum warps.
--   warps          max_threads_per_sm / 32 / warps per block (0 for blocks over 1024 threads)
--   registers      registers are allocated per warp in units of 256, from 4 sub-partitions of
--                  max_regs_per_sm / 4 each: floor(max_regs_per_sm / 4 / regs_per_warp) * 4 warps fit,
--                  divided by warps per block; 0 when a block needs more than 65536 registers (the
--                  hardware check counts warps rounded up to a multiple of 4) or a thread more than 256;
--                  no limit for kernels using none
--   shared memory  shared_mem (static + dynamic, or Kineto's total) + the per-block reserve (1 KB on
--                  cc >= 8.0), rounded up to the allocation unit (256 B before cc 8.0, 128 B since);
--                  max_smem_per_sm over that, 0 when one block needs more than max_smem_per_sm (NVIDIA's
--                  opt-in per-block limit plus the reserve equals it on every listed architecture); no
--                  limit for blocks using none
--   blocks         the architecture's resident-block limit (`arches` below)
-- The limiter names every limit equal to the result, in that order, joined by "+" (e.g.
-- "warps+registers" for a block of 256 threads at 32 registers on an A100, 100 % occupancy).
-- Devices whose compute capability is not in the table, or whose properties are unknown (0 or NULL),
-- and launches without a block shape, registers or shared-memory sizes get occupancy NULL and the
-- limiter "unknown".
WITH
-- Per-architecture limits that the devices table does not carry (cuda_occupancy.h, CUDA 13.0).
arches(major, minor, max_blocks, smem_unit, smem_reserved) AS (VALUES
	(7, 0, 32, 256, 0),		-- Volta
	(7, 2, 32, 256, 0),		-- Xavier
	(7, 5, 16, 256, 0),		-- Turing
	(8, 0, 32, 128, 1024),		-- A100
	(8, 6, 16, 128, 1024),		-- GA10x
	(8, 7, 16, 128, 1024),		-- Orin
	(8, 9, 24, 128, 1024),		-- Ada
	(9, 0, 32, 128, 1024),		-- Hopper
	(10, 0, 32, 128, 1024),		-- Blackwell B200
	(10, 3, 32, 128, 1024),		-- Blackwell B300
	(11, 0, 24, 128, 1024),		-- Thor
	(12, 0, 24, 128, 1024),		-- Blackwell RTX
	(12, 1, 24, 128, 1024)		-- DGX Spark
),
-- The devices' property sets (NULL read as 0: unknown), numbered in (pid, id) order of first use.
devices_(pid, id, cc_major, cc_minor, max_threads, max_regs, max_smem, n) AS (
	SELECT pid, id, coalesce(cc_major, 0), coalesce(cc_minor, 0), coalesce(max_threads_per_sm, 0),
	       coalesce(max_regs_per_sm, 0), coalesce(max_smem_per_sm, 0), row_number() OVER (ORDER BY pid, id)
	FROM devices WHERE session_id = :session
),
props AS (
	SELECT cc_major, cc_minor, max_threads, max_regs, max_smem, min(n) AS ord
	FROM devices_ GROUP BY cc_major, cc_minor, max_threads, max_regs, max_smem
),
-- The names --match and --exclude let through, as shown (short with --short, then the first --group
-- whose expression matches), each with its key: its family's first string id (every string of the
-- session that folds to the same name counts) with --short or --group, else its own id.
folded(id, value, name) AS (
	SELECT id, value, coalesce((SELECT g.name FROM temp.name_groups g WHERE n REGEXP g.pattern ORDER BY g.ord LIMIT 1), n)
	FROM (SELECT id, value, CASE WHEN :short THEN short_name(value) ELSE value END AS n
	      FROM strings WHERE session_id = :session)
),
names(id, key, name) AS MATERIALIZED (
	SELECT id, key, name
	FROM (SELECT id, value, name, CASE WHEN :folded THEN min(id) OVER (PARTITION BY name) ELSE id END AS key
	      FROM folded)
	WHERE (:match IS NULL OR value REGEXP :match) AND (:exclude IS NULL OR NOT value REGEXP :exclude)
),
-- Every configuration with its name and key (a name id without a string, only without filters:
-- "(unknown)", keyed by its id, or all of them -1 when folded) and its device's property set (NULL: no
-- devices row).
configs AS (
	SELECT coalesce(n.key, CASE WHEN :folded THEN -1 ELSE l.name_id END) AS key,
	       coalesce(n.name, '(unknown)') AS name, l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z,
	       l.registers, l.static_smem, l.dynamic_smem, l.shared_mem, l.calls, l.total_ns, p.ord AS props
	FROM kernel_launches l
	LEFT JOIN names n ON n.id = l.name_id
	LEFT JOIN devices_ d ON d.id = l.device_id
	  AND d.pid = CASE WHEN EXISTS (SELECT 1 FROM devices_ o WHERE o.pid = l.pid AND o.id = l.device_id)
			   THEN l.pid ELSE 0 END
	LEFT JOIN props p ON p.cc_major = d.cc_major AND p.cc_minor = d.cc_minor AND p.max_threads = d.max_threads
	  AND p.max_regs = d.max_regs AND p.max_smem = d.max_smem
	WHERE l.session_id = :session AND (n.id IS NOT NULL OR (:match IS NULL AND :exclude IS NULL))
),
merged AS (
	SELECT key, name, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_smem, dynamic_smem,
	       shared_mem, props, sum(calls) AS calls, sum(total_ns) AS total_ns
	FROM configs
	GROUP BY key, name, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_smem,
		 dynamic_smem, shared_mem, props
),
-- The occupancy calculation's inputs, NULL where unknown: threads a block (dimensions beyond CUDA's
-- would overflow nothing below 2^20), registers a thread, shared memory a block; and whether all is known.
inputs AS (
	SELECT m.*, a.max_blocks, a.smem_unit, a.smem_reserved, p.max_threads, p.max_regs, p.max_smem,
	       CASE WHEN block_x > 0 AND block_y > 0 AND block_z > 0 AND block_x < 1048576 AND block_y < 1048576
			 AND block_z < 1048576 THEN block_x * block_y * block_z END AS threads,
	       CASE WHEN registers >= 0 AND registers <= 2147483647 THEN registers END AS regs,
	       CASE WHEN shared_mem >= 0 AND shared_mem < 2305843009213693951 THEN shared_mem END AS smem
	FROM merged m
	LEFT JOIN props p ON p.ord = m.props
	LEFT JOIN arches a ON a.major = p.cc_major AND a.minor = p.cc_minor
),
sizes AS (
	SELECT i.*, (threads + 31) / 32 AS wpb, max_threads / 32 AS max_warps,
	       (regs * 32 + 255) / 256 * 256 AS per_warp,
	       (smem + smem_reserved + smem_unit - 1) / smem_unit * smem_unit AS alloc,
	       coalesce(max_blocks IS NOT NULL AND max_threads >= 32 AND max_regs > 0 AND max_smem > 0
			AND threads IS NOT NULL AND regs IS NOT NULL AND smem IS NOT NULL, 0) AS known
	FROM inputs i
),
-- The four limits (NULL: none) and the resident blocks, the least of them.
limits AS (
	SELECT s.*,
	       CASE WHEN threads > 1024 THEN 0 ELSE max_warps / wpb END AS l_warps,
	       CASE WHEN regs > 256 OR per_warp * ((wpb + 3) / 4 * 4) > 65536 THEN 0
		    WHEN per_warp = 0 THEN NULL
		    ELSE max_regs / 4 / per_warp * 4 / wpb END AS l_regs,
	       CASE WHEN alloc = 0 THEN NULL WHEN alloc > max_smem THEN 0 ELSE max_smem / alloc END AS l_smem,
	       max_blocks AS l_blocks
	FROM sizes s
),
occupancy AS (
	SELECT l.*, min(l_warps, coalesce(l_regs, l_warps), coalesce(l_smem, l_warps), l_blocks) AS active
	FROM limits l
)
SELECT total_ns, calls, CASE WHEN known THEN 100.0 * (active * wpb) / max_warps END AS occupancy_pct,
       CASE WHEN known THEN substr(CASE WHEN l_warps = active THEN '+warps' ELSE '' END ||
				   CASE WHEN l_regs = active THEN '+registers' ELSE '' END ||
				   CASE WHEN l_smem = active THEN '+shared memory' ELSE '' END ||
				   CASE WHEN l_blocks = active THEN '+blocks' ELSE '' END, 2)
	    ELSE 'unknown' END AS limiter,
       grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_smem, dynamic_smem, shared_mem, name
FROM occupancy
ORDER BY total_ns DESC, calls DESC, key, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_smem,
	 dynamic_smem, shared_mem, props
LIMIT :top;
