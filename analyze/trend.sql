-- analysis: trend
-- title: Top kernels' total time across all sessions, with step changes
-- option: threshold 0.05 relative change of the median that counts (default 5%; trend: of the total against the median of earlier sessions)
-- table: trend Kernel time across sessions, with step changes
-- column: name text the kernel's name as shown
-- column: session_id int "Session" the session
-- column: start_ns time when it started
-- column: total_ns ns the name's kernel time in it
-- column: calls count its kernels
-- column: step text up, down, or empty: against the median of the earlier points
--
-- trend: every session's kernel time per name (per family with --short or --group), sessions in time order
-- (their start, then id), for the names with the most kernel time over all sessions (--top names, each
-- with all its sessions). A point's step is "up" when its total exceeds the median of the name's earlier
-- points by more than :threshold of that median, "down" when it falls short by as much, else empty (and
-- empty for the first point). --match and --exclude apply to the names as recorded; names not in strings
-- are left out, and so are kernels of sessions the sessions table lacks.
--
-- Where C does the work: kernel_stats groups each session's kernels by name id (see hotspots.sql for why),
-- short_name and regexp fold and filter the names, median takes the earlier points' median.
WITH stats AS MATERIALIZED (
	SELECT k.session_id, k.name_id, k.calls, k.total_ns, s.start_ns
	FROM kernel_stats k JOIN sessions s ON s.id = k.session_id
),
-- Each (session, name) as shown: short with --short, then the first --group whose expression matches.
named AS (
	SELECT k.session_id, k.start_ns, k.calls, k.total_ns,
	       coalesce((SELECT g.name FROM temp.name_groups g WHERE n REGEXP g.pattern ORDER BY g.ord LIMIT 1), n) AS name
	FROM stats k
	JOIN (SELECT session_id, id, CASE WHEN :short THEN short_name(value) ELSE value END AS n, value FROM strings) t
	  ON t.session_id = k.session_id AND t.id = k.name_id
	WHERE (:match IS NULL OR t.value REGEXP :match) AND (:exclude IS NULL OR NOT t.value REGEXP :exclude)
),
points AS MATERIALIZED (
	SELECT name, session_id, start_ns, sum(total_ns) AS total_ns, sum(calls) AS calls,
	       row_number() OVER (PARTITION BY name ORDER BY start_ns, session_id) AS ord
	FROM named GROUP BY name, session_id
),
ranked AS MATERIALIZED (
	SELECT name, row_number() OVER (ORDER BY sum(total_ns) DESC, name) AS rank FROM points GROUP BY name
)
SELECT p.name, p.session_id, p.start_ns, p.total_ns, p.calls,
       coalesce((SELECT CASE WHEN p.total_ns - m > :threshold * m THEN 'up'
			     WHEN m - p.total_ns > :threshold * m THEN 'down' ELSE '' END
		 FROM (SELECT median(e.total_ns) AS m FROM points e WHERE e.name = p.name AND e.ord < p.ord)
		 WHERE m IS NOT NULL), '') AS step
FROM points p JOIN ranked r ON r.name = p.name
WHERE :top < 0 OR r.rank <= :top
ORDER BY r.rank, p.ord;
