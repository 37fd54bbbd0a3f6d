-- analysis: peak
-- title: What was live at each device's memory peak, largest first
-- include: views
-- include: memory-events
-- table: peak What was live at each device's peak, largest first
-- column: rank int,hide-group the GPU's rank (its node's), where the source names one; left out in a session of one node
-- column: host text,hide-group the GPU's host, where the source names one; left out in a session of one node
-- column: device int the device number (on its node)
-- column: bytes bytes the block's size (a device without addresses: its peak)
-- column: alloc_ns time "Allocated at" when the block was allocated
-- column: address int its device address
-- column: mem_kind text "Kind" the memory kind (memory_kinds' name)
-- column: site text where it was allocated (NVTX path, call, or the source's stack)
--
-- peak: what was live at each device's peak (memory-events.sql, run first, pairs allocations and frees):
-- the blocks allocated at or before the paired blocks' peak and freed after it, largest first, then as
-- they came; --top of them per device (their sites worked out for those only). A device whose events lack
-- addresses has one row, its peak by its rule, with why which blocks made it is unknown in site.
SELECT g.rank, g.host, device, bytes, alloc_ns, address, mem_kind, site
FROM (
	SELECT node, device, peak AS bytes, NULL AS alloc_ns, NULL AS address, NULL AS mem_kind, unknown AS site,
	       0 AS k
	FROM mem_devices WHERE NOT paired
	UNION ALL
	SELECT b.node, b.device, b.bytes, b.ts, b.address, b.mem_kind, b.site, l.k
	FROM (SELECT e.n, row_number() OVER (PARTITION BY e.node, e.device ORDER BY e.bytes DESC, e.ts, e.n) AS k
	      FROM mem_events e JOIN mem_devices d ON d.node = e.node AND d.device = e.device
	      WHERE d.paired AND e.alloc AND e.ts <= d.live_peak_ns
		AND (e.freed_ns IS NULL OR e.freed_ns > d.live_peak_ns)) l
	JOIN mem_blocks b ON b.n = l.n
	WHERE :top < 0 OR l.k <= :top
) p LEFT JOIN temp.gpu_node_names g ON g.session_id = :session AND g.node = p.node
ORDER BY p.node, device, k;
