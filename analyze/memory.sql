-- memory, leaks, peak and growth: GPU memory from allocation events (computed in C, memory.c).
-- Statement 1: every allocation and free, in time order (address NULL where the source gave none).
SELECT pid, coalesce(device_id, -1), address, ts_ns, op, bytes, site_id, coalesce(mem_kind, 0),
       coalesce(pc, 0), total_allocated
FROM memory_events WHERE session_id = :session ORDER BY ts_ns, rowid;

-- Statement 2: a string by id (allocation sites).
SELECT value FROM strings WHERE session_id = :session AND id = :id;

-- Statement 3: the innermost range open in a process at a time (an allocation site when none is known).
SELECT n.value FROM ranges r JOIN strings n ON n.session_id = r.session_id AND n.id = r.name_id
WHERE r.session_id = :session AND r.pid = :pid AND r.kind <> 3 AND r.start_ns <= :ts
  AND (r.end_ns IS NULL OR r.end_ns > :ts)
ORDER BY r.start_ns DESC LIMIT 1;

-- Statement 4: iteration ends (ranges such as ProfilerStep#N or step), for the growth verdict.
SELECT r.end_ns FROM ranges r JOIN strings n ON n.session_id = r.session_id AND n.id = r.name_id
WHERE r.session_id = :session AND r.end_ns IS NOT NULL AND r.kind <> 3 AND n.value REGEXP :iter
ORDER BY r.end_ns;

-- Statement 5: without allocation events, the devices' used-memory samples.
SELECT device_id, ts_ns, mem_used FROM device_metrics
WHERE session_id = :session AND mem_used IS NOT NULL ORDER BY device_id, ts_ns;

-- Statement 6: memory kind names.
SELECT coalesce((SELECT name FROM memory_kinds WHERE id = :id), 'kind ' || :id);
