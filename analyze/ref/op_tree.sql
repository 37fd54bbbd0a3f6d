-- reference: op_tree
-- title: The PyTorch operator tree of a session (:session): owners, GPU time, children's time, FLOPs
-- accelerator: SELECT kind, id, owner, pid, corr, gpu_self_ns, gpu_total_ns, kids_ns, flops, counted FROM op_tree(:session) ORDER BY 1, 2, 3
-- What the C table op_tree (analyze/ext/sqlext_ops.c, whose header defines each column) computes, in SQL
-- over the generic primitives op_nest (the nesting walk) and op_flops: the walk of the ops and runtime
-- calls, the first call of each (pid, correlation id), the GPU events' durations per op and summed up its
-- ancestors, the children's CPU time, each op's FLOPs and whether it counts (no op below has any), and the
-- ops that launched a kernel or count FLOPs with each of their ancestors (kind 2). Temp tables: w, c, kc,
-- g, up, gs, gt, kd, fl, cnt.
-- Speed-up: on a 200,000-kernel gpuprof-synth --ops session (430,000 ops) the C file's header measured this
-- SQL without the flops steps at 4.7 s against the C table's 0.56 s of CPU (8x); with them (fl, cnt), one run
-- under load (~10 on 2 shared cores, 2026-11-28) had not finished after 14 min, while SELECT count(*) FROM
-- op_tree(1) took 7.2 s there (over 100x).
CREATE TEMP TABLE w AS SELECT kind, id, op_nest(kind, id, start_ns, end_ns) OVER (PARTITION BY pid, thread_id ORDER BY start_ns, kind,
 end_ns DESC, ord, id ROWS UNBOUNDED PRECEDING) AS owner, pid, corr, start_ns, end_ns FROM (
 SELECT 0 AS kind, rowid AS id, pid, thread_id, start_ns, end_ns, coalesce(external_id, 0) AS ord, NULL AS corr FROM ops WHERE session_id = :session
 UNION ALL SELECT 1, rowid, pid, thread_id, start_ns, start_ns, 0, correlation_id FROM api_calls
 WHERE session_id = :session AND correlation_id IS NOT NULL AND EXISTS (SELECT 1 FROM ops WHERE session_id = :session));
CREATE TEMP TABLE c(pid, corr, op, PRIMARY KEY (pid, corr)) WITHOUT ROWID;
INSERT OR IGNORE INTO c SELECT pid, corr, owner FROM w WHERE kind = 1 ORDER BY id;
CREATE TEMP TABLE kc AS SELECT pid, correlation_id, start_ns, end_ns FROM kernel_columns WHERE session_id = :session;
CREATE TEMP TABLE g AS SELECT c.op, k.end_ns - k.start_ns AS ns, 1 AS kernel FROM kc k JOIN c ON c.pid = k.pid AND c.corr = k.correlation_id
 UNION ALL SELECT c.op, m.end_ns - m.start_ns, 0 FROM memcpys m JOIN c ON c.pid = m.pid AND c.corr = m.correlation_id WHERE m.session_id = :session
 UNION ALL SELECT c.op, m.end_ns - m.start_ns, 0 FROM memsets m JOIN c ON c.pid = m.pid AND c.corr = m.correlation_id WHERE m.session_id = :session;
CREATE INDEX w_id ON w(kind, id);
CREATE TEMP TABLE up AS WITH RECURSIVE up(op, anc) AS (SELECT id, id FROM w WHERE kind = 0 UNION ALL
 SELECT up.op, w.owner FROM up JOIN w ON w.kind = 0 AND w.id = up.anc WHERE w.owner IS NOT NULL) SELECT * FROM up;
CREATE INDEX up_anc ON up(anc); CREATE INDEX g_op ON g(op); CREATE INDEX w_owner ON w(kind, owner);
CREATE TEMP TABLE gs(op INTEGER PRIMARY KEY, ns); INSERT INTO gs SELECT op, sum(ns) FROM g WHERE op IS NOT NULL GROUP BY op;
CREATE TEMP TABLE gt(op INTEGER PRIMARY KEY, ns); INSERT INTO gt SELECT up.anc, sum(gs.ns) FROM up JOIN gs ON gs.op = up.op GROUP BY up.anc;
CREATE TEMP TABLE kd(op INTEGER PRIMARY KEY, ns); INSERT INTO kd SELECT owner, sum(end_ns - start_ns) FROM w WHERE kind = 0 AND owner IS NOT NULL GROUP BY owner;
CREATE TEMP TABLE fl(op INTEGER PRIMARY KEY, flops); INSERT INTO fl SELECT o.rowid, op_flops(n.value, o.input_dims,
 o.concrete_inputs) FROM ops o JOIN strings n ON n.session_id = o.session_id AND n.id = o.name_id WHERE o.session_id = :session;
CREATE TEMP TABLE cnt(op INTEGER PRIMARY KEY); INSERT INTO cnt SELECT fl.op FROM fl WHERE fl.flops IS NOT NULL AND NOT EXISTS
 (SELECT 1 FROM up JOIN fl d ON d.op = up.op WHERE up.anc = fl.op AND up.op <> fl.op AND d.flops IS NOT NULL);
SELECT w.kind, w.id, w.owner, w.pid, w.corr,
 CASE WHEN w.kind = 0 THEN coalesce((SELECT ns FROM gs WHERE gs.op = w.id), 0) END,
 CASE WHEN w.kind = 0 THEN coalesce((SELECT ns FROM gt WHERE gt.op = w.id), 0) END,
 CASE WHEN w.kind = 0 THEN coalesce((SELECT ns FROM kd WHERE kd.op = w.id), 0) END,
 CASE WHEN w.kind = 0 THEN (SELECT flops FROM fl WHERE fl.op = w.id) END,
 CASE WHEN w.kind = 0 THEN EXISTS (SELECT 1 FROM cnt WHERE cnt.op = w.id) END
FROM w
UNION ALL SELECT 2, up.op, up.anc, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM up
 WHERE EXISTS (SELECT 1 FROM g WHERE g.op = up.op AND g.kernel) OR EXISTS (SELECT 1 FROM cnt WHERE cnt.op = up.op)
ORDER BY 1, 2, 3;
