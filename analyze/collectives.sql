-- analysis: collectives
-- title: NCCL/RCCL collectives matched across ranks: operations, time, start skew
-- include: comm
-- section: 27 top 20 multi-gpu
-- table: collectives Collectives matched across ranks: operations, time and start skew
-- column: name text "Collective" the collective's kernel name without parameters
-- column: ops count operations (the i-th kernel of the name on each GPU is one)
-- column: ranks count GPUs that ran it
-- column: total_ns ns summed time of every GPU's kernels of the name
-- column: med_ns ns their median
-- column: max_skew_ns ns the largest start skew of an operation
-- column: matched count "Matched ops" operations seen on two GPUs or more
-- column: wait_ns ns "Waited" time GPUs waited for the last one to arrive, summed
--
-- collectives: the communication kernels (NCCL, RCCL) matched across GPUs into operations (comm.sql, run
-- first, says how), per collective name: ops counts operations, not kernels (the i-th of a name on each
-- GPU is one), ranks the GPUs that ran it; total_ns and med_ns are over every GPU's kernels of the name;
-- max_skew_ns the largest skew of an operation (its last GPU's start minus its first's). Busiest first.
SELECT (SELECT c.name FROM temp.name_classes c WHERE c.id = k.name) AS name, count(DISTINCT k.i) AS ops, count(DISTINCT k.node || ':' || k.device) AS ranks,
       sum(k.dur_ns) AS total_ns, median(k.dur_ns) AS med_ns,
       (SELECT max(o.last_ns - o.first_ns) FROM comm_ops o WHERE o.name = k.name AND o.gpus > 1) AS max_skew_ns,
       (SELECT count(*) FROM comm_ops o WHERE o.name = k.name AND o.gpus > 1) AS matched,
       (SELECT sum(o.waited_ns) FROM comm_ops o WHERE o.name = k.name AND o.gpus > 1) AS wait_ns
FROM comm_kernels k
GROUP BY k.name
ORDER BY total_ns DESC, 1
LIMIT :top;
