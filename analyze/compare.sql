-- analysis: compare
-- title: Kernels, NVTX ranges, copies, API calls and ops against a baseline: regressed, improved, new, gone (CI gate)
-- include: views
-- option: baseline - the baseline database (default NEW.db itself)
-- option: base_session - the baseline session; default the newest of BASE.db, or with one database the session before the new one
-- option: threshold 0.05 relative change of the median that counts (default 5%; trend: of the total against the median of earlier sessions)
-- option: min_delta 10000 absolute change of the median that counts, ns/us/ms/s (default 10us)
-- option: min_calls 1 groups with fewer calls on both sides are unchanged (default 1)
-- gate: fail_on_regression exit 1 when any kernel, range, copy kind, API call or op regressed; one-line verdict on stderr
-- section: 1 top 20
-- baseline: required
-- usage: NEW.db (and trend): five tables, kernels by name, NVTX ranges by path,
-- usage: copies by kind, API calls and ops by name (as hotspots, ranges, memcpy, api and ops show them)
-- table: compare Kernels against the baseline
-- column: status text regressed, improved, unchanged, new or gone
-- column: delta_pct pct "Med delta %" change of the median, % of the baseline's
-- column: delta_ns ns "Med delta" change of the median (new - base)
-- column: base_med_ns ns the baseline's median duration
-- column: new_med_ns ns the new session's median duration
-- column: base_avg_ns ns the baseline's mean duration
-- column: new_avg_ns ns the new session's mean duration
-- column: base_total_ns ns the baseline's summed duration
-- column: new_total_ns ns the new session's summed duration
-- column: total_delta_pct pct change of the summed duration, % of the baseline's
-- column: base_calls count the baseline's count
-- column: new_calls count the new session's count
-- column: name text the name as shown (short with --short, its family with --group)
-- table: compare_ranges NVTX ranges against the baseline, by path and style (wall time)
-- column: status text regressed, improved, unchanged, new or gone
-- column: delta_pct pct "Med delta %" change of the median, % of the baseline's
-- column: delta_ns ns "Med delta" change of the median (new - base)
-- column: base_med_ns ns the baseline's median duration
-- column: new_med_ns ns the new session's median duration
-- column: base_avg_ns ns the baseline's mean duration
-- column: new_avg_ns ns the new session's mean duration
-- column: base_total_ns ns the baseline's summed duration
-- column: new_total_ns ns the new session's summed duration
-- column: total_delta_pct pct change of the summed duration, % of the baseline's
-- column: base_calls count the baseline's count
-- column: new_calls count the new session's count
-- column: style text PushPop, StartEnd or GPU (a GPU-side annotation)
-- column: name text "Path" the range's nesting path
-- table: compare_copies Copies and memsets against the baseline, by kind
-- column: status text regressed, improved, unchanged, new or gone
-- column: delta_pct pct "Med delta %" change of the median, % of the baseline's
-- column: delta_ns ns "Med delta" change of the median (new - base)
-- column: base_med_ns ns the baseline's median duration
-- column: new_med_ns ns the new session's median duration
-- column: base_avg_ns ns the baseline's mean duration
-- column: new_avg_ns ns the new session's mean duration
-- column: base_total_ns ns the baseline's summed duration
-- column: new_total_ns ns the new session's summed duration
-- column: total_delta_pct pct change of the summed duration, % of the baseline's
-- column: base_calls count the baseline's count
-- column: new_calls count the new session's count
-- column: base_bytes bytes the baseline's bytes moved
-- column: new_bytes bytes the new session's bytes moved
-- column: name text "Kind" the copy kind (HtoD, DtoH, ...) or memset
-- table: compare_api CUDA API calls against the baseline, by name
-- column: status text regressed, improved, unchanged, new or gone
-- column: delta_pct pct "Med delta %" change of the median, % of the baseline's
-- column: delta_ns ns "Med delta" change of the median (new - base)
-- column: base_med_ns ns the baseline's median duration
-- column: new_med_ns ns the new session's median duration
-- column: base_avg_ns ns the baseline's mean duration
-- column: new_avg_ns ns the new session's mean duration
-- column: base_total_ns ns the baseline's summed duration
-- column: new_total_ns ns the new session's summed duration
-- column: total_delta_pct pct change of the summed duration, % of the baseline's
-- column: base_calls count the baseline's count
-- column: new_calls count the new session's count
-- column: name text the API call's name
-- table: compare_ops PyTorch ops against the baseline, by name (GPU time of each op with its children)
-- column: status text regressed, improved, unchanged, new or gone
-- column: delta_pct pct "Med delta %" change of the median, % of the baseline's
-- column: delta_ns ns "Med delta" change of the median (new - base)
-- column: base_med_ns ns the baseline's median duration
-- column: new_med_ns ns the new session's median duration
-- column: base_avg_ns ns the baseline's mean duration
-- column: new_avg_ns ns the new session's mean duration
-- column: base_total_ns ns the baseline's summed duration
-- column: new_total_ns ns the new session's summed duration
-- column: total_delta_pct pct change of the summed duration, % of the baseline's
-- column: base_calls count the baseline's count
-- column: new_calls count the new session's count
-- column: name text the PyTorch op's name
-- table: compare_energy Energy against the baseline, per GPU and in all (NVML)
-- column: name text "GPU" the GPU, or all of them
-- column: base_joules real "Base J" the baseline's energy, joules
-- column: new_joules real "New J" the new session's energy, joules
-- column: delta_joules real "Delta J" new - base, joules
-- column: delta_pct pct change of the energy, % of the baseline's
-- column: base_avg_w real "Base avg W" the baseline's average power, W
-- column: new_avg_w real "New avg W" the new session's average power, W
--
-- compare: a baseline session against a new one (CI mode), in five tables: kernels by name (as hotspots
-- shows them), PyTorch ops by name (each op's GPU time with its children's, as the ops analysis gives it), NVTX ranges by nesting path and style (wall time, as ranges groups them: a host range and a
-- GPU annotation of one name are two rows), copies by kind (memcpy kinds and memsets, as memcpy labels
-- them) and CUDA API calls by name (as api shows them; their regressions fail the gate too). The baseline is the database attached as `base` (analysis_baseline: --baseline's file, else this
-- database again), session :base_session; the new side is main's :session. Groups are matched by their
-- text and style (string ids are per session).
--
-- A group present on both sides is regressed when its median grew by more than both the relative
-- threshold (:threshold of the base median) and the absolute minimum (:min_delta ns), improved when it
-- shrank by more than both, else unchanged; groups with fewer than :min_calls calls on both sides are
-- unchanged. Groups on one side only are new or gone. A table has rows only for what either side has.
-- The first table's title carries the verdict over every row (not only the --top shown), which the
-- --fail-on-regression gate reads.
--
-- Where C does the work: kernel_stats (per name, as hotspots; its header says why), kernel_columns with
-- --short/--group, reading either database through their hidden schema column; median and stddev_samp;
-- the range paths of views.sql.
--
-- Statement 1: the sides, baseline 0 and new 1.
DROP TABLE IF EXISTS temp.cmp_sides;
CREATE TEMP TABLE cmp_sides(side INTEGER PRIMARY KEY, schema TEXT, session INTEGER);
INSERT INTO temp.cmp_sides VALUES (0, 'base', :base_session), (1, 'main', :session);

