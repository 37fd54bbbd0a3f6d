-- Views for sqlite3 users: names joined, durations computed, no extension needed.
-- Statistics follow Nsight Systems' conventions: median = mean of the two middle values for even
-- counts, stddev = sample standard deviation (n-1), 0 for one instance, time_pct of summed kernel time.
-- With the extension loaded (`.load build/lib/gpuprof_sqlite`), hotspots is a fast TEMP view of the same
-- columns (schemas/views-ext.sql), the one gpuprof-analyze reads; the tests check that both agree.

CREATE VIEW IF NOT EXISTS kernel_events AS
SELECT k.session_id, k.pid, k.start_ns, k.end_ns, k.end_ns - k.start_ns AS dur_ns,
       k.device_id, k.stream_id, k.correlation_id, n.value AS name, m.value AS mangled,
       k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z, k.registers,
       k.static_smem, k.dynamic_smem, coalesce(k.shared_mem, k.static_smem + k.dynamic_smem) AS shared_mem
FROM kernels k
JOIN strings n ON n.session_id = k.session_id AND n.id = k.name_id
LEFT JOIN strings m ON m.session_id = k.session_id AND m.id = k.mangled_id;

-- hotspots: per session and kernel name, the statistics of the durations (one row per name, most total
-- time first). This stored view is plain SQL on purpose, so that every database answers without the
-- extension; it sorts every kernel row, about 16 s on 5M kernels. `.load build/lib/gpuprof_sqlite` makes
-- a TEMP view of the same name, columns and numbers from the table kernel_stats (grouped in C from the
-- column chunks; schemas/views-ext.sql), which shadows this one for unqualified names: 0.3 s on 5M
-- kernels. gpuprof-analyze hotspots reads that view (analyze/hotspots.sql).
-- The comment inside the view is what `.schema hotspots` shows.
CREATE VIEW IF NOT EXISTS hotspots AS
-- Slow without gpuprof's SQLite extension: `.load build/lib/gpuprof_sqlite` (or $PREFIX/lib/gpuprof_sqlite)
-- first, and `SELECT * FROM hotspots` reads the column chunks instead (README "With sqlite3").
WITH d AS (
	SELECT session_id, name_id, end_ns - start_ns AS dur,
	       row_number() OVER w AS rn,
	       count(*) OVER (PARTITION BY session_id, name_id) AS n,
	       avg(end_ns - start_ns) OVER (PARTITION BY session_id, name_id) AS mean
	FROM kernels
	WINDOW w AS (PARTITION BY session_id, name_id ORDER BY end_ns - start_ns)
), g AS (
	SELECT session_id, name_id, count(*) AS calls, sum(dur) AS total_ns, avg(dur) AS avg_ns,
	       avg(CASE WHEN rn IN ((n + 1) / 2, n / 2 + 1) THEN dur END) AS med_ns,
	       min(dur) AS min_ns, max(dur) AS max_ns,
	       sum((dur - mean) * (dur - mean)) AS ss
	FROM d GROUP BY session_id, name_id
)
SELECT g.session_id, s.value AS name, calls, total_ns, avg_ns, med_ns, min_ns, max_ns,
       CASE WHEN calls > 1 THEN sqrt(ss / (calls - 1)) ELSE 0.0 END AS stddev_ns,
       100.0 * total_ns / sum(total_ns) OVER (PARTITION BY g.session_id) AS time_pct
FROM g JOIN strings s ON s.session_id = g.session_id AND s.id = g.name_id
ORDER BY g.session_id, total_ns DESC, name;

CREATE VIEW IF NOT EXISTS memcpy_events AS
SELECT c.session_id, c.pid, c.start_ns, c.end_ns, c.end_ns - c.start_ns AS dur_ns, c.device_id,
       c.stream_id, ck.name AS kind, sk.name AS src_kind, dk.name AS dst_kind, c.bytes,
       c.src_device, c.dst_device,
       CASE WHEN c.end_ns > c.start_ns THEN c.bytes * 1.0 / (c.end_ns - c.start_ns) END AS gbps
FROM memcpys c
LEFT JOIN copy_kinds ck ON ck.id = c.kind
LEFT JOIN memory_kinds sk ON sk.id = c.src_kind
LEFT JOIN memory_kinds dk ON dk.id = c.dst_kind;

CREATE VIEW IF NOT EXISTS range_events AS
SELECT r.session_id, r.pid, r.thread_id, r.start_ns, r.end_ns, r.end_ns - r.start_ns AS dur_ns,
       n.value AS name, d.value AS domain, CASE r.kind WHEN 1 THEN 'PushPop' WHEN 2 THEN 'StartEnd' ELSE 'GPU' END AS style,
       r.depth
FROM ranges r
JOIN strings n ON n.session_id = r.session_id AND n.id = r.name_id
LEFT JOIN strings d ON d.session_id = r.session_id AND d.id = r.domain_id;

CREATE VIEW IF NOT EXISTS memory_timeline AS
SELECT m.session_id, m.pid, m.device_id, m.ts_ns, CASE m.op WHEN 1 THEN 'alloc' ELSE 'free' END AS op,
       mk.name AS mem_kind, m.address, m.bytes, s.value AS site,
       sum(CASE m.op WHEN 1 THEN m.bytes ELSE -m.bytes END)
	   OVER (PARTITION BY m.session_id, m.pid, m.device_id ORDER BY m.ts_ns, m.rowid) AS live_bytes
FROM memory_events m
LEFT JOIN memory_kinds mk ON mk.id = m.mem_kind
LEFT JOIN strings s ON s.session_id = m.session_id AND s.id = m.site_id;

CREATE VIEW IF NOT EXISTS overhead_events AS
SELECT o.session_id, o.pid, o.start_ns, o.end_ns, o.end_ns - o.start_ns AS dur_ns,
       coalesce(ok.name, 'kind ' || o.kind) AS kind, bk.name AS object_kind, o.thread_id, o.device_id,
       o.context_id, o.stream_id, o.correlation_id
FROM overheads o
LEFT JOIN overhead_kinds ok ON ok.id = o.kind
LEFT JOIN object_kinds bk ON bk.id = o.object_kind;

CREATE VIEW IF NOT EXISTS session_overview AS
SELECT s.id AS session_id, s.uuid, s.source, s.program, s.hostname, s.engine, s.start_ns, s.end_ns,
       s.end_ns - s.start_ns AS span_ns, s.clean_end,
       (SELECT count(*) FROM processes p WHERE p.session_id = s.id) AS processes,
       (SELECT count(*) FROM devices d WHERE d.session_id = s.id) AS devices,
       (SELECT count(*) FROM kernels k WHERE k.session_id = s.id) AS kernels,
       (SELECT coalesce(sum(bytes), 0) FROM memcpys c WHERE c.session_id = s.id) AS memcpy_bytes,
       (SELECT coalesce(sum(count), 0) FROM drops x WHERE x.session_id = s.id) AS dropped
FROM sessions s;
