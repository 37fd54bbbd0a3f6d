-- memcpy_by_kind (compare.c) until compare is its SQL: copies per kind and memsets, as memcpy.sql shows them.
-- Kinds are keyed by copy_kinds.id; memsets by -1. --match/--exclude apply to the kind's name.
-- Statement 1: (kind, duration) of every copy and memset.
WITH k AS (
	SELECT id, name FROM copy_kinds UNION ALL SELECT -1, 'memset'
), keep AS (
	SELECT id FROM k WHERE (:match IS NULL OR name REGEXP :match) AND (:exclude IS NULL OR NOT name REGEXP :exclude)
)
SELECT kind, end_ns - start_ns FROM memcpys WHERE session_id = :session AND kind IN (SELECT id FROM keep)
UNION ALL
SELECT -1, end_ns - start_ns FROM memsets WHERE session_id = :session AND -1 IN (SELECT id FROM keep);

-- Statement 2: bytes per kind.
SELECT kind, sum(bytes) FROM memcpys WHERE session_id = :session GROUP BY kind
UNION ALL
SELECT -1, sum(bytes) FROM memsets WHERE session_id = :session;

-- Statement 3: the kind's name.
SELECT coalesce((SELECT name FROM copy_kinds WHERE id = :id), CASE :id WHEN -1 THEN 'memset' ELSE 'kind ' || :id END);
