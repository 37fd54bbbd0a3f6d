-- analysis: kernexec
-- title: Kernel launch pipeline per name (nsys cuda_kern_exec_sum): API, queue and kernel time; queue growth
-- section: 8 top 10
-- table: kernexec Kernel launch pipeline per name: API time, queue time, kernel time
-- column: calls count kernels of the name
-- column: launched count those whose launch call was recorded
-- column: qcount count "QCount" those with a positive queue time
-- column: api_avg_ns ns "API avg" the launch call's mean duration
-- column: api_med_ns ns "API med" its median
-- column: api_min_ns ns "API min" its shortest
-- column: api_max_ns ns "API max" its longest
-- column: queue_avg_ns ns mean queue time (launch call's end to kernel start), positive ones
-- column: queue_med_ns ns median queue time
-- column: queue_min_ns ns shortest queue time
-- column: queue_max_ns ns longest queue time
-- column: queue_p90_ns ns 90th percentile of the queue time
-- column: queue_p99_ns ns 99th percentile of the queue time
-- column: kernel_avg_ns ns the kernels' mean duration
-- column: kernel_med_ns ns their median
-- column: kernel_min_ns ns their shortest
-- column: kernel_max_ns ns their longest
-- column: name text the name as shown (short with --short, its family with --group)
-- table: kernexec_queue Queue time of every kernel (launch call's end to kernel start), by size and quarter
-- column: queue text "Queue time" a range of queue times
-- column: kernels count kernels in it
-- column: pct pct "%" their share of the kernels shown, %
-- column: q1 count "1st quarter" of them in the session's first quarter
-- column: q2 count "2nd" in the second
-- column: q3 count "3rd" in the third
-- column: q4 count "4th" in the fourth
-- table: kernexec_trend Launch queue over the session, by quarter (wait: queue time, 0 when none)
-- column: quarter int 1 to 4, by kernel start
-- column: start_ns time "From" when the quarter starts
-- column: kernels count kernels that started in it
-- column: launched count those whose launch call was recorded
-- column: queued count "Waited" those that waited (positive queue time)
-- column: wait_med_ns ns median wait (queue time, 0 when none)
-- column: wait_p90_ns ns 90th percentile of the wait
-- column: wait_max_ns ns longest wait
--
-- kernexec: the launch pipeline per kernel name, as Nsight Systems' cuda_kern_exec_sum report breaks it
-- down (it groups by process, thread, device and launching API as well; here per name, and per family
-- with --short or --group), then how long kernels waited in the launch queue over the whole session.
--
-- Definitions (nsys's, Post-Collection Analysis Guide, cuda_kern_exec_sum):
--   launch call  the API call that launched the kernel: the first API call (api_calls) with the kernel's
--                process and correlation id, in table order (as ranges and kernel_windows find it; an old
--                nsys export can hold a call twice, cudaLaunchKernel and cudaLaunchKernel_v7000). A kernel
--                with correlation id 0 or NULL, or whose call was not recorded, has none: it counts in
--                calls and the kernel statistics, not in launched, the API or the queue statistics (the
--                table's note says how many there are).
--   API time     the launch call's duration (end - start).
--   queue time   the kernel's start minus the end of its launch call. The kernel is enqueued somewhere
--                inside the call, so it may start before the call returns: such a queue time is zero or
--                negative and, as nsys reports it, no queue time at all. The queue statistics (avg, med,
--                min, max, p90, p99) are over the kernels with a positive queue time only, qcount of them
--                (nsys's QCount; launched - qcount started before their call returned).
--   kernel time  end - start of the kernel, over every kernel of the name.
-- Median is the mean of the two middle values for even counts; p90 and p99 interpolate between the closest
-- ranks (percentile). A queue is no fault in itself: kernels wait when the GPU is busy with earlier work
-- (the CPU runs ahead), and a GPU that never makes a kernel wait may be idle, waiting for launches.
--
-- Tables: per name (sorted by summed kernel time, --top N of them); the queue times of all kernels shown by
-- size; and the session's four quarters (by kernel start time, from the first kernel's start to the last's)
-- with the median wait in each, where wait is the queue time with 0 for a kernel that did not wait: a wait
-- that grows from the first quarter to the last means the GPU falls further behind the launches.
-- --match and --exclude filter kernel names (all three tables).
--
-- Where C does the work: kernel_exec_summary (analyze/ext/sqlext_exec.c) joins each kernel to its launch call by a
-- hash and groups the names and the quarters in C, once (statement 2 keeps its rows); with --short or
-- --group, names fold into families and the per-family table groups kernel_exec's rows in SQL (slower: a
-- sorter and twenty aggregates a kernel).
--
-- Statement 1: the names --match and --exclude let through, as shown (short with --short, then the first
-- --group whose expression matches), each with its family key (its first string id when folded).
DROP TABLE IF EXISTS temp.exec_names;
CREATE TEMP TABLE exec_names(id INTEGER PRIMARY KEY, key INTEGER, name TEXT);
WITH names(id, shown) AS (
	SELECT id, CASE WHEN :folded
		THEN coalesce((SELECT g.name FROM temp.name_groups g WHERE n REGEXP g.pattern ORDER BY g.ord LIMIT 1), n)
		ELSE n END
	FROM (SELECT id, value, CASE WHEN :short THEN short_name(value) ELSE value END AS n
	      FROM strings
	      WHERE session_id = :session
		AND (:match IS NULL OR value REGEXP :match) AND (:exclude IS NULL OR NOT value REGEXP :exclude))
)
INSERT INTO temp.exec_names SELECT id, CASE WHEN :folded THEN min(id) OVER (PARTITION BY shown) ELSE id END, shown
FROM names;

-- Statement 2: the summary, computed once for the tables below.
DROP TABLE IF EXISTS temp.exec_summary;
CREATE TEMP TABLE exec_summary AS SELECT * FROM kernel_exec_summary(:session, :match, :exclude);

-- Statement 3: per name (family). Names as they are come from the summary; families group kernel_exec's
-- rows by key through SQLite's sorter. The note counts the kernels without a launch call.
WITH k AS (
	SELECT e.name_id, e.dur_ns, e.api_ns, CASE WHEN e.queue_ns > 0 THEN e.queue_ns END AS q
	FROM kernel_exec e WHERE :folded AND e.session_id = :session
),
per(key, calls, launched, qcount, api_avg, api_med, api_min, api_max, q_avg, q_med, q_min, q_max, q_p90, q_p99,
    k_total, k_avg, k_med, k_min, k_max) AS (
	SELECT name_id, calls, launched, qcount, api_avg_ns, api_med_ns, api_min_ns, api_max_ns, queue_avg_ns,
	       queue_med_ns, queue_min_ns, queue_max_ns, queue_p90_ns, queue_p99_ns, kernel_total_ns, kernel_avg_ns,
	       kernel_med_ns, kernel_min_ns, kernel_max_ns
	FROM temp.exec_summary WHERE NOT :folded AND kind = 'name' AND name_id IN (SELECT id FROM temp.exec_names)
	UNION ALL
	SELECT n.key, count(*), count(api_ns), count(q), avg(api_ns), median(api_ns), min(api_ns), max(api_ns), avg(q),
	       median(q), min(q), max(q), percentile(q, 90), percentile(q, 99), sum(dur_ns), avg(dur_ns),
	       median(dur_ns), min(dur_ns), max(dur_ns)
	FROM k JOIN temp.exec_names n ON n.id = k.name_id
	GROUP BY n.key
),
noted AS (
	SELECT sum(calls) AS kernels, sum(calls - launched) AS unlaunched, sum(launched - qcount) AS unqueued FROM per
)
SELECT calls, launched, qcount, api_avg AS api_avg_ns, api_med AS api_med_ns, api_min AS api_min_ns,
       api_max AS api_max_ns, q_avg AS queue_avg_ns, q_med AS queue_med_ns, q_min AS queue_min_ns,
       q_max AS queue_max_ns, q_p90 AS queue_p90_ns, q_p99 AS queue_p99_ns, k_avg AS kernel_avg_ns,
       k_med AS kernel_med_ns, k_min AS kernel_min_ns, k_max AS kernel_max_ns,
       (SELECT n.name FROM temp.exec_names n WHERE n.id = per.key) AS name,
       (SELECT CASE WHEN unlaunched > 0
		THEN printf('%d of %d kernels have no launch call (not traced, or no correlation id): counted in calls and the kernel times, not in launched, API or queue times. ',
			    unlaunched, kernels) ELSE '' END
	       || printf('Queue times count the %d kernels that waited (qcount, as nsys''s QCount); %d started before their launch call returned (no queue time).',
			 kernels - unlaunched - unqueued, unqueued)
	FROM noted) AS _note
FROM per
ORDER BY k_total DESC, name
LIMIT :top;

-- Statement 4: the queue times of every kernel shown, by size (log buckets), with how many fell in each
-- quarter of the session.
WITH buckets(bucket, label) AS (VALUES
	(0, 'no launch call'), (1, 'none: started before its call returned'), (2, 'under 1 us'), (3, '1 us to 10 us'),
	(4, '10 us to 100 us'), (5, '100 us to 1 ms'), (6, '1 ms to 10 ms'), (7, '10 ms or more')
),
counts AS (
	SELECT bucket, sum(n) AS n, sum(CASE quarter WHEN 1 THEN n ELSE 0 END) AS q1,
	       sum(CASE quarter WHEN 2 THEN n ELSE 0 END) AS q2, sum(CASE quarter WHEN 3 THEN n ELSE 0 END) AS q3,
	       sum(CASE quarter WHEN 4 THEN n ELSE 0 END) AS q4
	FROM temp.exec_summary WHERE kind = 'quarter' GROUP BY bucket
)
SELECT b.label AS queue, c.n AS kernels, 100.0 * c.n / (SELECT sum(n) FROM counts) AS pct, c.q1, c.q2, c.q3, c.q4
FROM buckets b JOIN counts c ON c.bucket = b.bucket
ORDER BY b.bucket;

-- Statement 5: per quarter of the session, the kernels, the launched ones, those that waited and the wait
-- (0 for a kernel that did not wait) of the launched ones; the footer compares the first and last quarter's
-- median wait: it grows (or shrinks) when it at least doubled (halved) and moved by more than 10 us.
WITH q AS (
	SELECT quarter, min(start_ns) AS start_ns, max(kernels) AS kernels, max(quarter_launched) AS launched,
	       max(waited) AS queued, max(wait_med_ns) AS wait_med, max(wait_p90_ns) AS wait_p90, max(wait_max_ns) AS wait_max
	FROM temp.exec_summary WHERE kind = 'quarter' GROUP BY quarter
),
ends(first, last) AS (
	SELECT (SELECT wait_med FROM q WHERE quarter = 1), (SELECT wait_med FROM q WHERE quarter = 4)
),
fmt(first, last) AS (
	SELECT CASE WHEN first < 1e3 THEN printf('%.0f ns', first) WHEN first < 1e6 THEN printf('%.3f us', first / 1e3)
		    WHEN first < 1e9 THEN printf('%.3f ms', first / 1e6) ELSE printf('%.3f s', first / 1e9) END,
	       CASE WHEN last < 1e3 THEN printf('%.0f ns', last) WHEN last < 1e6 THEN printf('%.3f us', last / 1e3)
		    WHEN last < 1e9 THEN printf('%.3f ms', last / 1e6) ELSE printf('%.3f s', last / 1e9) END
	FROM ends
)
SELECT quarter, start_ns, kernels, launched, queued, wait_med AS wait_med_ns, wait_p90 AS wait_p90_ns,
       wait_max AS wait_max_ns,
       (SELECT CASE WHEN e.first IS NULL OR e.last IS NULL THEN 'launch queue: no kernel with a launch call in the first or last quarter'
		    WHEN e.last > 2 * e.first AND e.last - e.first > 10000
		    THEN 'launch queue grows: median wait ' || f.first || ' in the first quarter, ' || f.last || ' in the last (the GPU falls behind the launches)'
		    WHEN e.first > 2 * e.last AND e.first - e.last > 10000
		    THEN 'launch queue shrinks: median wait ' || f.first || ' in the first quarter, ' || f.last || ' in the last'
		    ELSE 'launch queue steady: median wait ' || f.first || ' in the first quarter, ' || f.last || ' in the last' END
	FROM ends e, fmt f) AS _footer
FROM q
ORDER BY quarter;
