-- reference: memory_pairs
-- title: Each allocation event with the event it pairs with and its GPU's running figures
-- accelerator: SELECT * FROM memory_pairs
-- What the C table memory_pairs (analyze/ext/sqlext_memory.c) computes, in plain SQL. Pairing is a stack per
-- (process, GPU, address): each event's stack level there is the running count of allocations less frees
-- (a free's level is the count before it); at one level allocations and frees alternate, so an allocation
-- pairs with the next event at its level and a free with the one before (none: a block allocated before
-- the capture). seq is the event's place in its session (time, then rowid); live_bytes the running sum of
-- the paired allocations' sizes per GPU, sum_bytes of every event's signed size, total_bytes of the steps
-- of the allocator's running total (total_allocated) per process and GPU.
-- Speed-up: 8x: the C table 0.40 s (best of 3), this reference 3.21 s (one run) (its 100k memory events);
-- 5M-kernel bench session, sqlite3 shell, rows to /dev/null, 2 cores shared (load 7-10), 2026-11-28.
WITH nodes AS (SELECT session_id, pid, dense_rank() OVER (PARTITION BY session_id ORDER BY hostname, rank) - 1 AS node
               FROM processes),
e AS (SELECT m.rowid AS id, m.session_id, m.pid, coalesce(n.node, 0) * 1000 + coalesce(device_id, -1) AS device,
             address, ts_ns AS ts, op = 1 AS alloc, bytes, total_allocated AS total
      FROM memory_events m LEFT JOIN nodes n ON n.session_id = m.session_id AND n.pid = m.pid),
w AS (SELECT *, row_number() OVER (PARTITION BY session_id ORDER BY ts, id) AS seq,
             sum(CASE WHEN alloc THEN 1 ELSE -1 END) OVER (PARTITION BY session_id, pid, device, address ORDER BY ts, id) AS s,
             total - lag(total, 1, 0) OVER (PARTITION BY session_id, device, pid, total IS NULL ORDER BY ts, id) AS total_step
      FROM e),
l AS (SELECT *, CASE WHEN address IS NULL THEN NULL WHEN alloc THEN lead(id) OVER k ELSE lag(id) OVER k END AS pair,
             CASE WHEN address IS NULL THEN 0 WHEN alloc THEN bytes ELSE -coalesce(lag(bytes) OVER k, 0) END AS live_step
      FROM w WINDOW k AS (PARTITION BY session_id, pid, device, address, CASE WHEN alloc THEN s ELSE s + 1 END ORDER BY ts, id))
SELECT session_id, id, seq, pair, sum(live_step) OVER d, sum(CASE WHEN alloc THEN bytes ELSE -bytes END) OVER d,
       sum(coalesce(total_step, 0)) OVER d
FROM l WINDOW d AS (PARTITION BY session_id, device ORDER BY ts, id);
