-- kernels: the session's kernels (and API calls) are read once per process into columns (columns.c)
-- that hotspots, summary, devices, classes, idle, streams, gaps, ranges and compare share, so a report
-- reads each table once. When ingest wrote the session's column chunks (lib/colstore.h, table
-- column_chunks) columns.c decodes those; else it asks only for the columns the analyses need (each
-- column read costs time on millions of rows), in rowid slices on several connections at once (scan.c):
--   SELECT pid, device_id, coalesce(stream_id, -1), name_id, correlation_id, start_ns, end_ns - start_ns
--   FROM kernels WHERE rowid BETWEEN :lo AND :hi AND (:one_session OR session_id = :session)
-- and for API calls (ranges, gaps):
--   SELECT pid, coalesce(thread_id, 0), coalesce(name_id, 0), correlation_id, start_ns, end_ns - start_ns
--   FROM api_calls WHERE rowid BETWEEN :lo AND :hi AND (:one_session OR session_id = :session)
-- Statement 1: the names that --match and --exclude let through (run only when one is given).
SELECT id FROM strings
WHERE session_id = :session
  AND (:match IS NULL OR value REGEXP :match)
  AND (:exclude IS NULL OR NOT value REGEXP :exclude);
