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