-- Statement 2: each side's groups of the four tables (tbl 0 kernels, 1 ranges, 2 copies, 3 API calls).
DROP TABLE IF EXISTS temp.cmp_groups;
CREATE TEMP TABLE cmp_groups(tbl INTEGER, side INTEGER, name TEXT, style TEXT, calls INTEGER, total_ns INTEGER,
	avg_ns REAL, med_ns REAL, bytes INTEGER);

-- Statement 3: kernels per name as hotspots shows them: names --match and --exclude let through, short
-- with --short, then the first --group whose expression matches; a family's statistics over all its
-- kernels (kernel_columns by family key, its first name id), else kernel_stats. When both sides are jobs
-- of several ranks, per rank and name ("rank 3: name"): which rank's kernels changed.
DROP TABLE IF EXISTS temp.cmp_stats;
CREATE TEMP TABLE cmp_stats AS
SELECT s.side, k.* FROM temp.cmp_sides s JOIN kernel_stats k ON k.session_id = s.session AND k.schema = s.schema;
-- Each name id with its name as shown and its family's key (first id), keyed: the kernels look their names
-- up (a materialized CTE with a subquery in it gets no automatic index: a scan per row).
DROP TABLE IF EXISTS temp.cmp_names;
CREATE TEMP TABLE cmp_names(side INTEGER, id INTEGER, key INTEGER, name TEXT, PRIMARY KEY (side, id)) WITHOUT ROWID;
WITH strs(side, id, value) AS (
	SELECT 0, id, value FROM base.strings
	WHERE session_id = :base_session AND id IN (SELECT name_id FROM temp.cmp_stats WHERE side = 0)
	UNION ALL
	SELECT 1, id, value FROM main.strings
	WHERE session_id = :session AND id IN (SELECT name_id FROM temp.cmp_stats WHERE side = 1)
),
names(side, id, name) AS MATERIALIZED (
	SELECT side, id, coalesce((SELECT g.name FROM temp.name_groups g WHERE n REGEXP g.pattern ORDER BY g.ord LIMIT 1), n)
	FROM (SELECT side, id, CASE WHEN :short THEN short_name(value) ELSE value END AS n FROM strs
	      WHERE (:match IS NULL OR value REGEXP :match) AND (:exclude IS NULL OR NOT value REGEXP :exclude))
)
INSERT INTO temp.cmp_names SELECT side, id, min(id) OVER (PARTITION BY side, name), name FROM names;
WITH ranked(side, pid, label) AS MATERIALIZED (
	SELECT 0, pid, 'rank ' || rank FROM base.processes WHERE session_id = :base_session AND rank IS NOT NULL
	UNION ALL
	SELECT 1, pid, 'rank ' || rank FROM main.processes WHERE session_id = :session AND rank IS NOT NULL
),
per_rank(yes) AS (
	SELECT (SELECT count(DISTINCT label) FROM ranked WHERE side = 0) > 1
	       AND (SELECT count(DISTINCT label) FROM ranked WHERE side = 1) > 1
)
INSERT INTO temp.cmp_groups
SELECT 0, k.side, n.name, NULL, k.calls, k.total_ns, k.avg_ns, k.med_ns, NULL
FROM temp.cmp_stats k JOIN temp.cmp_names n ON n.side = k.side AND n.id = k.name_id
WHERE NOT :folded AND NOT (SELECT yes FROM per_rank)
UNION ALL
SELECT 0, s.side, f.name, NULL, count(*), sum(k.dur_ns), 1.0 * sum(k.dur_ns) / count(*), median(k.dur_ns), NULL
FROM temp.cmp_sides s JOIN kernel_columns k ON k.session_id = s.session AND k.schema = s.schema
JOIN temp.cmp_names f ON f.side = s.side AND f.id = k.name_id
WHERE :folded AND NOT (SELECT yes FROM per_rank)
GROUP BY s.side, f.key
UNION ALL
SELECT 0, s.side, r.label || ': ' || f.name, NULL, count(*), sum(k.dur_ns), 1.0 * sum(k.dur_ns) / count(*),
       median(k.dur_ns), NULL
