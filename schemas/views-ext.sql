-- The views gpuprof's SQLite extension makes on a connection (TEMP views: they shadow the stored ones of
-- schemas/views.sql for unqualified names, and change nothing in the file). Same names, columns, order
-- and numbers as the stored views, computed from the extension's tables instead of every row: `.load
-- gpuprof_sqlite` in sqlite3 makes them, and every gpuprof program reading a database. The analyses read
-- these views (analyze/hotspots.sql), so a sqlite3 user and gpuprof-analyze run the same SQL.

-- hotspots: per session and kernel name, the duration statistics, from kernel_stats (the column chunks
-- grouped by name in C; plain SQL's GROUP BY sorts every kernel: 0.25 s against 3.5 s on 5M kernels).
CREATE TEMP VIEW IF NOT EXISTS hotspots AS
SELECT g.session_id, s.value AS name, calls, total_ns, avg_ns, med_ns, min_ns, max_ns, stddev_ns,
       100.0 * total_ns / sum(total_ns) OVER (PARTITION BY g.session_id) AS time_pct
FROM kernel_stats g JOIN strings s ON s.session_id = g.session_id AND s.id = g.name_id
ORDER BY g.session_id, total_ns DESC, name;
