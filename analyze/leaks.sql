-- analysis: leaks
-- title: Leak candidates: blocks still allocated at the end, by site (--fail-on-leak)
-- include: views
-- include: memory-events
-- gate: fail_on_leak 0 exit 1 when more than SIZE (bytes, 1GiB, 1GB; default 0) are unfreed, or when a device's events have no addresses (leaks unknown)
-- section: 18 top 10
-- table: leaks Leak candidates: memory still allocated at the end, by site
-- column: bytes bytes "Unfreed" bytes still allocated at the end; the --fail-on-leak gate reads it
-- column: count count "Blocks" blocks
-- column: first_ns time when the first was allocated
-- column: last_ns time when the last was
-- column: rank int,hide-group the GPU's rank (its node's), where the source names one; left out in a session of one node
-- column: host text,hide-group the GPU's host, where the source names one; left out in a session of one node
-- column: device int the device number (on its node)
-- column: mem_kind text "Kind" the memory kind (memory_kinds' name)
-- column: status text unfreed, or why what leaked is unknown; the gate reads it
-- column: site text where it was allocated (NVTX path, call, or the source's stack)
--
-- leaks: leak candidates, the blocks still allocated at the end (memory-events.sql, run first, pairs
-- allocations and frees), grouped by device, memory kind and site: largest first, then by site, then as
-- the groups' first blocks came. First, one row per device whose events lack addresses: what it leaked is
-- unknown (status says why), never guessed. Those rows always show and count towards --top, which keeps
-- groups while the table has fewer rows (the leak gate, analyses.c's judge_leaks, reads bytes and status).
SELECT bytes, count, first_ns, last_ns, g.rank, g.host, device, mem_kind, status, site
FROM (
	SELECT *, row_number() OVER (ORDER BY known, CASE WHEN known THEN -bytes ELSE node END,
					      CASE WHEN known THEN 0 ELSE device END, site, first_n) AS k
	FROM (
		SELECT NULL AS bytes, NULL AS count, NULL AS first_ns, NULL AS last_ns, node, device,
		       NULL AS mem_kind, unknown AS status, NULL AS site, 0 AS known, NULL AS first_n
		FROM mem_devices WHERE NOT paired
		UNION ALL
		SELECT sum(bytes), count(*), min(ts), max(ts), node, device, mem_kind, 'unfreed', site, 1, min(n)
		FROM mem_blocks WHERE freed_ns IS NULL
		GROUP BY node, device, kind, site
	)
) l LEFT JOIN temp.gpu_node_names g ON g.session_id = :session AND g.node = l.node
WHERE NOT known OR :top < 0 OR k <= :top
ORDER BY k;
