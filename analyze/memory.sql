-- memory: GPU memory per device from its allocation events (memory-events.sql, run first, pairs them and
-- says how each device's memory is known): allocations, frees, bytes allocated, the peak and when
-- (peak_from: where the peak comes from), live bytes at the end, and frees of blocks allocated before the
-- capture (unknown, NULL, where the device's events lack addresses).
SELECT g.rank, g.host, device, allocs, frees, alloc_bytes, peak AS peak_bytes, nullif(peak_ns, 0) AS peak_ns, peak_from,
       live_end_bytes, prior_frees, prior_free_bytes
FROM mem_devices d LEFT JOIN temp.gpu_node_names g ON g.session_id = :session AND g.node = d.node
ORDER BY d.node, device;