FROM temp.cmp_sides s JOIN kernel_columns k ON k.session_id = s.session AND k.schema = s.schema
JOIN temp.cmp_names f ON f.side = s.side AND f.id = k.name_id
JOIN ranked r ON r.side = s.side AND r.pid = k.pid
WHERE (SELECT yes FROM per_rank)
GROUP BY s.side, r.label, f.key;

-- Statement 4: the NVTX ranges of both sides, named as ranges names them, in nesting order per side. The
-- names go into a keyed table first: each range looks its name up (a materialized CTE has no index, and a
-- scan per range took minutes on an export of 17,000 ranges of distinct names).
DROP TABLE IF EXISTS temp.cmp_range_names;
CREATE TEMP TABLE cmp_range_names(side INTEGER, id INTEGER, name TEXT, PRIMARY KEY (side, id)) WITHOUT ROWID;
WITH strs(side, id, value) AS (
	SELECT 0, id, value FROM base.strings
	WHERE session_id = :base_session AND id IN (SELECT name_id FROM base.ranges WHERE session_id = :base_session)
	UNION ALL
	SELECT 1, id, value FROM main.strings
	WHERE session_id = :session AND id IN (SELECT name_id FROM main.ranges WHERE session_id = :session)
)
INSERT INTO temp.cmp_range_names
SELECT side, id, CASE WHEN :folded
	THEN coalesce((SELECT g.name FROM temp.name_groups g WHERE n REGEXP g.pattern ORDER BY g.ord LIMIT 1), n)
	ELSE n END
FROM (SELECT side, id, CASE WHEN :short THEN short_name(fold_name(value)) ELSE fold_name(value) END AS n
      FROM strs);
