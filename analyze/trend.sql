-- trend: every session's kernel time per name, sessions in time order (step changes flagged in C).
-- Statement 1: every kernel of every session: (session, name id, duration), summed per (session, name)
-- in C. Read in rowid slices on several connections at once (scan.c binds :lo and :hi): a GROUP BY over
-- millions of kernels is a sort in SQLite. When every session has its column chunks (lib/colstore.h)
-- compare.c decodes those instead, which takes a third of the time.
SELECT session_id, name_id, end_ns - start_ns FROM kernels WHERE rowid BETWEEN :lo AND :hi;

-- Statement 2: the name of (session :s, id), and whether it passes --match and --exclude.
SELECT value, (:match IS NULL OR value REGEXP :match) AND (:exclude IS NULL OR NOT value REGEXP :exclude)
FROM strings WHERE session_id = :s AND id = :id;

-- Statement 3: when session :s started.
SELECT start_ns FROM sessions WHERE id = :s;
