-- sync: host time blocked in synchronization, by type (event, stream wait, stream, context) and stream.
-- Statement 1: (kind * 2^40 + stream + 1, duration); a NULL stream (context syncs) keys as 0.
SELECT kind * 1099511627776 + coalesce(stream_id + 1, 0), end_ns - start_ns FROM syncs
WHERE session_id = :session
  AND (:match IS NULL OR (SELECT name FROM sync_kinds WHERE id = kind) REGEXP :match)
  AND (:exclude IS NULL OR NOT (SELECT name FROM sync_kinds WHERE id = kind) REGEXP :exclude);

-- Statement 2: the kind's name.
SELECT coalesce((SELECT name FROM sync_kinds WHERE id = :id), 'kind ' || :id);