DELETE FROM temp.range_rows;
WITH both(side, pid, thread_id, kind, start_ns, end_ns, name_id, seq) AS (
	SELECT 0, pid, thread_id, kind, start_ns, end_ns, name_id, rowid FROM base.ranges WHERE session_id = :base_session
	UNION ALL
	SELECT 1, pid, thread_id, kind, start_ns, end_ns, name_id, rowid FROM main.ranges WHERE session_id = :session
)
INSERT INTO temp.range_rows(side, pid, thread, kind, start_ns, end_ns, open_end, name)
SELECT r.side, r.pid, coalesce(r.thread_id, 0), r.kind, r.start_ns, r.end_ns,
       coalesce(r.end_ns, 9223372036854775807), n.name
FROM both r JOIN temp.cmp_range_names n ON n.side = r.side AND n.id = r.name_id
ORDER BY r.side, r.pid, r.kind = 3, coalesce(r.thread_id, 0), r.start_ns, 7 DESC, r.seq;

-- Statement 5: their paths, those --match and --exclude let through, grouped (views.sql).
DELETE FROM temp.range_paths;
INSERT INTO temp.range_paths
SELECT * FROM temp.range_walk WHERE (:match IS NULL OR path REGEXP :match) AND (:exclude IS NULL OR NOT path REGEXP :exclude);
INSERT INTO temp.cmp_groups
SELECT 1, side, path, style, count, total_ns, avg_ns, med_ns, NULL FROM temp.range_stats;

-- Statement 6: copies per kind and memsets, as memcpy labels them (--match and --exclude on the label),
-- with the bytes they moved.
WITH copies(side, kind, name, dur, bytes) AS (
	SELECT 0, c.kind, k.name, c.end_ns - c.start_ns, c.bytes
	FROM base.memcpys c JOIN base.copy_kinds k ON k.id = c.kind WHERE c.session_id = :base_session
	UNION ALL
	SELECT 0, -1, 'memset', end_ns - start_ns, bytes FROM base.memsets WHERE session_id = :base_session
	UNION ALL
	SELECT 1, c.kind, k.name, c.end_ns - c.start_ns, c.bytes
	FROM main.memcpys c JOIN main.copy_kinds k ON k.id = c.kind WHERE c.session_id = :session
	UNION ALL
	SELECT 1, -1, 'memset', end_ns - start_ns, bytes FROM main.memsets WHERE session_id = :session
)
INSERT INTO temp.cmp_groups
SELECT 2, side, name, NULL, count(*), sum(dur), 1.0 * sum(dur) / count(*), median(dur), sum(bytes)
FROM copies
WHERE (:match IS NULL OR name REGEXP :match) AND (:exclude IS NULL OR NOT name REGEXP :exclude)
GROUP BY side, kind;

-- Statement 6b: CUDA API calls (runtime and driver) per name, as api shows them (--match and --exclude on
-- the name; a call without a name is "(unknown)"), read through api_columns' schema column.
WITH calls(side, name_id, dur) AS (
	SELECT s.side, a.name_id, a.dur_ns
	FROM temp.cmp_sides s JOIN api_columns a ON a.session_id = s.session AND a.schema = s.schema
),
strs(side, id, value) AS (
	SELECT 0, id, value FROM base.strings WHERE session_id = :base_session
	UNION ALL
	SELECT 1, id, value FROM main.strings WHERE session_id = :session
),
per(side, name_id, calls, total, med) AS (
	SELECT side, name_id, count(*), sum(dur), median(dur) FROM calls GROUP BY side, name_id
),
named AS (
	SELECT p.*, coalesce((SELECT value FROM strs WHERE strs.side = p.side AND strs.id = p.name_id), '(unknown)') AS name
	FROM per p
)
INSERT INTO temp.cmp_groups
SELECT 3, side, name, NULL, calls, total, 1.0 * total / calls, med, NULL
FROM named
WHERE (:match IS NULL OR name REGEXP :match) AND (:exclude IS NULL OR NOT name REGEXP :exclude);

