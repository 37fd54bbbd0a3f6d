-- analysis: streams
-- title: Busy time per stream
-- include: views
-- table: streams Busy time per stream
-- column: rank int,hide-group the GPU's rank (its node's), where the source names one; left out in a session of one node
-- column: host text,hide-group the GPU's host, where the source names one; left out in a session of one node
-- column: device int the device number (on its node)
-- column: stream int the stream id (-1: unknown)
-- column: busy_ns ns the union of the stream's kernels, copies and memsets
-- column: ops count "Operations" how many it ran
-- column: busy_pct pct "Busy % of GPU span" busy_ns, % of its device's GPU span
--
-- streams: busy time per stream (stream -1: unknown) of every device, busiest first: the union of the
-- stream's kernels, copies and memsets, how many there were, and the share of its device's GPU span
-- (first start to last end of the device's activity, over all its streams: gpu_busy's span_ns).
--
-- gpu_stream_busy is C (analyze/ext/sqlext_busy.c) for the reason summary.sql gives for gpu_busy: the plain SQL
--   SELECT device_id, stream_id, count(*), busy_union(start_ns, end_ns) FROM (kernel_columns UNION ALL
--     memcpys UNION ALL memsets of the session) GROUP BY device_id, stream_id
-- (tests/vtab.py checks both agree) sorts every kernel: 4.7 s of CPU on the 5M-kernel bench session,
-- gpu_stream_busy 0.3 s.
WITH s AS (
	SELECT node, device_id, stream_id, busy_ns, ops,
	       max(last_ns) OVER dev - min(first_ns) OVER dev AS span_ns
	FROM gpu_stream_busy WHERE session_id = :session
	WINDOW dev AS (PARTITION BY node, device_id)
)
SELECT g.rank, g.host, device_id AS device, stream_id AS stream, busy_ns, ops,
       CASE WHEN span_ns > 0 THEN 100.0 * busy_ns / span_ns END AS busy_pct
FROM s LEFT JOIN temp.gpu_node_names g ON g.session_id = :session AND g.node = s.node
ORDER BY busy_ns DESC, stream_id, device_id, s.node
LIMIT :top;
