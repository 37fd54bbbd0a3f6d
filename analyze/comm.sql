-- module: comm
-- title: Communication kernels of every GPU matched across GPUs into operations
-- include: views
--
-- comm: what the analyses ranks and collectives share, run before each one's own file (they include it):
-- the communication kernels of every GPU, matched across GPUs into operations.
--
-- Rules:
-- * A participant is a GPU: (node, device), a node being a (host, rank) of the session (views.sql). A
--   Kineto rank has one; a host of a gpuprof or Nsight Systems session has its GPUs.
-- * Communication kernels are the names the class rules (classes.sql: analyze/kernel-classes.rules, or
--   GPUPROF_CLASS_RULES) put in class `communication`: NCCL's and RCCL's. A collective's name is its
--   kernel's name without the parameter list (comm_kernels.name holds its first string id, cid).
-- * The i-th kernel of a name on one GPU (by start) and the i-th of that name on every other GPU are one
--   operation: ranks launch the same collectives in the same order. The traces name no process group in
--   what gpuprof keeps, so collectives of two groups with one kernel name count as one series.
-- * An operation seen on two GPUs or more is matched: its skew is the last start minus the first; each
--   GPU waited for the last one to arrive (the last start minus its own), and the last (every GPU that
--   started at the latest start, when the skew is above 0) arrived last.
-- The tables stay on the connection for its next analysis of the same session (a report runs both):
-- comm_key says which session, database version (gpuprof_data_version: any commit changes it) and class
-- rules they were made from, and valid whether that is still so; else they are made again.
CREATE TEMP TABLE IF NOT EXISTS comm_key(session_id INTEGER, version INTEGER, rules TEXT, valid INTEGER);
INSERT INTO comm_key SELECT NULL, NULL, NULL, 0 WHERE NOT EXISTS (SELECT 1 FROM comm_key);
UPDATE comm_key
SET valid = session_id IS :session AND version IS now.v AND now.v >= 0 AND rules IS :class_rules,
    session_id = :session, version = now.v, rules = :class_rules
FROM (SELECT gpuprof_data_version() AS v) AS now;

-- Every name's class (the first rule that matches it, else compute), for ranks' kernel_busy too.
CREATE TEMP TABLE IF NOT EXISTS name_classes(id INTEGER PRIMARY KEY, class TEXT, name TEXT, cid INTEGER);
DELETE FROM name_classes WHERE NOT (SELECT valid FROM comm_key);
INSERT INTO name_classes
WITH rules AS MATERIALIZED (
	SELECT ord, class, pattern FROM class_rules(:class_rules, :class_rules_file)
),
named AS (
	SELECT id, coalesce((SELECT r.class FROM rules r WHERE s.value REGEXP r.pattern ORDER BY r.ord LIMIT 1),
			    'compute') AS class,
	       CASE WHEN instr(value, '(') > 1 THEN rtrim(substr(value, 1, instr(value, '(') - 1)) ELSE value END AS name
	FROM strings s
	WHERE session_id = :session
)
-- cid: one id per collective name (its first string's), so that what follows compares integers.
SELECT id, class, name, min(id) OVER (PARTITION BY name) FROM named
LIMIT (SELECT CASE WHEN valid THEN 0 ELSE -1 END FROM comm_key);	-- kept: not even read

CREATE TEMP TABLE IF NOT EXISTS comm_kernels(node INTEGER, device INTEGER, name INTEGER, i INTEGER, start_ns INTEGER, dur_ns INTEGER);
DELETE FROM comm_kernels WHERE NOT (SELECT valid FROM comm_key);
INSERT INTO comm_kernels
WITH nodes AS MATERIALIZED (
	SELECT pid, node FROM temp.gpu_nodes WHERE session_id = :session
),
comm AS MATERIALIZED (
	SELECT id, cid FROM temp.name_classes WHERE class = 'communication'
),
-- kernels_of (analyze/ext/sqlext_classes.c) is kernel_columns WHERE name_id IN (comm), without decoding the
-- column chunks again when a report keeps the kernels' columns (tests/vtab.py checks both agree).
k AS (
	SELECT coalesce(g.node, 0) AS node, k.device_id AS device, c.cid AS name, k.start_ns, k.end_ns - k.start_ns AS dur_ns
	FROM kernels_of((SELECT json_group_array(id) FROM comm)) k JOIN comm c ON c.id = k.name_id
	LEFT JOIN nodes g ON g.pid = k.pid
	WHERE k.session_id = :session
)
SELECT node, device, name, row_number() OVER (PARTITION BY node, device, name ORDER BY start_ns, dur_ns) - 1,
       start_ns, dur_ns
FROM k
LIMIT (SELECT CASE WHEN valid THEN 0 ELSE -1 END FROM comm_key);

-- Per operation: the GPUs that ran it, the first and last start, and the summed wait of all of them.
CREATE TEMP TABLE IF NOT EXISTS comm_ops(name INTEGER, i INTEGER, gpus INTEGER, first_ns INTEGER, last_ns INTEGER, waited_ns INTEGER,
			   PRIMARY KEY (name, i));
DELETE FROM comm_ops WHERE NOT (SELECT valid FROM comm_key);
INSERT INTO comm_ops
SELECT name, i, count(*), min(start_ns), max(start_ns), count(*) * max(start_ns - t0) - sum(start_ns - t0)
FROM comm_kernels, (SELECT min(start_ns) AS t0 FROM comm_kernels)	-- (epoch times summed would overflow)
GROUP BY name, i
LIMIT (SELECT CASE WHEN valid THEN 0 ELSE -1 END FROM comm_key);

-- Per GPU: its matched operations, its wait, how often it came last and how long the others waited for it
-- then (caused_ns: at each operation it came last, the others' waits).
CREATE TEMP TABLE IF NOT EXISTS comm_gpus(node INTEGER, device INTEGER, matched INTEGER, wait_ns INTEGER, last_arrivals INTEGER,
			    caused_ns INTEGER, PRIMARY KEY (node, device));
DELETE FROM comm_gpus WHERE NOT (SELECT valid FROM comm_key);
INSERT INTO comm_gpus
SELECT k.node, k.device, count(*), sum(o.last_ns - k.start_ns),
       sum(o.last_ns > o.first_ns AND k.start_ns = o.last_ns),
       sum(CASE WHEN o.last_ns > o.first_ns AND k.start_ns = o.last_ns THEN o.waited_ns ELSE 0 END)
FROM comm_kernels k JOIN comm_ops o ON o.name = k.name AND o.i = k.i
WHERE o.gpus > 1
GROUP BY k.node, k.device
LIMIT (SELECT CASE WHEN valid THEN 0 ELSE -1 END FROM comm_key);