-- Statement 6c: PyTorch ops per name (tbl 4), each op's GPU time with its children's (gpu_total_ns, as the
-- ops analysis defines it: ops nest by containment per thread, a call belongs to the innermost op holding
-- its start, a GPU event to its call by correlation id): calls, total, mean and median over the ops of a
-- name, judged like kernels (--match and --exclude on the name). Nothing when neither side has ops. The
-- baseline's ops come through temp.base_ops (script.c: none when its database predates them), the new
-- side's as `ops` (read-6.sql's TEMP table for such a database).
DROP TABLE IF EXISTS temp.cmp_ops;
CREATE TEMP TABLE cmp_ops(side INTEGER, op INTEGER, pid INTEGER, tid INTEGER, start_ns INTEGER, end_ns INTEGER,
			  name TEXT, ord INTEGER, parent INTEGER, PRIMARY KEY (side, op)) WITHOUT ROWID;
INSERT INTO temp.cmp_ops
SELECT 0, o.id, o.pid, o.thread_id, o.start_ns, o.end_ns, n.value, coalesce(o.external_id, 0), NULL
FROM temp.base_ops o JOIN base.strings n ON n.session_id = o.session_id AND n.id = o.name_id
WHERE o.session_id = :base_session
UNION ALL
SELECT 1, o.rowid, o.pid, o.thread_id, o.start_ns, o.end_ns, n.value, coalesce(o.external_id, 0), NULL
FROM ops o JOIN main.strings n ON n.session_id = o.session_id AND n.id = o.name_id
WHERE o.session_id = :session;
DROP TABLE IF EXISTS temp.cmp_op_walk;
CREATE TEMP TABLE cmp_op_walk(side INTEGER, kind INTEGER, id INTEGER, owner INTEGER, PRIMARY KEY (side, kind, id))
	WITHOUT ROWID;
INSERT INTO temp.cmp_op_walk
WITH ev(side, kind, id, pid, tid, start_ns, end_ns, ord) AS (
	SELECT side, 0, op, pid, tid, start_ns, end_ns, ord FROM temp.cmp_ops
	UNION ALL
	SELECT 0, 1, a.rowid, a.pid, a.thread_id, a.start_ns, a.start_ns, 0 FROM base.api_calls a
	WHERE a.session_id = :base_session AND a.correlation_id IS NOT NULL
	  AND EXISTS (SELECT 1 FROM temp.cmp_ops WHERE side = 0)
	UNION ALL
	SELECT 1, 1, a.rowid, a.pid, a.thread_id, a.start_ns, a.start_ns, 0 FROM main.api_calls a
	WHERE a.session_id = :session AND a.correlation_id IS NOT NULL AND EXISTS (SELECT 1 FROM temp.cmp_ops WHERE side = 1)
)
SELECT side, kind, id, op_nest(kind, id, start_ns, end_ns) OVER (PARTITION BY side, pid, tid ORDER BY start_ns, kind,
	end_ns DESC, ord, id ROWS UNBOUNDED PRECEDING)
FROM ev;
UPDATE temp.cmp_ops SET parent = (SELECT w.owner FROM temp.cmp_op_walk w
				  WHERE w.side = cmp_ops.side AND w.kind = 0 AND w.id = cmp_ops.op);
DROP TABLE IF EXISTS temp.cmp_op_calls;
CREATE TEMP TABLE cmp_op_calls(side INTEGER, pid INTEGER, corr INTEGER, op INTEGER, PRIMARY KEY (side, pid, corr))
	WITHOUT ROWID;
