-- analysis: memory
-- title: GPU memory per device: allocations, peak (and when), live at the end (--fail-above)
-- include: views
-- include: memory-events
-- gate: fail_above exit 1 when a device's peak is above SIZE (40GiB, 40G, 40GB, bytes) or above PCT of its memory (90%)
-- section: 17
-- table: memory GPU memory per device: allocations, peak, live at the end
-- column: rank int,hide-group the GPU's rank (its node's), where the source names one; left out in a session of one node
-- column: host text,hide-group the GPU's host, where the source names one; left out in a session of one node
-- column: device int the device number (on its node)
-- column: allocs count "Allocations" allocations
-- column: frees count frees
-- column: alloc_bytes bytes "Allocated" bytes allocated
-- column: peak_bytes bytes "Peak" the peak of live bytes
-- column: peak_ns time "At" when it was first reached
-- column: peak_from text addresses (paired blocks), total_allocated (the source's total) or bytes (running sum)
-- column: live_end_bytes bytes "Live at end" bytes live at the end
-- column: prior_frees count "Frees of earlier blocks" frees of blocks allocated before the capture (NULL: unknown)
-- column: prior_free_bytes bytes "Their bytes" their bytes
-- column: total_bytes bytes "Device memory" the device's memory (NULL when unknown); the --fail-above gate reads it
-- column: peak_pct pct "Peak % of it" peak_bytes, % of total_bytes
--
-- memory: GPU memory per device from its allocation events (memory-events.sql, run first, pairs them and
-- says how each device's memory is known): allocations, frees, bytes allocated, the peak and when
-- (peak_from: where the peak comes from), live bytes at the end, and frees of blocks allocated before the
-- capture (unknown, NULL, where the device's events lack addresses); then the device's memory (mem_totals,
-- NULL when unknown) and the peak's share of it, which the memory gate (--fail-above, analyses.c) reads.
SELECT g.rank, g.host, d.device, allocs, frees, alloc_bytes, peak AS peak_bytes, nullif(peak_ns, 0) AS peak_ns, peak_from,
       live_end_bytes, prior_frees, prior_free_bytes, t.total AS total_bytes, 100.0 * peak / t.total AS peak_pct
FROM mem_devices d LEFT JOIN temp.gpu_node_names g ON g.session_id = :session AND g.node = d.node
LEFT JOIN temp.mem_totals t ON t.session_id = :session AND t.node = d.node AND t.device = d.device
ORDER BY d.node, d.device;
