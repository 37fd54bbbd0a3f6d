-- kernels: the session's kernels (and API calls) are read once per process into columns (columns.c)
-- that hotspots, summary, devices, classes, idle, streams, gaps, ranges and compare share, so a report
-- reads each table once. When ingest wrote the session's column chunks (lib/colstore.h, table
-- column_chunks) columns.c decodes those; else it reads the same columns from the rows, each chunk column
-- by the SQL expression colstore.h gives for it (colstore_sql: e.g. coalesce(stream_id, -1),
-- coalesce(correlation_id, 0), coalesce(end_ns - start_ns, 0)), only those the analyses need (each column
-- read costs time on millions of rows), in rowid slices on several connections at once (scan.c):
--   SELECT <those expressions> FROM kernels
--   WHERE rowid BETWEEN :lo AND :hi AND (:one_session OR session_id = :session)
-- and the same for API calls (ranges, gaps) from api_calls. The sqlite3 extension's kernel_columns and
-- api_columns virtual tables (lib/sqlext_vtab.c) give users the same columns, chunks or rows alike.
-- Statement 1: the names that --match and --exclude let through (run only when one is given).
SELECT id FROM strings
WHERE session_id = :session
  AND (:match IS NULL OR value REGEXP :match)
  AND (:exclude IS NULL OR NOT value REGEXP :exclude);