INSERT OR IGNORE INTO temp.cmp_op_calls
SELECT 0, a.pid, a.correlation_id, w.owner FROM base.api_calls a
JOIN temp.cmp_op_walk w ON w.side = 0 AND w.kind = 1 AND w.id = a.rowid
WHERE a.session_id = :base_session ORDER BY a.rowid;
INSERT OR IGNORE INTO temp.cmp_op_calls
SELECT 1, a.pid, a.correlation_id, w.owner FROM main.api_calls a
JOIN temp.cmp_op_walk w ON w.side = 1 AND w.kind = 1 AND w.id = a.rowid
WHERE a.session_id = :session ORDER BY a.rowid;
WITH gself(side, op, ns) AS (
	SELECT c.side, c.op, sum(g.dur) FROM temp.cmp_op_calls c JOIN (
		SELECT s.side, k.pid, k.correlation_id AS corr, k.dur_ns AS dur
		FROM temp.cmp_sides s JOIN kernel_columns k ON k.session_id = s.session AND k.schema = s.schema
		WHERE EXISTS (SELECT 1 FROM temp.cmp_op_calls)
		UNION ALL
		SELECT 0, pid, correlation_id, end_ns - start_ns FROM base.memcpys WHERE session_id = :base_session
		UNION ALL
		SELECT 0, pid, correlation_id, end_ns - start_ns FROM base.memsets WHERE session_id = :base_session
		UNION ALL
		SELECT 1, pid, correlation_id, end_ns - start_ns FROM main.memcpys WHERE session_id = :session
		UNION ALL
		SELECT 1, pid, correlation_id, end_ns - start_ns FROM main.memsets WHERE session_id = :session
	) g ON g.side = c.side AND g.pid = c.pid AND g.corr = c.corr
	GROUP BY c.side, c.op
),
up(side, op, ns) AS (	-- each op's own GPU time, and again at each of its ancestors
	SELECT side, op, ns FROM gself
	UNION ALL
	SELECT up.side, o.parent, up.ns FROM up JOIN temp.cmp_ops o ON o.side = up.side AND o.op = up.op
	WHERE o.parent IS NOT NULL
),
total(side, op, ns) AS (SELECT side, op, sum(ns) FROM up GROUP BY side, op),
per(side, name, gpu) AS (
	SELECT o.side, o.name, coalesce(t.ns, 0) FROM temp.cmp_ops o LEFT JOIN total t ON t.side = o.side AND t.op = o.op
	WHERE (:match IS NULL OR o.name REGEXP :match) AND (:exclude IS NULL OR NOT o.name REGEXP :exclude)
)
INSERT INTO temp.cmp_groups
SELECT 4, side, name, NULL, count(*), sum(gpu), 1.0 * sum(gpu) / count(*), median(gpu), NULL
FROM per GROUP BY side, name;

-- Statement 7: the rows of the four tables: both sides of a group matched, judged and ranked (regressed,
-- new, gone, improved, unchanged; the largest change of total first).
DROP TABLE IF EXISTS temp.cmp_rows;
CREATE TEMP TABLE cmp_rows AS
WITH keys AS (SELECT DISTINCT tbl, name, style FROM temp.cmp_groups),
matched AS (
	SELECT k.tbl, k.name, k.style, b.calls AS bc, b.total_ns AS bt, b.avg_ns AS ba, b.med_ns AS bm, b.bytes AS bb,
	       n.calls AS nc, n.total_ns AS nt, n.avg_ns AS na, n.med_ns AS nm, n.bytes AS nb,
	       CASE WHEN b.calls IS NULL THEN 'new' WHEN n.calls IS NULL THEN 'gone'
		    WHEN b.calls < :min_calls AND n.calls < :min_calls THEN 'unchanged'
		    WHEN n.med_ns - b.med_ns > :min_delta AND n.med_ns - b.med_ns > :threshold * b.med_ns THEN 'regressed'
		    WHEN b.med_ns - n.med_ns > :min_delta AND b.med_ns - n.med_ns > :threshold * b.med_ns THEN 'improved'
		    ELSE 'unchanged' END AS status
	FROM keys k
	LEFT JOIN temp.cmp_groups b ON b.side = 0 AND b.tbl = k.tbl AND b.name = k.name AND b.style IS k.style
	LEFT JOIN temp.cmp_groups n ON n.side = 1 AND n.tbl = k.tbl AND n.name = k.name AND n.style IS k.style
)
SELECT tbl, status, CASE status WHEN 'regressed' THEN 0 WHEN 'new' THEN 1 WHEN 'gone' THEN 2 WHEN 'improved' THEN 3
	ELSE 4 END AS rank,
       CASE WHEN bm > 0 THEN 100.0 * (nm - bm) / bm END AS delta_pct, nm - bm AS delta_ns,
       bm AS base_med_ns, nm AS new_med_ns, ba AS base_avg_ns, na AS new_avg_ns, bt AS base_total_ns,
       nt AS new_total_ns, CASE WHEN bt > 0 AND nt IS NOT NULL THEN 100.0 * (nt - bt) / bt END AS total_delta_pct,
       coalesce(bc, 0) AS base_calls, coalesce(nc, 0) AS new_calls, bb AS base_bytes, nb AS new_bytes, style, name,
       abs(coalesce(nt, 0) - coalesce(bt, 0)) AS change
FROM matched;

-- Statement 8: the verdict line, the first table's title (a heading statement): "2 regressed, 1 improved, 1 new, 1 gone; total
-- kernel time +3.2% (12.300 ms -> 12.700 ms); ranges 1 regressed, 2 new; copies unchanged: FAIL" (a part
-- per other table that has rows, naming only the statuses that occur; FAIL when anything regressed).
WITH counts(tbl, status, n) AS (
	SELECT t.tbl, s.status, (SELECT count(*) FROM temp.cmp_rows r WHERE r.tbl = t.tbl AND r.status = s.status)
	FROM (SELECT 0 AS tbl UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4) t,
	     (SELECT 'regressed' AS status UNION ALL SELECT 'improved' UNION ALL SELECT 'new' UNION ALL SELECT 'gone') s
),
total(base, now) AS (
	SELECT coalesce(sum(base_total_ns), 0), coalesce(sum(new_total_ns), 0) FROM temp.cmp_rows WHERE tbl = 0
),
fmt(base, now) AS (
	SELECT CASE WHEN abs(base) < 1e3 THEN printf('%.0f ns', base) WHEN abs(base) < 1e6 THEN printf('%.3f us', base / 1e3)
		    WHEN abs(base) < 1e9 THEN printf('%.3f ms', base / 1e6) ELSE printf('%.3f s', base / 1e9) END,
	       CASE WHEN abs(now) < 1e3 THEN printf('%.0f ns', now) WHEN abs(now) < 1e6 THEN printf('%.3f us', now / 1e3)
		    WHEN abs(now) < 1e9 THEN printf('%.3f ms', now / 1e6) ELSE printf('%.3f s', now / 1e9) END
	FROM total
),
parts(tbl, text) AS (
	SELECT tbl, coalesce(' ' || nullif(substr(
		CASE WHEN sum(n * (status = 'regressed')) > 0 THEN ', ' || sum(n * (status = 'regressed')) || ' regressed' ELSE '' END
		|| CASE WHEN sum(n * (status = 'improved')) > 0 THEN ', ' || sum(n * (status = 'improved')) || ' improved' ELSE '' END
		|| CASE WHEN sum(n * (status = 'new')) > 0 THEN ', ' || sum(n * (status = 'new')) || ' new' ELSE '' END
		|| CASE WHEN sum(n * (status = 'gone')) > 0 THEN ', ' || sum(n * (status = 'gone')) || ' gone' ELSE '' END,
		3), ''), ' unchanged')
	FROM counts WHERE tbl > 0 GROUP BY tbl
)
SELECT 'Kernels against the baseline: '
       || printf('%d regressed, %d improved, %d new, %d gone; total kernel time %s (%s -> %s)',
		 (SELECT n FROM counts WHERE tbl = 0 AND status = 'regressed'),
		 (SELECT n FROM counts WHERE tbl = 0 AND status = 'improved'),
		 (SELECT n FROM counts WHERE tbl = 0 AND status = 'new'),
		 (SELECT n FROM counts WHERE tbl = 0 AND status = 'gone'),
		 (SELECT CASE WHEN base > 0 THEN printf('%+.1f%%', 100.0 * (now - base) / base) ELSE 'n/a' END FROM total),
		 (SELECT base FROM fmt), (SELECT now FROM fmt))
       || coalesce((SELECT '; ranges' || text FROM parts WHERE tbl = 1 AND EXISTS (SELECT 1 FROM temp.cmp_rows WHERE tbl = 1)), '')
       || coalesce((SELECT '; copies' || text FROM parts WHERE tbl = 2 AND EXISTS (SELECT 1 FROM temp.cmp_rows WHERE tbl = 2)), '')
       || coalesce((SELECT '; API calls' || text FROM parts WHERE tbl = 3 AND EXISTS (SELECT 1 FROM temp.cmp_rows WHERE tbl = 3)), '')
       || coalesce((SELECT '; ops' || text FROM parts WHERE tbl = 4 AND EXISTS (SELECT 1 FROM temp.cmp_rows WHERE tbl = 4)), '')
       || CASE WHEN EXISTS (SELECT 1 FROM temp.cmp_rows WHERE status = 'regressed') THEN ': FAIL' ELSE ': ok' END
	AS _title;

-- Statements 9 to 13: the five tables, each cut to --top.
SELECT status, delta_pct, delta_ns, base_med_ns, new_med_ns, base_avg_ns, new_avg_ns, base_total_ns, new_total_ns,
       total_delta_pct, base_calls, new_calls, name
FROM temp.cmp_rows WHERE tbl = 0 ORDER BY rank, change DESC, name LIMIT :top;

SELECT status, delta_pct, delta_ns, base_med_ns, new_med_ns, base_avg_ns, new_avg_ns, base_total_ns, new_total_ns,
       total_delta_pct, base_calls, new_calls, style, name
FROM temp.cmp_rows WHERE tbl = 1 ORDER BY rank, change DESC, name, style LIMIT :top;

SELECT status, delta_pct, delta_ns, base_med_ns, new_med_ns, base_avg_ns, new_avg_ns, base_total_ns, new_total_ns,
       total_delta_pct, base_calls, new_calls, base_bytes, new_bytes, name
FROM temp.cmp_rows WHERE tbl = 2 ORDER BY rank, change DESC, name LIMIT :top;

SELECT status, delta_pct, delta_ns, base_med_ns, new_med_ns, base_avg_ns, new_avg_ns, base_total_ns, new_total_ns,
       total_delta_pct, base_calls, new_calls, name
FROM temp.cmp_rows WHERE tbl = 3 ORDER BY rank, change DESC, name LIMIT :top;

SELECT status, delta_pct, delta_ns, base_med_ns, new_med_ns, base_avg_ns, new_avg_ns, base_total_ns, new_total_ns,
       total_delta_pct, base_calls, new_calls, name
FROM temp.cmp_rows WHERE tbl = 4 ORDER BY rank, change DESC, name LIMIT :top;

-- Statement 14: energy (analyze/views.sql's temp.energy_steps, as the energy analysis computes it): each
-- side's NVML samples, the GPU's node by its host and rank as gpu_nodes numbers them; per device (summed
-- over nodes) and in all (name 'all'): joules, average power over the sampled span, and the change. No
-- status: energy informs, the gate judges times. No rows when neither side has power or energy samples.
DELETE FROM temp.energy_input;
INSERT INTO temp.energy_input (side, node, device, pid, ts_ns, energy_mj, power_mw)
SELECT 0, coalesce(p.node, 0), m.device_id, m.pid, m.ts_ns, m.energy_mj, m.power_mw
FROM base.device_metrics m
LEFT JOIN (SELECT pid, dense_rank() OVER (ORDER BY hostname, rank) - 1 AS node FROM base.processes
	   WHERE session_id = :base_session) p ON p.pid = m.pid
WHERE m.session_id = :base_session AND (m.energy_mj IS NOT NULL OR m.power_mw IS NOT NULL)
UNION ALL
SELECT 1, coalesce(g.node, 0), m.device_id, m.pid, m.ts_ns, m.energy_mj, m.power_mw
FROM main.device_metrics m LEFT JOIN temp.gpu_nodes g ON g.session_id = m.session_id AND g.pid = m.pid
WHERE m.session_id = :session AND (m.energy_mj IS NOT NULL OR m.power_mw IS NOT NULL)
ORDER BY 1, 2, 3, 4, 5;
WITH per AS (
	SELECT side, node, device, sum(j) AS joules, min(t0) AS t0, max(t1) AS t1 FROM temp.energy_steps
	GROUP BY side, node, device
),
-- The average power over the span the samples cover, first to last, as the energy analysis takes it.
dev AS (
	SELECT 0 AS all_row, device, side, sum(joules) AS joules, max(t1) - min(t0) AS span_ns FROM per
	GROUP BY device, side
	UNION ALL
	SELECT 1, NULL, side, sum(joules), max(t1) - min(t0) FROM per GROUP BY side
),
both AS (
	SELECT all_row, device, max(CASE WHEN side = 0 THEN joules END) AS base_joules,
	       max(CASE WHEN side = 1 THEN joules END) AS new_joules,
	       max(CASE WHEN side = 0 AND span_ns > 0 THEN joules * 1e9 / span_ns END) AS base_avg_w,
	       max(CASE WHEN side = 1 AND span_ns > 0 THEN joules * 1e9 / span_ns END) AS new_avg_w
	FROM dev GROUP BY all_row, device
)
SELECT CASE WHEN all_row THEN 'all' ELSE 'GPU ' || device END AS name, base_joules, new_joules,
       new_joules - base_joules AS delta_joules,
       CASE WHEN base_joules > 0 THEN 100.0 * (new_joules - base_joules) / base_joules END AS delta_pct,
       base_avg_w, new_avg_w
FROM both ORDER BY all_row, device;
